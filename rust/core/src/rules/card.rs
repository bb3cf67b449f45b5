//! Cards and hands (docs/rules.md §1).
//!
//! Kind ids are a frozen contract: `suit × 13 + (rank − 2)` with suits in the
//! order s, h, d, c, then `SJ = 52`, `BJ = 53`. A hand, a lead or a play is a
//! [`Counts`] array: how many copies (0..=4) of each of the 54 kinds.

use crate::rules::error::Error;

/// Number of distinct card kinds (R1.2).
pub const KINDS: usize = 54;
/// Copies of each kind in the four decks (R1.2).
pub const COPIES: u8 = 4;
/// Cards in the four decks, all dealt (R1.2–R1.3).
pub const DECK: usize = KINDS * COPIES as usize;
/// Small joker 小王.
pub const SJ: Card = Card(52);
/// Big joker 大王.
pub const BJ: Card = Card(53);

/// A multiset of cards: copies of each kind.
pub type Counts = [u8; KINDS];

/// One card kind, `0..54`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(pub u8);

/// Suit letters in id order.
pub const SUITS: [char; 4] = ['s', 'h', 'd', 'c'];

impl Card {
    /// The card of `suit` (0..4, s h d c) and `rank` (2..=14, A = 14).
    pub const fn new(suit: u8, rank: u8) -> Card {
        Card(suit * 13 + rank - 2)
    }
    pub const fn id(self) -> usize {
        self.0 as usize
    }
    pub const fn is_joker(self) -> bool {
        self.0 >= 52
    }
    /// Suit 0..4, or `None` for a joker.
    pub const fn suit(self) -> Option<u8> {
        if self.is_joker() {
            None
        } else {
            Some(self.0 / 13)
        }
    }
    /// Rank 2..=14, or `None` for a joker.
    pub const fn rank(self) -> Option<u8> {
        if self.is_joker() {
            None
        } else {
            Some(self.0 % 13 + 2)
        }
    }
}

impl std::fmt::Display for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SJ => f.write_str("SJ"),
            BJ => f.write_str("BJ"),
            c => {
                let r = c.rank().unwrap_or(0);
                let rs = match r {
                    11 => "J".to_string(),
                    12 => "Q".to_string(),
                    13 => "K".to_string(),
                    14 => "A".to_string(),
                    n => n.to_string(),
                };
                write!(f, "{}{}", rs, SUITS[c.suit().unwrap_or(0) as usize])
            }
        }
    }
}

/// Parses one rank token: `2`..`10`, `T`, `J`, `Q`, `K`, `A` (any case).
pub fn parse_rank(s: &str) -> Option<u8> {
    match s.to_ascii_uppercase().as_str() {
        "T" | "10" => Some(10),
        "J" => Some(11),
        "Q" => Some(12),
        "K" => Some(13),
        "A" => Some(14),
        d if d.len() == 1 && (b'2'..=b'9').contains(&d.as_bytes()[0]) => Some(d.as_bytes()[0] - b'0'),
        _ => None,
    }
}

fn parse_suit(c: char) -> Option<u8> {
    match c.to_ascii_lowercase() {
        's' | '♠' | '♤' => Some(0),
        'h' | '♥' | '♡' => Some(1),
        'd' | '♦' | '♢' => Some(2),
        'c' | '♣' | '♧' => Some(3),
        _ => None,
    }
}

/// Parses one card token: rank then suit (`As`, `10h`, `Th`, `2♦`), or `SJ` / `BJ`.
pub fn parse_card(token: &str) -> Result<Card, Error> {
    let bad = || Error::BadToken(token.to_string());
    let upper = token.to_uppercase();
    match upper.as_str() {
        "SJ" | "小王" => return Ok(SJ),
        "BJ" | "大王" => return Ok(BJ),
        _ => {}
    }
    let suit_char = token.chars().last().ok_or_else(bad)?;
    let suit = parse_suit(suit_char).ok_or_else(bad)?;
    let rank_str = &token[..token.len() - suit_char.len_utf8()];
    let rank = parse_rank(rank_str).ok_or_else(bad)?;
    Ok(Card::new(suit, rank))
}

