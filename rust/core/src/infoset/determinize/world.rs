//! A complete world: the drawn hands and decks replayed into a [`Game`] whose history is
//! legal and in which the seat sees exactly what it sees now.

use crate::game::hand::{Action, Game, Phase, Position, Tally, TrickRecord};
use crate::infoset::info::InfoSet;
use crate::rules::card::KINDS;
use crate::rules::error::Error;
use super::holders::Draw;
use super::arrange::Arrangement;

/// The play part of a world, the same in every world of one info set: replaying the public
/// tricks changes a game's hands by the cards played and everything else (the trick state,
/// the score so far, R5–R7; the tally of what the table has seen; the record) by public cards
/// alone, read against the position's public fields. So once one world has been replayed,
/// every later world whose deal ends in the same public position (hands aside) and tally
/// takes the rest from here, unreplayed: the same game the replay would give.
#[derive(Clone, Debug)]
pub(super) struct PlayTemplate {
    /// Where play began (hands cleared) and the tally then.
    start: (Position, Tally),
    /// Where the history leaves it (hands cleared) and the tally then.
    end: (Position, Tally),
    /// The record's plays, finished tricks and the trick in progress.
    actions: Vec<(u8, Action)>,
    tricks: Vec<TrickRecord>,
    current: Vec<(u8, crate::rules::card::Counts)>,
}

/// A hand's public play up to the end of some finished trick, as the thread last replayed it
/// (a cache: it changes no world, only its cost). Like [`PlayTemplate`], but across info sets:
/// the finished tricks are public (R5–R7 read only the cards played), so every info set of the
/// hand, any seat's, at this decision or a later one, replays them into the same position
/// (hands aside) and tally from the same start; the turn chains are kept across info sets
/// likewise (`chain_cache.rs`). Kept at the end of a finished trick, so a later info set
/// replays only the tricks finished since and the trick in progress.
#[derive(Clone, Debug)]
struct KeptTricks {
    /// Where play began (hands cleared) and the tally then.
    start: (Position, Tally),
    /// Where the kept tricks leave it (hands cleared) and the tally then.
    end: (Position, Tally),
    /// The record's plays and finished tricks.
    actions: Vec<(u8, Action)>,
    tricks: Vec<TrickRecord>,
}

/// Kept tricks a thread holds at most (a thread that interleaves hands keeps the last few).
const KEPT_TRICKS: usize = 4;

impl KeptTricks {
    /// Whether these tricks are the first of `tricks` played from `start`.
    fn begin(&self, start: &(Position, Tally), tricks: &[TrickRecord]) -> bool {
        self.start == *start && self.tricks.len() <= tricks.len() && self.tricks[..] == tricks[..self.tricks.len()]
    }
}

thread_local! {
    static KEPT: std::cell::RefCell<Vec<KeptTricks>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Takes into `g` (at the start of play, `start` its position with hands cleared and tally)
/// the longest kept run of finished tricks that begins `tricks` from the same start: the
/// record's plays and tricks, the position and tally after them, the hands less the cards
/// played. Returns how many tricks it took (0: none kept fits) and where that run is kept.
/// (Once a determinizer, out of line: the worlds after its first take their play from its
/// own template.)
#[inline(never)]
fn fast_forward(g: &mut Game, start: &(Position, Tally), tricks: &[TrickRecord]) -> (usize, Option<usize>) {
    KEPT.with(|k| {
        let k = k.borrow();
        let Some((at, t)) = k.iter().enumerate().filter(|(_, t)| t.begin(start, tricks)).max_by_key(|(_, t)| t.tricks.len()) else {
            return (0, None);
        };
        let mut hands = g.pos.hands;
        for (s, h) in hands.iter_mut().enumerate() {
            for (k, x) in h.iter_mut().enumerate() {
                *x -= t.end.1.played[s][k] - start.1.played[s][k];
            }
        }
        g.record.actions.extend_from_slice(&t.actions);
        g.record.tricks.clone_from(&t.tricks);
        g.pos = Position { hands, ..t.end.0 };
        g.tally = t.end.1;
        (t.tricks.len(), Some(at))
    })
}

/// Keeps `t` for later info sets, in place of a shorter run of the same hand's tricks (any
/// that begins it).
#[inline(never)]
fn keep_tricks(t: KeptTricks) {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        k.retain(|x| !x.begin(&t.start, &t.tricks));
        if k.len() >= KEPT_TRICKS {
            k.remove(0);
        }
        k.push(t);
    });
}

/// The kept run at `at`, which `g`'s record took whole from `before` on (`fast_forward`),
/// extended by the plays and tricks `g` replayed after it, to end at `end`; kept as the most
/// recent. The same run as a new one of `g`'s record (`keep_tricks`), its own buffers grown
/// in place.
#[inline(never)]
fn extend_kept(at: usize, g: &Game, before: usize, end: (Position, Tally)) {
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        let mut t = k.remove(at);
        let (played, done) = (before + t.actions.len(), t.tricks.len());
        t.actions.extend_from_slice(&g.record.actions[played..]);
        t.tricks.extend_from_slice(&g.record.tricks[done..]);
        t.end = end;
        k.push(t);
    });
}

pub(super) fn without_hands(p: &Position) -> Position {
    Position { hands: [[0; KINDS]; 4], ..*p }
}

