// Shared by the viewer and the table: cards drawn from the engine's card strings ("10h", "SJ").
// Nothing here knows a rule: which cards are trumps comes from the engine (a 54-character mask).
"use strict";
const SUIT_SYMBOL = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const SUIT_NAME = { s: "spades", h: "hearts", d: "diamonds", c: "clubs", trump: "trumps" };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c.nodeType ? c : document.createTextNode(String(c)));
  return e;
}

// One card: kind id k, its text from names (the engine's strings), trump from the mask.
function cardEl(k, names, trumps) {
  const text = names[k];
  const joker = text === "SJ" || text === "BJ";
  const suit = joker ? null : text.slice(-1);
  const rank = joker ? (text === "BJ" ? "BIG" : "small") : text.slice(0, -1);
  const red = joker ? text === "BJ" : suit === "h" || suit === "d";
  const trump = trumps && trumps[k] === "1";
  const e = el("span", { class: "card " + (red ? "red" : "black") + (trump ? " trump" : "") + (joker ? " joker" : ""),
    "data-card": text, title: text + (trump ? " (trump)" : "") },
    el("span", { class: "r" }, joker ? rank : rank), el("span", { class: "s" }, joker ? "\u2605" : SUIT_SYMBOL[suit]));
  return e;
}

function backEl() { return el("span", { class: "card back", "data-card": "back" }); }

// Groups of kind ids (identical cards, tractors) as the engine arranged them.
function groupsEl(groups, names, trumps, onCard) {
  const box = el("span", { class: "cards" });
  for (const g of groups) {
    const kinds = new Set(g);
    const cls = "group" + (g.length > 1 ? (kinds.size > 1 ? " tractor" : " multi") : "");
    const ge = el("span", { class: cls });
    g.forEach((k, i) => { const c = cardEl(k, names, trumps); if (onCard) onCard(c, k, i); ge.append(c); });
    box.append(ge);
  }
  return box;
}

function cardsText(ids, names) { return ids.map(k => names[k]).join(" "); }
function suitText(s) { return s === null || s === undefined ? "?" : (SUIT_SYMBOL[s] || s); }
function teamOf(seat) { return seat % 2; }
