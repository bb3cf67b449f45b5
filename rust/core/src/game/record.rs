//! Compact binary hand records for offline learning: about 350 bytes a hand.
//!
//! A records file (format version 2) is a header, then one frame per hand; all integers are
//! little-endian:
//! ```text
//! header:  8 bytes "TRACTREC", u16 file version (2), u32 n, n bytes of metadata (UTF-8 JSON,
//!          written by the caller: seed, policies, profile, first index), u32 CRC-32 of all
//!          the header bytes before it
//! frame:   u32 length of the body, the body, u32 CRC-32 of the length and the body
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
//! truncated file. [`Reader`] streams a file frame by frame in constant memory and says where
//! a fault lies: the record's index and its byte offset.

use std::fmt;
use std::io::Read;

use crate::game::hand::{Action, Game};
use crate::rules::card::{Counts, KINDS};
use crate::rules::error::Error;
use crate::rules::profile::Profile;

/// The version of one hand's body.
pub const FORMAT_VERSION: u8 = 1;
/// The first bytes of a records file.
pub const FILE_MAGIC: &[u8; 8] = b"TRACTREC";
/// The version of the file layout (header and frames).
pub const FILE_VERSION: u16 = 2;
/// No hand's body comes near this (a hand has at most a few hundred decisions): a larger
/// length is damage, refused before anything is allocated for it.
pub const MAX_BODY: usize = 1 << 16;
/// Nor does any sensible header's metadata.
pub const MAX_META: usize = 1 << 20;

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

/// CRC-32 (IEEE 802.3), equal to Python's `zlib.crc32`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c = CRC_TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