/// Replays a world from its start; `None` when its deal does not stop where the seat saw it
/// (with `check_asked`, also when it asks other seats than the source asked, [`replay_deal`]).
/// The play history is taken from `play` where it fits (see [`PlayTemplate`]), else replayed
/// and kept there.
pub(super) fn build_world(info: &InfoSet, d: &Draw, arr: Option<Arrangement>, check_asked: bool, world_seed: u64, play: &mut Option<PlayTemplate>) -> Result<Option<Game>, Error> {
    let plays: usize = info.tricks.iter().map(|t| t.plays.len()).sum::<usize>() + info.current.len();
    let mut g = match arr {
        None => {
            let mut start = d.hands;
            for (h, p) in start.iter_mut().zip(&info.played) {
                for (x, y) in h.iter_mut().zip(p) {
                    *x += y;
                }
            }
            Game::from_hands(start, info.level, info.trump, info.banker, info.profile)?
        }
        Some(a) => {
            let mut g = Game::deal_whole_decks(world_seed, info.profile, info.levels, info.start_banker, a.decks)?;
            if info.every_receiver {
                g = g.with_every_receiver()?;
            }
            // the record grows by the deal's decisions (the seat's own and the others' at
            // least) and then by the plays: reserve it once
            let deal = (info.own_decisions.len() * 4).max(64);
            g.record.actions.reserve(deal + plays);
            g.record.dealt_at.reserve(deal);
            if !replay_deal(info, &a.suits, check_asked, &mut g)? {
                return Ok(None);
            }
            g
        }
    };
    g.hand_index = info.hand_index;
    if g.pos.phase == Phase::Play {
        let start = (without_hands(&g.pos), g.tally);
        if let Some(t) = play.as_ref().filter(|t| t.start == start) {
            g.record.actions.extend_from_slice(&t.actions);
            g.record.tricks = t.tricks.clone();
            g.record.current = t.current.clone();
            g.pos = Position { hands: d.hands, ..t.end.0 };
            g.tally = t.end.1;
            return Ok(Some(g));
        }
        let before = g.record.actions.len();
        g.record.actions.reserve(plays);
        g.record.tricks.reserve(info.tricks.len() + 1);
        // the finished tricks the thread kept for this hand, taken whole; then only the
        // tricks finished since and the trick in progress are replayed
        let (from, taken) = fast_forward(&mut g, &start, &info.tricks);
        for t in &info.tricks[from..] {
            g.replay_trick_unchecked(t);
        }
        if info.tricks.len() > from {
            match taken {
                // (the run taken grows by the tricks replayed since, in place: no copy of
                // its plays and tricks)
                Some(at) => extend_kept(at, &g, before, (without_hands(&g.pos), g.tally)),
                None => {
                    let kept = KeptTricks {
                        start,
                        end: (without_hands(&g.pos), g.tally),
                        actions: g.record.actions[before..].to_vec(),
                        tricks: g.record.tricks.clone(),
                    };
                    keep_tricks(kept);
                }
            }
        }
        for (_, c) in &info.current {
            g.play_recorded_unchecked(c);
        }
        if play.is_none() {
            *play = Some(PlayTemplate {
                start,
                end: (without_hands(&g.pos), g.tally),
                actions: g.record.actions[before..].to_vec(),
                tricks: g.record.tricks.clone(),
                current: g.record.current.clone(),
            });
        }
    }
    Ok(Some(g))
}

/// Drives a world's deal: the seat's own decisions as taken, the other seats' showings at
/// their recorded times with the world's suits, passes elsewhere. True when it stops where
/// the seat saw the deal stop and, with `check_asked`, asked the seats the source asked, in order
/// (`InfoSet::asked`, the seat asked now included): false at the first that differs.
pub(super) fn replay_deal(info: &InfoSet, suits: &[u8], check_asked: bool, g: &mut Game) -> Result<bool, Error> {
    // showings of other seats in log order, each with its run's suit; the runs group the
    // showings in log order, so their final-round marks pair up in order
    // (read lazily, in that order: no list built per world)
    let mut finals = info.showings.iter().map(|s| s.final_round);
    let mut others = info
        .runs
        .iter()
        .enumerate()
        .flat_map(|(ri, run)| run.showings.iter().map(move |&(t, k)| (ri, run, t, k)))
        // a hand-built info set may omit the log
        .map(|(ri, run, t, k)| (ri, run, t, k, finals.next().unwrap_or(false)))
        .filter(|(_, run, ..)| run.seat != info.seat)
        .map(|(ri, run, t, k, late)| ((run.attempt, t, late), run.seat, k, suits[ri]))
        .peekable();
    let mut own = info.own_decisions.iter().peekable();
    let target = (info.first_seats.len() as u8 - 1, info.dealt, info.final_round);
    let mut asked = info.asked.iter();
    while g.pos.phase == Phase::Declare {
        let p = &g.pos;
        let now = (p.redeals, p.dealt, p.final_round);
        let seat = p.to_move;
        if check_asked && asked.next() != Some(&(p.redeals, p.dealt, seat)) {
            return Ok(false);
        }
        if info.phase == Phase::Declare && now >= target && own.peek().is_none() && others.peek().is_none() {
            // where the seat sees the deal now: someone with a choice is to move
            return Ok(now == target && (info.to_move.is_none() || info.to_move == Some(seat)) && (!check_asked || asked.len() == 0));
        }
        let action = if seat == info.seat {
            match own.next() {
                Some(&(att, t, act)) if (att, t) == (p.redeals, p.dealt) => act,
                _ => return Ok(false),
            }
        } else {
            match others.peek() {
                // R8.3: the last receiver is asked twice at 216 cards dealt, as it receives and
                // in the final round
                Some(&(time, s, k, suit)) if time == (p.redeals, p.dealt, p.final_round > 0) && s == seat => {
                    others.next();
                    Action::Declare { suit, count: k }
                }
                _ => Action::Pass,
            }
        };
        if g.apply(&action).is_err() {
            return Ok(false);
        }
    }
    Ok(info.phase != Phase::Declare && own.peek().is_none() && others.peek().is_none() && (!check_asked || asked.len() == 0))
}

