//! The JSON hand record (format `tractor-engine/hand`, version 1): how a hand began, every
//! decision in order, and the result it reached. [`to_json`] writes it; [`from_json`] reads
//! it back, replays every decision through [`Game::apply`] (the same replay as the binary
//! records of [`crate::game::record`]) and refuses a record whose stated result or stop its
//! replay does not reach.
//!
//! ```text
//! {"format":"tractor-engine/hand","format_version":1,"engine":"0.1.0","profile":"guigang",
//!  "start":{"kind":"deal","hand_seed":7,"levels":[3,3],"banker":null,"deck":null,"first_seat":null
//!           [,"redeal_decks":[[deck text,first seat],…]][,"hand_index":n][,"every_receiver":true]}
//!        | {"kind":"hands","hands":[text ×4],"level":10,"trump":"h","banker":0},
//!  "actions":[[seat,"pass"] | [seat,"declare",suit,count] | [seat,"play",cards text], …],
//!  "result":null | {"score","raw_score","banker","trump","banker_levels","defender_levels",
//!                   "defenders_take_over","next_banker"},
//!  "stopped":false}
//! ```
//! Cards are written as their text (`10s`, `SJ`), the cards of a play and of a hand in kind
//! order, a deck in dealing order.

use std::fmt;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::game::hand::{Action, Game, Phase, Start, NOBODY};
use crate::rules::card::{self, Card, Counts, DECK, KINDS, SUITS};
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use crate::rules::trump::{parse_level, parse_suit};

/// The record's `format` field.
pub const FORMAT: &str = "tractor-engine/hand";
/// The record's `format_version` field.
pub const VERSION: u64 = 1;
/// The fields a record may have.
pub const FIELDS: [&str; 8] = ["format", "format_version", "engine", "profile", "start", "actions", "result", "stopped"];

/// Why a record was not read.
#[derive(Clone, Debug)]
pub enum Refusal {
    /// Not JSON, malformed, of another format, with a start that deals no hand, or stating a
    /// result or stop its replay does not reach.
    Malformed(String),
    /// Decision `index` was refused by the rules (or named no action); `before` is the hand
    /// just before it.
    Refused { index: usize, error: Error, before: Box<Game> },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Malformed(m) => f.write_str(m),
            Refusal::Refused { index, error, .. } => write!(f, "actions[{index}]: {error}"),
        }
    }
}

fn malformed(m: impl Into<String>) -> Refusal {
    Refusal::Malformed(m.into())
}

// -- writing ---------------------------------------------------------------------------------

fn cards_text(c: &Counts) -> String {
    card::format(&card::cards_of(c))
}

fn deck_text(d: &[u8; DECK]) -> String {
    card::format(&d.iter().map(|&k| Card(k)).collect::<Vec<_>>())
}

/// A JSON string (the texts written here are ASCII, but any text is escaped correctly).
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_seat(out: &mut String, s: u8) {
    if s == NOBODY {
        out.push_str("null");
    } else {
        let _ = write!(out, "{s}");
    }
}

fn suit_text(s: u8) -> String {
    SUITS[s as usize].to_string()
}

/// The record's `result`: null until the hand is over (and when it stopped, R8.5).
fn push_result(out: &mut String, g: &Game) {
    let p = &g.pos;
    let (Some(o), Some(next)) = (p.outcome(), p.next_banker()) else {
        out.push_str("null");
        return;
    };
    let _ = write!(out, "{{\"score\":{},\"raw_score\":{},\"banker\":", o.score, p.final_score);
    push_seat(out, p.banker);
    out.push_str(",\"trump\":");
    if p.trump == NOBODY {
        out.push_str("null");
    } else {
        push_str(out, &suit_text(p.trump));
    }
    let _ = write!(
        out,
        ",\"banker_levels\":{},\"defender_levels\":{},\"defenders_take_over\":{},\"next_banker\":{next}}}",
        o.banker_levels, o.defender_levels, o.defenders_take_over
    );
}

