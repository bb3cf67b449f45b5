//! Compact binary hand records for offline learning: about half a kilobyte a hand.
//!
//! One hand, all integers little-endian:
//! ```text
//! u32  length of what follows
//! u8   format version (1)
//! u64  hand seed (the deal is derived from it, see `seed`)
//! u8   profile (0 guigang, 1 nanning)
//! u8,u8 team levels, u8 banker (255: the final declarer becomes banker)
//! then every decision in order:
//!   0x00               pass
//!   0x10 | suit<<2 | (count−1)     declare (suit 0..3 = s h d c, count 1..4)
//!   0x80 | n, then n bytes kind | (copies−1)<<6      a play of n distinct kinds
//! ```

use crate::card::{Counts, KINDS};
use crate::error::Error;
use crate::hand_state::{Action, Game};
use crate::rules::Profile;

pub const FORMAT_VERSION: u8 = 1;

pub fn encode_header(hand_seed: u64, profile: Profile, levels: [u8; 2], banker: u8, buf: &mut Vec<u8>) {
    buf.extend_from_slice(&[0, 0, 0, 0, FORMAT_VERSION]);
    buf.extend_from_slice(&hand_seed.to_le_bytes());
    buf.push(match profile {
        Profile::Guigang => 0,
        Profile::Nanning => 1,
    });
    buf.extend_from_slice(&[levels[0], levels[1], banker]);
}

pub fn encode_action(a: &Action, buf: &mut Vec<u8>) {
    match a {
        Action::Pass => buf.push(0),
        Action::Declare { suit, count } => buf.push(0x10 | suit << 2 | (count - 1)),
        Action::Play(c) => {
            let at = buf.len();
            buf.push(0x80);
            for (k, &n) in c.iter().enumerate() {
                if n > 0 {
                    buf.push(k as u8 | (n - 1) << 6);
                    buf[at] += 1;
                }
            }
        }
    }
}

/// Writes the length of the hand that starts at `at`.
pub fn finish(buf: &mut [u8], at: usize) {
    let len = (buf.len() - at - 4) as u32;
    buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// A decoded hand record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandRecord {
    pub hand_seed: u64,
    pub profile: Profile,
    pub levels: [u8; 2],
    pub banker: u8,
    pub actions: Vec<Action>,
}

fn bad(msg: &str) -> Error {
    Error::BadPlays(format!("corrupt hand record: {msg}"))
}

/// Decodes the hand at the start of `bytes`; returns it and the bytes it used.
pub fn decode(bytes: &[u8]) -> Result<(HandRecord, usize), Error> {
    if bytes.len() < 4 {
        return Err(bad("truncated length"));
    }
    let len = u32::from_le_bytes(bytes[0..4].try_into().expect("4 bytes")) as usize;
    let body = bytes.get(4..4 + len).ok_or_else(|| bad("truncated hand"))?;
    if body.len() < 13 || body[0] != FORMAT_VERSION {
        return Err(bad("unknown format version or short header"));
    }
    let hand_seed = u64::from_le_bytes(body[1..9].try_into().expect("8 bytes"));
    let profile = match body[9] {
        0 => Profile::Guigang,
        1 => Profile::Nanning,
        _ => return Err(bad("profile")),
    };
    let (levels, banker) = ([body[10], body[11]], body[12]);
    let mut actions = Vec::new();
    let mut i = 13;
    while i < body.len() {
        let b = body[i];
        i += 1;
        actions.push(match b {
            0 => Action::Pass,
            0x10..=0x1F => Action::Declare { suit: (b >> 2) & 3, count: (b & 3) + 1 },
            0x80.. => {
                let n = (b & 0x7F) as usize;
                let mut c: Counts = [0; KINDS];
                for &e in body.get(i..i + n).ok_or_else(|| bad("truncated play"))? {
                    let k = (e & 0x3F) as usize;
                    if k >= KINDS {
                        return Err(bad("card kind"));
                    }
                    c[k] = (e >> 6) + 1;
                }
                i += n;
                Action::Play(c)
            }
            _ => return Err(bad("action byte")),
        });
    }
    Ok((HandRecord { hand_seed, profile, levels, banker, actions }, 4 + len))
}

/// Replays a decoded hand into a full [`Game`] (with its record), checking every action.
pub fn replay(rec: &HandRecord) -> Result<Game, Error> {
    let mut g = Game::deal(rec.hand_seed, rec.profile, rec.levels, rec.banker, None)?;
    for a in &rec.actions {
        g.apply(a)?;
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand_state::NOBODY;
    use crate::policy::Policy;
    use crate::sim::simulate_hand;

    #[test]
    fn records_replay_exactly_and_are_small() {
        let mut total = 0usize;
        for i in 0..50u64 {
            let mut buf = Vec::new();
            let p = [Policy::Greedy, Policy::Random, Policy::Greedy, Policy::Random];
            let r = simulate_hand(9, i, &p, Profile::Guigang, Some(&mut buf));
            let (rec, used) = decode(&buf).unwrap();
            assert_eq!(used, buf.len());
            assert_eq!((rec.levels, rec.banker), ([3, 3], NOBODY));
            let g = replay(&rec).unwrap();
            assert_eq!(g.pos.final_score, r.score);
            assert_eq!(g.pos.tricks_done, r.tricks);
            total += buf.len();
        }
        assert!(total / 50 < 1024, "average {} bytes", total / 50);
    }

    #[test]
    fn corrupt_records_are_refused() {
        assert!(decode(&[1, 0]).is_err());
        assert!(decode(&[20, 0, 0, 0, 1]).is_err());
        let mut buf = Vec::new();
        encode_header(1, Profile::Guigang, [3, 3], NOBODY, &mut buf);
        buf.push(0x85); // a play of 5 kinds with no bytes
        finish(&mut buf, 0);
        assert!(decode(&buf).is_err());
    }
}
