//! Records files: a header, one frame per hand (see [`record`](crate::game::record)) and a
//! footer, so that a file proves its own completeness and order. All integers little-endian:
//! ```text
//! header:  8 bytes "TRACTREC", u16 file version (3), u64 first hand index, u32 n, n bytes of
//!          metadata (UTF-8 JSON written by the caller: seed, policies, profile, ...), u32
//!          CRC-32 of all the header bytes before it: the file's run tag
//! frames:  one per hand, in hand order: frame k has the run tag and hand index first + k
//! footer:  u32 0xFFFFFFFF (no frame is that long), u32 run tag, u64 frames, u8 flags (bit 0:
//!          the run stopped before its planned hands), u32 digest (CRC-32 of the frames'
//!          CRCs in order), u32 CRC-32 of the footer's bytes before it
//! ```
//! [`Reader`] streams a file in constant memory and names the record and byte offset of any
//! fault: a damaged or truncated frame, a frame of another run (its tag), a gap, a repeat or a
//! reorder (its index), a footer that does not count or digest the frames read, bytes after
//! the footer, and a file without a footer (incomplete: its run did not finish writing it).
//! [`Writer`] is the one way files are written: it checks and stamps every frame it is given.
//!
//! Files of version 2 (a header without the first index, frames without tag or index, no
//! footer) still read, with a weaker guarantee: damage and truncation inside a frame are found,
//! a file cut between frames, or frames dropped, repeated, reordered or foreign, are not.

use std::io::{Read, Write};

use crate::game::record::{damaged, frame, frame_v2, truncated, Crc32, HandRecord, RecordError, FRAME_EXTRA, FRAME_HEAD, MAX_BODY};

/// The first bytes of a records file.
pub const FILE_MAGIC: &[u8; 8] = b"TRACTREC";
/// The version of the file layout this engine writes.
pub const FILE_VERSION: u16 = 3;
/// The oldest version it reads.
pub const OLDEST_VERSION: u16 = 2;
/// Nor does any sensible header's metadata come near this.
pub const MAX_META: usize = 1 << 20;
/// The first word of the footer, in place of a frame's length.
pub const FOOTER_MARK: u32 = 0xFFFF_FFFF;
/// The footer's size in bytes.
pub const FOOTER_LEN: usize = 25;
/// Footer flag: the run stopped before its planned hands (Ctrl-C, a failure, a limit).
pub const STOPPED: u8 = 1;

/// The header of a records file whose first frame is hand `first`, carrying `meta` (the
/// caller's description of the run). Its last 4 bytes are the run tag.
pub fn encode_file_header(first: u64, meta: &[u8]) -> Vec<u8> {
    let mut h = Vec::with_capacity(26 + meta.len());
    h.extend_from_slice(FILE_MAGIC);
    h.extend_from_slice(&FILE_VERSION.to_le_bytes());
    h.extend_from_slice(&first.to_le_bytes());
    h.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    h.extend_from_slice(meta);
    let crc = crate::game::record::crc32(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    h
}

/// What a footer says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footer {
    pub tag: u32,
    pub frames: u64,
    pub stopped: bool,
    pub digest: u32,
}

impl Footer {
    pub fn encode(&self) -> [u8; FOOTER_LEN] {
        let mut f = [0u8; FOOTER_LEN];
        f[0..4].copy_from_slice(&FOOTER_MARK.to_le_bytes());
        f[4..8].copy_from_slice(&self.tag.to_le_bytes());
        f[8..16].copy_from_slice(&self.frames.to_le_bytes());
        f[16] = if self.stopped { STOPPED } else { 0 };
        f[17..21].copy_from_slice(&self.digest.to_le_bytes());
        let crc = crate::game::record::crc32(&f[..21]);
        f[21..25].copy_from_slice(&crc.to_le_bytes());
        f
    }
}

/// Why [`Writer::append`] refused or failed.
#[derive(Debug)]
pub enum WriteError {
    /// The frames given are not the next ones of this run (damaged, or another index); nothing
    /// was written.
    Frames(RecordError),
    /// The output failed; the writer is spent.
    Io(std::io::Error),
}