/// The hand's JSON record, compact (no spaces), its fields in the order of [`FIELDS`].
pub fn to_json(g: &Game) -> String {
    let mut out = String::with_capacity(4096);
    out.push_str("{\"format\":");
    push_str(&mut out, FORMAT);
    let _ = write!(out, ",\"format_version\":{VERSION},\"engine\":");
    push_str(&mut out, env!("CARGO_PKG_VERSION")); // the engine's version (the crate root's VERSION)
    out.push_str(",\"profile\":");
    push_str(&mut out, g.record.profile.name());
    out.push_str(",\"start\":");
    match &g.record.start {
        Start::Deal { hand_seed, levels, banker, decks } => {
            let _ = write!(out, "{{\"kind\":\"deal\",\"hand_seed\":{hand_seed},\"levels\":[{},{}],\"banker\":", levels[0], levels[1]);
            push_seat(&mut out, *banker);
            out.push_str(",\"deck\":");
            match decks.first() {
                Some((d, first)) => {
                    push_str(&mut out, &deck_text(d));
                    let _ = write!(out, ",\"first_seat\":{first}");
                }
                None => out.push_str("null,\"first_seat\":null"),
            }
            if decks.len() > 1 {
                out.push_str(",\"redeal_decks\":[");
                for (i, (d, first)) in decks[1..].iter().enumerate() {
                    out.push_str(if i == 0 { "[" } else { ",[" });
                    push_str(&mut out, &deck_text(d));
                    let _ = write!(out, ",{first}]");
                }
                out.push(']');
            }
            if g.hand_index > 0 {
                let _ = write!(out, ",\"hand_index\":{}", g.hand_index);
            }
            if g.record.every_receiver {
                out.push_str(",\"every_receiver\":true");
            }
            out.push('}');
        }
        Start::Hands { hands, level, trump, banker } => {
            out.push_str("{\"kind\":\"hands\",\"hands\":[");
            for (i, h) in hands.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_str(&mut out, &cards_text(h));
            }
            let _ = write!(out, "],\"level\":{level},\"trump\":");
            push_str(&mut out, &suit_text(*trump));
            let _ = write!(out, ",\"banker\":{banker}}}");
        }
    }
    out.push_str(",\"actions\":[");
    for (i, (seat, a)) in g.record.actions.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match a {
            Action::Pass => {
                let _ = write!(out, "[{seat},\"pass\"]");
            }
            Action::Declare { suit, count } => {
                let _ = write!(out, "[{seat},\"declare\",");
                push_str(&mut out, &suit_text(*suit));
                let _ = write!(out, ",{count}]");
            }
            Action::Play(c) => {
                let _ = write!(out, "[{seat},\"play\",");
                push_str(&mut out, &cards_text(c));
                out.push(']');
            }
        }
    }
    out.push_str("],\"result\":");
    push_result(&mut out, g);
    let _ = write!(out, ",\"stopped\":{}}}", g.pos.phase == Phase::Stopped);
    out
}

// -- reading ---------------------------------------------------------------------------------

/// A value as the message shows it: its JSON text, cut at 60 characters.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 60 {
        s
    } else {
        s.chars().take(57).collect::<String>() + "..."
    }
}

/// The Python name of a JSON value's type (records are mostly read from Python).
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// An integer in lo..=hi.
fn int(v: &Value, what: &str, lo: u64, hi: u64) -> Result<u64, String> {
    match v {
        Value::Number(n) if !n.is_f64() => match n.as_u64() {
            Some(x) if (lo..=hi).contains(&x) => Ok(x),
            _ => Err(format!("{what} {n} is out of range: it must be in {lo}..{hi}")),
        },
        Value::Bool(_) => Err(format!("{what} must be an int, got {}", show(v))),
        _ => Err(format!("{what} must be an int, got {} {}", type_name(v), show(v))),
    }
}

fn seat(v: &Value, what: &str) -> Result<u8, String> {
    int(v, what, 0, 3).map(|s| s as u8)
}

/// null (nobody) or a seat.
fn opt_seat(v: Option<&Value>, what: &str) -> Result<u8, String> {
    match v {
        None | Some(Value::Null) => Ok(NOBODY),
        Some(v) => seat(v, what),
    }
}

fn text<'a>(v: &'a Value, what: &str) -> Result<&'a str, String> {
    v.as_str().ok_or_else(|| format!("{what} must be a string, got {} {}", type_name(v), show(v)))
}

/// A level: 3..14 or its text (R2.1).
fn level(v: &Value, what: &str) -> Result<u8, String> {
    match v {
        Value::String(s) => parse_level(s).map_err(|e| format!("{what}: {e}")),
        _ => int(v, what, 3, 14).map(|l| l as u8).map_err(|e| format!("R2.1: {e}")),
    }
}

