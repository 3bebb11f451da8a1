//! Many rows' text in one block of memory, for a filter that reads all of them at every
//! keystroke (the archive's 100,000 tasks).
//!
//! Why one block: between two keystrokes (100–200 ms of typing) the memory a process left
//! alone goes cold, and on a virtual machine each page read again costs a page walk through two
//! sets of tables. Measured on this project's 2-core VM, reading one byte of every page of 8 MiB
//! took 0.01 ms back to back, 7 ms after 100 ms idle and 18 ms after 300 ms; with the same 8 MiB
//! on 2 MiB pages, 0.05 ms after 300 ms. A `String` per row spreads 100,000 names over as many
//! allocations; here they lie end to end, in one allocation: as few pages as their size allows,
//! so the fewest walks after a pause (the system allocator's pages are 4 KiB).

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::Arc;

/// The rows' text, end to end, after where each row ends (a `u32` per row), in one block (of
/// words: read as bytes or as `u32`s alike, with no question of alignment).
#[derive(Debug, Default)]
pub struct Texts {
    block: Vec<u32>,
    rows: usize,
}

impl Texts {
    /// The rows' texts, in order.
    pub fn new<'a>(rows: impl Iterator<Item = &'a str> + Clone) -> Texts {
        let (count, total) = rows
            .clone()
            .fold((0usize, 0usize), |(n, len), r| (n + 1, len + r.len()));
        let mut block = vec![0u32; (count * 4 + total).div_ceil(4)];
        let (ends, text) = bytemuck::cast_slice_mut::<u32, u8>(&mut block).split_at_mut(count * 4);
        let mut end = 0usize;
        for (i, row) in rows.enumerate() {
            text[end..end + row.len()].copy_from_slice(row.as_bytes());
            end += row.len();
            // Texts over 4 GiB would not fit in a terminal's filter anyway.
            let stored = u32::try_from(end).unwrap_or(u32::MAX);
            ends[i * 4..i * 4 + 4].copy_from_slice(&stored.to_ne_bytes());
        }
        Texts { block, rows: count }
    }

    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Row `i`'s text ("" past the end).
    pub fn get(&self, i: usize) -> &str {
        // Each row was copied in whole from a `str`, so it is UTF-8.
        std::str::from_utf8(self.bytes(i)).unwrap_or("")
    }

    /// Row `i`'s text as bytes, unchecked: what the filter's ASCII scan reads (the check of
    /// UTF-8 was a fifth of a keystroke's time at 100,000 rows).
    pub fn bytes(&self, i: usize) -> &[u8] {
        if i >= self.rows {
            return &[];
        }
        let (ends, text) = bytemuck::cast_slice::<u32, u8>(&self.block).split_at(self.rows * 4);
        let end_of = |r: usize| {
            let at = &ends[r * 4..r * 4 + 4];
            u32::from_ne_bytes([at[0], at[1], at[2], at[3]]) as usize
        };
        let start = if i == 0 { 0 } else { end_of(i - 1) };
        &text[start..end_of(i)]
    }

    fn rows(&self) -> impl Iterator<Item = &str> {
        (0..self.rows).map(|i| self.get(i))
    }
}

impl PartialEq for Texts {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows && self.rows().eq(other.rows())
    }
}

/// A list's text for the filter: each row's name and the values of its fields, a `Values` per
/// field in the order of the keys the filter is given.
#[derive(Debug, Default, PartialEq)]
pub struct Table {
    pub names: Texts,
    pub fields: Vec<Values>,
    /// The rows in the order the list is first shown, made with the text, off the UI thread
    /// (sorting 100,000 rows there read every row's memory, most of a first opening); empty
    /// when the caller sorts for itself.
    pub order: Vec<u32>,
    /// Which names hold which characters: rules rows out before their text is read.
    pub chars: CharIndex,
}

impl Table {
    /// The table of `names` and `fields`, with the index of the names' characters, and the
    /// fields' value numbers moved into one block (`Values::share`).
    pub fn new(names: Texts, mut fields: Vec<Values>, order: Vec<u32>) -> Table {
        let chars = CharIndex::new(&names);
        Values::share(&mut fields);
        Table {
            names,
            fields,
            order,
            chars,
        }
    }
}