/// Writes a records file: the header at once, frames as they come (each checked: whole, and
/// the next hand of the run; then stamped with the run tag), the footer at [`finish`](Self::finish).
pub struct Writer<W: Write> {
    out: Option<W>,
    tag: u32,
    next: u64,
    frames: u64,
    digest: Crc32,
    buf: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// Writes the header of a run whose first hand is `first`.
    pub fn new(mut out: W, first: u64, meta: &[u8]) -> Result<Self, WriteError> {
        if meta.len() > MAX_META {
            return Err(WriteError::Frames(damaged(format!("metadata of {} bytes (at most {MAX_META})", meta.len()))));
        }
        let h = encode_file_header(first, meta);
        out.write_all(&h).map_err(WriteError::Io)?;
        let tag = u32::from_le_bytes(h[h.len() - 4..].try_into().expect("4 bytes"));
        Ok(Writer { out: Some(out), tag, next: first, frames: 0, digest: Crc32::default(), buf: Vec::new() })
    }

    /// The run tag of this file.
    pub fn tag(&self) -> u32 {
        self.tag
    }

    /// The index of the next hand this file expects.
    pub fn next_index(&self) -> u64 {
        self.next
    }

    /// The frames written.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Appends whole frames (as [`record`](crate::game::record) makes them, with any tag): all
    /// of them or, if one is damaged or out of place, none. Returns how many.
    pub fn append(&mut self, frames: &[u8]) -> Result<u64, WriteError> {
        let Some(out) = self.out.as_mut() else {
            return Err(WriteError::Io(std::io::Error::other("the records file failed before: it is closed")));
        };
        let mut at = 0;
        let mut k = 0u64;
        while at < frames.len() {
            let f = frame(&frames[at..]).map_err(|mut e| {
                e.index = Some(k);
                e.offset = at as u64;
                WriteError::Frames(e)
            })?;
            if f.index != self.next + k {
                let mut e = damaged(format!("hand {} where the file's next is hand {}", f.index, self.next + k));
                e.index = Some(k);
                e.offset = at as u64;
                return Err(WriteError::Frames(e));
            }
            at += f.used;
            k += 1;
        }
        self.buf.clear();
        self.buf.extend_from_slice(frames);
        let mut digest = self.digest;
        let mut at = 0;
        while at < self.buf.len() {
            let n = FRAME_EXTRA + u32::from_le_bytes(self.buf[at..at + 4].try_into().expect("4 bytes")) as usize;
            crate::game::record::stamp(&mut self.buf[at..at + n], self.tag);
            digest.update(&self.buf[at + n - 4..at + n]);
            at += n;
        }
        if let Err(e) = out.write_all(&self.buf) {
            self.out = None;
            return Err(WriteError::Io(e));
        }
        self.digest = digest;
        self.frames += k;
        self.next += k;
        Ok(k)
    }

    /// Writes the footer (`stopped`: the run ended before its planned hands) and flushes;
    /// returns the output.
    pub fn finish(mut self, stopped: bool) -> Result<W, WriteError> {
        let Some(mut out) = self.out.take() else {
            return Err(WriteError::Io(std::io::Error::other("the records file failed before: it is closed")));
        };
        let footer = Footer { tag: self.tag, frames: self.frames, stopped, digest: self.digest.value() };
        out.write_all(&footer.encode()).map_err(WriteError::Io)?;
        out.flush().map_err(WriteError::Io)?;
        Ok(out)
    }
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

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().expect("4 bytes"))
}

/// A frame as it is in the file, and its body.
pub type FrameBytes<'a> = (&'a [u8], &'a [u8]);

/// Streams the frames of a records file: one frame in memory at a time, linear in the file.
pub struct Reader<R> {
    inner: R,
    /// The file version and the header's metadata.
    pub version: u16,
    pub meta: Vec<u8>,
    /// The index of the first hand (version 3; 0 for version 2, whose header does not say).
    pub first: u64,
    /// The run tag (version 3).
    pub tag: u32,
    /// The byte offset and the position of the next frame.
    pub offset: u64,
    pub index: u64,
    /// Read an incomplete file's proven prefix without an error: a file that ends before its
    /// footer (between frames or inside one) just ends; [`Reader::incomplete`] tells.
    pub partial: bool,
    /// The footer, once read (version 3): the file is complete.
    pub footer: Option<Footer>,
    /// The file ended before its footer (only with `partial`: otherwise that is an error).
    pub incomplete: bool,
    frame: Vec<u8>,
    body_at: usize,
    digest: Crc32,
    done: bool,
}

