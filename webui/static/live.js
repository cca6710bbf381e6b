// Live page: Server-Sent Events carry the page data; everything here only draws what the server computed.
"use strict";

// calls in players' words
const CALL_WORDS = { open_kong: "kong", closed_kong: "concealed kong", added_kong: "added kong", sink_fei: "sink a Fei",
                     swap_fei: "swap a Fei", nine_terminals: "call nine terminals", kita: "kita (set a North aside)" };

// a seat named once: "East", or "Ann (East)" when the player has a name of their own
function seatLabel(s) { return s.name && s.name !== s.wind ? `${s.name} (${s.wind})` : s.wind; }

const Live = {
  payload: null,
  overlayKey: null,
  paletteCodes: [],
  recorded: {},  // wins recorded from this page: key -> message
  recordErrors: {},
  history: [],
  shown: null,   // {version, frame_time, shown}: when the last change reached the page (bench_live.py reads it)
};

function statusLine(st) {
  if (!st) return;
  const src = document.getElementById("st-source");
  src.textContent = `${st.source}: ${st.state}${st.message ? " — " + st.message : ""}`;
  src.className = `pill state-${st.state}`;
  document.getElementById("st-fps").textContent = `${(st.fps || 0).toFixed(1)} fps`;
  document.getElementById("st-latency").textContent = (st.latency_ms === null || st.latency_ms === undefined
    ? "latency —" : `latency ${st.latency_ms.toFixed(0)} ms`) +
    (st.analysis_ms !== null && st.analysis_ms !== undefined ? ` · analysis ${st.analysis_ms.toFixed(0)} ms` : "");
  const snap = Live.payload && Live.payload.snapshot;
  document.getElementById("frame-no").textContent =
    `frame ${st.frames}` + (snap && snap.steps ? ` · demo step ${snap.step + 1}/${snap.steps}` : "");
}

// --- overlay -----------------------------------------------------------------------------------
function drawOverlay(snap) {
  const svg = document.getElementById("overlay");
  const [w, h] = snap.size && snap.size[0] ? snap.size : [960, 720];
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  document.getElementById("frame").style.aspectRatio = `${w} / ${h}`;
  const key = JSON.stringify([snap.version, snap.tiles.map((t) => [t.id, t.code, t.corrected])]);
  if (key === Live.overlayKey) return;
  Live.overlayKey = key;
  clear(svg);
  for (const z of snap.zones || []) {
    const pts = z.polygon.map((p) => p.join(",")).join(" ");
    svg.append(svgEl("polygon", { class: "zone", points: pts }));
    const label = svgEl("text", { class: "zone-label", x: z.polygon[0][0] + 3, y: z.polygon[0][1] - 4 });
    // a zone's table position in players' words: 0 is the camera's player, then counter-clockwise
    label.textContent = z.seat === null || z.seat === undefined ? z.name :
      `${z.name} · ${["yours", "right", "across", "left"][z.seat] || "player " + (z.seat + 1)}`;
    svg.append(label);
  }
  for (const t of snap.tiles || []) {
    const low = !t.corrected && t.confidence < 0.6;
    const cls = "tile-box" + (low ? " low" : "") + (t.corrected ? " corrected" : "");
    const poly = svgEl("polygon", { class: cls, points: t.corners.map((p) => p.join(",")).join(" "), tabindex: 0,
                                    role: "button", "data-tile": t.id, "data-code": t.code });
    const title = svgEl("title", {});
    title.textContent = `${namedTile(t.code)}, ${Math.round(t.confidence * 100)}% sure` +
      `${t.corrected ? ", corrected" : ""} — tap to correct`;
    poly.append(title);
    poly.addEventListener("click", () => openPalette(t));
    poly.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); openPalette(t); } });
    svg.append(poly);
    const xs = t.corners.map((p) => p[0]), ys = t.corners.map((p) => p[1]);
    const label = svgEl("text", { class: "tile-label" + (low ? " low" : ""), x: Math.min(...xs), y: Math.min(...ys) - 2,
                                  "data-tile": t.id, "data-rank": t.corrected ? 0 : low ? 1 : 2 });
    label.textContent = t.corrected ? `${shortCode(t.code)}✓` :
      `${shortCode(t.code)} ${Math.round(t.confidence * 100)}${low ? "?" : ""}`;
    svg.append(label);
  }
  // labels never overlap: corrected and unsure tiles keep theirs first; a label that would cover one already
  // kept is hidden (the tile's box still shows, and its reading appears on hover or focus)
  const labels = Array.from(svg.querySelectorAll("text.tile-label")).sort((a, b) => a.dataset.rank - b.dataset.rank);
  const kept = [];
  for (const lab of labels) {
    const r = lab.getBBox();
    if (kept.some((q) => r.x < q.x + q.width && q.x < r.x + r.width && r.y < q.y + q.height && q.y < r.y + r.height)) {
      lab.remove();
    } else {
      kept.push(r);
    }
  }
}

