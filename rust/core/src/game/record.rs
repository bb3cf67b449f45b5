//! Compact binary hand records for offline learning: about 350 bytes a hand.
//!
//! One hand is one frame; a records file (see [`records_file`](crate::game::records_file))
//! is a header, frames and a footer. All integers are little-endian:
//! ```text
//! frame:   u32  length n of the body
//!          u32  run tag (the CRC of the file's header; 0 in frames not yet in a file)
//!          u64  hand index (the hand's index in its run)
//!          n bytes of body
//!          u32  CRC-32 of the frame's bytes before it
//! body:    u8   hand format version (1)
//!          u64  hand seed (the deal is derived from it, see `seed`)
//!          u8   profile (0 guigang, 1 nanning, 2 competition)
//!          u8,u8 team levels, u8 banker (255: the final declarer becomes banker)
//!          then every decision in order:
//!            0x00               pass
//!            0x10 | suit<<2 | (count−1)     declare (suit 0..3 = s h d c, count 1..4)
//!            0x80 | n, then n bytes kind | (copies−1)<<6      a play of n distinct kinds
//! ```
//! The CRC (IEEE, the one of zlib and gzip) finds a damaged frame; a frame cut short finds a
//! truncated file. Frames of files of version 2 had no tag and no index (length, body, CRC):
//! [`frame_v2`] reads them.

use crate::game::hand::{Action, Game};
use crate::rules::card::{Counts, KINDS};
use crate::rules::error::Error;
use crate::rules::profile::Profile;
use std::fmt;

/// The version of one hand's body.
pub const FORMAT_VERSION: u8 = 1;
/// No hand's body comes near this (a hand has at most a few hundred decisions): a larger
/// length is damage, refused before anything is allocated for it.
pub const MAX_BODY: usize = 1 << 16;
/// The bytes of a frame before its body: length, run tag, hand index.
pub const FRAME_HEAD: usize = 16;
/// The bytes a frame adds to its body: the head and the CRC.
pub const FRAME_EXTRA: usize = FRAME_HEAD + 4;

/// CRC-32 tables for slicing by 8 (eight bytes a step): `CRC_TABLES[0]` is the classic table.
const CRC_TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut j = 1;
    while j < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[j - 1][i];
            t[j][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            i += 1;
        }
        j += 1;
    }
    t
};

/// A CRC-32 (IEEE 802.3, Python's `zlib.crc32`) computed over bytes given in pieces.
#[derive(Clone, Copy, Debug)]
pub struct Crc32(u32);

impl Default for Crc32 {
    fn default() -> Self {
        Crc32(!0)
    }
}

impl Crc32 {
    pub fn update(&mut self, bytes: &[u8]) {
        let t = &CRC_TABLES;
        let mut c = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for b in &mut chunks {
            let lo = c ^ u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            c = t[7][(lo & 0xFF) as usize]
                ^ t[6][((lo >> 8) & 0xFF) as usize]
                ^ t[5][((lo >> 16) & 0xFF) as usize]
                ^ t[4][(lo >> 24) as usize]
                ^ t[3][b[4] as usize]
                ^ t[2][b[5] as usize]
                ^ t[1][b[6] as usize]
                ^ t[0][b[7] as usize];
        }
        for &b in chunks.remainder() {
            c = t[0][((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
        }
        self.0 = c;
    }

    pub fn value(&self) -> u32 {
        !self.0
    }
}

/// CRC-32 (IEEE 802.3), equal to Python's `zlib.crc32`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = Crc32::default();
    c.update(bytes);
    c.value()
}

/// Starts the frame of hand `index` at the end of `buf`: its head (the length and the run
/// tag are filled in later) and the body's fixed fields. [`finish`] closes it.
pub fn encode_header(index: u64, hand_seed: u64, profile: Profile, levels: [u8; 2], banker: u8, buf: &mut Vec<u8>) {
    buf.extend_from_slice(&[0; 8]);
    buf.extend_from_slice(&index.to_le_bytes());
    buf.push(FORMAT_VERSION);
    buf.extend_from_slice(&hand_seed.to_le_bytes());
    buf.push(profile.index() as u8);
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

/// Closes the frame that starts at `at`: writes its length and appends its CRC.
pub fn finish(buf: &mut Vec<u8>, at: usize) {
    let len = (buf.len() - at - FRAME_HEAD) as u32;
    buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
    let crc = crc32(&buf[at..]);
    buf.extend_from_slice(&crc.to_le_bytes());
}

/// Gives the frame at the start of `frame` the run tag `tag` (and its new CRC).
pub fn stamp(frame: &mut [u8], tag: u32) {
    let n = frame.len();
    frame[4..8].copy_from_slice(&tag.to_le_bytes());
    let crc = crc32(&frame[..n - 4]);
    frame[n - 4..].copy_from_slice(&crc.to_le_bytes());
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

/// What is wrong with a records file or frame, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// The index of the record at fault (0: the first hand), None for the file header.
    pub index: Option<u64>,
    /// The byte offset where the faulty frame (or the header) starts.
    pub offset: u64,
    /// The file (or frame) ends before the frame does.
    pub truncated: bool,
    /// The file ends before its footer (inside a frame, or between two): its run did not
    /// finish writing it.
    pub incomplete: bool,
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "record {i} (at byte {}): {}", self.offset, self.message),
            None => write!(f, "header (at byte {}): {}", self.offset, self.message),
        }
    }
}

