//! Greedy's play is pinned: the results of 2,000 simulated hands per profile (and 500 against
//! random seats), and the whole action streams of a few recorded hands, hash to the values the
//! engine gave at commit d4dfca5, before greedy was made faster. A change to what greedy decides (or to how many
//! draws it takes from its stream) changes these digests.

use tractor_core::Agent;
use tractor_core::Profile;
use tractor_core::policy::Policy;
use tractor_core::run::sim::{simulate_range, HandResult};

/// FNV-1a, 64 bits: a fixed hash, the same on every platform (`tuned.rs` pins with it too).
pub(crate) struct Fnv(pub(crate) u64);

impl Fnv {
    pub(crate) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
}

fn hash_result(h: &mut Fnv, r: &HandResult) {
    h.u64(r.index);
    h.u64(r.hand_seed);
    // levels and returns hashed as the bytes they were when pinned (u8/i8: these hands stay far below 127)
    assert!(r.banker_levels < 128 && r.defender_levels < 128);
    h.bytes(&[r.banker, r.declarer, r.trump, r.level, r.tricks, r.last_trick_cards, r.banker_levels as u8]);
    h.bytes(&[r.defender_levels as u8, r.defenders_take_over as u8, r.redeals, r.stopped as u8]);
    h.u64(r.score as i64 as u64);
    h.u64(r.decisions as u64);
    h.bytes(&r.returns.map(|x| x as u8));
}

/// (digest of every HandResult of hands 0..2000 and of 500 greedy-random hands, digest of the records of hands 0..40).
fn digests(profile: Profile) -> (u64, u64) {
    let (rows, _) = simulate_range(11, 0, 2000, [Policy::Agent(Agent::Greedy); 4], profile, 1, false).unwrap();
    assert_eq!(rows.len(), 2000);
    let mut h = Fnv::new();
    rows.iter().for_each(|r| hash_result(&mut h, r));
    // greedy against random seats meets other positions
    let mixed = [Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random), Policy::Agent(Agent::Greedy), Policy::Agent(Agent::Random)];
    let (rows_mixed, _) = simulate_range(12, 0, 500, mixed, profile, 1, false).unwrap();
    rows_mixed.iter().for_each(|r| hash_result(&mut h, r));
    let (rows2, records) = simulate_range(11, 0, 40, [Policy::Agent(Agent::Greedy); 4], profile, 1, true).unwrap();
    assert_eq!(rows2[..], rows[..40], "recording does not change the play");
    let mut g = Fnv::new();
    for rec in &records {
        assert!(rec.len() > 100, "a whole hand's record");
        // hashed as the frame it was when pinned (records file version 2: length, body, CRC);
        // version 3 frames add the run tag and the hand index around the same body
        let body = tractor_core::game::record::frame(rec).unwrap().body;
        let mut v2 = (body.len() as u32).to_le_bytes().to_vec();
        v2.extend_from_slice(body);
        v2.extend_from_slice(&tractor_core::game::record::crc32(&v2).to_le_bytes());
        g.u64(v2.len() as u64);
        g.bytes(&v2);
    }
    (h.0, g.0)
}

#[test]
fn greedy_results_and_records_match_the_baseline_guigang() {
    assert_eq!(digests(Profile::parse("guigang").unwrap()), (15991300614937833200, 16021994253504355117));
}

#[test]
fn greedy_results_and_records_match_the_baseline_competition() {
    assert_eq!(digests(Profile::parse("competition").unwrap()), (14483623912423367497, 1949224934103748658));
}

#[test]
fn greedy_results_and_records_match_the_baseline_nanning() {
    assert_eq!(digests(Profile::parse("nanning").unwrap()), (194394840732971599, 13241364493144008089));
}
