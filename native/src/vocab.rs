//! The distinct terms of one source's `Index` (scorer.rs), by id: their text one after another in one
//! string, found through an open-addressed table of ids. A map of boxed strings cost an allocation and
//! a free per term: a 4 KB chunk has about 300 distinct terms, and its index is built on the source's
//! first citation and dropped with the chunk (about a third of the index's instructions).
#![forbid(unsafe_code)]

use std::hash::Hasher;

use crate::scorer::Fnv;

/// Terms by id, each id the number of terms interned before it.
#[derive(Default)]
pub struct Vocab {
    text: String,
    /// term `i` is `text[ends[i - 1]..ends[i]]` (from 0 for the first)
    ends: Vec<usize>,
    /// a term's id + 1 at its hash's slot or the next free one after (0: free); a power of two long,
    /// at least twice the number of terms
    slots: Vec<u32>,
    /// the hash's bits that pick a slot: the top `64 - shift`
    shift: u32,
}

impl Vocab {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn term(&self, id: usize) -> &str {
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text[start..self.ends[id]]
    }

    /// Room for this many more terms without growing the table.
    pub fn reserve(&mut self, more: usize) {
        let need = (self.len() + more).saturating_mul(2);
        if need > self.slots.len() {
            self.grow(need);
        }
        self.text.reserve(more.saturating_mul(8)); // a term is 5 to 8 bytes, most of them
    }

    fn grow(&mut self, need: usize) {
        let size = need.max(16).next_power_of_two();
        self.shift = 64 - size.trailing_zeros();
        self.slots = vec![0; size];
        for id in 0..self.len() {
            let (at, _) = self.probe(self.term(id));
            self.slots[at] = id as u32 + 1;
        }
    }

    /// The slot of `term` and its id, or the free slot where it would go.
    fn probe(&self, term: &str) -> (usize, Option<u32>) {
        let mut hash = Fnv::default();
        hash.write(term.as_bytes());
        // FNV's low bits depend on the bytes' low bits only: the slot is taken from the top of a
        // multiplied hash instead
        let mask = self.slots.len() - 1;
        let mut at =
            (hash.finish().wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize & mask;
        loop {
            match self.slots[at] {
                0 => return (at, None),
                slot if self.term(slot as usize - 1) == term => return (at, Some(slot - 1)),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// The id of `term`, when interned.
    pub fn get(&self, term: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        self.probe(term).1
    }

    /// The id of `term`, interned if new.
    pub fn intern(&mut self, term: &str) -> u32 {
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow((self.len() + 1) * 2);
        }
        let (at, found) = self.probe(term);
        if let Some(id) = found {
            return id;
        }
        let id = self.len() as u32;
        self.text.push_str(term);
        self.ends.push(self.text.len());
        self.slots[at] = id + 1;
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn ids_are_those_of_a_map_interning_in_the_same_order() {
        let mut vocab = Vocab::default();
        let mut map: HashMap<String, u32> = HashMap::new();
        assert_eq!(vocab.get("a"), None);
        let words: Vec<String> = (0..5000u32)
            .map(|i| match i % 4 {
                0 => format!("w{}", i % 1300),
                1 => "x".repeat((i % 37) as usize),
                2 => format!("{}é中", i % 700),
                _ => String::new(),
            })
            .collect();
        for (i, w) in words.iter().enumerate() {
            if i == 2000 {
                vocab.reserve(3000);
            }
            let next = map.len() as u32;
            let want = *map.entry(w.clone()).or_insert(next);
            assert_eq!(vocab.intern(w), want);
            assert_eq!(vocab.len(), map.len());
        }
        for (w, &id) in &map {
            assert_eq!(vocab.get(w), Some(id));
            assert_eq!(vocab.term(id as usize), w);
        }
        assert_eq!(vocab.get("absent"), None);
        assert!(vocab.slots.len() >= 2 * vocab.len() && vocab.slots.len().is_power_of_two());
    }
}
