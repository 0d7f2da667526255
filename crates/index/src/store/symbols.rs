//! The symbols section's records: each symbol's two text ids as a u32 each (its prefix,
//! and its signature and doc as one entry), then its numbers packed in as few bits as
//! the generation's largest values need.
//!
//! A record of fixed size keeps a symbol one multiplication away (`find` reads thousands
//! of symbols scattered over the tree; in compressed blocks it was nearly twice as slow,
//! see the store's docs). But most of a u32 is zeros: on `rustreg` the name takes 19
//! bits, the file 15, the parent 21, the line 15, the column, the end line as a step
//! from the line and the end column 14 each, the kind 4 and the member flag 1, so a
//! record is 23 bytes where seven u32, two bytes and three text ids made it 42. The
//! writer measures the largest value of each number over the generation's rows
//! ([`SymbolBounds`]) before the section is placed, the section starts with the width of
//! each ([`SymbolLayout`]), and a value that does not fit its width is an error, never
//! cut.
//!
//! Layout: [`LAYOUT_HEAD`] bytes (the record's length, then the bit width of each of
//! [`NUMBERS`] numbers in [`SymbolNumbers`] order), then the records: the prefix's and
//! the texts' ids (u32 each), then the numbers back to back, least significant bit
//! first.

use super::{SymbolRow, kind_code, le_u32, put_u32};
use mcursor_syntax::SymbolKind;

/// Name, file, parent, line, column, end line, end column, kind, member.
const NUMBERS: usize = 9;
/// Bytes of the section's head: the record length and the widths, padded to 8.
pub(super) const LAYOUT_HEAD: usize = 16;
/// Where a record's numbers start, after its two text ids.
const TEXT_IDS: usize = 8;

/// A symbol's numbers as its record packs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SymbolNumbers([u32; NUMBERS]);

impl SymbolNumbers {
    fn of(row: &SymbolRow<'_>) -> Self {
        SymbolNumbers([
            row.name,
            row.file,
            // `NONE` as 0, the rest one more: a width for the ids in use.
            row.parent.wrapping_add(1),
            row.line,
            row.column,
            // Usually a few lines: a step takes fewer bits than the line itself (wrapping,
            // so an end before the start still round-trips).
            row.end_line.wrapping_sub(row.line),
            row.end_column,
            u32::from(kind_code(row.kind)),
            u32::from(row.member),
        ])
    }
}

/// The largest of each number over some symbol rows: what [`SymbolLayout::of`] sizes the
/// records by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SymbolBounds([u32; NUMBERS]);

impl SymbolBounds {
    pub fn include(&mut self, row: &SymbolRow<'_>) {
        for (bound, value) in self.0.iter_mut().zip(SymbolNumbers::of(row).0) {
            *bound = (*bound).max(value);
        }
    }

    /// The bounds of both.
    pub fn merge(mut self, other: SymbolBounds) -> SymbolBounds {
        for (bound, value) in self.0.iter_mut().zip(other.0) {
            *bound = (*bound).max(value);
        }
        self
    }
}

/// How one generation packs its symbol records: the bit width of each number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SymbolLayout {
    widths: [u8; NUMBERS],
    /// The bit of a record where each number starts.
    starts: [usize; NUMBERS],
    /// Bytes per record.
    record: usize,
}

impl SymbolLayout {
    /// The layout that fits every value up to `bounds`.
    pub fn of(bounds: SymbolBounds) -> SymbolLayout {
        Self::with_widths(bounds.0.map(|max| (u32::BITS - max.leading_zeros()) as u8))
    }

    fn with_widths(widths: [u8; NUMBERS]) -> SymbolLayout {
        let mut starts = [0; NUMBERS];
        let mut at = TEXT_IDS * 8;
        for (start, &width) in starts.iter_mut().zip(&widths) {
            *start = at;
            at += usize::from(width);
        }
        SymbolLayout {
            widths,
            starts,
            record: at.div_ceil(8),
        }
    }

    /// The layout a section's head gives; `None` when it is not one a writer makes.
    pub fn read(section: &[u8]) -> Option<SymbolLayout> {
        let head = section.get(..LAYOUT_HEAD)?;
        let widths: [u8; NUMBERS] = head.get(1..=NUMBERS)?.try_into().ok()?;
        if widths.iter().any(|&w| u32::from(w) > u32::BITS) {
            return None;
        }
        let layout = Self::with_widths(widths);
        (usize::from(head[0]) == layout.record).then_some(layout)
    }

    /// The section's head.
    pub fn head(&self) -> [u8; LAYOUT_HEAD] {
        let mut head = [0u8; LAYOUT_HEAD];
        // At most 8 + 9 × 4 bytes: fits a byte.
        head[0] = self.record as u8;
        head[1..=NUMBERS].copy_from_slice(&self.widths);
        head
    }

    pub fn record_len(&self) -> usize {
        self.record
    }

    /// Appends `row`'s record, its text ids given; an error where a number is wider
    /// than the layout (the bounds it was made from did not cover the row).
    pub fn encode(
        &self,
        row: &SymbolRow<'_>,
        texts: [u32; 2],
        out: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        let start = out.len();
        for id in texts {
            put_u32(out, id);
        }
        // Eight bytes of slack, so each number is or-ed in as one u64 and cut after.
        out.resize(start + self.record + 8, 0);
        let numbers = SymbolNumbers::of(row).0;
        for ((&width, &at), value) in self.widths.iter().zip(&self.starts).zip(numbers) {
            if u64::from(value) >> width != 0 {
                out.truncate(start);
                return Err(std::io::Error::other(format!(
                    "a symbol's number {value} is wider than its store layout ({width} bits)"
                )));
            }
            let (byte, shift) = (start + at / 8, at % 8);
            let mut window = [0u8; 8];
            window.copy_from_slice(&out[byte..byte + 8]);
            let merged = u64::from_le_bytes(window) | (u64::from(value) << shift);
            out[byte..byte + 8].copy_from_slice(&merged.to_le_bytes());
        }
        out.truncate(start + self.record);
        Ok(())
    }