// --- correction palette ---------------------------------------------------------------------------
function openPalette(tile) {
  const dlg = document.getElementById("palette");
  document.getElementById("palette-info").textContent =
    `This tile was read as ${namedTile(tile.code)}, ${Math.round(tile.confidence * 100)}% sure. ` +
    "Pick what it really is.";
  const box = clear(document.getElementById("palette-tiles"));
  for (const code of Live.paletteCodes.concat(["bk"])) {
    box.append(el("button", { type: "button", "data-code": code, "aria-label": namedTile(code),
      onclick: () => { dlg.close(); sendCorrection(tile, code); } }, tileImg(code), el("span", { text: shortCode(code) })));
  }
  if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
}

async function sendCorrection(tile, code) {
  try {
    const r = await api("/api/live/correct", { method: "POST", json: { tile_id: tile.id, code } });
    const what = code === tile.code && !tile.corrected ? `Confirmed: the tile is ${namedTile(code)}.` :
      `The tile read as ${namedTile(tile.code)} is ${namedTile(code)}.`;
    toast(`${what} Saved for training${r && r.teaching ? "; it teaches your tile set (see Your tiles)" : ""}.`);
  } catch (e) {
    toast(`Correction failed: ${e.message}`);
  }
}

// --- panels ------------------------------------------------------------------------------------------
function handRow(seat) {
  const row = el("div", { class: "hand" });
  if (seat.hidden || !seat.concealed) {
    row.append(el("span", { class: "muted", text: `${seat.tile_count} tiles (hidden in teaching mode)` }));
    return row;
  }
  let drawnLeft = seat.drawn ? 1 : 0;
  const tiles = seat.concealed.slice();
  if (seat.drawn) {  // the fresh draw sits apart at the right
    const i = tiles.lastIndexOf(seat.drawn);
    if (i >= 0) tiles.splice(i, 1); else drawnLeft = 0;
  }
  for (const c of tiles) row.append(tileImg(c));
  if (drawnLeft) row.append(el("span", { class: "gap" }), tileImg(seat.drawn, "drawn"));
  for (const m of seat.melds) row.append(el("span", { class: "meld", title: m.text }, m.tiles.map((c) => tileImg(c))));
  if (seat.bonus.length) row.append(el("span", { class: "meld", title: "bonus area" }, seat.bonus.map((c) => tileImg(c, "small"))));
  return row;
}

const LABEL_CLASS = { "can ron": "ok", "tsumo only": "half", "no yaku": "bad", "below the minimum": "bad", "no live tiles": "bad" };

