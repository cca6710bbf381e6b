// Your tiles: the layout to photograph, enrolling a set, choosing the set the camera reads with.
"use strict";

const variantSel = document.getElementById("enroll-variant");
let teachingTimer = null;   // while a lesson runs, the list is read again every few seconds

function pct(x) { return x === null || x === undefined || Number.isNaN(x) ? "–" : `${Math.round(100 * x)} %`; }

async function load() {
  const r = await api(`/api/tilesets?variant=${encodeURIComponent(variantSel.value)}`);
  const layout = clear(document.getElementById("layout"));
  r.layout.forEach((row, i) => {
    layout.append(el("div", { class: "layout-row" }, el("span", { class: "muted", text: `row ${i + 1}` }),
      row.map((c) => tileImg(c))));
  });
  const list = clear(document.getElementById("sets"));
  document.getElementById("sets-note").textContent = r.sets.length ? (r.reads_tiles ? "" :
    "The demo table is read with the built-in models; your set applies to a camera (serve --source).") :
    "No set yet: enroll one above.";
  document.getElementById("adapt-note").textContent = r.adapting && !r.adapting.network ? r.adapting.note : "";
  for (const s of r.sets) {
    const active = s.name === r.active;
    const last = s.history.length ? s.history[s.history.length - 1] : null;
    list.append(el("li", {},
      el("strong", { text: s.name }), ` — ${s.examples} examples of ${s.kinds} kinds` + (s.variant ? `, ${s.variant}` : "") +
        (s.network ? "; reads with its own adapted network" : s.adapted ? "; reads with its own adapted last layer" : ""),
      last ? el("span", { class: "muted", text: ` (last: ${last.source}, +${last.added})` }) : null, " ",
      active ? el("span", { class: "badge", text: "in use" }) :
        el("button", { type: "button", class: "secondary", onclick: () => choose(s.name), text: `Use ${s.name}` })));
  }
  for (const d of r.damaged || []) list.append(el("li", { class: "error", text: `${d.name} cannot be used: ${d.reason}` }));
  if (r.active) list.append(el("li", {}, el("button", { type: "button", class: "secondary", onclick: () => choose(null),
    text: "Use no set" })));
  const t = r.teaching;
  if (t && (t.busy || t.waiting)) {
    const secs = t.since ? Math.max(0, Math.round(Date.now() / 1000 - t.since)) : 0;
    list.append(el("li", { class: "teaching", "aria-live": "polite", text:
      (t.busy ? `Learning ${t.set} from your corrections on the page… ${secs} s so far` :
        "Corrections waiting to teach the set in use") +
      (t.waiting ? ` (${t.waiting} more waiting for the next lesson)` : "") +
      ". Adapting the network takes a minute or two; the result appears here." }));
  }
  clearTimeout(teachingTimer);
  teachingTimer = t && (t.busy || t.waiting) ? setTimeout(() => load().catch(() => {}), 3000) : null;
  if (r.last_lesson && !r.last_lesson.error) {
    list.append(el("li", { class: "muted", text: `Last correction taught ${r.last_lesson.set}: ` +
      (r.last_lesson.kept ? "adapted." : (r.last_lesson.reason || "not adapted") + ".") + lessonFigures(r.last_lesson) }));
  }
}

// what a lesson was judged on: its held-back tiles, and tiles of every kind the set's photos may not have shown
function lessonFigures(r) {
  const pct = (v) => `${Math.round(v * 100)}%`;
  let out = "";
  if (r.held_back && r.accuracy_before != null && r.accuracy_after != null) {
    out += ` Held-back tiles read right: ${pct(r.accuracy_before)} before, ${pct(r.accuracy_after)} after.`;
  }
  if (r.generic_before != null && r.generic_after != null) {
    out += ` Tiles of every kind: ${pct(r.generic_before)} with the built-in models, ${pct(r.generic_after)} adapted.`;
  }
  return out;
}

async function choose(name) {
  try {
    const r = await api("/api/tilesets/active", { method: "POST", json: { name } });
    toast(name ? `Reading with ${name}` : "Reading with the built-in models");
    await load();
    return r;
  } catch (e) { toast(e.message); }
}

document.getElementById("enroll-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const box = clear(document.getElementById("enroll-result"));
  const file = document.getElementById("enroll-photo").files[0];
  if (!file) return;
  const form = new FormData();
  form.append("name", document.getElementById("enroll-name").value.trim());
  form.append("variant", variantSel.value);
  form.append("image", file);
  box.append(el("p", { class: "muted", text: "Learning your set…" }));
  const btn = document.getElementById("enroll-go");
  btn.disabled = true;
  try {
    const r = await api("/api/tilesets/enroll", { method: "POST", body: form });
    clear(box).append(el("p", { class: "success", text: `Learnt ${r.set} from ${r.tiles} tiles in ${r.seconds.toFixed(1)} s. ` +
      `The built-in models read ${r.read_wrong_before} of them wrong before; ` +
      (r.kept ? "the camera now reads with your set." : `${r.reason || "not adapted"}.`) + lessonFigures(r) +
      (r.not_boxed && r.not_boxed.length ? ` No box was found on ${r.not_boxed.join(" ")}: ` +
        (r.not_boxed.length === 1 ? "it was taken from its place in its row." : "they were taken from their places in the rows.") : "") }));
    await load();
  } catch (e) {
    clear(box).append(el("p", { class: "error", text: e.message }));
  } finally { btn.disabled = false; }
});

variantSel.addEventListener("change", () => load().catch((e) => toast(e.message)));
api("/api/settings").then((r) => { variantSel.value = r.settings.variant; }).catch(() => {}).finally(() => load().catch((e) => toast(e.message)));