/// Parses cards separated by spaces or commas, keeping their order. Cards may also be
/// written without separators, as in the rules (`4s4s5s5s`).
pub fn parse(text: &str) -> Result<Vec<Card>, Error> {
    let mut out = Vec::new();
    for chunk in text.split(|c: char| c.is_whitespace() || c == ',').filter(|t| !t.is_empty()) {
        match parse_card(chunk) {
            Ok(c) => out.push(c),
            Err(e) => {
                let run = split_run(chunk).ok_or(e)?;
                for t in run {
                    out.push(parse_card(t)?);
                }
            }
        }
    }
    Ok(out)
}

/// Splits `4s4s10hSJ` into card tokens, or `None` if it is not such a run.
fn split_run(chunk: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut rest = chunk;
    while !rest.is_empty() {
        let upper: String = rest.chars().take(2).collect::<String>().to_uppercase();
        let len = if upper == "SJ" || upper == "BJ" {
            2
        } else {
            let rank_len = if rest.starts_with("10") { 2 } else { rest.chars().next()?.len_utf8() };
            rank_len + rest[rank_len..].chars().next()?.len_utf8()
        };
        out.push(&rest[..len]);
        rest = &rest[len..];
    }
    Some(out)
}

/// Writes cards in the canonical form that [`parse`] reads back: `As 10h SJ`.
pub fn format(cards: &[Card]) -> String {
    let parts: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
    parts.join(" ")
}

/// Counts of a list of cards; more than [`COPIES`] of a kind is an error.
pub fn counts_of(cards: &[Card]) -> Result<Counts, Error> {
    let mut c = [0u8; KINDS];
    for &card in cards {
        if card.id() >= KINDS {
            return Err(Error::BadCard(card.0 as i64));
        }
        c[card.id()] += 1;
        if c[card.id()] > COPIES {
            return Err(Error::TooManyCopies { card: card.to_string(), copies: c[card.id()] as usize });
        }
    }
    Ok(c)
}

/// Checks a count array: at most 4 copies of each kind.
pub fn check_counts(c: &Counts) -> Result<(), Error> {
    for (i, &n) in c.iter().enumerate() {
        if n > COPIES {
            return Err(Error::TooManyCopies { card: Card(i as u8).to_string(), copies: n as usize });
        }
    }
    Ok(())
}

/// The cards of a count array, in kind order.
pub fn cards_of(c: &Counts) -> Vec<Card> {
    let mut v = Vec::with_capacity(size(c));
    for (i, &n) in c.iter().enumerate() {
        for _ in 0..n {
            v.push(Card(i as u8));
        }
    }
    v
}

/// Calls `f(kind, copies)` for every kind held, in kind order, skipping empty kinds eight
/// at a time.
#[inline]
pub fn for_each_held(c: &Counts, mut f: impl FnMut(usize, u8)) {
    let mut base = 0;
    while base < KINDS {
        // eight kinds as one word; the last six padded with zeros (fixed-size reads: no copy call)
        let mut word = if base + 8 <= KINDS {
            u64::from_le_bytes(c[base..base + 8].try_into().expect("eight kinds"))
        } else {
            let mut w = [0u8; 8];
            w[..KINDS % 8].copy_from_slice(&c[KINDS - KINDS % 8..]);
            u64::from_le_bytes(w)
        };
        while word != 0 {
            let byte = word.trailing_zeros() / 8;
            let k = base + byte as usize;
            f(k, c[k]);
            word &= !(0xFFu64 << (byte * 8));
        }
        base += 8;
    }
}

/// Number of cards in a count array.
#[inline]
pub fn size(c: &Counts) -> usize {
    // Eight kinds at a time: a word's even and odd bytes go into four 16-bit lanes. A lane
    // gets two bytes a word, six words: at most 6 × 2 × 255 = 3,060, and the four lanes
    // together at most 12,240, so no lane overflows and the top lane of the product below
    // holds their exact sum.
    const EVEN: u64 = 0x00ff_00ff_00ff_00ff;
    let mut words = c.chunks_exact(8);
    let mut lanes = 0u64;
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("chunks of eight"));
        lanes += (w & EVEN) + ((w >> 8) & EVEN);
    }
    let sum = (lanes.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize;
    sum + words.remainder().iter().map(|&n| n as usize).sum::<usize>()
}