impl<R: Read> Reader<R> {
    /// Reads and checks the file header.
    pub fn new(mut inner: R) -> Result<Self, RecordError> {
        let io = |e: std::io::Error| damaged(format!("cannot read: {e}"));
        let mut head = [0u8; 10];
        let n = read_full(&mut inner, &mut head).map_err(io)?;
        if n < 8 || &head[..8] != FILE_MAGIC {
            let what = if n == 0 { "an empty file" } else { "no TRACTREC header" };
            return Err(damaged(format!("not a tractor records file ({what}); files of engine 0.1 have no header: write them again")));
        }
        if n < 10 {
            return Err(truncated(format!("the file ends inside its header ({n} bytes)")));
        }
        let version = u16::from_le_bytes([head[8], head[9]]);
        if !(OLDEST_VERSION..=FILE_VERSION).contains(&version) {
            return Err(damaged(format!("records file version {version}: this engine reads versions {OLDEST_VERSION} to {FILE_VERSION}")));
        }
        let mut all = head.to_vec();
        let fixed = if version >= 3 { 12 } else { 4 };
        let mut more = vec![0u8; fixed];
        let got = read_full(&mut inner, &mut more).map_err(io)?;
        if got < fixed {
            return Err(truncated(format!("the file ends inside its header ({} bytes)", 10 + got)));
        }
        all.extend_from_slice(&more);
        let first = if version >= 3 { u64::from_le_bytes(more[0..8].try_into().expect("8 bytes")) } else { 0 };
        let mlen = le32(&more[fixed - 4..]) as usize;
        if mlen > MAX_META {
            return Err(damaged(format!("impossible metadata length {mlen}")));
        }
        let mut rest = vec![0u8; mlen + 4];
        let got = read_full(&mut inner, &mut rest).map_err(io)?;
        if got < rest.len() {
            return Err(truncated(format!("the file ends inside its header ({} bytes)", all.len() + got)));
        }
        all.extend_from_slice(&rest[..mlen]);
        let tag = le32(&rest[mlen..]);
        if crate::game::record::crc32(&all) != tag {
            return Err(damaged("checksum mismatch: the header is damaged"));
        }
        let offset = (all.len() + 4) as u64;
        rest.truncate(mlen);
        Ok(Reader {
            inner,
            version,
            meta: rest,
            first,
            tag,
            offset,
            index: 0,
            partial: false,
            footer: None,
            incomplete: false,
            frame: Vec::new(),
            body_at: 0,
            digest: Crc32::default(),
            done: false,
        })
    }

    fn at(&self, mut e: RecordError) -> RecordError {
        e.index = Some(self.index);
        e.offset = self.offset;
        e
    }

    /// The file ends here, before its footer: the end of the proven prefix with `partial`,
    /// else an error that says so.
    fn unfinished(&mut self, e: RecordError) -> Result<bool, RecordError> {
        if self.version < 3 && !e.truncated {
            return Ok(false); // version 2 has no footer: its end is wherever it stops
        }
        if self.partial {
            self.incomplete = true;
            return Ok(false);
        }
        Err(self.at(e))
    }

    /// Reads the next frame into `self.frame`: Ok(false) at the end of the file.
    fn read_next(&mut self) -> Result<bool, RecordError> {
        let io = |r: &Self, e: std::io::Error| r.at(damaged(format!("cannot read: {e}")));
        let mut len4 = [0u8; 4];
        let n = read_full(&mut self.inner, &mut len4).map_err(|e| io(self, e))?;
        let whole = self.index;
        if n == 0 {
            let mut e = damaged(format!(
                "the file ends after {whole} records without its footer: it is incomplete (its run did not finish \
                 writing it: interrupted, killed or failed); the records before are whole and in order: \
                 read_records(path, partial=True) reads them"
            ));
            e.incomplete = true;
            return self.unfinished(e);
        }
        if n < 4 {
            return self.unfinished(truncated(format!("the file ends {n} bytes into this frame's length: truncated")));
        }
        let len = u32::from_le_bytes(len4);
        if self.version >= 3 && len == FOOTER_MARK {
            return self.read_footer();
        }
        let len = len as usize;
        if len > MAX_BODY {
            return Err(self.at(damaged(format!("impossible length {len} (a hand's body is under {MAX_BODY} bytes)"))));
        }
        let size = if self.version >= 3 { FRAME_EXTRA + len } else { 8 + len };
        self.frame.clear();
        self.frame.extend_from_slice(&len4);
        self.frame.resize(size, 0);
        let got = read_full(&mut self.inner, &mut self.frame[4..]).map_err(|e| io(self, e))?;
        if got < size - 4 {
            let msg = format!("the file ends inside this frame ({} of its {size} bytes): truncated", 4 + got);
            return self.unfinished(truncated(msg));
        }
        if self.version < 3 {
            frame_v2(&self.frame).map_err(|e| self.at(e))?;
            self.body_at = 4;
            return Ok(true);
        }
        let f = frame(&self.frame).map_err(|e| self.at(e))?;
        let (tag, index, crc) = (f.tag, f.index, f.crc);
        if tag != self.tag {
            return Err(self.at(damaged(format!(
                "a frame of another run (its run tag is {tag:08x}, this file's {:08x})",
                self.tag
            ))));
        }
        let want = self.first + self.index;
        if index != want {
            let msg = if index > want {
                format!("hand {index} where hand {want} was expected: hands {want} to {} are missing here (a gap, or frames out of order)", index - 1)
            } else {
                format!("hand {index} again where hand {want} was expected (a repeated or reordered frame)")
            };
            return Err(self.at(damaged(msg)));
        }
        self.digest.update(&crc.to_le_bytes());
        self.body_at = FRAME_HEAD;
        Ok(true)
    }