function drawMe(view) {
  const me = view.seats[view.me];
  document.getElementById("me-name").textContent = `${seatLabel(me)}${me.riichi ? " · riichi" : ""}`;
  const row = handRow(me);
  row.id = "hand";
  document.getElementById("hand").replaceWith(row);
  const sh = me.shanten;
  const forms = sh ? `standard ${sh.standard}` + (sh.seven_pairs !== null ? `, seven pairs ${sh.seven_pairs}` : "") +
    (sh.thirteen_orphans !== null ? `, thirteen orphans ${sh.thirteen_orphans}` : "") : "";
  const after = me.tile_count === 14 ? " after the best discard" : "";
  document.getElementById("shanten").textContent = !sh ? "" :
    sh.shanten < 0 ? "Complete hand." : sh.shanten === 0 ? `Ready (tenpai)${after}.` :
    `${sh.shanten} from ready${after} (shanten: ${forms}).`;

  const waits = clear(document.getElementById("waits"));
  if (!me.waits.length) {
    const text = me.face_down ? "A tile of your hand is not read yet: the waits show once it is." :
      me.tile_count === 14 ? "Discard first: see the advice." : "Not ready yet.";
    waits.append(el("p", { class: "muted", text }));
  }
  for (const w of me.waits) {
    waits.append(el("div", { class: "wait", "data-tile": w.tile },
      tileImg(w.tile), el("span", { class: "live-count", text: `${w.live} live` }),
      el("span", { class: `badge ${LABEL_CLASS[w.label] || ""}`, text: `${w.icon} ${w.label}` }),
      w.reason ? el("span", { class: "reason", text: w.reason }) : null));
  }

  const advice = clear(document.getElementById("advice"));
  document.getElementById("advice-card").hidden = !me.advice.length;
  me.advice.slice(0, 5).forEach((o, i) => {
    const acc = o.acceptance.map((a) => `${a.tile}×${a.live}`).join(" ");
    advice.append(el("li", { "data-discard": o.discard }, tileImg(o.discard, "small"),
      el("div", {}, el("div", { text: `${i + 1}. discard ${o.discard} → ${o.shanten === 0 ? "ready" : o.shanten + " from ready"}: ` +
        `${o.live_total} tiles help (${o.kinds} kinds)` }), acc ? el("div", { class: "acc", text: acc }) : null)));
  });
}

function drawWarnings(view) {
  const list = clear(document.getElementById("warnings"));
  const items = [];
  for (const s of view.seats) for (const w of s.warnings) items.push([s, w]);
  if (!items.length) list.append(el("li", { class: "muted", text: "None." }));
  for (const [s, w] of items) {
    list.append(el("li", { "data-code": w.code }, el("span", { class: "label", text: `${w.icon} ${w.label}` }),
      s.seat === view.me ? "" : `(${s.name}) `, w.text));
  }
}

// what a seat did that opens a window, and where a turn stands, in players' words (not the engine's names)
const DECLARED = { added_kong: "added to a pong, making a kong of", closed_kong: "declared a concealed kong of",
                   kita: "set aside a North:", bonus: "set aside a bonus tile:" };
const PHASE_WORDS = { turn_start: "to draw", own_turn: "to discard", claim_window: "the discard may be claimed",
                      kong_window: "the kong may be robbed" };