impl std::error::Error for RecordError {}

impl From<RecordError> for Error {
    fn from(e: RecordError) -> Self {
        Error::CorruptRecord(e.to_string())
    }
}

pub(crate) fn damaged(msg: impl Into<String>) -> RecordError {
    RecordError { index: None, offset: 0, truncated: false, incomplete: false, message: msg.into() }
}

pub(crate) fn truncated(msg: impl Into<String>) -> RecordError {
    RecordError { index: None, offset: 0, truncated: true, incomplete: true, message: msg.into() }
}

/// Decodes one hand's body (the bytes between a frame's length and its CRC).
pub fn decode_body(body: &[u8]) -> Result<HandRecord, RecordError> {
    if body.len() < 13 {
        return Err(damaged(format!("a hand's body has at least 13 bytes, this one {}", body.len())));
    }
    if body[0] != FORMAT_VERSION {
        return Err(damaged(format!("unknown hand format version {} (this engine reads {FORMAT_VERSION})", body[0])));
    }
    let hand_seed = u64::from_le_bytes(body[1..9].try_into().expect("8 bytes"));
    let profile = match body[9] {
        p if (p as usize) < Profile::ALL.len() => Profile::ALL[p as usize],
        p => return Err(damaged(format!("unknown profile code {p}"))),
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
                let kinds = body.get(i..i + n).ok_or_else(|| damaged(format!("a play of {n} kinds runs past the body")))?;
                for &e in kinds {
                    let k = (e & 0x3F) as usize;
                    if k >= KINDS {
                        return Err(damaged(format!("card kind {k} (kinds are 0..53)")));
                    }
                    c[k] = (e >> 6) + 1;
                }
                i += n;
                Action::Play(c)
            }
            _ => return Err(damaged(format!("unknown action byte {b:#04x}"))),
        });
    }
    Ok(HandRecord { hand_seed, profile, levels, banker, actions })
}

/// The fixed fields of a hand's body: hand seed, profile, levels, banker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyHead {
    pub hand_seed: u64,
    pub profile: Profile,
    pub levels: [u8; 2],
    pub banker: u8,
    /// The number of decisions.
    pub actions: usize,
}

