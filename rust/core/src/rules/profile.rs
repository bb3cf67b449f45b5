//! Profiles: every variant switch of docs/rules.md §9 in one value, and the decisions D1–D7.
//!
//! Decisions that are structural (and so not switches) are cited where they act:
//! D1 (one multiplicity per tractor) in `combo::classify`, D2 (links follow natural
//! rank) in `trump::Context::new`, D3 (multiplicity before trump) in `combo::Combo::key`,
//! D4 (only the longest tractor counts) in `follow`, D7 (show only on receiving) in the
//! hand engine. D5 and D6 are the fields below. The competition profile's rules C1–C9 (§10)
//! are switches here too; D8 (no A–2 link) acts in `trump::Context::new`, D9 (the C5 key) in
//! `follow::competition`, D10 (×N last trick) is `last_trick_min_cards = 1`, D11 (passing A
//! as banker) in `match_state`.

use crate::rules::error::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Seed 000, the Guigang rule page (default).
    Guigang,
    /// Seed 003, the Nanning page.
    Nanning,
    /// Seed 002, the four-deck competition rules (docs/rules.md §10).
    Competition,
}

/// How followers choose their cards when they hold more than N of the led class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FollowRule {
    /// R5.3 T1–T4, the ladder (guigang, nanning).
    Ladder,
    /// C3–C5: the priority lists of unit leads and the key (E, L, p, t) of tractor leads.
    Competition,
}

impl FollowRule {
    pub fn name(self) -> &'static str {
        match self {
            FollowRule::Ladder => "ladder",
            FollowRule::Competition => "competition",
        }
    }
}

impl Profile {
    /// Every profile, in the order of their record codes (0, 1, 2).
    pub const ALL: [Profile; 3] = [Profile::Guigang, Profile::Nanning, Profile::Competition];

    /// The profile's record code and table index.
    pub fn index(self) -> usize {
        match self {
            Profile::Guigang => 0,
            Profile::Nanning => 1,
            Profile::Competition => 2,
        }
    }

    /// A profile by name (case and surrounding spaces ignored).
    pub fn parse(name: &str) -> Result<Profile, Error> {
        let lower = name.trim().to_ascii_lowercase();
        Profile::ALL.iter().copied().find(|p| p.name() == lower).ok_or_else(|| {
            let names: Vec<String> = Profile::ALL.iter().map(|p| format!("'{}'", p.name())).collect();
            let (last, rest) = names.split_last().expect("profiles");
            Error::BadProfile(format!("unknown profile {name:?}: expected {} or {last}", rest.join(", ")))
        })
    }

    /// The profile's name, the one spelling every layer and Python read.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Guigang => "guigang",
            Profile::Nanning => "nanning",
            Profile::Competition => "competition",
        }
    }
    pub fn rules(self) -> Rules {
        match self {
            Profile::Guigang => Rules {
                profile: self,
                t1_any_shape: true,
                follow: FollowRule::Ladder,
                trump_wrap: true,
                last_trick_min_cards: 1,
                clamp_score: false,
                extra_levels_below_zero: true,
                defender_gain_cap: 3,
                stop_at_a: false,
                first_hand_small_joker: false,
                redeal_limit: 3,
            },
            Profile::Nanning => Rules {
                profile: self,
                t1_any_shape: false,
                follow: FollowRule::Ladder,
                trump_wrap: true,
                last_trick_min_cards: 2,
                clamp_score: true,
                extra_levels_below_zero: true,
                defender_gain_cap: 3,
                stop_at_a: false,
                first_hand_small_joker: false,
                redeal_limit: 3,
            },
            Profile::Competition => Rules {
                profile: self,
                t1_any_shape: false,
                follow: FollowRule::Competition,
                trump_wrap: false,
                last_trick_min_cards: 1,
                clamp_score: false,
                extra_levels_below_zero: false,
                defender_gain_cap: 3,
                stop_at_a: true,
                first_hand_small_joker: true,
                redeal_limit: u8::MAX,
            },
        }
    }
}

/// Every variant switch (docs/rules.md §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    pub profile: Profile,
    /// R5.3 T1: any single N-card combination (guigang) or only the lead's own shape (nanning).
    pub t1_any_shape: bool,
    /// The ladder of R5.3 or the competition key of C3–C5.
    pub follow: FollowRule,
    /// R3.3: the trump suit links A–2 (a 13-cycle); C1/D8: it does not (competition).
    pub trump_wrap: bool,
    /// R7.3/D5: the last trick multiplies by its lead's card count N when N ≥ this (nanning: 2).
    pub last_trick_min_cards: u8,
    /// §9: clamp the defenders' score to 0..=400 before R7.4 (nanning).
    pub clamp_score: bool,
    /// R7.4: the banker team gains one more level for every full 80 below 0; C7: it does not.
    pub extra_levels_below_zero: bool,
    /// D6: the most levels the defenders gain in one hand.
    pub defender_gain_cap: u8,
    /// C8: levels stop at A and the match ends when a team passes A as banker.
    pub stop_at_a: bool,
    /// C9: in a match's first hand a showing that sets or overturns the suit includes a small joker.
    pub first_hand_small_joker: bool,
    /// R8.5: this many deals in a row without a showing stop the game (3). C9 redeals without
    /// limit: `u8::MAX`, the most the engine's attempt counter holds (see `hand_state`).
    pub redeal_limit: u8,
}

/// The value of one switch, for listing them ([`Rules::switches`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    Flag(bool),
    Count(u8),
    Name(&'static str),
}

impl Rules {
    /// Every switch by its field name, in declaration order: what the binding exports
    /// (`tractor._core.profile_rules`), so a new switch is spelled here and where it acts only.
    pub fn switches(&self) -> Vec<(&'static str, Switch)> {
        use Switch::{Count, Flag, Name};
        vec![
            ("profile", Name(self.profile.name())),
            ("t1_any_shape", Flag(self.t1_any_shape)),
            ("follow", Name(self.follow.name())),
            ("trump_wrap", Flag(self.trump_wrap)),
            ("last_trick_min_cards", Count(self.last_trick_min_cards)),
            ("clamp_score", Flag(self.clamp_score)),
            ("extra_levels_below_zero", Flag(self.extra_levels_below_zero)),
            ("defender_gain_cap", Count(self.defender_gain_cap)),
            ("stop_at_a", Flag(self.stop_at_a)),
            ("first_hand_small_joker", Flag(self.first_hand_small_joker)),
            ("redeal_limit", Count(self.redeal_limit)),
        ]
    }
}

impl Default for Rules {
    fn default() -> Self {
        Profile::Guigang.rules()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_list_every_field_of_rules() {
        for p in Profile::ALL {
            let r = p.rules();
            // the field names as Debug prints them: "Rules { profile: Guigang, t1_any_shape: true, … }"
            let debug = format!("{r:?}");
            let fields: Vec<&str> = debug
                .trim_start_matches("Rules { ")
                .trim_end_matches(" }")
                .split(", ")
                .map(|kv| kv.split(':').next().unwrap())
                .collect();
            let listed: Vec<&str> = r.switches().iter().map(|(f, _)| *f).collect();
            assert_eq!(listed, fields);
            assert_eq!(Profile::parse(p.name()), Ok(p));
            assert_eq!(Profile::ALL[p.index()], p);
        }
        assert_eq!(
            Profile::parse("x").unwrap_err().to_string(),
            "unknown profile \"x\": expected 'guigang', 'nanning' or 'competition'"
        );
    }
}
