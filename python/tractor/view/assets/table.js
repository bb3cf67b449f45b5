// The table: draws what the server says the person's seat knows, sends the person's choices.
// It redraws only when the state changes (a new version, a bot thinking, an error).
// Legality is the server's: a selection is checked there (on a copy) before it can be sent.
"use strict";
const T = JSON.parse(document.getElementById("data").textContent);
let S = null;            // the last state
let selected = [];       // positions in the drawn hand
let checkSeq = 0;
let shownStats = false;

// Every request carries the secret the server put in this page: the server answers nothing else.
async function call(path, body) {
  const headers = { "X-Tractor-Table": T.token };
  const r = await fetch(path, body === undefined ? { cache: "no-store", headers } :
    { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return r.json();
}

function flatHand() { return S.hand_ids.flat(); }
function selectionText() { const h = flatHand(); return selected.map(i => S.cards[h[i]]).join(" "); }

function header() {
  const trump = S.trump ? suitText(S.trump) + (S.trump_public ? "" : " (only you know it)") : "?";
  document.getElementById("header").replaceChildren(
    el("h1", {}, "tractor-engine table"),
    el("span", { class: "fact" }, "you are ", el("b", {}, "seat " + S.seat)),
    el("span", { class: "fact" }, "profile ", el("b", {}, S.profile)),
    el("span", { class: "fact", "data-testid": "match" }, "hand ", el("b", {}, S.match_hand), " of the match; levels: seats 0/2 ",
      el("b", {}, S.match_levels[0]), ", seats 1/3 ", el("b", {}, S.match_levels[1])),
    el("span", { class: "fact" }, "level ", el("b", {}, S.level)),
    el("span", { class: "fact" }, "banker ", el("b", {}, S.banker === null ? "not yet" : "seat " + S.banker)),
    el("span", { class: "fact", "data-testid": "trump" }, "trump ", el("b", {}, trump)),
    el("span", { class: "fact" }, "defenders' points ", el("b", { "data-testid": "points" }, S.defender_points)));
}

function seatPanel(s) {
  const tags = [];
  if (S.banker === s && S.phase !== "declare") tags.push(el("span", { class: "tag banker" }, "banker"));
  if (S.declarer === s) tags.push(el("span", { class: "tag" }, "declarer"));
  tags.push(el("span", { class: "tag" }, s === S.seat ? "you" : S.policies[String(s)]));
  const turn = S.to_move === s || S.thinking === s;
  const p = el("div", { class: "seat" + (turn ? " to-move" : ""), id: "s" + s, "data-testid": "seat-" + s }, el("h3", {}, "seat " + s, ...tags));
  if (s === S.seat) {
    let i = 0;
    const box = groupsEl(S.hand_ids, S.cards, S.trumps, (c) => {
      const pos = i++;
      c.dataset.pos = String(pos);
      if (S.your_turn && S.phase === "play") {
        c.classList.add("pick");
        if (selected.includes(pos)) c.classList.add("sel");
        c.addEventListener("click", () => toggle(pos));
      }
    });
    box.setAttribute("data-testid", "hand");
    p.append(box);
  } else {
    const o = S.others[String(s)];
    const backs = el("span", { class: "cards" });
    for (let i = 0; i < Math.min(o.cards, 12); i++) backs.append(backEl());
    p.append(backs, el("div", { class: "facts" }, o.cards + " cards" + (S.thinking === s ? " \u2014 thinking\u2026" : "")));
    if (o.void.length) p.append(el("div", { class: "facts" }, "void (R5.2): " + o.void.map(c => SUIT_NAME[c]).join(", ")));
    if (o.must_hold) p.append(el("div", { class: "facts" }, "must still hold (R8.6): " + o.must_hold));
  }
  return p;
}

function parseCards(text) { return text.split(" ").map(t => S.cards.indexOf(t)); }

function middle() {
  const mid = el("div", { class: "mid", id: "mid" });
  let plays = S.current_trick, winner = null, info;
  if (!plays.length && S.tricks.length) {
    const t = S.tricks[S.tricks.length - 1];
    plays = t.plays; winner = t.winner;
    info = "trick " + S.tricks.length + ": seat " + t.winner + " won " + t.points + " points";
  } else {
    info = S.phase === "declare" ? "dealing: " + S.cards_dealt + " cards dealt" : S.phase === "play" ? "trick " + (S.tricks.length + 1) : "";
  }
  for (const [s, text] of plays) {
    mid.append(el("div", { class: "play" + (s === winner ? " winner" : ""), id: "p" + s, "data-testid": "play-" + s },
      groupsEl([parseCards(text)], S.cards, S.trumps), el("div", { class: "muted" }, "seat " + s)));
  }
  mid.append(el("div", { class: "info", "data-testid": "trick-info" }, info));
  return mid;
}

function actions() {
  const box = document.getElementById("actions");
  const parts = [];
  if (S.error) parts.push(el("div", { class: "error", "data-testid": "server-error" }, S.error));
  if (S.result || S.stopped) {
    const r = S.result;
    parts.push(el("div", { class: "result", "data-testid": "result" }, r ? "defenders' score " + r.score + ": " +
      (r.defenders_take_over ? "the defenders take over, +" + r.defender_levels : "the bankers go up " + r.banker_levels) +
      "; next banker seat " + r.next_banker : "three deals without a showing: the hand stops (R8.5)"));
    if (S.saved) parts.push(el("div", { class: "muted", "data-testid": "saved" }, "saved in " + S.saved));
    if (!S.match_over) parts.push(el("button", { "data-testid": "next-hand", onclick: nextHand }, "next hand"));
    else parts.push(el("div", { class: "result" }, "the match is over"));
  } else if (!S.your_turn) {
    parts.push(el("div", { class: "muted", "data-testid": "waiting" }, S.thinking !== null ? "seat " + S.thinking + " is thinking\u2026" : "waiting for seat " + S.to_move));
  } else if (S.phase === "declare") {
    parts.push(el("div", {}, "You may show level cards now (R8.1): "));
    for (const a of S.offers) parts.push(el("button", { "data-testid": "offer", "data-action": a, onclick: () => send(a) }, a));
  } else {
    const text = selectionText();
    parts.push(el("div", {}, (S.current_trick.length ? "Follow with " + S.current_trick[0][1].split(" ").length + " card(s)" : "Lead a combination") +
      ": click cards, then play. Selected: ", el("b", { "data-testid": "selection" }, text || "nothing")));
    parts.push(el("button", { "data-testid": "play", id: "playbtn", disabled: "disabled", onclick: () => send(selectionText()) }, "play"),
      el("button", { "data-testid": "clear", onclick: () => { selected = []; draw(); } }, "clear"),
      el("div", { id: "explain", "data-testid": "explain" }));
  }
  box.replaceChildren(...parts);
  if (S.your_turn && S.phase === "play" && selected.length) check();
}

async function check() {
  const seq = ++checkSeq;
  const text = selectionText();
  const r = await call("/check", { action: text });
  if (seq !== checkSeq) return;
  const ex = document.getElementById("explain");
  const btn = document.getElementById("playbtn");
  if (!ex || !btn) return;
  if (r.ok) {
    btn.disabled = false;
    ex.replaceChildren(el("div", { class: "note", "data-testid": "legal" }, "legal"));
  } else {
    btn.disabled = true;
    ex.replaceChildren(el("div", { class: "error", "data-testid": "illegal", "data-rule": r.rule || "" }, r.error,
      r.example ? el("div", {}, "a legal play: ", el("b", { "data-testid": "example" }, r.example)) : null));
  }
}

function toggle(pos) {
  const i = selected.indexOf(pos);
  if (i >= 0) selected.splice(i, 1); else selected.push(pos);
  draw();
}

async function send(text) {
  const r = await call("/act", { action: text, version: S.version });
  if (!r.ok) {
    const ex = document.getElementById("explain") || document.getElementById("actions");
    ex.append(el("div", { class: "error", "data-testid": "refused" }, r.error));
    return;
  }
  selected = [];
  await poll(false);
}

async function nextHand() {
  const r = await call("/next", { version: S.version });
  if (!r.ok) document.getElementById("actions").append(el("div", { class: "error", "data-testid": "refused" }, r.error));
  selected = [];
  await poll(false);
}

function deal() {
  const rows = S.declaring.map(sh => el("div", { "data-testid": "showing" }, "deal " + (sh.attempt + 1) + ", " + sh.cards_dealt +
    " cards dealt: seat " + sh.seat + " shows " + sh.count + " \u00d7 ", el("span", { "data-testid": "showing-suit" }, suitText(sh.suit))));
  document.getElementById("deal").replaceChildren(...(rows.length ? rows : [el("span", { class: "muted" }, "no showing yet")]));
}

function tricks() {
  const rows = [el("tr", {}, el("th", {}, "#"), el("th", {}, "plays"), el("th", {}, "won by"), el("th", {}, "pts"))];
  S.tricks.forEach((t, i) => rows.push(el("tr", { "data-testid": "trick-" + (i + 1) }, el("td", {}, i + 1),
    el("td", {}, t.plays.map(([s, c]) => s + ": " + c).join(" | ")), el("td", {}, t.winner), el("td", {}, t.points))));
  document.getElementById("tricks").replaceChildren(...rows);
}

function bots() {
  const d = S.last_decision;
  const parts = [el("div", { class: "muted" }, Object.entries(S.policies).map(([s, p]) => "seat " + s + ": " + p).join("; "))];
  if (d) {
    const pre = el("pre", { class: "stats", "data-testid": "bot-stats", hidden: shownStats ? null : "hidden" }, JSON.stringify(d, null, 1));
    parts.push(el("button", { "data-testid": "show-bot-stats", onclick: () => { shownStats = !shownStats; pre.hidden = !shownStats; } },
      "statistics of the last search"), pre);
    if (!d.stats) parts.push(el("div", { class: "muted" }, "its candidate plays (the bot's cards) show when the hand is over"));
  }
  document.getElementById("bots").replaceChildren(...parts);
}

function draw() {
  header();
  document.getElementById("table").replaceChildren(seatPanel(0), seatPanel(1), seatPanel(2), seatPanel(3), middle());
  actions(); deal(); tricks(); bots();
  document.body.dataset.version = String(S.version);
  document.body.dataset.turn = S.your_turn ? "1" : "0";
}

async function poll(force) {
  try {
    const s = await call("/state");
    if (force || !S || s.version !== S.version || s.thinking !== S.thinking || s.error !== S.error) {
      if (S && s.version !== S.version) selected = [];
      S = s; draw();
    }
  } catch (e) { /* the server stopped: keep the last picture */ }
}

poll(true);
setInterval(() => poll(false), 250);
