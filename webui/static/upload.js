// Photo page: upload a picture (read by the recognition models when installed) or type a hand.
"use strict";

function showError(box, e) { clear(box).append(el("p", { class: "error", text: e.message })); }

function waitsBlock(r) {
  const out = el("div");
  const sh = r.shanten;
  out.append(el("p", {}, el("span", { class: "hand" }, r.concealed.map((c) => tileImg(c))),
    r.melds.map((m) => el("span", { class: "meld" }, m.tiles.map((c) => tileImg(c))))));
  out.append(el("p", { text: sh.shanten < 0 ? "Complete hand." : sh.shanten === 0 ? "Ready (tenpai)." : `${sh.shanten} from ready.` }));
  if (r.waits) {
    if (!r.waits.length) out.append(el("p", { class: "muted", text: "No waits." }));
    for (const w of r.waits) {
      out.append(el("div", { class: "wait" }, tileImg(w.tile), el("span", { text: `${w.live} live` }),
        el("span", { text: w.shapes.join(" / ") }), el("span", { class: "reason", text: w.decompositions.join(" · ") })));
    }
  }
  if (r.advice) {
    out.append(el("ol", { class: "advice" }, r.advice.slice(0, 8).map((o) => el("li", {}, tileImg(o.discard, "small"),
      ` discard ${o.discard} → ${o.shanten === 0 ? "ready" : o.shanten + " from ready"}, accepts ${o.kinds} kinds / ${o.live_total} tiles`))));
  }
  return out;
}

function scoreBlock(r) {
  const out = el("div");
  out.append(el("p", { class: r.legal ? "success" : "error", text: r.verdict }));
  if (r.items.length) out.append(el("table", { class: "items" }, el("tbody", {},
    r.items.map((i) => el("tr", {}, el("td", { text: i.name }), el("td", { class: "num", text: `${i.value} ${i.unit}` }))))));
  if (r.fu) out.append(el("p", { text: `Fu ${r.fu}` }));
  out.append(el("p", { class: "total", text: `Total ${r.total} ${r.unit}${r.limit ? " (" + r.limit + ")" : ""}` }));
  out.append(el("ul", {}, r.payments.map((p) => el("li", { text: `${p.from} pays ${p.to} ${fmt(p.amount)} (${p.reason})` }))));
  if (r.explanation) out.append(el("p", { class: "explanation", text: r.explanation }));
  return out;
}

document.getElementById("photo-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const box = document.getElementById("photo-result");
  const file = document.getElementById("photo").files[0];
  if (!file) return;
  const form = new FormData();
  form.append("image", file);
  form.append("variant", document.getElementById("photo-variant").value);
  clear(box).append(el("p", { class: "muted", text: "Reading the photo…" }));
  try {
    const r = await api("/api/photo", { method: "POST", body: form });
    clear(box);
    const snap = r.snapshot || {};
    if (snap.overlay) box.append(el("img", { class: "photo-overlay", src: snap.overlay, alt: "tiles found in the photo" }));
    if (!r.view.ok) {
      box.append(el("p", { text: `Read ${snap.tiles ? snap.tiles.length : 0} tiles.` }));
      const own = snap.own_hand;
      if (own && own.readable) {
        box.append(el("p", { text: `Your hand: ${own.hand} — ` + (own.shanten < 0 ? "complete." : own.shanten === 0 ? "ready (tenpai)." : `${own.shanten} from ready.`) }));
        for (const w of own.waits || []) {
          box.append(el("div", { class: "wait" }, tileImg(w.tile), el("span", { text: `${w.live} live` }),
            el("span", { text: (w.shapes || []).join(" / ") })));
        }
        if (own.options) {
          box.append(el("ol", { class: "advice" }, own.options.slice(0, 5).map((o) => el("li", {}, tileImg(o.discard, "small"),
            ` discard ${o.discard} → ${o.shanten === 0 ? "ready" : o.shanten + " from ready"}, accepts ${o.kinds} kinds / ${o.live_total} tiles`))));
        }
      } else if (own) {
        box.append(el("p", { class: "muted", text: `Your hand could not be read: ${own.reason}` }));
      }
      for (const p of snap.problems || []) box.append(el("p", { class: "warning", text: `⚠ ${p}` }));
    } else {
      const me = r.view.seats[r.view.me];
      box.append(el("p", { text: `Read ${r.snapshot.tiles ? r.snapshot.tiles.length : 0} tiles.` }),
        el("div", { class: "hand" }, (me.concealed || []).map((c) => tileImg(c))),
        el("p", { text: me.waits.map((w) => `${w.tile}: ${w.live} live, ${w.label}`).join("; ") || "" }));
      if (r.view.win) box.append(scoreBlock(r.view.win));
    }
  } catch (e) {
    showError(box, e);
    if (e.status === 503) box.append(el("p", { class: "muted", text: "Type the hand on the right instead." }));
  }
});

function variantValue() { return document.getElementById("hand-variant").value; }

document.getElementById("hand-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const box = document.getElementById("hand-result");
  try {
    const r = await api("/api/analysis/hand", { method: "POST", json: {
      hand: document.getElementById("hand-text").value, variant: variantValue(),
      visible: document.getElementById("hand-visible").value } });
    clear(box).append(waitsBlock(r));
  } catch (e) { showError(box, e); }
});

document.getElementById("score-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const box = document.getElementById("score-result");
  const how = document.getElementById("win-how").value;
  try {
    const r = await api("/api/analysis/score", { method: "POST", json: {
      hand: document.getElementById("hand-text").value, variant: variantValue(),
      win_tile: document.getElementById("win-tile").value, tsumo: how === "tsumo", ron_from: how === "tsumo" ? null : how,
      seat: document.getElementById("win-seat").value, dora: document.getElementById("win-dora").value,
      riichi: document.getElementById("win-riichi").checked } });
    clear(box).append(scoreBlock(r));
  } catch (e) { showError(box, e); }
});

api("/api/settings").then((r) => {
  for (const id of ["hand-variant", "photo-variant"]) {
    const sel = document.getElementById(id);
    for (const v of r.variants) sel.append(el("option", { value: v.name, text: v.title }));
    sel.value = r.settings.variant;
  }
}).catch(() => {});