/// For each of the characters typed most in a filter (ASCII letters and digits, `-`, `_`, `.`
/// and the space), the rows whose text holds it, ignoring case: a bit per row, as the filter's
/// row sets. A term's needle can only be found in a row holding each of its characters, so the
/// rows missing one are decided without reading their text. The first letter of a query, or a
/// negated word, asked every name of 100,000 (3 MiB read cold after a pause in typing); the
/// index answers from 12.5 KB per character. A row with a non-ASCII byte is marked as holding
/// every character: the matcher may read `é` as `e`, so nothing is ruled out for it.
#[derive(Debug, Default, PartialEq)]
pub struct CharIndex {
    /// Character `slot`'s row set: words `slot * words ..` of `(slot + 1) * words`.
    bits: Vec<u64>,
    /// The rows whose text is all ASCII: for them a character's bit is exactly whether the
    /// text holds it.
    ascii: Vec<u64>,
    words: usize,
}

/// The characters indexed, each at its slot.
const INDEXED: &[u8; 40] = b"abcdefghijklmnopqrstuvwxyz0123456789-_. ";

/// The slot of each ASCII byte in `INDEXED`, ignoring case; `NONE` for the rest.
const SLOTS: [u8; 128] = {
    let mut slots = [NONE; 128];
    let mut i = 0;
    while i < INDEXED.len() {
        let c = INDEXED[i];
        slots[c as usize] = i as u8;
        slots[c.to_ascii_uppercase() as usize] = i as u8;
        i += 1;
    }
    slots
};
const NONE: u8 = u8::MAX;

impl CharIndex {
    /// The index of `texts`' rows: one pass over their text.
    pub fn new(texts: &Texts) -> CharIndex {
        let words = texts.len().div_ceil(64);
        let mut bits = vec![0u64; INDEXED.len() * words];
        let mut ascii = vec![0u64; words];
        for i in 0..texts.len() {
            let mut held = 0u64;
            ascii[i / 64] |= 1 << (i % 64);
            for &b in texts.bytes(i) {
                match SLOTS.get(usize::from(b)) {
                    Some(&NONE) => {}
                    Some(&slot) => held |= 1 << slot,
                    // Not ASCII: nothing can be ruled out.
                    None => {
                        held = (1 << INDEXED.len()) - 1;
                        ascii[i / 64] &= !(1 << (i % 64));
                        break;
                    }
                }
            }
            while held != 0 {
                let slot = held.trailing_zeros() as usize;
                held &= held - 1;
                bits[slot * words + i / 64] |= 1 << (i % 64);
            }
        }
        CharIndex { bits, ascii, words }
    }

    /// The slot of `c`, when it is indexed (ignoring case).
    pub fn slot(c: char) -> Option<usize> {
        let slot = *SLOTS.get(usize::try_from(u32::from(c)).ok()?)?;
        (slot != NONE).then_some(usize::from(slot))
    }

    /// Word `w` of the rows holding the character of `slot`: every bit set where the index
    /// does not reach (a table made without one), so that nothing is ruled out there.
    pub fn word(&self, slot: usize, w: usize) -> u64 {
        if w >= self.words {
            return u64::MAX;
        }
        self.bits
            .get(slot * self.words + w)
            .copied()
            .unwrap_or(u64::MAX)
    }

    /// Word `w` of the rows whose text is all ASCII (none where the index does not reach).
    pub fn ascii(&self, w: usize) -> u64 {
        self.ascii.get(w).copied().unwrap_or(0)
    }
}

/// A field's value for every row, each distinct value stored once with a number per row: a
/// term on the field is then decided once per value, not once per row (100,000 tasks have two
/// kinds, a few statuses and services, far fewer minutes than tasks).
#[derive(Debug, Default)]
pub struct Values {
    values: Texts,
    ids: Ids,
}

/// A field's value numbers: its own while it is made, then a part of the block all of a
/// table's fields share.
#[derive(Debug)]
enum Ids {
    Own(Vec<u32>),
    Shared {
        all: Arc<Rows>,
        start: usize,
        len: usize,
    },
}

impl Default for Ids {
    fn default() -> Self {
        Ids::Own(Vec::new())
    }
}

impl PartialEq for Values {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values && self.ids() == other.ids()
    }
}

