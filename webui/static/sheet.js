// The score sheet (live page panel and the full sheet page): rendering, undo, new match.
"use strict";

const Sheet = {
  async load(target, opts) {
    try {
      const m = await api("/api/matches/current");
      Sheet.render(target, m, opts || {});
      return m;
    } catch (e) {
      clear(target);
      if (e.status === 404) {
        target.append(el("p", { class: "muted", text: "No match yet. Start one to record wins." }), Sheet.newForm(target, opts));
      } else {
        target.append(el("p", { class: "error", text: e.message }));
      }
      return null;
    }
  },

  render(target, m, opts) {
    clear(target);
    const players = m.players;
    const head = el("tr", {}, el("th", { class: "no", text: "#" }), el("th", { text: "hand" }),
      el("th", { class: "result", text: "result" }),
      players.map((p) => el("th", { class: "num", title: `${p} (${m.seats[p]})` },
        el("span", { class: "who", text: p }), " ", el("span", { class: "wind", text: `(${m.seats[p]})` }))));
    const rows = [];
    const start = m.hands.length ? players.map((p) => m.hands[0].totals[p] - m.hands[0].changes[p])
      : players.map((p) => m.points[p] + (m.in_hand_payments || []).reduce((n, t) =>
          n + (t.from === p ? t.amount : 0) - (t.to === p ? t.amount : 0), 0));
    rows.push(el("tr", {}, el("td", { class: "no", text: "0" }), el("td", { text: "start" }), el("td", { class: "result", text: "" }),
      players.map((p, i) => el("td", { text: fmt(start[i]) }))));
    const hands = opts.compact ? m.hands.slice(-4) : m.hands;
    for (const h of hands) {
      // on a phone the result column gives way to a line under the hand's name: every player's column fits
      rows.push(el("tr", { "data-hand": h.number }, el("td", { class: "no", text: String(h.number) }),
        el("td", {}, h.label, el("small", { class: "result-inline", text: h.result })),
        el("td", { class: "result", text: h.result }),
        players.map((p) => el("td", {}, fmt(h.totals[p]), el("br"), el("small", { text: `(${signed(h.changes[p])})` })))));
    }
    if (m.in_hand_payments && m.in_hand_payments.length) {
      rows.push(el("tr", {}, el("td", { text: "" }), el("td", { text: m.hand }), el("td", { class: "result", text: "in progress" }),
        players.map((p) => el("td", { text: fmt(m.points[p]) }))));
    }
    const table = el("table", { class: "sheet", id: "sheet-table" }, el("thead", {}, head), el("tbody", {}, rows));
    const info = el("p", { class: "muted" },
      `Match ${m.match} — ${m.variant}, next: ${m.hand}, dealer ${m.dealer}` + (m.sticks ? `, ${m.sticks} riichi stick(s) on the table` : "") +
      (m.finished ? ` — finished (${m.end_reason})` : ""));
    const undo = el("button", { class: "secondary", id: "undo", disabled: !m.undo,
      onclick: async () => {
        try {
          const r = await api(`/api/matches/${m.match}/undo`, { method: "POST", json: { event: m.undo.event } });
          toast(`Undid event ${r.undone}`);
          document.dispatchEvent(new CustomEvent("match-undo", { detail: r }));
          Sheet.render(target, r.match, opts);
        } catch (e) { toast(e.message); }
      } }, m.undo ? `Undo last (${m.undo.type})` : "Nothing to undo");
    const actions = el("div", { class: "sheet-actions" }, undo,
      el("a", { href: `/api/matches/${m.match}/export.csv`, download: "" }, "CSV"),
      el("a", { href: `/api/matches/${m.match}/export.json`, download: "" }, "JSON"));
    const standings = el("p", { class: "standings" }, "Standings: ",
      m.standings.map((s) => `${s.rank}. ${s.player} ${fmt(s.points)}`).join(" · "));
    target.append(info, el("div", { class: "sheet-wrap" }, table), standings, actions);
    if (opts.withNew) target.append(el("details", {}, el("summary", { text: "Start another match" }), Sheet.newForm(target, opts)));
  },

  newForm(target, opts) {
    const players = el("input", { type: "text", name: "players", value: "Ann, Bob, Cid", "aria-label": "players, dealer first",
                                  size: 22 });
    const variant = el("select", { name: "variant", "aria-label": "rule system" },
      ["sanma", "korean-3p", "hong-kong", "three-kaki"].map((v) => el("option", { value: v, text: v })));
    const msg = el("p", { class: "form-msg" });
    const form = el("form", { class: "inline new-match", onsubmit: async (ev) => {
      ev.preventDefault();
      const names = players.value.split(",").map((s) => s.trim()).filter(Boolean);
      try {
        const m = await api("/api/matches", { method: "POST", json: { variant: variant.value, players: names } });
        toast(`Match ${m.match} started`);
        Sheet.render(target, m, opts);
      } catch (e) { msg.className = "error"; msg.textContent = e.message; }
    } },
      el("label", {}, "Players (dealer first)", players), el("label", {}, "Rule system", variant),
      el("button", { type: "submit", text: "Start match" }), msg);
    api("/api/settings").then((s) => { variant.value = s.settings.variant; }).catch(() => {});
    return form;
  },
};