    fn read_footer(&mut self) -> Result<bool, RecordError> {
        let mut f = [0u8; FOOTER_LEN];
        f[..4].copy_from_slice(&FOOTER_MARK.to_le_bytes());
        let got = read_full(&mut self.inner, &mut f[4..]).map_err(|e| self.at(damaged(format!("cannot read: {e}"))))?;
        if got < FOOTER_LEN - 4 {
            return self.unfinished(truncated(format!("the file ends inside its footer ({} of its {FOOTER_LEN} bytes): truncated", 4 + got)));
        }
        let foot = |r: &Self, msg: String| r.at(damaged(format!("footer: {msg}")));
        if crate::game::record::crc32(&f[..21]) != le32(&f[21..]) {
            return Err(foot(self, "checksum mismatch: the footer is damaged".into()));
        }
        let footer = Footer {
            tag: le32(&f[4..]),
            frames: u64::from_le_bytes(f[8..16].try_into().expect("8 bytes")),
            stopped: f[16] & STOPPED != 0,
            digest: le32(&f[17..]),
        };
        if f[16] & !STOPPED != 0 {
            return Err(foot(self, format!("unknown flags {:#04x}", f[16])));
        }
        if footer.tag != self.tag {
            return Err(foot(self, format!("the footer of another run (its run tag is {:08x}, this file's {:08x})", footer.tag, self.tag)));
        }
        if footer.frames != self.index {
            return Err(foot(self, format!("it counts {} records, the file holds {}", footer.frames, self.index)));
        }
        if footer.digest != self.digest.value() {
            return Err(foot(self, "its digest does not match the records read (a record was replaced)".into()));
        }
        let mut one = [0u8; 1];
        if read_full(&mut self.inner, &mut one).map_err(|e| self.at(damaged(format!("cannot read: {e}"))))? > 0 {
            let mut e = foot(self, format!("bytes follow the footer at byte {}", self.offset + FOOTER_LEN as u64));
            e.offset += FOOTER_LEN as u64;
            return Err(e);
        }
        self.offset += FOOTER_LEN as u64;
        self.footer = Some(footer);
        Ok(false)
    }

    /// The next frame as it is in the file and its body, checked; None at the end of the file.
    /// After an error, or at the end, the reader is spent: it returns None.
    pub fn next_frame(&mut self) -> Result<Option<FrameBytes<'_>>, RecordError> {
        if self.done {
            return Ok(None);
        }
        self.done = true; // until this frame reads whole
        if !self.read_next()? {
            return Ok(None);
        }
        self.done = false;
        self.offset += self.frame.len() as u64;
        self.index += 1;
        let n = self.frame.len();
        Ok(Some((&self.frame[..], &self.frame[self.body_at..n - 4])))
    }

    /// The next hand's body, None at the end of the file.
    pub fn next_body(&mut self) -> Result<Option<&[u8]>, RecordError> {
        Ok(self.next_frame()?.map(|(_, b)| b))
    }

    /// The next hand, decoded and checked (its actions are not replayed: see
    /// [`replay`](crate::game::record::replay)).
    pub fn next_record(&mut self) -> Result<Option<HandRecord>, RecordError> {
        let (index, offset) = (self.index, self.offset);
        match self.next_body()? {
            None => Ok(None),
            Some(body) => crate::game::record::decode_body(body).map(Some).map_err(|mut e| {
                self.done = true;
                e.index = Some(index);
                e.offset = offset;
                e
            }),
        }
    }
}
