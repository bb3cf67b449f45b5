// The replay viewer: every frame comes from the engine (tractor.view); this only draws it.
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const N = D.cards;
let pos = 0;
let viewer = "all";

function seatName(s) {
  return "seat " + s + (s === 0 ? " (south)" : s === 1 ? " (east)" : s === 2 ? " (north)" : " (west)");
}

function drawHeader(f) {
  const h = document.getElementById("header");
  const lv = D.start_levels;
  const trump = viewer === "all" ? f.trump : f.views[+viewer].trump;
  const hiddenNow = f.phase === "declare";
  h.replaceChildren(
    el("h1", {}, D.title),
    el("span", { class: "fact" }, "profile ", el("b", {}, D.profile)),
    el("span", { class: "fact" }, "hand ", el("b", {}, D.hand_index)),
    el("span", { class: "fact", "data-testid": "levels" }, "levels: seats 0/2 ", el("b", {}, lv[0]), ", seats 1/3 ", el("b", {}, lv[1])),
    el("span", { class: "fact" }, "level ", el("b", {}, D.level)),
    el("span", { class: "fact", "data-testid": "banker" }, "banker ", el("b", {}, f.phase === "declare" && D.start_banker === null ? "not yet (the final declarer)" : (D.banker === null ? "-" : "seat " + D.banker))),
    el("span", { class: "fact", "data-testid": "trump" }, "trump ",
      el("b", { class: hiddenNow && viewer === "all" && trump ? "hidden-suit" : null }, trump ? suitText(trump) + (hiddenNow ? " (hidden, R8.2)" : "") : "?")),
    el("span", { class: "fact" }, "defenders' points ", el("b", { "data-testid": "points" }, f.points)),
  );
}

function seatPanel(f, s) {
  const v = viewer === "all" ? null : +viewer;
  const tags = [];
  const banker = f.phase === "declare" ? null : D.banker;
  if (banker === s) tags.push(el("span", { class: "tag banker" }, "banker"));
  if (f.declarer === s) tags.push(el("span", { class: "tag" }, "declarer"));
  tags.push(el("span", { class: "tag" }, "team " + teamOf(s)));
  const panel = el("div", { class: "seat" + (f.seat === s ? " to-move" : ""), id: "s" + s, "data-testid": "seat-" + s },
    el("h3", {}, seatName(s), ...tags));
  if (v === null) {
    panel.append(groupsEl(f.hands[s], N, f.trumps));
  } else if (v === s) {
    panel.append(groupsEl(f.views[v].hand, N, f.views[v].trumps));
  } else {
    const o = f.views[v].others[String(s)];
    const backs = el("span", { class: "cards" });
    for (let i = 0; i < Math.min(o.cards, 12); i++) backs.append(backEl());
    panel.append(backs, el("div", { class: "facts", "data-testid": "count-" + s }, o.cards + " cards"));
    if (o.void.length) panel.append(el("div", { class: "facts", "data-testid": "void-" + s }, "void (R5.2): " + o.void.map(c => SUIT_NAME[c]).join(", ")));
    if (o.must.length) panel.append(el("div", { class: "facts", "data-testid": "must-" + s }, "must still hold (R8.6): " + cardsText(o.must, N)));
  }
  return panel;
}

function drawTable(f) {
  const t = document.getElementById("table");
  const mid = el("div", { class: "mid", id: "mid" });
  let plays = f.current, winner = null, info = "";
  if (!plays.length && f.trick > 0 && f.kind === "play") {
    const tr = D.tricks[f.trick - 1];
    plays = tr.plays; winner = tr.winner;
    info = "trick " + f.trick + ": seat " + tr.winner + " wins " + tr.points + " points";
  } else if (f.phase === "play") {
    info = "trick " + (f.trick + 1);
  } else if (f.phase === "declare") {
    info = "dealing";
  } else {
    info = "the hand is over";
  }
  const trumps = viewer === "all" ? f.trumps : f.views[+viewer].trumps;
  for (const [s, ids] of plays) {
    mid.append(el("div", { class: "play" + (s === winner ? " winner" : ""), id: "p" + s, "data-testid": "play-" + s },
      groupsEl([ids], N, trumps), el("div", { class: "muted" }, "seat " + s)));
  }
  mid.append(el("div", { class: "info", "data-testid": "trick-info" }, info));
  t.replaceChildren(seatPanel(f, 0), seatPanel(f, 1), seatPanel(f, 2), seatPanel(f, 3), mid);
}

function drawStep(f) {
  const box = el("div", { class: "box" }, el("div", { "data-testid": "label" }, (pos + 1) + "/" + D.frames.length + ": " + f.label));
  if (f.note) {
    const n = f.note;
    box.append(el("div", { class: "note" + (n.forced ? " forced" : ""), "data-testid": "note", "data-rule": n.rule },
      n.rule + ": " + n.text + (n.forced ? " (the only legal follow)" : " (" + n.choices + " legal follows)") +
      (n.void ? "; void in " + SUIT_NAME[n.void] : "")));
  }
  if (f.decision) {
    const pre = el("pre", { class: "stats", "data-testid": "stats", hidden: "hidden" }, JSON.stringify(f.decision, null, 1));
    box.append(el("button", { "data-testid": "show-stats", onclick: () => { pre.hidden = !pre.hidden; } }, "decision statistics (" + f.decision.policy + ")"), pre);
  }
  document.getElementById("step").replaceChildren(box);
  document.getElementById("where").textContent = (pos + 1) + " / " + D.frames.length;
}

