//! The JSON hand record (`game::record_json`): every hand reads back as the same game and the
//! same text, and a record that was changed is refused, by the rules or by its stated result.

use serde_json::Value;
use tractor_core::agent::random::random_action;
use tractor_core::game::hand::{Action, Game, NOBODY};
use tractor_core::game::record_json::{from_json, to_json, Refusal};
use tractor_core::rules::error::Error;
use tractor_core::{Profile, Rng};

/// A hand of `profile` from `seed`, played `steps` random decisions in (to its end if larger).
fn hand(seed: u64, profile: Profile, steps: usize) -> Game {
    let levels = if seed % 2 == 0 { [3, 3] } else { [5, 9] };
    let banker = if seed % 2 == 0 { NOBODY } else { (seed % 4) as u8 };
    let mut g = Game::deal(seed, profile, levels, banker, None).unwrap();
    if seed % 3 == 0 {
        g = g.with_every_receiver().unwrap();
    }
    g.hand_index = (seed % 5) as u32;
    let mut rng = Rng::new(seed ^ 0x9E37);
    for _ in 0..steps {
        let Some(a) = random_action(&g, &mut rng) else { break };
        g.apply(&a).unwrap();
    }
    g
}

fn edited(g: &Game, edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&to_json(g)).unwrap();
    edit(&mut v);
    v.to_string()
}

#[test]
fn every_hand_reads_back_as_itself() {
    let mut seen = [0usize; 4];
    for seed in 0..60u64 {
        for profile in Profile::ALL {
            for steps in [0, 7, 40, 150, 100_000] {
                let g = hand(seed, profile, steps);
                let text = to_json(&g);
                let h = from_json(&text).unwrap_or_else(|e| panic!("seed {seed} {profile:?} {steps}: {e}"));
                assert_eq!(h, g);
                assert_eq!(to_json(&h), text);
                seen[g.phase() as usize] += 1;
            }
        }
    }
    assert!(seen[..3].iter().all(|&n| n > 0), "dealing, playing and over are covered: {seen:?}");
}

#[test]
fn given_hands_read_back_as_themselves() {
    for seed in 0..20u64 {
        let mut g = hand(seed, Profile::ALL[seed as usize % 3], 100_000);
        if g.pos.phase != tractor_core::game::hand::Phase::Over {
            continue;
        }
        // the hands of a finished hand's start are not at hand: deal a play-phase hand instead
        let mut d = hand(seed, Profile::Guigang, 0);
        let mut rng = Rng::new(seed);
        while d.pos.phase == tractor_core::game::hand::Phase::Declare {
            let a = random_action(&d, &mut rng).unwrap();
            d.apply(&a).unwrap();
        }
        if d.pos.phase != tractor_core::game::hand::Phase::Play {
            continue;
        }
        g = Game::from_hands(d.pos.hands, d.pos.level, d.pos.trump, d.pos.banker, d.pos.profile).unwrap();
        for _ in 0..(seed as usize * 9) {
            let Some(a) = random_action(&g, &mut rng) else { break };
            g.apply(&a).unwrap();
        }
        let text = to_json(&g);
        assert!(text.contains(r#""kind":"hands""#));
        assert_eq!(from_json(&text).unwrap(), g);
    }
}

#[test]
fn the_text_is_pinned() {
    let g = hand(4, Profile::Nanning, 3);
    let text = to_json(&g);
    let head = r#"{"format":"tractor-engine/hand","format_version":1,"engine":""#;
    assert!(text.starts_with(head), "{text}");
    let tail = r#""profile":"nanning","start":{"kind":"deal","hand_seed":4,"levels":[3,3],"banker":null,"deck":null,"first_seat":null,"hand_index":4},"actions":[[2,"pass"],[0,"declare","h",1],[2,"pass"]],"result":null,"stopped":false}"#;
    assert!(text.ends_with(tail), "{text}");
}

fn malformed(text: &str) -> String {
    match from_json(text) {
        Err(Refusal::Malformed(m)) => m,
        Err(r) => panic!("not malformed but {r}"),
        Ok(_) => panic!("accepted: {text}"),
    }
}

#[test]
fn a_changed_record_is_refused() {
    let g = hand(8, Profile::Guigang, 100_000);
    let n = g.record.actions.len();
    let first_play = g.record.actions.iter().position(|(_, a)| matches!(a, Action::Play(_))).unwrap();
    assert!(malformed(&edited(&g, |v| v["result"]["score"] = (v["result"]["score"].as_i64().unwrap() + 5).into()))
        .starts_with("the record's result"));
    assert!(malformed(&edited(&g, |v| v["stopped"] = true.into())).starts_with("the record's stopped"));
    assert!(malformed(&edited(&g, |v| {
        v["actions"].as_array_mut().unwrap().pop();
    }))
    .starts_with("the record's result"));
    let m = malformed(&edited(&g, |v| v["actions"][n - 1][0] = ((g.record.actions[n - 1].0 + 1) % 4).into()));
    assert!(m.starts_with(&format!("actions[{}]: seat", n - 1)) && m.contains("is not to move"), "{m}");
    assert!(malformed(&edited(&g, |v| v["actions"][0][1] = "throw".into())).contains("is not a pass, declare or play"));
    // another deal: refused by the rules or by the stated result, whichever comes first
    assert!(from_json(&edited(&g, |v| v["start"]["hand_seed"] = 9.into())).is_err());
    assert!(malformed(&edited(&g, |v| v["format_version"] = 2.into())).starts_with("record format version 2"));
    assert!(malformed(&edited(&g, |v| v["format"] = "x".into())).starts_with("not a hand record"));
    assert!(malformed(&edited(&g, |v| v["extra"] = 1.into())).starts_with("unknown record fields"));
    assert!(malformed(&edited(&g, |v| v["start"]["kind"] = "magic".into())).starts_with("record: unknown start kind"));
    assert!(malformed(&edited(&g, |v| v["start"]["levels"] = serde_json::json!([3, 15]))).contains("start.levels[1]"));
    assert!(malformed(&edited(&g, |v| v["actions"][0][0] = "0".into())).contains("actions[0] seat must be an int, got str"));
    // the rules refuse a play that is not the seat's, and say which decision
    let edit = edited(&g, |v| v["actions"][first_play][1] = "declare".into());
    assert!(malformed(&edit).contains("is not a pass, declare or play"));
    let edit = edited(&g, |v| {
        v["actions"][first_play] = serde_json::json!([v["actions"][first_play][0], "declare", "h", 1]);
    });
    match from_json(&edit) {
        Err(Refusal::Refused { index, error: Error::IllegalAction { .. }, before }) => {
            assert_eq!(index, first_play);
            assert_eq!(before.record.actions.len(), first_play, "the hand just before the refused decision");
        }
        other => panic!("{other:?}"),
    }
    let edit = edited(&g, |v| v["actions"][first_play][2] = "9s 9s 9s 9s 9s".into());
    assert!(matches!(from_json(&edit), Err(Refusal::Refused { error: Error::TooManyCopies { .. }, .. })));
}

#[test]
fn garbage_is_refused_without_a_panic() {
    for text in ["", "not json", "[]", "42", "null", r#"{"format": "tractor-engine/hand"}"#, "\"x\"", "{\"a\":"] {
        malformed(text);
    }
    assert_eq!(malformed(&"[".repeat(100_000)), "not a record: the JSON is nested too deeply");
    assert!(malformed("[1]").starts_with("a record is a dict (a JSON object), got list"));
}