/// The count array as seven little-endian words of eight kinds, the last six kinds padded
/// with zeros (fixed-size reads: no copy call).
#[inline]
pub fn words(c: &Counts) -> [u64; 7] {
    let mut w = [0u64; 7];
    for (i, x) in w.iter_mut().take(6).enumerate() {
        *x = u64::from_le_bytes(c[8 * i..8 * i + 8].try_into().expect("eight kinds"));
    }
    let mut last = [0u8; 8];
    last[..KINDS - 48].copy_from_slice(&c[48..]);
    w[6] = u64::from_le_bytes(last);
    w
}

/// The kinds of `words` held at least `m` times, as bits over kind ids: each byte compared by
/// adding 128 − m into its top bit (counts stay below 128, so no byte carries into the next),
/// the eight top bits of a word then gathered into one byte by a multiply (bit 8i + 7 lands
/// on bit 56 + i, and no two products share a bit).
#[inline]
fn mask_of_words(w: &[u64; 7], m: u8) -> u64 {
    let add = (0x80 - m as u64) * 0x0101_0101_0101_0101;
    let mut out = 0u64;
    for (i, &x) in w.iter().enumerate() {
        let top = ((x + add) & 0x8080_8080_8080_8080) >> 7;
        out |= (top.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i);
    }
    out
}

/// Bit k set where `c[k] ≥ m` (m ≥ 1), eight kinds at a time (see `mask_of_words`).
#[inline]
pub fn held_mask(c: &Counts, m: u8) -> u64 {
    debug_assert!(c.iter().all(|&n| n < 128) && (1..128).contains(&m));
    mask_of_words(&words(c), m)
}

/// [`held_mask`] for m = 2, 3 and 4 (a tractor's multiplicities), the words read once.
#[inline]
pub fn held_at_least(c: &Counts) -> [u64; 3] {
    let w = words(c);
    [mask_of_words(&w, 2), mask_of_words(&w, 3), mask_of_words(&w, 4)]
}

/// [`held_mask`] for m = 1, 2, 3 and 4 (every unit a hand can lead), the words read once.
#[inline]
pub fn held_masks(c: &Counts) -> [u64; 4] {
    let w = words(c);
    [mask_of_words(&w, 1), mask_of_words(&w, 2), mask_of_words(&w, 3), mask_of_words(&w, 4)]
}

/// `size(&and(a, b))` without building the AND: the words of both ANDed and summed as in
/// [`size`] (seven words: at most 7 × 2 × 255 per lane, 14,280 in all).
#[inline]
pub fn size_and(a: &Counts, b: &Counts) -> usize {
    const EVEN: u64 = 0x00ff_00ff_00ff_00ff;
    let (wa, wb) = (words(a), words(b));
    let mut lanes = 0u64;
    for (x, y) in wa.iter().zip(&wb) {
        let w = x & y;
        lanes += (w & EVEN) + ((w >> 8) & EVEN);
    }
    (lanes.wrapping_mul(0x0001_0001_0001_0001) >> 48) as usize
}

/// `UNITS[m - 1][k]`: `m` copies (1..=4) of kind `k` as a count array. Read from this table,
/// a play of one kind is copied whole, never built byte by byte on the stack: the next reader
/// loads it in wide words, and a wide load of bytes just stored one by one waits for them
/// (the random policy's hot path).
pub static UNITS: [[Counts; KINDS]; COPIES as usize] = {
    let mut t = [[[0u8; KINDS]; KINDS]; COPIES as usize];
    let mut m = 0;
    while m < COPIES as usize {
        let mut k = 0;
        while k < KINDS {
            t[m][k][k] = m as u8 + 1;
            k += 1;
        }
        m += 1;
    }
    t
};

