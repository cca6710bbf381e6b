// Helpers shared by every page: DOM building (text only, never HTML strings), JSON calls, tile images.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function svgEl(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) node.setAttribute(k, v);
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

const TILE_NAMES = {
  "1z": "East", "2z": "South", "3z": "West", "4z": "North", "5z": "White dragon", "6z": "Green dragon",
  "7z": "Red dragon", "jk": "Joker (Fei)", "bk": "face-down tile",
};
// a tile's short label (its notation; a face-down tile has none a player reads) and its name with the notation
function shortCode(code) { return code === "bk" ? "back" : code; }
function namedTile(code) { return code === "bk" ? "a face-down tile" : `${tileName(code)} (${code})`; }
function tileName(code) {
  if (TILE_NAMES[code]) return TILE_NAMES[code];
  const suit = { m: "characters", p: "dots", s: "bamboo", f: "flower", g: "season", a: "animal", h: "face" }[code[1]];
  return code[0] === "0" ? `red 5 ${suit}` : `${code[0]} ${suit || ""}`.trim();
}

function tileImg(code, extra) {
  const cls = "tile" + (extra ? " " + extra : "");
  return el("img", { class: cls, src: `/tiles/${encodeURIComponent(code)}.png`, alt: code === "bk" ? "face-down tile" : `${code} (${tileName(code)})`,
                     title: code === "bk" ? "face-down tile" : `${code} — ${tileName(code)}`,
                     "data-code": code, width: 36, height: 48 });
}

async function api(path, options) {
  const opts = Object.assign({ headers: {} }, options || {});
  if (opts.json !== undefined) {
    opts.body = JSON.stringify(opts.json);
    opts.headers["Content-Type"] = "application/json";
    delete opts.json;
  }
  const resp = await fetch(path, opts);
  const type = resp.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await resp.json() : await resp.text();
  if (!resp.ok) {
    const msg = (body && body.error) || `${resp.status} ${resp.statusText}`;
    const err = new Error(msg);
    err.status = resp.status;
    err.body = body;
    throw err;
  }
  return body;
}

function toast(message, ms) {
  const t = document.getElementById("toast");
  if (!t) return;
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, ms || 3500);
}

function fmt(n) {
  return typeof n === "number" ? n.toLocaleString("en-US") : String(n);
}

function signed(n) { return (n > 0 ? "+" : "") + fmt(n); }