/// The header of a records file carrying `meta` (the caller's description of the run).
pub fn encode_file_header(meta: &[u8]) -> Vec<u8> {
    let mut h = Vec::with_capacity(18 + meta.len() + 4);
    h.extend_from_slice(FILE_MAGIC);
    h.extend_from_slice(&FILE_VERSION.to_le_bytes());
    h.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    h.extend_from_slice(meta);
    let crc = crc32(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    h
}

pub fn encode_header(hand_seed: u64, profile: Profile, levels: [u8; 2], banker: u8, buf: &mut Vec<u8>) {
    buf.extend_from_slice(&[0, 0, 0, 0, FORMAT_VERSION]);
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
    let len = (buf.len() - at - 4) as u32;
    buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
    let crc = crc32(&buf[at..]);
    buf.extend_from_slice(&crc.to_le_bytes());
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

fn damaged(msg: impl Into<String>) -> RecordError {
    RecordError { index: None, offset: 0, truncated: false, message: msg.into() }
}

fn truncated(msg: impl Into<String>) -> RecordError {
    RecordError { index: None, offset: 0, truncated: true, message: msg.into() }
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

/// Checks the frame at the start of `bytes` (length, CRC); returns its body and the bytes the
/// frame takes.
pub fn frame(bytes: &[u8]) -> Result<(&[u8], usize), RecordError> {
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
    let want = u32::from_le_bytes(crc.try_into().expect("4 bytes"));
    if crc32(&bytes[..4 + len]) != want {
        return Err(damaged("checksum mismatch: the frame is damaged"));
    }
    Ok((body, 8 + len))
}

/// Decodes the frame at the start of `bytes`; returns the hand and the bytes it used.
pub fn decode(bytes: &[u8]) -> Result<(HandRecord, usize), RecordError> {
    let (body, used) = frame(bytes)?;
    Ok((decode_body(body)?, used))
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

/// Reads as many bytes as `buf` holds unless the input ends first; returns how many.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Streams the frames of a records file: one frame in memory at a time, linear in the file.
pub struct Reader<R> {
    inner: R,
    /// The file version and the header's metadata.
    pub version: u16,
    pub meta: Vec<u8>,
    /// The byte offset and index of the next frame.
    pub offset: u64,
    pub index: u64,
    frame: Vec<u8>,
    failed: bool,
}

impl<R: Read> Reader<R> {
    /// Reads and checks the file header.
    pub fn new(mut inner: R) -> Result<Self, RecordError> {
        let io = |e: std::io::Error| damaged(format!("cannot read: {e}"));
        let mut head = [0u8; 14];
        let n = read_full(&mut inner, &mut head).map_err(io)?;
        if n < 8 || &head[..8] != FILE_MAGIC {
            let what = if n == 0 { "an empty file" } else { "no TRACTREC header" };
            return Err(damaged(format!("not a tractor records file ({what}); files of engine 0.1 have no header: write them again")));
        }
        if n < 14 {
            return Err(truncated(format!("the file ends inside its header ({n} bytes)")));
        }
        let version = u16::from_le_bytes([head[8], head[9]]);
        if version != FILE_VERSION {
            return Err(damaged(format!("records file version {version}: this engine reads version {FILE_VERSION}")));
        }
        let mlen = u32::from_le_bytes(head[10..14].try_into().expect("4 bytes")) as usize;
        if mlen > MAX_META {
            return Err(damaged(format!("impossible metadata length {mlen}")));
        }
        let mut rest = vec![0u8; mlen + 4];
        let got = read_full(&mut inner, &mut rest).map_err(io)?;
        if got < rest.len() {
            return Err(truncated(format!("the file ends inside its header ({} bytes)", 14 + got)));
        }
        let mut all = head.to_vec();
        all.extend_from_slice(&rest[..mlen]);
        let want = u32::from_le_bytes(rest[mlen..].try_into().expect("4 bytes"));
        if crc32(&all) != want {
            return Err(damaged("checksum mismatch: the header is damaged"));
        }
        let offset = (18 + mlen) as u64;
        rest.truncate(mlen);
        Ok(Reader { inner, version, meta: rest, offset, index: 0, frame: Vec::new(), failed: false })
    }

    fn at(&self, mut e: RecordError) -> RecordError {
        e.index = Some(self.index);
        e.offset = self.offset;
        e
    }

    /// The next frame's body, None at the end of the file. After an error the reader is
    /// spent: it returns None.
    pub fn next_body(&mut self) -> Result<Option<&[u8]>, RecordError> {
        if self.failed {
            return Ok(None);
        }
        self.failed = true; // until this frame reads whole
        let mut len4 = [0u8; 4];
        let n = read_full(&mut self.inner, &mut len4).map_err(|e| self.at(damaged(format!("cannot read: {e}"))))?;
        if n == 0 {
            self.failed = false;
            return Ok(None);
        }
        if n < 4 {
            return Err(self.at(truncated(format!("the file ends {n} bytes into this frame's length: truncated"))));
        }
        let len = u32::from_le_bytes(len4) as usize;
        if len > MAX_BODY {
            return Err(self.at(damaged(format!("impossible length {len} (a hand's body is under {MAX_BODY} bytes)"))));
        }
        self.frame.clear();
        self.frame.extend_from_slice(&len4);
        self.frame.resize(8 + len, 0);
        let got = read_full(&mut self.inner, &mut self.frame[4..]).map_err(|e| self.at(damaged(format!("cannot read: {e}"))))?;
        if got < len + 4 {
            return Err(self.at(truncated(format!(
                "the file ends inside this frame ({} of its {} bytes): truncated",
                4 + got,
                8 + len
            ))));
        }
        let (body_at, used) = match frame(&self.frame) {
            Ok((_, used)) => (4, used),
            Err(e) => return Err(self.at(e)),
        };
        self.failed = false;
        self.offset += used as u64;
        self.index += 1;
        Ok(Some(&self.frame[body_at..used - 4]))
    }

    /// The next frame as it is in the file (length, body, CRC), checked.
    pub fn next_frame(&mut self) -> Result<Option<&[u8]>, RecordError> {
        match self.next_body()? {
            None => Ok(None),
            Some(b) => {
                let n = b.len();
                Ok(Some(&self.frame[..n + 8]))
            }
        }
    }

    /// The next hand, decoded and checked (its actions are not replayed: see [`replay`]).
    pub fn next_record(&mut self) -> Result<Option<HandRecord>, RecordError> {
        let (index, offset) = (self.index, self.offset);
        match self.next_body()? {
            None => Ok(None),
            Some(body) => decode_body(body).map(Some).map_err(|mut e| {
                self.failed = true;
                e.index = Some(index);
                e.offset = offset;
                e
            }),
        }
    }
}