/// The kind id of the `r`-th set bit of `mask`, lowest first, or `None` past the last.
///
/// Byte by byte: each byte's bits counted (SWAR), summed into running totals by a multiply
/// (byte i: the bits of bytes 0..=i, at most 64), the first byte whose total exceeds r found
/// by adding 128 − (r + 1) into each byte's top bit (no byte carries: 64 + 127 < 256), and the
/// bit found inside that byte by dropping its lowest bits.
#[inline]
pub fn nth_bit(mask: u64, r: u32) -> Option<u8> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut b = mask - ((mask >> 1) & 0x5555_5555_5555_5555);
    b = (b & 0x3333_3333_3333_3333) + ((b >> 2) & 0x3333_3333_3333_3333);
    b = (b + (b >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    let totals = b.wrapping_mul(ONES);
    if r as u64 >= totals >> 56 {
        return None;
    }
    let above = (totals + (0x80 - (r as u64 + 1)) * ONES) & 0x8080_8080_8080_8080;
    let byte = above.trailing_zeros() / 8;
    let before = if byte == 0 { 0 } else { (totals >> (8 * (byte - 1))) & 0xFF } as u32;
    let m = (mask >> (8 * byte)) & 0xFF;
    Some((8 * byte) as u8 + SELECT_IN_BYTE[m as usize][(r - before) as usize])
}

/// `SELECT_IN_BYTE[m][i]`: the position of the `i`-th set bit of the byte `m` (a table, so
/// that `nth_bit` takes no loop whose length the random rank decides).
static SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut i, mut bit) = (0, 0);
        while bit < 8 {
            if m >> bit & 1 == 1 {
                t[m][i] = bit as u8;
                i += 1;
            }
            bit += 1;
        }
        m += 1;
    }
    t
};

/// `SOME_UNITS[m - 1][k]`: `Some(UNITS[m - 1][k])`. A sampler that returns a one-kind play
/// copies it whole from here, tag and cards in one copy laid out as the reader's, so the
/// reader's wide loads find whole stores to forward from (a `Some` built from `UNITS` writes
/// its tag and its cards apart, at offsets no reader's load matches).
pub static SOME_UNITS: [[Option<Counts>; KINDS]; COPIES as usize] = {
    let mut t = [[None; KINDS]; COPIES as usize];
    let mut m = 0;
    while m < COPIES as usize {
        let mut k = 0;
        while k < KINDS {
            t[m][k] = Some(UNITS[m][k]);
            k += 1;
        }
        m += 1;
    }
    t
};

/// `a` AND `b`, kind by kind (with a class's [`crate::rules::trump::Context::class_bytes`]:
/// the cards of `a` in that class).
///
/// Six words, then four bytes and two as one value each: no byte is stored alone and no two
/// stores overlap, so a wider read of the result right after (its `size`, its masks) is
/// forwarded from one store instead of waiting for them to reach the cache.
#[inline]
pub fn and(a: &Counts, b: &Counts) -> Counts {
    let mut out = [0u8; KINDS];
    for at in (0..48).step_by(8) {
        let (x, y) = (u64::from_le_bytes(a[at..at + 8].try_into().expect("8")), u64::from_le_bytes(b[at..at + 8].try_into().expect("8")));
        out[at..at + 8].copy_from_slice(&(x & y).to_le_bytes());
    }
    let (x, y) = (u32::from_le_bytes(a[48..52].try_into().expect("4")), u32::from_le_bytes(b[48..52].try_into().expect("4")));
    out[48..52].copy_from_slice(&(x & y).to_le_bytes());
    let (x, y) = (u16::from_le_bytes(a[52..54].try_into().expect("2")), u16::from_le_bytes(b[52..54].try_into().expect("2")));
    out[52..54].copy_from_slice(&(x & y).to_le_bytes());
    out
}

