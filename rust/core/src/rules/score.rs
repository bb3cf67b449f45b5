//! The result of a hand from the defenders' final score (docs/rules.md R7.4, §9).

use crate::rules::profile::Rules;

/// Points in the four decks (R7.1).
pub const TOTAL_POINTS: i32 = 400;

/// Levels gained by each side and whether the defenders take over (R7.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The score the table was read at (after the nanning clamp).
    pub score: i32,
    /// Unbounded below 0 (R7.4): a last trick of N cards with P points can take a hand's
    /// score to −P·N (at most −400 × 54, so 3 + 270 levels); `u32` holds the result of any
    /// `i32` score exactly.
    pub banker_levels: u32,
    pub defender_levels: u32,
    pub defenders_take_over: bool,
}

/// The most levels one hand can give either team (R7.4): every point (R7.1) in a last trick
/// led with a whole hand's 54 cards (R1.3) and multiplied by them (R7.3), for the defenders or
/// against them.
pub fn max_levels(rules: &Rules) -> u32 {
    let extreme = TOTAL_POINTS * crate::rules::card::KINDS as i32;
    outcome(-extreme, rules).banker_levels.max(outcome(extreme, rules).defender_levels)
}

/// R7.4: the result for the defenders' final score `score`.
pub fn outcome(score: i32, rules: &Rules) -> Outcome {
    let s = if rules.clamp_score { score.clamp(0, TOTAL_POINTS) } else { score };
    let (banker, defender, over) = match s {
        // R7.4: +1 for every full 80 below 0: −80 → 4, −160 → 5; C7: +3 flat (最多升三级)
        s if s < 5 => (3 + if s < 0 && rules.extra_levels_below_zero { (-(s as i64) / 80) as u32 } else { 0 }, 0, false),
        s if s < 80 => (2, 0, false),
        s if s < 160 => (1, 0, false),
        s if s < 240 => (0, 0, true),
        s if s < 320 => (0, 1, true),
        s if s < 400 => (0, 2, true),
        _ => (0, u32::from(3.min(rules.defender_gain_cap)), true), // D6: at most 3
    };
    Outcome { score: s, banker_levels: banker, defender_levels: defender, defenders_take_over: over }
}

/// R7.1: the points of a card of `rank` (2..=14): 5s count 5, 10s and Ks count 10; jokers none.
const fn rank_points(rank: u8) -> i32 {
    match rank {
        5 => 5,
        10 | 13 => 10,
        _ => 0,
    }
}

/// `rank_points` of every kind (ids suit × 13 + rank − 2; the jokers, 52 and 53, none).
pub const KIND_POINTS: [i32; crate::rules::card::KINDS] = {
    let mut t = [0i32; crate::rules::card::KINDS];
    let mut k = 0;
    while k < 52 {
        t[k] = rank_points((k % 13 + 2) as u8);
        k += 1;
    }
    t
};

/// Points of a count array (R7.1), from the three point ranks of each suit.
pub fn points(cards: &crate::rules::card::Counts) -> i32 {
    let mut p = 0i32;
    for suit in 0..4u8 {
        for rank in [5, 10, 13] {
            p += rank_points(rank) * cards[crate::rules::card::Card::new(suit, rank).id()] as i32;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::profile::Profile;

    #[test]
    fn r7_4_table() {
        let g = Profile::Guigang.rules();
        let row = |s| {
            let o = outcome(s, &g);
            (o.banker_levels, o.defender_levels, o.defenders_take_over)
        };
        assert_eq!(row(-160), (5, 0, false));
        assert_eq!(row(-80), (4, 0, false));
        assert_eq!(row(-79), (3, 0, false));
        assert_eq!(row(0), (3, 0, false));
        assert_eq!(row(4), (3, 0, false));
        assert_eq!(row(5), (2, 0, false));
        assert_eq!(row(79), (2, 0, false));
        assert_eq!(row(80), (1, 0, false));
        assert_eq!(row(159), (1, 0, false));
        assert_eq!(row(160), (0, 0, true));
        assert_eq!(row(240), (0, 1, true));
        assert_eq!(row(320), (0, 2, true));
        assert_eq!(row(400), (0, 3, true));
        assert_eq!(row(480), (0, 3, true), "D6");
        // unbounded below 0: a 48-card last trick holding all 400 points, won by the bankers
        assert_eq!(row(-19_200), (243, 0, false));
        assert_eq!(row(i32::MIN), (3 + (1u32 << 31) / 80, 0, false));
    }

    #[test]
    fn nanning_clamps() {
        let n = Profile::Nanning.rules();
        assert_eq!(outcome(-80, &n).banker_levels, 3);
        assert_eq!(outcome(-80, &n).score, 0);
        assert_eq!(outcome(480, &n).score, 400);
    }

    #[test]
    fn c7_competition_result_table() {
        let c = Profile::Competition.rules();
        let row = |s| {
            let o = outcome(s, &c);
            (o.score, o.banker_levels, o.defender_levels, o.defenders_take_over)
        };
        assert_eq!(row(-400), (-400, 3, 0, false), "C7: no extra level below 0");
        assert_eq!(row(-80), (-80, 3, 0, false));
        assert_eq!(row(4), (4, 3, 0, false));
        assert_eq!(row(5), (5, 2, 0, false));
        assert_eq!(row(80), (80, 1, 0, false));
        assert_eq!(row(160), (160, 0, 0, true));
        assert_eq!(row(240), (240, 0, 1, true));
        assert_eq!(row(320), (320, 0, 2, true));
        assert_eq!(row(960), (960, 0, 3, true), "C7/D6: defenders gain at most 3, no clamp");
    }

    #[test]
    fn r7_1_points_total_400() {
        let all = [4u8; 54];
        assert_eq!(points(&all), TOTAL_POINTS);
        // each kind's points, as one card: 5s 5, 10s and Ks 10, the rest (jokers too) none
        for k in 0..54 {
            let mut one = [0u8; 54];
            one[k] = 1;
            let want = if k >= 52 { 0 } else { [0, 0, 0, 5, 0, 0, 0, 0, 10, 0, 0, 10, 0][k % 13] };
            assert_eq!((points(&one), KIND_POINTS[k]), (want, want), "kind {k}");
        }
    }
}
