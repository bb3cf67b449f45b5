//! The binary hand records (`game::record`): frames, the file reader, damage and truncation
//! found where they are, and replays that match the simulated hands.

use tractor_core::game::hand::NOBODY;
use tractor_core::game::record::*;
use tractor_core::game::records_file::*;
use tractor_core::policy::{Agent, Policy};
use tractor_core::rules::card::KINDS;
use tractor_core::run::sim::{simulate_hand, HandResult};
use tractor_core::{Profile, Rng};

fn hands(n: u64) -> (Vec<u8>, Vec<HandResult>) {
    let mut buf = Vec::new();
    let p = [Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random), Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random)];
    let rs = (0..n).map(|i| simulate_hand(9, i, &p, Profile::Guigang, Some(&mut buf))).collect();
    (buf, rs)
}

#[test]
fn crc32_is_zlibs() {
    assert_eq!(crc32(b""), 0);
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
}

#[test]
fn records_replay_exactly_and_are_small() {
    let (buf, rs) = hands(50);
    let mut at = 0;
    for r in &rs {
        let (rec, used) = decode(&buf[at..]).unwrap();
        at += used;
        assert_eq!((rec.levels, rec.banker), ([3, 3], NOBODY));
        let g = replay(&rec).unwrap();
        assert_eq!(g.pos.final_score, r.score);
        assert_eq!(g.pos.tricks_done, r.tricks);
    }
    assert_eq!(at, buf.len());
    assert!(buf.len() / 50 < 1024, "average {} bytes", buf.len() / 50);
}

#[test]
fn check_body_agrees_with_decode_body() {
    let (buf, _) = hands(5);
    let mut at = 0;
    while at < buf.len() {
        let f = frame(&buf[at..]).unwrap();
        let (body, used) = (f.body, f.used);
        let (h, r) = (check_body(body).unwrap(), decode_body(body).unwrap());
        assert_eq!((h.hand_seed, h.profile, h.levels, h.banker, h.actions), (r.hand_seed, r.profile, r.levels, r.banker, r.actions.len()));
        for i in 13..body.len() {
            let mut b = body.to_vec();
            b[i] = 0x7F;
            assert_eq!(check_body(&b).is_err(), decode_body(&b).is_err(), "byte {i}");
        }
        at += used;
    }
}

#[test]
fn corrupt_records_are_refused() {
    assert!(decode(&[1, 0]).unwrap_err().truncated);
    assert!(decode(&[20, 0, 0, 0, 1]).unwrap_err().truncated);
    let mut buf = Vec::new();
    encode_header(0, 1, Profile::Guigang, [3, 3], NOBODY, &mut buf);
    buf.push(0x85); // a play of 5 kinds with no bytes
    finish(&mut buf, 0);
    let e = decode(&buf).unwrap_err();
    assert!(!e.truncated && e.message.contains("runs past"), "{e}");
}

#[test]
fn every_flipped_bit_and_every_cut_is_found() {
    let (one, _) = hands(1);
    for i in 0..one.len() * 8 {
        let mut b = one.clone();
        b[i / 8] ^= 1 << (i % 8);
        assert!(decode(&b).is_err(), "bit {i}");
    }
    for n in 0..one.len() {
        assert!(decode(&one[..n]).unwrap_err().truncated, "cut at {n}");
    }
}

/// A whole file (header, frames, footer) written by the Writer.
fn file(meta: &[u8], frames: &[u8]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), 0, meta).unwrap();
    w.append(frames).unwrap();
    w.finish(false).unwrap()
}

#[test]
fn the_reader_streams_every_hand_and_says_where_a_fault_is() {
    let (frames, rs) = hands(20);
    let f = file(b"{\"seed\": 9}", &frames);
    let mut r = Reader::new(&f[..]).unwrap();
    assert_eq!((r.version, &r.meta[..]), (FILE_VERSION, &b"{\"seed\": 9}"[..]));
    let first = r.offset;
    let mut n = 0;
    while let Some(rec) = r.next_record().unwrap() {
        assert_eq!(replay(&rec).unwrap().pos.final_score, rs[n].score);
        n += 1;
    }
    assert_eq!((n, r.offset as usize), (20, f.len()));
    assert_eq!(r.footer.map(|f| (f.frames, f.stopped)), Some((20, false)));
    // the offset of record 5, and a damaged byte inside it
    let mut r = Reader::new(&f[..]).unwrap();
    for _ in 0..5 {
        r.next_frame().unwrap().unwrap();
    }
    let at5 = r.offset as usize;
    assert!(at5 > first as usize);
    let mut bad = f.clone();
    bad[at5 + 20] ^= 0x40;
    let mut r = Reader::new(&bad[..]).unwrap();
    let e = loop {
        match r.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the damage went unseen"),
            Err(e) => break e,
        }
    };
    assert_eq!((e.index, e.offset, e.truncated), (Some(5), at5 as u64, false), "{e}");
    assert!(e.to_string().starts_with(&format!("record 5 (at byte {at5}): checksum")), "{e}");
    assert_eq!(r.next_record(), Ok(None), "a reader stops at the first fault");
    // a cut inside record 5
    let mut r = Reader::new(&f[..at5 + 7]).unwrap();
    let e = loop {
        match r.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("the cut went unseen"),
            Err(e) => break e,
        }
    };
    assert_eq!((e.index, e.offset, e.truncated), (Some(5), at5 as u64, true), "{e}");
    // a cut at a frame's end: no footer, an incomplete file; its prefix reads with `partial`
    let mut r = Reader::new(&f[..at5]).unwrap();
    for _ in 0..5 {
        r.next_frame().unwrap().unwrap();
    }
    let e = r.next_frame().unwrap_err();
    assert_eq!((e.index, e.offset, e.truncated, e.incomplete), (Some(5), at5 as u64, false, true), "{e}");
    let mut r = Reader::new(&f[..at5]).unwrap();
    r.partial = true;
    let mut k = 0;
    while r.next_frame().unwrap().is_some() {
        k += 1;
    }
    assert_eq!((k, r.incomplete, r.footer), (5, true, None));
}