/// A suit: its letter or symbol, or 0..3.
fn suit(v: &Value, what: &str) -> Result<u8, Error> {
    match v {
        Value::String(s) => parse_suit(s),
        _ => int(v, what, 0, 3).map(|s| s as u8).map_err(Error::BadSuit),
    }
}

fn field<'a>(d: &'a Map<String, Value>, key: &str) -> &'a Value {
    d.get(key).unwrap_or(&Value::Null)
}

fn list<'a>(d: &'a Map<String, Value>, key: &str) -> Result<&'a Vec<Value>, String> {
    let v = field(d, key);
    v.as_array().ok_or_else(|| format!("record field '{key}' must be a list, got {}", show(v)))
}

/// Cards given as text (`"3s 3s BJ"`).
fn cards(v: &Value, what: &str) -> Result<Vec<Card>, Error> {
    let s = text(v, what).map_err(|m| Error::BadArgument { what: "record", message: m })?;
    card::parse(s)
}

fn deck(v: &Value, what: &str) -> Result<[u8; DECK], String> {
    let cs = cards(v, what).map_err(|e| format!("{what}: {e}"))?;
    let ids: Vec<u8> = cs.iter().map(|c| c.0).collect();
    ids.as_slice().try_into().map_err(|_| format!("{what}: R1.2: a deck has 216 cards, got {}", ids.len()))
}

/// The hand a record's `start` begins.
fn start(rec: &Map<String, Value>) -> Result<Game, String> {
    let st = match field(rec, "start") {
        Value::Object(m) => m,
        v => return Err(format!("record field 'start' must be a dict, got {}", show(v))),
    };
    let profile = Profile::parse(text(field(rec, "profile"), "profile")?).map_err(|e| e.to_string())?;
    match field(st, "kind").as_str() {
        Some("hands") => {
            let hs = list(st, "hands")?;
            if hs.len() != 4 {
                return Err(format!("start.hands: four hands are needed, got {}", hs.len()));
            }
            let mut hands = [[0u8; KINDS]; 4];
            for (i, h) in hs.iter().enumerate() {
                let what = format!("start.hands[{i}]");
                hands[i] = cards(h, &what).and_then(|c| card::counts_of(&c)).map_err(|e| format!("{what}: {e}"))?;
            }
            let level = level(field(st, "level"), "start.level")?;
            let trump = suit(field(st, "trump"), "start.trump").map_err(|e| format!("start.trump: {e}"))?;
            let banker = seat(field(st, "banker"), "start.banker")?;
            Game::from_hands(hands, level, trump, banker, profile).map_err(|e| e.to_string())
        }
        Some("deal") => {
            let hand_seed = int(field(st, "hand_seed"), "start.hand_seed", 0, u64::MAX)?;
            let lv = list(st, "levels")?;
            if lv.len() != 2 {
                return Err(format!("start.levels must be a pair (team 0, team 1), got {}", show(field(st, "levels"))));
            }
            let levels = [level(&lv[0], "start.levels[0]")?, level(&lv[1], "start.levels[1]")?];
            let banker = opt_seat(st.get("banker"), "start.banker")?;
            let mut decks = Vec::new();
            match field(st, "deck") {
                Value::Null => {
                    if !field(st, "first_seat").is_null() {
                        return Err("start.first_seat goes with a deck; a seeded deal draws its own first seat (R1.3)".into());
                    }
                }
                d => decks.push((deck(d, "start.deck")?, seat(field(st, "first_seat"), "start.first_seat")?)),
            }
            if let Some(more) = st.get("redeal_decks") {
                let more = more.as_array().ok_or_else(|| format!("record field 'redeal_decks' must be a list, got {}", show(more)))?;
                if !more.is_empty() && decks.is_empty() {
                    return Err("start.redeal_decks go with a first deck".into());
                }
                for (i, r) in more.iter().enumerate() {
                    let what = format!("start.redeal_decks[{i}]");
                    match r.as_array().map(Vec::as_slice) {
                        Some([d, f]) => decks.push((deck(d, &what)?, seat(f, &format!("{what} first seat"))?)),
                        _ => return Err(format!("{what} must be [deck text, first seat], got {}", show(r))),
                    }
                }
            }
            let hand_index = match st.get("hand_index") {
                None => 0,
                Some(v) => int(v, "start.hand_index", 0, u32::MAX as u64)? as u32,
            };
            let every_receiver = match st.get("every_receiver") {
                None | Some(Value::Bool(false)) => false,
                Some(Value::Bool(true)) => true,
                Some(v) => return Err(format!("start.every_receiver must be true or false, got {}", show(v))),
            };
            let mut g = Game::deal_decks(hand_seed, profile, levels, banker, decks).map_err(|e| e.to_string())?;
            if every_receiver {
                g = g.with_every_receiver().map_err(|e| e.to_string())?;
            }
            g.hand_index = hand_index;
            Ok(g)
        }
        _ => Err(format!("unknown start kind {}: 'deal' or 'hands'", show(field(st, "kind")))),
    }
}