/// True when `a ⊆ b` as multisets.
pub fn contains(b: &Counts, a: &Counts) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| x <= y)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `nth_bit` against dropping the lowest bits one at a time.
    #[test]
    fn nth_bit_is_the_rth_set_bit() {
        let mut rng = crate::util::rng::Rng::new(31);
        for t in 0..20_000 {
            let mask = match t % 4 {
                0 => rng.next_u64(),
                1 => rng.next_u64() & rng.next_u64() & rng.next_u64(),
                2 => rng.next_u64() | rng.next_u64(),
                _ => rng.next_u64() & ((1u64 << 54) - 1),
            };
            let mut m = mask;
            for r in 0..=64u32 {
                let want = (m != 0).then(|| m.trailing_zeros() as u8);
                assert_eq!(super::nth_bit(mask, r), want, "mask {mask:#x} r {r}");
                if m != 0 {
                    m &= m - 1;
                }
            }
        }
        assert_eq!(super::nth_bit(u64::MAX, 63), Some(63));
        assert_eq!(super::nth_bit(0, 0), None);
    }

    /// `and` by words against the kind-by-kind AND, on random count arrays (every byte value
    /// in the last six kinds included).
    #[test]
    fn and_is_the_kind_by_kind_and() {
        let mut rng = crate::util::rng::Rng::new(8);
        for _ in 0..5000 {
            let a: Counts = std::array::from_fn(|_| rng.next_u64() as u8);
            let b: Counts = std::array::from_fn(|_| rng.next_u64() as u8);
            let want: Counts = std::array::from_fn(|k| a[k] & b[k]);
            assert_eq!(and(&a, &b), want);
        }
    }

    #[test]
    fn held_mask_marks_the_kinds_held_m_times() {
        let mut rng = crate::util::rng::Rng::new(6);
        for _ in 0..2000 {
            let c: Counts = std::array::from_fn(|_| rng.below_usize(5) as u8);
            for m in 1..=5u8 {
                let want = (0..KINDS).fold(0u64, |b, k| b | ((c[k] >= m) as u64) << k);
                assert_eq!(held_mask(&c, m), want);
            }
        }
    }

    #[test]
    fn size_and_is_the_size_of_the_and() {
        let mut rng = crate::util::rng::Rng::new(8);
        for t in 0..2000 {
            let a: Counts = std::array::from_fn(|_| if t % 2 == 0 { rng.below_usize(5) as u8 } else { rng.below_usize(256) as u8 });
            let b: Counts = std::array::from_fn(|_| if rng.below_usize(2) == 0 { 0xFF } else { rng.below_usize(256) as u8 });
            assert_eq!(size_and(&a, &b), size(&and(&a, &b)), "{a:?} {b:?}");
        }
    }

    #[test]
    fn size_counts_every_copy() {
        let mut rng = crate::util::rng::Rng::new(5);
        for t in 0..2000 {
            let c: Counts = std::array::from_fn(|_| match t % 3 {
                0 => rng.below_usize(5) as u8,
                1 => rng.below_usize(256) as u8,
                _ => 255,
            });
            assert_eq!(size(&c), c.iter().map(|&n| n as usize).sum::<usize>(), "{c:?}");
        }
        assert_eq!(size(&[0; KINDS]), 0);
    }

    #[test]
    fn kind_ids_are_frozen() {
        assert_eq!(parse_card("2s").unwrap(), Card(0));
        assert_eq!(parse_card("As").unwrap(), Card(12));
        assert_eq!(parse_card("2h").unwrap(), Card(13));
        assert_eq!(parse_card("10d").unwrap(), Card(2 * 13 + 8));
        assert_eq!(parse_card("Ac").unwrap(), Card(51));
        assert_eq!(parse_card("SJ").unwrap(), Card(52));
        assert_eq!(parse_card("BJ").unwrap(), Card(53));
    }

    #[test]
    fn notation_variants() {
        for t in ["Th", "10h", "th", "10H", "T♥", "10♡"] {
            assert_eq!(parse_card(t).unwrap(), Card::new(1, 10), "{t}");
        }
        assert_eq!(parse("As,Ks  sj\tbj").unwrap(), vec![Card(12), Card(11), SJ, BJ]);
        assert_eq!(parse("4s4s10hSJ").unwrap(), parse("4s 4s 10h SJ").unwrap());
        assert!(matches!(parse("4s4x"), Err(Error::BadToken(t)) if t == "4x"));
        assert!(matches!(parse("As 1s"), Err(Error::BadToken(t)) if t == "1s"));
        assert!(parse_card("Ax").is_err());
        assert!(parse_card("").is_err());
        assert!(parse_card("♠").is_err());
    }

    #[test]
    fn format_round_trips_every_kind() {
        let all: Vec<Card> = (0..54).map(Card).collect();
        assert_eq!(parse(&format(&all)).unwrap(), all);
        assert_eq!(format(&[Card::new(1, 10), SJ]), "10h SJ");
    }

    #[test]
    fn too_many_copies() {
        let c = parse("As As As As As").unwrap();
        assert!(matches!(counts_of(&c), Err(Error::TooManyCopies { copies: 5, .. })));
    }
}