impl Values {
    /// The rows' values, in order.
    pub fn new<'a>(rows: impl Iterator<Item = &'a str>) -> Values {
        let mut seen: HashMap<&str, u32> = HashMap::new();
        let mut values: Vec<&str> = Vec::new();
        let ids: Vec<u32> = rows
            .map(|value| {
                *seen.entry(value).or_insert_with(|| {
                    values.push(value);
                    u32::try_from(values.len() - 1).unwrap_or(u32::MAX)
                })
            })
            .collect();
        Values {
            values: Texts::new(values.iter().copied()),
            ids: Ids::Own(ids),
        }
    }

    /// Moves the value numbers of `fields` into one block. A term on a field reads its numbers
    /// for every row (400 KB per field for 100,000 tasks): on the system allocator's 4 KiB
    /// pages, the first term on a field after a pause in typing took 4–11 ms on this project's
    /// VM, each page a walk through cold page tables. One block for all fields keeps them on as
    /// few pages as their size allows, and reads them in order.
    fn share(fields: &mut [Values]) {
        let total = fields.iter().map(|f| f.ids().len()).sum();
        let mut all = Rows::default();
        all.fill(fields.iter().flat_map(|f| f.ids().iter().copied()), total);
        let all = Arc::new(all);
        let mut start = 0;
        for field in fields {
            let len = field.ids().len();
            field.ids = Ids::Shared {
                all: Arc::clone(&all),
                start,
                len,
            };
            start += len;
        }
    }

    /// Every row's value number.
    fn ids(&self) -> &[u32] {
        match &self.ids {
            Ids::Own(ids) => ids,
            Ids::Shared { all, start, len } => all.get(*start..*start + *len).unwrap_or(&[]),
        }
    }

    /// How many distinct values there are; value numbers are `0..distinct()`.
    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    /// Row `i`'s value number (none past the end).
    pub fn id(&self, i: usize) -> Option<usize> {
        self.ids().get(i).map(|&id| id as usize)
    }

    /// Value number `id` as bytes.
    pub fn value(&self, id: usize) -> &[u8] {
        self.values.bytes(id)
    }

    /// Row `i`'s value as bytes.
    pub fn bytes(&self, i: usize) -> &[u8] {
        self.id(i).map_or(&[], |id| self.value(id))
    }
}

/// Row numbers (a list's order, or which rows match), kept from one keystroke to the next:
/// filled again in place, their memory is neither allocated nor faulted in anew.
#[derive(Debug, Default)]
pub struct Rows {
    words: Vec<u32>,
    len: usize,
}

impl Rows {
    /// Row numbers `0..n`.
    pub fn all(n: usize) -> Rows {
        let mut rows = Rows::default();
        rows.fill(0..u32::try_from(n).unwrap_or(u32::MAX), n);
        rows
    }

    /// Replaces the rows with `rows`, of which there are at most `most`.
    pub fn fill(&mut self, rows: impl IntoIterator<Item = u32>, most: usize) {
        if self.words.len() < most {
            self.words = vec![0; most];
        }
        let mut len = 0;
        for (slot, row) in self.words.iter_mut().zip(rows) {
            *slot = row;
            len += 1;
        }
        self.len = len;
    }

    /// Keeps the rows `keep` says yes to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let len = self.len;
        let words = &mut self.words;
        let mut kept = 0;
        for at in 0..len {
            let row = words[at];
            if keep(row) {
                words[kept] = row;
                kept += 1;
            }
        }
        self.len = kept;
    }
}

impl Deref for Rows {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.words[..self.len]
    }
}