/// Checks a hand's body as [`decode_body`] does, without building its actions.
pub fn check_body(body: &[u8]) -> Result<BodyHead, RecordError> {
    if body.len() < 13 {
        return Err(damaged(format!("a hand's body has at least 13 bytes, this one {}", body.len())));
    }
    if body[0] != FORMAT_VERSION {
        return Err(damaged(format!("unknown hand format version {} (this engine reads {FORMAT_VERSION})", body[0])));
    }
    let profile = match body[9] {
        p if (p as usize) < Profile::ALL.len() => Profile::ALL[p as usize],
        p => return Err(damaged(format!("unknown profile code {p}"))),
    };
    let mut i = 13;
    let mut actions = 0;
    while i < body.len() {
        let b = body[i];
        i += 1;
        match b {
            0 | 0x10..=0x1F => {}
            0x80.. => {
                let n = (b & 0x7F) as usize;
                let kinds = body.get(i..i + n).ok_or_else(|| damaged(format!("a play of {n} kinds runs past the body")))?;
                if let Some(&e) = kinds.iter().find(|&&e| (e & 0x3F) as usize >= KINDS) {
                    return Err(damaged(format!("card kind {} (kinds are 0..53)", e & 0x3F)));
                }
                i += n;
            }
            _ => return Err(damaged(format!("unknown action byte {b:#04x}"))),
        }
        actions += 1;
    }
    Ok(BodyHead {
        hand_seed: u64::from_le_bytes(body[1..9].try_into().expect("8 bytes")),
        profile,
        levels: [body[10], body[11]],
        banker: body[12],
        actions,
    })
}

/// A frame, checked: its run tag, hand index and body.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    pub tag: u32,
    pub index: u64,
    pub body: &'a [u8],
    /// The frame's CRC (the last 4 bytes of the frame).
    pub crc: u32,
    /// The bytes the frame takes.
    pub used: usize,
}

/// Checks the frame at the start of `bytes` (length, CRC).
pub fn frame(bytes: &[u8]) -> Result<Frame<'_>, RecordError> {
    if bytes.len() < 4 {
        return Err(truncated(format!("{} bytes, too few for a frame's length", bytes.len())));
    }
    let len = u32::from_le_bytes(bytes[0..4].try_into().expect("4 bytes")) as usize;
    if len > MAX_BODY {
        return Err(damaged(format!("impossible length {len} (a hand's body is under {MAX_BODY} bytes)")));
    }
    let used = FRAME_EXTRA + len;
    if bytes.len() < used {
        return Err(truncated(format!("the frame needs {used} bytes, {} remain", bytes.len())));
    }
    let crc = u32::from_le_bytes(bytes[used - 4..used].try_into().expect("4 bytes"));
    if crc32(&bytes[..used - 4]) != crc {
        return Err(damaged("checksum mismatch: the frame is damaged"));
    }
    Ok(Frame {
        tag: u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")),
        index: u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")),
        body: &bytes[FRAME_HEAD..used - 4],
        crc,
        used,
    })
}

/// Checks a frame of a version-2 file at the start of `bytes` (length, body, CRC): its body
/// and the bytes it takes.
pub fn frame_v2(bytes: &[u8]) -> Result<(&[u8], usize), RecordError> {
    if bytes.len() < 4 {
        return Err(truncated(format!("{} bytes, too few for a frame's length", bytes.len())));
    }
    let len = u32::from_le_bytes(bytes[0..4].try_into().expect("4 bytes")) as usize;
    if len > MAX_BODY {
        return Err(damaged(format!("impossible length {len} (a hand's body is under {MAX_BODY} bytes)")));
    }
    let Some(rest) = bytes.get(4..8 + len) else {
        return Err(truncated(format!("the frame needs {} bytes, {} remain", 8 + len, bytes.len())));
    };
    let (body, crc) = rest.split_at(len);
    if crc32(&bytes[..4 + len]) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err(damaged("checksum mismatch: the frame is damaged"));
    }
    Ok((body, 8 + len))
}

/// Decodes the frame at the start of `bytes`; returns the hand and the bytes it used.
pub fn decode(bytes: &[u8]) -> Result<(HandRecord, usize), RecordError> {
    let f = frame(bytes)?;
    Ok((decode_body(f.body)?, f.used))
}

/// Replays a decoded hand into a full [`Game`] (with its record), checking every action.
pub fn replay(rec: &HandRecord) -> Result<Game, Error> {
    let mut g = Game::deal(rec.hand_seed, rec.profile, rec.levels, rec.banker, None)?;
    for a in &rec.actions {
        g.apply(a)?;
    }
    Ok(g)
}

/// Replays many hands in parallel (rayon's global pool), each result in input order.
pub fn replay_many(recs: &[HandRecord]) -> Vec<Result<Game, Error>> {
    use rayon::prelude::*;
    recs.par_iter().map(replay).collect()
}
