// The club page: tables playing now, standings across matches, checks; live over Server-Sent Events.
"use strict";

const Club = { es: null, scopes: "" };

function clubQuery() {
  const scope = document.getElementById("club-scope").value;
  const since = document.getElementById("club-since").value;
  const q = new URLSearchParams();
  if (scope) { const [kind, name] = [scope.slice(0, scope.indexOf(":")), scope.slice(scope.indexOf(":") + 1)]; q.set(kind, name); }
  if (since) q.set("since", since);
  return q.toString();
}

function fmtScore(x) { return (x > 0 ? "+" : x < 0 ? "−" : "") + Math.abs(x).toFixed(1); }
function fmtPoints(x) { return (x < 0 ? "−" : "") + Math.abs(x).toLocaleString("en-US"); }

function renderScopes(data) {
  const key = JSON.stringify([data.leagues, data.tournaments]);
  if (key === Club.scopes) return;
  Club.scopes = key;
  const sel = document.getElementById("club-scope");
  const chosen = sel.value;
  clear(sel).append(el("option", { value: "", text: "every match" }));
  for (const l of data.leagues) sel.append(el("option", { value: `league:${l}`, text: `league: ${l}` }));
  for (const t of data.tournaments) sel.append(el("option", { value: `tournament:${t}`, text: `tournament: ${t}` }));
  sel.value = chosen;
}

function tableCard(t) {
  const players = t.players.map((p, i) => el("li", {}, el("span", { class: "who", text: p }), " ",
    el("span", { class: "num", text: fmtPoints(t.points[i]) })));
  return el("article", { class: "club-table", "aria-label": `table ${t.table || t.match}` },
    el("h3", { text: t.table || `match ${t.match}` }),
    el("p", { class: "muted small", text: [t.session, t.variant, t.league && `league ${t.league}`,
      t.tournament && `tournament ${t.tournament}`].filter(Boolean).join(" · ") }),
    el("p", { text: t.status }), el("ul", { class: "plain" }, players));
}

function standingsTable(lines) {
  const groups = {};
  for (const s of lines) (groups[s.variant] = groups[s.variant] || []).push(s);
  const out = [];
  for (const [variant, rows] of Object.entries(groups)) {
    const four = rows.some((s) => s.places[3] > 0) || variant === "hong-kong";
    const head = el("tr", {}, ["#", "player", "matches", "score", four ? "1st / 2nd / 3rd / 4th" : "1st / 2nd / 3rd",
      "avg place", "won", "dealt in"]
      .map((h, i) => el("th", { class: i >= 2 ? "num" : null, scope: "col", text: h })));
    const body = rows.map((s, i) => el("tr", {},
      el("td", { class: "num", text: String(i + 1) }), el("th", { scope: "row", text: s.player }),
      el("td", { class: "num", text: s.matches > s.finished ? `${s.matches} (${s.matches - s.finished} open)` : String(s.matches) }),
      el("td", { class: "num", text: variant === "sanma" ? fmtScore(s.score) : fmtPoints(s.score) }),
      el("td", { class: "num", text: s.places.slice(0, four ? 4 : 3).join(" / ") }),
      el("td", { class: "num", text: s.average_place.toFixed(2) }),
      el("td", { class: "num", text: String(s.hands_won) }), el("td", { class: "num", text: String(s.deal_ins) })));
    out.push(el("h3", { text: variant }), el("div", { class: "sheet-wrap" },
      el("table", { class: "standings" }, el("thead", {}, head), el("tbody", {}, body))));
  }
  return out.length ? out : [el("p", { class: "muted", text: "No matches recorded yet." })];
}

function renderClub(data) {
  renderScopes(data);
  const playing = data.tables.filter((t) => !t.finished);
  const finished = data.tables.filter((t) => t.finished);
  clear(document.getElementById("club-tables")).append(...(playing.length ? playing.map(tableCard)
    : [el("p", { class: "muted", text: "No table is playing now." })]));
  clear(document.getElementById("club-standings")).append(...standingsTable(data.standings));
  const probs = clear(document.getElementById("club-problems"));
  if (data.problems.length) for (const p of data.problems) probs.append(el("li", { class: "error", text: p }));
  else probs.append(el("li", { class: "ok", text: `Every match adds up (${data.tables.length} checked).` }));
  const fin = clear(document.getElementById("club-finished"));
  for (const t of finished) fin.append(el("li", { text: `${t.table || t.match}${t.session ? " [" + t.session + "]" : ""}: ` +
    t.players.map((p, i) => `${p} ${fmtPoints(t.points[i])}`).join(" · ") + ` — ${t.status}` }));
  if (!finished.length) fin.append(el("li", { class: "muted", text: "None yet." }));
  document.getElementById("club-live").textContent = `live · updated ${new Date().toLocaleTimeString()}`;
}

function connectClub() {
  if (Club.es) Club.es.close();
  const q = clubQuery();
  Club.es = new EventSource("/api/club/events" + (q ? "?" + q : ""));
  Club.es.addEventListener("club", (e) => renderClub(JSON.parse(e.data)));
  Club.es.addEventListener("unavailable", (e) => {
    document.getElementById("club-live").textContent = `not live: ${JSON.parse(e.data).error}`;
  });
  Club.es.onerror = () => { document.getElementById("club-live").textContent = "reconnecting…"; };
}

document.getElementById("club-scope").addEventListener("change", connectClub);
document.getElementById("club-since").addEventListener("change", connectClub);
connectClub();