function drawDeal(f) {
  const box = document.getElementById("deal");
  const rows = [];
  const v = viewer === "all" ? null : +viewer;
  const list = v === null ? D.showings.slice(0, f.showings) : f.views[v].showings;
  for (const sh of list) {
    const [attempt, dealt, seat, count, suit] = sh;
    let suitEl;
    if (v === null) {
      const hidden = f.phase === "declare" || !sh[5];
      suitEl = el("span", { class: hidden ? "hidden-suit" : null, "data-testid": "showing-suit", "data-hidden": hidden ? "1" : "0" },
        suitText(suit) + (hidden ? " (hidden from the others, R8.2)" : ""));
    } else {
      suitEl = el("span", { "data-testid": "showing-suit", "data-hidden": suit === null ? "1" : "0" }, suitText(suit));
    }
    rows.push(el("div", { "data-testid": "showing" }, "deal " + (attempt + 1) + ", " + dealt + " cards dealt: seat " + seat + " shows " + count + " \u00d7 ", suitEl));
  }
  if (!rows.length) rows.push(el("div", { class: "muted" }, f.phase === "declare" || D.frames.length < 2 ? "no showing yet" : "no showing"));
  if (D.stopped && f.phase !== "declare") rows.push(el("div", { class: "error" }, "three deals without a showing: the hand stops (R8.5)"));
  box.replaceChildren(...rows);
}

function drawTricks(f) {
  const t = document.getElementById("tricks");
  const rows = [el("tr", {}, el("th", {}, "#"), el("th", {}, "plays (leader first)"), el("th", {}, "won by"), el("th", {}, "pts"), el("th", {}, "def."))];
  const trumps = viewer === "all" ? f.trumps : f.views[+viewer].trumps;
  D.tricks.slice(0, f.trick).forEach((tr, i) => {
    rows.push(el("tr", { "data-testid": "trick-" + (i + 1), class: i + 1 === f.trick && !f.current.length && f.kind === "play" ? "now" : null,
      onclick: () => go(D.trick_frames[i]) },
      el("td", {}, i + 1),
      el("td", { "data-testid": "trick-plays" }, tr.plays.map(([s, ids]) => s + ": " + cardsText(ids, N)).join(" | ")),
      el("td", { "data-testid": "trick-winner" }, tr.winner),
      el("td", { "data-testid": "trick-points" }, tr.points),
      el("td", {}, tr.defenders === null ? "" : tr.defenders)));
  });
  t.replaceChildren(...rows);
}

function drawResult(f) {
  const r = D.result;
  const box = document.getElementById("result");
  if (!r || pos !== D.frames.length - 1) {
    box.replaceChildren(el("span", { class: "muted" }, D.stopped ? "stopped (R8.5): no result" : "not yet"));
    return;
  }
  const what = r.defenders_take_over ? "the defenders take over and go up " + r.defender_levels + " level(s)"
    : "the bankers go up " + r.banker_levels + " level(s)";
  box.replaceChildren(el("div", { class: "result", "data-testid": "result" },
    "defenders' score " + r.score + (r.raw_score !== r.score ? " (" + r.raw_score + " before the profile's clamp)" : "") + ": " + what +
    "; next banker seat " + r.next_banker),
    el("div", { class: "muted" }, "per seat (levels, zero-sum): " + r.returns.join(", ")));
}

function draw() {
  const f = D.frames[pos];
  drawHeader(f); drawTable(f); drawStep(f); drawDeal(f); drawTricks(f); drawResult(f);
  document.getElementById("jump").value = String(f.trick);
  document.body.dataset.pos = String(pos);
  document.body.dataset.viewer = viewer;
}

function go(p) { pos = Math.max(0, Math.min(D.frames.length - 1, p)); draw(); }

function setup() {
  const jump = document.getElementById("jump");
  jump.append(el("option", { value: "0" }, "deal"));
  D.tricks.forEach((_, i) => jump.append(el("option", { value: String(i + 1) }, String(i + 1))));
  jump.addEventListener("change", () => { const i = +jump.value; go(i === 0 ? 0 : D.trick_frames[i - 1]); });
  const vsel = document.getElementById("viewer");
  viewer = D.initial_view || "all";
  vsel.value = viewer;
  vsel.addEventListener("change", () => { viewer = vsel.value; draw(); });
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("prev").onclick = () => go(pos - 1);
  document.getElementById("next").onclick = () => go(pos + 1);
  document.getElementById("last").onclick = () => go(D.frames.length - 1);
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "SELECT") return;
    if (e.key === "ArrowRight") go(pos + 1);
    else if (e.key === "ArrowLeft") go(pos - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(D.frames.length - 1);
    else if (e.key === "w" || "0123".includes(e.key) && e.key.length === 1) { viewer = e.key === "w" ? "all" : e.key; vsel.value = viewer; draw(); }
    else return;
    e.preventDefault();
  });
  go(0);
}
setup();
