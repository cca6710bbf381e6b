// Settings page: rule system, options (form built from the rule system's defaults), teaching, seat.
"use strict";

let VARIANTS = [];
let CURRENT = null;

function optionInput(key, def, value, choices, schema) {
  const id = `opt-${key}`;
  let input;
  if (choices && choices.length) {
    // the rules file's alternatives: a menu, each value kept as JSON so numbers stay numbers
    input = el("select", { id, "data-key": key, "data-type": "json" });
    for (const c of choices) input.append(el("option", { value: JSON.stringify(c), text: String(c).replaceAll("_", " ") }));
    input.value = JSON.stringify(value);
  } else if (typeof def === "boolean") {
    input = el("input", { type: "checkbox", id, "data-key": key, "data-type": "bool", checked: value });
  } else if (typeof def === "number") {
    // the engine's schema gives the range the option accepts (RuleSystem.option_schema)
    const s = schema || {};
    input = el("input", { type: "number", id, "data-key": key, "data-type": "number", value,
                          step: s.type === "int" ? 1 : "any", min: s.min, max: s.max });
  } else if (typeof def === "string") {
    input = el("input", { type: "text", id, "data-key": key, "data-type": "string", value });
  } else {
    input = el("input", { type: "text", id, "data-key": key, "data-type": "json", value: JSON.stringify(value) });
  }
  return [el("label", { for: id, text: key.replaceAll("_", " ") }), input];
}

function drawOptions() {
  const variant = document.getElementById("variant").value;
  const v = VARIANTS.find((x) => x.name === variant);
  const box = clear(document.getElementById("options"));
  const chosen = CURRENT && CURRENT.variant === variant ? CURRENT.options : {};
  for (const [key, def] of Object.entries(v.options)) {
    box.append(...optionInput(key, def, key in chosen ? chosen[key] : def, (v.choices || {})[key],
      (v.schema || {})[key]));
  }
  const me = clear(document.getElementById("me"));
  const winds = ["East", "South", "West", "North"];
  for (let i = 0; i < v.players; i++) me.append(el("option", { value: i, text: `${i} — ${winds[i]}` }));
  me.value = CURRENT && CURRENT.me < v.players ? CURRENT.me : 0;
}

function collect() {
  const variant = document.getElementById("variant").value;
  const v = VARIANTS.find((x) => x.name === variant);
  const options = {};
  for (const input of document.querySelectorAll("#options [data-key]")) {
    const key = input.dataset.key;
    let value;
    if (input.dataset.type === "bool") value = input.checked;
    else if (input.dataset.type === "number") value = Number(input.value);
    else if (input.dataset.type === "json") {
      try { value = JSON.parse(input.value); } catch (e) { throw new Error(`option ${key}: not valid JSON`); }
    } else value = input.value;
    if (JSON.stringify(value) !== JSON.stringify(v.options[key])) options[key] = value;
  }
  return { variant, options, teaching: document.getElementById("teaching").checked,
           me: Number(document.getElementById("me").value) };
}

async function init() {
  const r = await api("/api/settings");
  VARIANTS = r.variants;
  CURRENT = r.settings;
  const sel = document.getElementById("variant");
  for (const v of VARIANTS) sel.append(el("option", { value: v.name, text: `${v.title} (${v.name})` }));
  sel.value = CURRENT.variant;
  document.getElementById("teaching").checked = CURRENT.teaching;
  const note = document.getElementById("settings-note");
  note.hidden = !r.note;
  note.textContent = r.note || "";
  drawOptions();
  sel.addEventListener("change", drawOptions);
}

document.getElementById("settings-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const msg = document.getElementById("settings-msg");
  try {
    const r = await api("/api/settings", { method: "PUT", json: collect() });
    CURRENT = r.settings;
    msg.className = "success";
    msg.textContent = `Saved: ${CURRENT.variant}, ${Object.keys(CURRENT.options).length} option(s) changed` +
      (CURRENT.teaching ? ", teaching mode on." : ".");
  } catch (e) { msg.className = "error"; msg.textContent = e.message; }
});
document.getElementById("reset").addEventListener("click", () => {
  if (CURRENT) CURRENT = Object.assign({}, CURRENT, { options: {} });
  drawOptions();
});
init().catch((e) => { document.getElementById("settings-msg").textContent = e.message; });