impl PartialEq for Rows {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_reads_back_as_it_went_in() {
        let rows = ["fill-1 COMPLETED cat", "", "vidéo-2 FAILED néon", "x"];
        let texts = Texts::new(rows.iter().copied());
        assert_eq!(texts.len(), 4);
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(texts.get(i), *row, "row {i}");
        }
        assert_eq!(texts.get(4), "");
        let names: Vec<String> = (0..100_000).map(|i| format!("fill-{i} sunset")).collect();
        let many = Texts::new(names.iter().map(String::as_str));
        for i in [0, 1, 9, 10, 99_999] {
            assert_eq!(many.get(i), names[i], "row {i} of 100,000");
        }
        assert_eq!(many.get(100_000), "");
        let none = Texts::new(std::iter::empty());
        assert!(none.is_empty());
        assert_eq!(none.get(0), "");
    }

    #[test]
    fn rows_are_filled_again_in_place_and_kept_in_order() {
        let mut rows = Rows::all(5);
        assert_eq!(&*rows, &[0, 1, 2, 3, 4]);
        rows.retain(|r| r % 2 == 0);
        assert_eq!(&*rows, &[0, 2, 4]);
        rows.fill([7, 3], 2);
        assert_eq!(&*rows, &[7, 3]);
        let mut big = Rows::all(300_000);
        assert_eq!((big.len(), big[299_999]), (300_000, 299_999));
        let memory = big.words.as_ptr();
        big.fill((0..10).rev(), 300_000);
        assert_eq!(&*big, &[9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(big.words.as_ptr(), memory, "filled again in place");
        big.fill(0..400_000, 400_000);
        assert_eq!((big.len(), big[399_999]), (400_000, 399_999));
    }

    #[test]
    fn a_column_keeps_each_value_once_and_every_row_reads_its_own() {
        let rows = ["image", "video", "image", "", "video", "image"];
        let column = Values::new(rows.iter().copied());
        assert_eq!(column.distinct(), 3);
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(column.bytes(i), row.as_bytes(), "row {i}");
        }
        assert_eq!(column.id(0), column.id(2));
        assert_ne!(column.id(0), column.id(1));
        assert_eq!((column.id(6), column.bytes(6)), (None, &[][..]));
    }

    #[test]
    fn the_char_index_holds_each_rows_characters_ignoring_case() {
        let rows = ["Cat-1", "dog_2", "vidéo", "", "a.b c"];
        let index = CharIndex::new(&Texts::new(rows.iter().copied()));
        let rows_with = |c: char| {
            let slot = CharIndex::slot(c).expect("indexed");
            index.word(slot, 0) & 0b1_1111
        };
        assert_eq!(rows_with('c'), 0b10101, "C, the accented row, and c");
        assert_eq!(rows_with('C'), rows_with('c'));
        assert_eq!(rows_with('1'), 0b00101);
        assert_eq!(rows_with('_'), 0b00110);
        assert_eq!(rows_with('.'), 0b10100);
        assert_eq!(rows_with(' '), 0b10100);
        assert_eq!(rows_with('z'), 0b00100, "only the row it cannot rule out");
        assert_eq!((CharIndex::slot('#'), CharIndex::slot('é')), (None, None));
        assert_eq!(
            index.word(0, 1),
            u64::MAX,
            "past the rows: nothing ruled out"
        );
        assert_eq!(index.ascii(0), 0b11011, "all but the accented row");
        assert_eq!(index.ascii(1), 0, "past the rows: none known");
        let big = CharIndex::new(&Texts::new(
            (0..130).map(|i| if i == 129 { "q" } else { "x" }),
        ));
        let q = CharIndex::slot('q').expect("indexed");
        assert_eq!(
            (big.word(q, 0), big.word(q, 1), big.word(q, 2)),
            (0, 0, 0b10)
        );
    }

    #[test]
    fn a_tables_fields_share_one_block_and_read_as_before() {
        let kinds = ["image", "video", "image"];
        let states = ["COMPLETED", "FAILED", "FAILED"];
        let alone = [
            Values::new(kinds.iter().copied()),
            Values::new(states.iter().copied()),
        ];
        let table = Table::new(
            Texts::new(["a", "b", "c"].into_iter()),
            vec![
                Values::new(kinds.iter().copied()),
                Values::new(states.iter().copied()),
            ],
            Vec::new(),
        );
        assert_eq!(table.fields, alone);
        for (field, rows) in table.fields.iter().zip([kinds, states]) {
            assert!(matches!(field.ids, Ids::Shared { .. }));
            for (i, row) in rows.iter().enumerate() {
                assert_eq!(field.bytes(i), row.as_bytes(), "row {i}");
            }
            assert_eq!(field.id(3), None, "past the end");
        }
        let big = Table::new(
            Texts::new(std::iter::repeat_n("x", 100_000)),
            (0..8)
                .map(|f| Values::new((0..100_000).map(|i| ["a", "b", "c"][(i + f) % 3])))
                .collect(),
            Vec::new(),
        );
        let Ids::Shared { all, start, .. } = &big.fields[7].ids else {
            panic!("not shared");
        };
        assert_eq!((all.len(), *start), (800_000, 700_000), "one block for all");
        assert_eq!(big.fields[7].bytes(99_999), b"b");
    }
}
