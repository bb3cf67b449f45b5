//! Profiles: every variant switch of docs/rules.md §9 in one value, and the decisions D1–D7.
//!
//! Decisions that are structural (and so not switches) are cited where they act:
//! D1 (one multiplicity per tractor) in `combo::classify`, D2 (links follow natural
//! rank) in `trump::Context::new`, D3 (multiplicity before trump) in `combo::Combo::key`,
//! D4 (only the longest tractor counts) in `follow`, D7 (show only on receiving) in the
//! hand engine. D5 and D6 are the fields below.

use crate::error::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Seed 000, the Guigang rule page (default).
    Guigang,
    /// Seed 003, the Nanning page.
    Nanning,
}

impl Profile {
    pub fn parse(name: &str) -> Result<Profile, Error> {
        match name.trim().to_ascii_lowercase().as_str() {
            "guigang" => Ok(Profile::Guigang),
            "nanning" => Ok(Profile::Nanning),
            _ => Err(Error::BadProfile(name.to_string())),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Profile::Guigang => "guigang",
            Profile::Nanning => "nanning",
        }
    }
    pub fn rules(self) -> Rules {
        match self {
            Profile::Guigang => Rules {
                profile: self,
                t1_any_shape: true,
                last_trick_min_cards: 1,
                clamp_score: false,
                defender_gain_cap: 3,
            },
            Profile::Nanning => Rules {
                profile: self,
                t1_any_shape: false,
                last_trick_min_cards: 2,
                clamp_score: true,
                defender_gain_cap: 3,
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
    /// R7.3/D5: the last trick multiplies by its lead's card count N when N ≥ this (nanning: 2).
    pub last_trick_min_cards: u8,
    /// §9: clamp the defenders' score to 0..=400 before R7.4 (nanning).
    pub clamp_score: bool,
    /// D6: the most levels the defenders gain in one hand.
    pub defender_gain_cap: u8,
}

impl Default for Rules {
    fn default() -> Self {
        Profile::Guigang.rules()
    }
}