/// Decision `i` of a record, as an action of the rules, after its seat is checked.
fn action(g: &Game, i: usize, a: &Value) -> Result<Action, Refusal> {
    let parts = match a.as_array() {
        Some(p) if p.len() >= 2 && p[1].is_string() => p,
        _ => return Err(malformed(format!("actions[{i}] must be [seat, kind, ...], got {}", show(a)))),
    };
    let s = seat(&parts[0], &format!("actions[{i}] seat")).map_err(malformed)?;
    let to_move = g.pos.to_move;
    if !matches!(g.phase(), Phase::Declare | Phase::Play) {
        return Err(malformed(format!("actions[{i}]: seat {s} is not to move (the hand is over)")));
    }
    if s != to_move {
        return Err(malformed(format!("actions[{i}]: seat {s} is not to move (seat {to_move} is)")));
    }
    let refused = |error: Error| Refusal::Refused { index: i, error, before: Box::new(g.clone()) };
    match (parts[1].as_str(), parts.len()) {
        (Some("pass"), 2) => Ok(Action::Pass),
        (Some("declare"), 4) => {
            let suit = suit(&parts[2], "Declare.suit").map_err(refused)?;
            let count = int(&parts[3], "R8.1: Declare.count (a showing has 1 to 4 cards)", 1, 4)
                .map_err(|m| refused(Error::IllegalAction { rule: "R8.1", message: m }))?;
            Ok(Action::Declare { suit, count: count as u8 })
        }
        (Some("play"), 3) => {
            let cs = cards(&parts[2], &format!("actions[{i}] cards")).map_err(refused)?;
            Ok(Action::Play(card::counts_of(&cs).map_err(refused)?))
        }
        _ => Err(malformed(format!("actions[{i}]: {} is not a pass, declare or play", show(a)))),
    }
}

/// Reads a record from its JSON text and replays it (see the module's doc).
pub fn from_json(text: &str) -> Result<Game, Refusal> {
    let rec: Value = serde_json::from_str(text).map_err(|e| {
        if e.to_string().starts_with("recursion limit") {
            malformed("not a record: the JSON is nested too deeply")
        } else {
            malformed(format!("not JSON: {e}"))
        }
    })?;
    from_value(&rec)
}

/// Reads a record already parsed from JSON and replays it.
pub fn from_value(rec: &Value) -> Result<Game, Refusal> {
    let Value::Object(rec) = rec else {
        return Err(malformed(format!("a record is a dict (a JSON object), got {}", type_name(rec))));
    };
    let unknown: Vec<&str> = rec.keys().map(String::as_str).filter(|k| !FIELDS.contains(k)).collect();
    if !unknown.is_empty() {
        return Err(malformed(format!("unknown record fields: {unknown:?}")));
    }
    if field(rec, "format").as_str() != Some(FORMAT) {
        return Err(malformed(format!("not a hand record: format {}", show(field(rec, "format")))));
    }
    let v = field(rec, "format_version");
    if v.as_u64() != Some(VERSION) || v.is_f64() {
        return Err(malformed(format!("record format version {} is not {VERSION}", show(v))));
    }
    let mut g = start(rec).map_err(|m| malformed(format!("record: {m}")))?;
    for (i, a) in list(rec, "actions").map_err(malformed)?.iter().enumerate() {
        let a = action(&g, i, a)?;
        if let Err(error) = g.apply(&a) {
            return Err(Refusal::Refused { index: i, error, before: Box::new(g) });
        }
    }
    // The stated result and stop must be the replay's: a record that claims another is tampered.
    let replayed: Value = serde_json::from_str(&to_json(&g)).expect("to_json writes JSON");
    for key in ["result", "stopped"] {
        let (stated, got) = (field(rec, key), &replayed[key]);
        if stated != got {
            return Err(malformed(format!("the record's {key} {} does not match its replay {}", show(stated), show(got))));
        }
    }
    Ok(g)
}