    /// Number `index` of `record` (0 where the record is short: only a damaged file's).
    fn number(&self, record: &[u8], index: usize) -> u32 {
        let at = self.starts[index];
        let width = u32::from(self.widths[index]);
        let (byte, shift) = (at / 8, at % 8);
        let mut window = [0u8; 8];
        if let Some(bytes) = record.get(byte..) {
            let n = bytes.len().min(8);
            window[..n].copy_from_slice(&bytes[..n]);
        }
        let mask = if width == 32 {
            u64::from(u32::MAX)
        } else {
            (1u64 << width) - 1
        };
        ((u64::from_le_bytes(window) >> shift) & mask) as u32
    }

    pub fn name(&self, record: &[u8]) -> u32 {
        self.number(record, 0)
    }

    pub fn file(&self, record: &[u8]) -> u32 {
        self.number(record, 1)
    }

    pub fn parent(&self, record: &[u8]) -> Option<u32> {
        match self.number(record, 2) {
            0 => None,
            stored => Some(stored - 1),
        }
    }

    /// Line, column, end line, end column.
    pub fn span(&self, record: &[u8]) -> [u32; 4] {
        let line = self.number(record, 3);
        [
            line,
            self.number(record, 4),
            line.wrapping_add(self.number(record, 5)),
            self.number(record, 6),
        ]
    }

    pub fn kind(&self, record: &[u8]) -> SymbolKind {
        SymbolKind::ALL
            .get(self.number(record, 7) as usize)
            .copied()
            .unwrap_or(SymbolKind::Function)
    }

    pub fn member(&self, record: &[u8]) -> bool {
        self.number(record, 8) != 0
    }

    /// The prefix's id and the signature and doc's.
    pub fn texts(&self, record: &[u8]) -> [u32; 2] {
        [0, 4].map(|at| le_u32(record, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NONE;
    use std::borrow::Cow;
    use std::sync::Arc;

    fn parent_or_none(parent: Option<u32>) -> u32 {
        parent.unwrap_or(NONE)
    }

    fn row(name: u32, parent: u32, line: u32, end_line: u32, column: u32) -> SymbolRow<'static> {
        SymbolRow {
            name,
            file: 7,
            parent,
            line,
            column,
            end_line,
            end_column: column + 1,
            kind: SymbolKind::Method,
            member: true,
            prefix: Arc::from("a::"),
            signature: Cow::Borrowed(""),
            doc: Cow::Borrowed(""),
        }
    }

    #[test]
    fn records_take_the_bits_their_largest_values_need_and_read_back_as_written() {
        let rows = [
            row(0, NONE, 1, 1, 0),
            row(300_000, 5, 17, 12, 4),
            row(3, 0, 40_000, 40_100, 250),
            row(u32::MAX, NONE - 1, u32::MAX, 0, u32::MAX - 1),
        ];
        for rows in [&rows[..3], &rows[..]] {
            let mut bounds = SymbolBounds::default();
            rows.iter().for_each(|r| bounds.include(r));
            let layout = SymbolLayout::of(bounds);
            assert_eq!(SymbolLayout::read(&layout.head()), Some(layout));
            let mut out = Vec::new();
            for (i, r) in rows.iter().enumerate() {
                layout.encode(r, [i as u32, 9], &mut out).expect("fits");
            }
            assert_eq!(out.len(), rows.len() * layout.record_len());
            for (r, record) in rows.iter().zip(out.chunks(layout.record_len())) {
                assert_eq!(layout.name(record), r.name);
                assert_eq!(layout.file(record), r.file);
                assert_eq!(parent_or_none(layout.parent(record)), r.parent);
                assert_eq!(
                    layout.span(record),
                    [r.line, r.column, r.end_line, r.end_column]
                );
                assert_eq!(layout.kind(record), r.kind);
                assert!(layout.member(record));
                assert_eq!(layout.texts(record)[1], 9);
            }
        }
        // The three small rows: a name of 19 bits, a file of 3, lines of 16...
        let mut bounds = SymbolBounds::default();
        rows[..3].iter().for_each(|r| bounds.include(r));
        let small = SymbolLayout::of(bounds);
        assert!(small.record_len() < 8 + 30, "{small:?}");
        // ... and a row wider than the layout is refused, the output left as it was.
        let mut out = vec![1, 2, 3];
        assert!(small.encode(&rows[3], [0; 2], &mut out).is_err());
        assert_eq!(out, [1, 2, 3]);
    }

    #[test]
    fn a_head_no_writer_makes_is_refused() {
        let layout = SymbolLayout::of(SymbolBounds([7; NUMBERS]));
        let mut head = layout.head();
        assert_eq!(SymbolLayout::read(&head[..LAYOUT_HEAD - 1]), None);
        head[0] += 1;
        assert_eq!(SymbolLayout::read(&head), None);
        let mut wide = layout.head();
        wide[1] = 33;
        assert_eq!(SymbolLayout::read(&wide), None);
        // A short record reads as zeros past its end, not out of bounds.
        assert_eq!(layout.name(&[]), 0);
    }
}