#[test]
fn the_writer_takes_the_next_frames_whole_and_stamps_them() {
    let (frames, _) = hands(6);
    let mut w = Writer::new(Vec::new(), 0, b"{}").unwrap();
    let cut = frame(&frames).unwrap().used;
    let two = cut + frame(&frames[cut..]).unwrap().used;
    // out of place (hand 1 first) or damaged: refused, nothing written
    assert!(matches!(w.append(&frames[cut..two]), Err(WriteError::Frames(e)) if e.message.contains("hand 1 where the file's next is hand 0")));
    let mut bad = frames.clone();
    bad[30] ^= 1;
    assert!(matches!(w.append(&bad), Err(WriteError::Frames(e)) if e.index == Some(0)));
    assert_eq!(w.frames(), 0);
    assert_eq!(w.append(&frames[..two]).unwrap(), 2);
    assert_eq!(w.append(&frames[two..]).unwrap(), 4);
    let tag = w.tag();
    let f = w.finish(true).unwrap();
    let mut r = Reader::new(&f[..]).unwrap();
    assert_eq!(r.tag, tag);
    let mut n = 0;
    while let Some((fr, _)) = r.next_frame().unwrap() {
        let fr = frame(fr).unwrap();
        assert_eq!((fr.tag, fr.index), (tag, n));
        n += 1;
    }
    assert_eq!(r.footer.map(|f| (f.frames, f.stopped)), Some((6, true)));
}

#[test]
fn crc32_by_eight_bytes_is_crc32_by_one() {
    let mut rng = Rng::new(5);
    for n in 0..300 {
        let b: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        let mut slow = !0u32;
        for &x in &b {
            slow ^= x as u32;
            for _ in 0..8 {
                slow = if slow & 1 != 0 { 0xEDB8_8320 ^ (slow >> 1) } else { slow >> 1 };
            }
        }
        assert_eq!(crc32(&b), !slow, "{n} bytes");
        let mut c = Crc32::default();
        let k = rng.below_usize(n + 1);
        c.update(&b[..k]);
        c.update(&b[k..]);
        assert_eq!(c.value(), !slow);
    }
}

/// Arbitrary and mutated bytes: every decoder answers (Ok or a RecordError), never panics,
/// and a frame that decodes replays or fails with an Error, never a panic.
#[test]
fn arbitrary_bytes_never_panic() {
    let (frames, _) = hands(3);
    let good = file(b"{}", &frames);
    let mut rng = Rng::new(20261201);
    for round in 0..4000 {
        let mut b = if round % 4 == 0 {
            (0..rng.below_usize(600)).map(|_| rng.next_u64() as u8).collect::<Vec<u8>>()
        } else {
            good.clone()
        };
        for _ in 0..1 + rng.below_usize(6) {
            if b.is_empty() {
                break;
            }
            let at = rng.below_usize(b.len());
            match rng.below_usize(4) {
                0 => b[at] ^= 1 << rng.below_usize(8),
                1 => b.truncate(at),
                2 => b.insert(at, rng.next_u64() as u8),
                _ => b[at] = rng.next_u64() as u8,
            }
        }
        if let Ok(mut r) = Reader::new(&b[..]) {
            while let Ok(Some(rec)) = r.next_record() {
                let _ = replay(&rec);
            }
        }
        let body = &b[b.len().min(22)..];
        let _ = (decode(body), check_body(body), decode_body(body));
        if let Ok(rec) = decode_body(body) {
            let _ = replay(&rec);
        }
    }
    // well-formed bodies with arbitrary fields and actions: replay answers, never panics
    for round in 0..3000u64 {
        let mut body = vec![FORMAT_VERSION];
        body.extend_from_slice(&rng.next_u64().to_le_bytes());
        body.push((round % 2) as u8);
        for _ in 0..3 {
            let v = rng.next_u64() as u8;
            body.push(if round % 3 == 0 { v } else { 3 + v % 12 });
        }
        for _ in 0..rng.below_usize(40) {
            match rng.below_usize(3) {
                0 => body.push(0),
                1 => body.push(0x10 | (rng.next_u64() as u8 & 0x0F)),
                _ => {
                    let n = 1 + rng.below_usize(4);
                    body.push(0x80 | n as u8);
                    for _ in 0..n {
                        body.push(rng.below_usize(KINDS) as u8 | (rng.next_u64() as u8 & 0xC0));
                    }
                }
            }
        }
        let rec = decode_body(&body).expect("well-formed");
        let _ = replay(&rec);
    }
}

#[test]
fn bad_headers_are_refused() {
    let f = file(b"{}", &[]);
    assert!(Reader::new(&f[..]).unwrap().next_record().unwrap().is_none());
    assert!(Reader::new(&b""[..]).is_err());
    let (frames, _) = hands(1);
    let e = Reader::new(&frames[..]).err().unwrap();
    assert!(e.message.contains("not a tractor records file") && e.index.is_none(), "{e}");
    let head = f.len() - FOOTER_LEN;
    for n in 8..head {
        assert!(Reader::new(&f[..n]).err().unwrap().truncated, "cut at {n}");
    }
    for i in 0..head * 8 {
        let mut b = f.clone();
        b[i / 8] ^= 1 << (i % 8);
        assert!(Reader::new(&b[..]).is_err(), "bit {i}");
    }
}