function drawCalls(view) {
  const box = clear(document.getElementById("calls"));
  box.className = "calls";
  if (view.claim) {
    box.append(el("p", {}, `${view.claim.discarder_name} ${DECLARED[view.claim.declaration] || "discarded"} `,
      tileImg(view.claim.tile, "small"), ` ${tileName(view.claim.tile)}.`));
  } else {
    box.append(el("p", { class: "muted", text: `${view.turn_name}'s turn: ${PHASE_WORDS[view.phase] || "playing"}.` }));
  }
  let any = false;
  for (const s of view.seats) {
    if (!s.calls.length) continue;
    any = true;
    if (s.calls.every((a) => a.kind === "pass")) {
      box.append(el("div", { class: "seat-calls", "data-seat": s.seat },
        el("strong", { text: `${s.name}${s.seat === view.me ? " (you)" : ""}` }), el("span", { class: "muted", text: ": nothing to call" })));
      continue;
    }
    const ul = el("ul");
    const groups = new Map();  // the same refusal for several ways of making a call is said once
    for (const a of s.calls) {
      const key = a.legal ? JSON.stringify(a) : `${a.kind}|${a.tile}|${a.code}|${a.message}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(a);
    }
    for (const list of groups.values()) {
      const a = list[0];
      const withs = list.filter((x) => x.tiles.length).map((x) => x.tiles.join(""));
      const word = CALL_WORDS[a.kind] || a.kind.replaceAll("_", " ");
      const hidden = a.legal && a.warnings.some((w) => w.code === "HAND_NOT_KNOWN");
      if (hidden) {
        // a face-down hand: say what would have to be true, not "yes"
        const cond = withs.length ? `if they hold ${withs.join(" or ")}` :
          ["ron", "tsumo"].includes(a.kind) ? `if ${a.tile || "the tile"} completes their hand` : "if their hidden tiles allow it";
        const rest = a.warnings.filter((w) => w.code !== "HAND_NOT_KNOWN").map((w) => w.message).join(" ");
        ul.append(el("li", { class: "maybe", "data-kind": a.kind, "data-code": "HAND_NOT_KNOWN" },
          `may ${word}${a.tile ? " " + a.tile : ""} `, el("span", { class: "why", text: `— ${cond}` }),
          rest ? el("span", { class: "why", text: " " + rest }) : null));
        continue;
      }
      const what = word + (a.tile ? " " + a.tile : "") + (withs.length ? " with " + withs.join(" / ") : "");
      ul.append(el("li", { class: a.legal ? "yes" : "no", "data-kind": a.kind, "data-code": a.code || "" }, what,
        a.legal ? "" : el("span", { class: "why", text: ` — ${a.message}` }),
        a.warnings.length ? el("span", { class: "why", text: " " + a.warnings.map((w) => w.message).join(" ") }) : null));
    }
    box.append(el("div", { class: "seat-calls", "data-seat": s.seat }, el("strong", { text: `${s.name}${s.seat === view.me ? " (you)" : ""}` }), ul));
  }
  if (!any && view.teaching) box.append(el("p", { class: "muted", text: "Teaching mode: other players' options are hidden." }));
}

function drawSeats(view) {
  document.getElementById("table-info").textContent =
    `${view.title} · dora indicator ${view.dora_indicators.join(" ") || "—"} · ${view.live_wall} tiles in the wall · ` +
    `${view.riichi_sticks} riichi stick(s)`;
  const box = clear(document.getElementById("seats"));
  for (const s of view.seats) {
    const discards = el("div", { class: "tiles-row" });
    for (const d of s.discards) {
      discards.append(tileImg(d.tile, "small" + (d.riichi ? " sideways" : "") + (d.called_by !== null ? " called" : "")));
    }
    if (!s.discards.length) discards.append(el("span", { class: "muted", text: "none" }));
    box.append(el("div", { class: "seat" + (view.turn === s.seat ? " turn" : ""), "data-seat": s.seat },
      el("h3", {}, seatLabel(s), s.seat === view.me ? el("span", { class: "tag", text: "you" }) : null,
        view.turn === s.seat ? el("span", { class: "tag turn", text: "turn" }) : null,
        s.riichi ? el("span", { class: "tag", text: "riichi" }) : null, el("small", { text: `${fmt(s.points)} points` })),
      el("div", { class: "row-label", text: "hand" }), handRow(s),
      el("div", { class: "row-label", text: "discards" }), discards,
      !s.hidden && s.shanten && s.seat !== view.me ? el("div", { class: "row-label" },
        s.shanten.shanten === 0 ? `ready: ${s.waits.map((w) => `${w.tile} (${w.live} live, ${w.label})`).join(", ")}`
          : s.shanten.shanten < 0 ? "complete" : `${s.shanten.shanten} from ready`) : null));
  }
}

function drawWin(view, snap) {
  const card = document.getElementById("win-card");
  const box = clear(document.getElementById("win"));
  const w = view.win;
  card.hidden = !w;
  if (!w) return;
  const how = w.tsumo ? "by tsumo on" : `by ron on`;
  box.append(el("p", { class: "win-head" }, `${w.name} wins ${how} `, tileImg(w.tile, "small"),
    ` ${w.tile}${w.discarder_name ? " from " + w.discarder_name : ""}`));
  box.append(el("p", { class: w.legal ? "success" : "error", text: w.verdict + (w.why_not ? " — " + w.why_not : "") }));
  if (w.items && w.items.length) {
    box.append(el("table", { class: "items" }, el("tbody", {},
      w.items.map((i) => el("tr", {}, el("td", { text: i.name + (i.note ? ` (${i.note})` : "") }),
        el("td", { class: "num", text: `${i.value} ${i.unit}` }))))));
  }
  if (w.fu) box.append(el("p", { text: `Fu ${w.fu}: ` + w.fu_breakdown.map((f) => `${f.name} ${f.value}`).join(", ") }));
  box.append(el("p", { class: "total", text: `Total ${w.total} ${w.unit}${w.limit ? " (" + w.limit + ")" : ""}` }));
  if (w.payments && w.payments.length) {
    box.append(el("ul", { class: "payments" }, w.payments.map((p) => el("li", { text: `${p.from} pays ${p.to} ${fmt(p.amount)} (${p.reason})` }))));
  }
  if (w.explanation) box.append(el("p", { class: "explanation", text: w.explanation }));
  const key = `${snap.time}:${w.seat}:${w.tile}`;
  const done = Live.recorded[key];
  const failed = Live.recordErrors[key];
  const msg = el("p", { class: "record-msg" + (done ? " success" : failed ? " error" : ""), "aria-live": "polite",
                        text: done || failed || (w.recordable ? "" : w.why_not || "This win cannot be recorded.") });
  const btn = el("button", { id: "record-win", disabled: !w.recordable || !!done, onclick: async () => {
    btn.disabled = true;
    try {
      const r = await api("/api/matches/current/win", { method: "POST", json: { live: true } });
      Live.recorded[key] = `Recorded in match ${r.match.match} (events ${r.recorded.join(", ")}).`;
      delete Live.recordErrors[key];
      Sheet.render(document.getElementById("sheet"), r.match, { compact: true });
    } catch (e) {
      Live.recordErrors[key] = e.message;
    }
    // the panel may have been redrawn meanwhile: draw it again from the latest data
    if (Live.payload && Live.payload.view && Live.payload.view.ok) drawWin(Live.payload.view, Live.payload.snapshot);
  } }, "Record to match");
  box.append(el("div", { class: "sheet-actions" }, btn), msg);
}

function drawProblems(snap, view) {
  const list = clear(document.getElementById("problems"));
  const items = (snap.problems || []).slice();
  if (view && !view.ok && view.error) items.unshift(view.error);
  for (const p of items) list.append(el("li", {}, el("span", { class: "label", text: "⚠ Check:" }), p));
}

function render(payload) {
  Live.payload = payload;
  if (payload.error) { toast(payload.error); return; }
  const snap = payload.snapshot;
  const view = payload.view;
  Live.paletteCodes = payload.palette || [];
  statusLine(payload.status);
  document.getElementById("st-event").textContent = snap.event || "";
  drawOverlay(snap);
  drawProblems(snap, view);
  if (view && view.ok) {
    drawMe(view);
    drawWarnings(view);
    drawCalls(view);
    drawSeats(view);
    drawWin(view, snap);
  }
  Live.shown = { version: payload.version, frame_time: payload.t_frame, ready: payload.t_ready, shown: Date.now() / 1000 };
  Live.history.push(Live.shown);  // webui/bench_live.py --browser reads when each change was drawn
  if (Live.history.length > 500) Live.history.shift();
  document.body.dataset.version = String(payload.version);
}

function connect() {
  const es = new EventSource("/events");
  es.addEventListener("snapshot", (ev) => render(JSON.parse(ev.data)));
  es.addEventListener("status", (ev) => statusLine(JSON.parse(ev.data)));
  es.onerror = () => {
    const src = document.getElementById("st-source");
    src.textContent = "connection lost — retrying";
    src.className = "pill state-reconnecting";
  };
  Live.events = es;
}

if (window.innerWidth < 600) {  // labels are unreadable on a phone-sized frame: off by default
  document.getElementById("show-labels").checked = false;
  document.getElementById("overlay").classList.add("no-labels");
}
document.getElementById("show-labels").addEventListener("change", (ev) =>
  document.getElementById("overlay").classList.toggle("no-labels", !ev.target.checked));
document.getElementById("show-zones").addEventListener("change", (ev) =>
  document.getElementById("overlay").classList.toggle("no-zones", !ev.target.checked));
document.addEventListener("match-undo", () => { Live.recorded = {}; Live.recordErrors = {}; if (Live.payload) render(Live.payload); });
connect();
Sheet.load(document.getElementById("sheet"), { compact: true });
