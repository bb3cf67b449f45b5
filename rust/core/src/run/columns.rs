//! The results columns of a bulk run, defined once, beside [`crate::run::sim`]: each column's
//! name, its type as NumPy's array-interface string (`<u8` little-endian unsigned of 8 bytes,
//! `u1` a byte, `<i4` signed, `?` a bool byte), and how a row writes its bytes, little-endian.
//! `tractor.sim.HAND_COLUMNS` and `MATCH_COLUMNS` are these tables, in this order (the binding
//! only converts: `_core.result_schema`), and the columns' bytes are made from them.

use crate::run::sim::{HandResult, MatchResult};

/// A result column of rows `T`: its name, its array-interface type, and how a row writes it.
pub struct Column<T> {
    pub name: &'static str,
    pub dtype: &'static str,
    pub write: fn(&T, &mut Vec<u8>),
}

const fn col<T>(name: &'static str, dtype: &'static str, write: fn(&T, &mut Vec<u8>)) -> Column<T> {
    Column { name, dtype, write }
}

/// The per-hand columns ([`HandResult`]), in the order results hold them.
pub const HAND_COLUMNS: [Column<HandResult>; 19] = [
    col("index", "<u8", |r, b| b.extend_from_slice(&r.index.to_le_bytes())),
    col("seed", "<u8", |r, b| b.extend_from_slice(&r.hand_seed.to_le_bytes())),
    col("banker", "u1", |r, b| b.push(r.banker)),
    col("declarer", "u1", |r, b| b.push(r.declarer)),
    col("trump", "u1", |r, b| b.push(r.trump)),
    col("level", "u1", |r, b| b.push(r.level)),
    col("tricks", "u1", |r, b| b.push(r.tricks)),
    col("score", "<i4", |r, b| b.extend_from_slice(&r.score.to_le_bytes())),
    col("last_trick_cards", "u1", |r, b| b.push(r.last_trick_cards)),
    col("banker_levels", "<u2", |r, b| b.extend_from_slice(&r.banker_levels.to_le_bytes())),
    col("defender_levels", "<u2", |r, b| b.extend_from_slice(&r.defender_levels.to_le_bytes())),
    col("defenders_take_over", "?", |r, b| b.push(r.defenders_take_over as u8)),
    col("redeals", "u1", |r, b| b.push(r.redeals)),
    col("stopped", "?", |r, b| b.push(r.stopped as u8)),
    col("decisions", "<u2", |r, b| b.extend_from_slice(&r.decisions.to_le_bytes())),
    // R7.4 per-seat returns, computed by the core (Position::returns)
    col("return0", "<i2", |r, b| b.extend_from_slice(&r.returns[0].to_le_bytes())),
    col("return1", "<i2", |r, b| b.extend_from_slice(&r.returns[1].to_le_bytes())),
    col("return2", "<i2", |r, b| b.extend_from_slice(&r.returns[2].to_le_bytes())),
    col("return3", "<i2", |r, b| b.extend_from_slice(&r.returns[3].to_le_bytes())),
];

/// The per-match columns ([`MatchResult`]), likewise.
pub const MATCH_COLUMNS: [Column<MatchResult>; 6] = [
    col("index", "<u8", |r, b| b.extend_from_slice(&r.index.to_le_bytes())),
    col("winner", "u1", |r, b| b.push(r.winner)),
    col("hands", "<u4", |r, b| b.extend_from_slice(&r.hands.to_le_bytes())),
    col("level0", "u1", |r, b| b.push(r.levels[0])),
    col("level1", "u1", |r, b| b.push(r.levels[1])),
    col("stops", "<u4", |r, b| b.extend_from_slice(&r.stops.to_le_bytes())),
];

impl<T> Column<T> {
    /// The column of `rows`, one value after another, into `buf` (cleared first).
    pub fn bytes(&self, rows: &[T], buf: &mut Vec<u8>) {
        buf.clear();
        for r in rows {
            (self.write)(r, buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of one value of an array-interface type the columns use: a byte (`u1`, `?`)
    /// or a little-endian integer of 2, 4 or 8 bytes (`<i2`, `<u8`, ...); None for another.
    fn size(dtype: &str) -> Option<usize> {
        match dtype.as_bytes() {
            b"u1" | b"?" => Some(1),
            [b'<', b'i' | b'u', n @ (b'2' | b'4' | b'8')] => Some((n - b'0') as usize),
            _ => None,
        }
    }

    fn check<T>(table: &[Column<T>], row: &T) {
        let mut names: Vec<&str> = table.iter().map(|c| c.name).collect();
        assert_eq!(names[0], "index");
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), table.len(), "each column has its own name");
        for c in table {
            let mut buf = vec![9];
            c.bytes(std::slice::from_ref(row), &mut buf);
            assert_eq!(Some(buf.len()), size(c.dtype), "{}: one row writes its type's bytes ({})", c.name, c.dtype);
        }
    }

    #[test]
    fn each_column_writes_the_bytes_its_type_says() {
        let h = HandResult {
            index: 1,
            hand_seed: 2,
            banker: 3,
            declarer: 0,
            trump: 4,
            level: 5,
            tricks: 6,
            score: -7,
            last_trick_cards: 1,
            banker_levels: 8,
            defender_levels: 9,
            defenders_take_over: true,
            redeals: 1,
            stopped: false,
            decisions: 300,
            returns: [1, -1, 1, -1],
        };
        check(&HAND_COLUMNS, &h);
        check(&MATCH_COLUMNS, &MatchResult { index: 1, winner: 0, hands: 5, levels: [3, 4], stops: 1 });
        let mut buf = Vec::new();
        HAND_COLUMNS[7].bytes(&[h, HandResult { score: 260, ..h }], &mut buf);
        assert_eq!((HAND_COLUMNS[7].name, buf), ("score", [(-7i32).to_le_bytes(), 260i32.to_le_bytes()].concat()));
    }
}
