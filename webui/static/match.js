// The full score sheet page.
"use strict";

async function loadMatches() {
  const list = clear(document.getElementById("matches"));
  try {
    const r = await api("/api/matches");
    if (!r.matches.length) list.append(el("li", { class: "muted", text: "No matches in the database yet." }));
    for (const m of r.matches) {
      list.append(el("li", {}, el("button", { class: "secondary", onclick: async () => {
        await api("/api/settings", { method: "PUT", json: { match: m.id } });
        Sheet.load(document.getElementById("sheet"), { withNew: true });
      } }, `Show ${m.id}`), ` ${m.variant}: ${m.players.join(", ")} — ${m.events} events, ${m.last_time}`));
    }
  } catch (e) { list.append(el("li", { class: "error", text: e.message })); }
}

Sheet.load(document.getElementById("sheet"), { withNew: true });
loadMatches();
