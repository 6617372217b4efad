//! A chunk's analysis beyond its segmentation, for the one call that analyses a chunk text
//! (`ChunkAnalyser.analyse` in `py_chunk.rs`): the ASCII separation of `terms.ascii_separated`, the
//! fragment flags of `analysis._fragments`, the line breaks of `CountsIndex.breaks`, and each unit's
//! terms as ids local to the chunk with their document frequencies over its units. The Python code
//! named is the reference; offsets are code points (`char`s), as Python's.
#![forbid(unsafe_code)]

/// Each ASCII character's byte in `separate`'s output: a letter or digit lower-cased, the rest a space
/// (one load a character instead of the range tests, about 1% of a never-seen query's instructions).
const ASCII_SEPARATED: [u8; 128] = {
    let mut table = [b' '; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        if b.is_ascii_alphanumeric() {
            table[i] = b.to_ascii_lowercase();
        }
        i += 1;
    }
    table
};

/// `ascii_separated(text.lower())` as one byte per character: an ASCII letter or digit lower-cased,
/// every other character a space. `separator(c)` says whether a non-ASCII character becomes a space
/// there (lower-cased it is one character, neither a word character nor CJK); None as soon as one does
/// not (the chunk has a word Python analyses: accents, CJK, a letter lower-casing to ASCII).
pub fn separate<E>(
    text: &[char],
    mut separator: impl FnMut(char) -> Result<bool, E>,
) -> Result<Option<Vec<u8>>, E> {
    let mut out = Vec::with_capacity(text.len());
    for &c in text {
        if c.is_ascii() {
            out.push(ASCII_SEPARATED[c as usize]);
        } else if separator(c)? {
            out.push(b' ');
        } else {
            return Ok(None);
        }
    }
    Ok(Some(out))
}

/// `separate` of a text read byte by byte (a claim, whose non-ASCII text Python analyses): an ASCII
/// letter or digit lower-cased, every other byte a space, so the result is ASCII.
pub fn separate_bytes(text: &str) -> String {
    let bytes = text
        .bytes()
        .map(|b| ASCII_SEPARATED.get(usize::from(b)).copied().unwrap_or(b' '))
        .collect();
    String::from_utf8(bytes).unwrap_or_default()
}

/// The words of a piece of `separate`'s output (only letters, digits and spaces are left there): the
/// runs between spaces (`ascii_words` without the other white space to look for). A byte loop: the words
/// are short, and `split(' ')` looked for each space with the slice `memchr`, whose set-up cost more
/// than the few bytes it scanned (about 2% of a never-seen query's instructions).
pub fn separated_words(piece: &str) -> impl Iterator<Item = &str> {
    let bytes = piece.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && bytes[at] == b' ' {
            at += 1;
        }
        let start = at;
        while at < bytes.len() && bytes[at] != b' ' {
            at += 1;
        }
        // cut at an ASCII space or an end: always a character boundary, so `get` never gives None
        // for a word (None past the last one)
        (start < at).then(|| piece.get(start..at)).flatten()
    })
}

/// `_fragments`: whether each unit is a fragment rather than a sentence: its text, the `closers`
/// stripped from its end, does not end with one of `ends` (an empty unit is a fragment).
pub fn fragments(
    text: &[char],
    spans: &[(usize, usize)],
    ends: &[char],
    closers: &[char],
) -> Vec<bool> {
    spans
        .iter()
        .map(|&(a, b)| {
            let mut end = b;
            while end > a && closers.contains(&text[end - 1]) {
                end -= 1;
            }
            end == a || !ends.contains(&text[end - 1])
        })
        .collect()
}

/// `CountsIndex.breaks`: whether a line break lies between each unit and the next.
pub fn breaks(text: &[char], spans: &[(usize, usize)]) -> Vec<bool> {
    spans
        .windows(2)
        .map(|w| {
            let (from, to) = (w[0].1, w[1].0);
            from < to && text[from..to].contains(&'\n')
        })
        .collect()
}

/// What `terms._TOKEN` makes of a lower-cased character: part of a CJK run (`[CJK]+`), of a word
/// (`[^\W_CJK]+`), or neither.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Class {
    Cjk,
    Word,
    Other,
}

/// The terms `terms._analyze` reads off a lower-cased unit, in order: each word (to be mapped to its
/// term by the word table; `false`) and, of each CJK run, its characters outside `cjk_stop` then its
/// character bigrams (terms as they are; `true`).
pub fn tokens(
    lowered: &[char],
    class: impl Fn(char) -> Class,
    cjk_stop: &[char],
) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < lowered.len() {
        let kind = class(lowered[at]);
        let end = at
            + lowered[at..]
                .iter()
                .take_while(|&&c| class(c) == kind)
                .count();
        let run = &lowered[at..end];
        match kind {
            Class::Word => out.push((run.iter().collect(), false)),
            Class::Cjk => {
                out.extend(
                    run.iter()
                        .filter(|c| !cjk_stop.contains(c))
                        .map(|c| (c.to_string(), true)),
                );
                out.extend(run.windows(2).map(|w| (w.iter().collect(), true)));
            }
            Class::Other => {}
        }
        at = end;
    }
    out
}

/// Table id -> local id of the chunk being analysed, as a dense array reused from chunk to chunk (the
/// table's ids are dense): a slot holds its local id when it carries the current stamp.
#[derive(Default)]
pub struct Scratch {
    stamp: u32,
    slots: Vec<(u32, u32)>,
}

impl Scratch {
    /// Starts a chunk: every slot forgotten.
    pub fn begin(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0));
            self.stamp = 1;
        }
    }

    /// The local id of `global`, or `next` (then its local id from now on) and true.
    fn local(&mut self, global: u32, next: u32) -> (u32, bool) {
        let at = global as usize;
        if at >= self.slots.len() {
            let size = (at + 1).max(self.slots.len() * 2);
            self.slots.resize(size, (0, 0));
        }
        let slot = &mut self.slots[at];
        if slot.0 == self.stamp {
            (slot.1, false)
        } else {
            *slot = (self.stamp, next);
            (next, true)
        }
    }
}

/// Each unit's terms as ids local to the chunk (0, 1, ... in order of first occurrence), from terms
/// given as ids of a larger table (the word table's): `push` each term of a unit, then `end_unit`.
#[derive(Default)]
pub struct LocalTerms {
    /// the table's id of each local id
    pub globals: Vec<u32>,
    /// every unit's local ids one after another; unit i is `seq[starts[i]..starts[i + 1]]`
    pub seq: Vec<u32>,
    pub starts: Vec<u32>,
    /// per local id: how many units holding it (their document frequency within the chunk)
    pub unit_df: Vec<u32>,
    /// per local id: 1 + the last unit that held it (0: none yet)
    last: Vec<u32>,
}

impl LocalTerms {
    pub fn new() -> Self {
        LocalTerms {
            starts: vec![0],
            ..Default::default()
        }
    }

    /// Room for `units` units of `terms` terms in all, `distinct` of them distinct (estimates: the
    /// vectors grow past them), so that a chunk's analysis does not grow five vectors from empty by
    /// doubling.
    pub fn with_capacity(units: usize, terms: usize, distinct: usize) -> Self {
        let mut starts = Vec::with_capacity(units + 1);
        starts.push(0);
        LocalTerms {
            globals: Vec::with_capacity(distinct),
            seq: Vec::with_capacity(terms),
            starts,
            unit_df: Vec::with_capacity(distinct),
            last: Vec::with_capacity(distinct),
        }
    }

    /// The next term of the current unit, by its table id (`scratch`: begun for this chunk); its local
    /// id, and whether it is new.
    pub fn push(&mut self, scratch: &mut Scratch, global: u32) -> (u32, bool) {
        let (id, new) = scratch.local(global, self.globals.len() as u32);
        if new {
            self.globals.push(global);
            self.unit_df.push(0);
            self.last.push(0);
        }
        let unit = self.starts.len() as u32; // 1 + the current unit
        if self.last[id as usize] != unit {
            self.last[id as usize] = unit;
            self.unit_df[id as usize] += 1;
        }
        self.seq.push(id);
        (id, new)
    }

    /// Closes the current unit.
    pub fn end_unit(&mut self) {
        self.starts.push(self.seq.len() as u32);
    }

    /// The number of units closed.
    pub fn units(&self) -> usize {
        self.starts.len() - 1
    }

    /// The local ids of unit `i`, in order.
    pub fn unit(&self, i: usize) -> &[u32] {
        &self.seq[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Each distinct local id of unit `i` with its count there, in order of first occurrence.
    pub fn counts(&self, i: usize) -> Vec<(u32, u32)> {
        let mut order: Vec<(u32, u32)> = Vec::new();
        for &id in self.unit(i) {
            // a unit has few distinct terms: a scan beats a map
            match order.iter_mut().find(|entry| entry.0 == id) {
                Some(entry) => entry.1 += 1,
                None => order.push((id, 1)),
            }
        }
        order
    }

    /// Drops what only pushing reads.
    pub fn finish(&mut self) {
        self.last = Vec::new();
    }
}

#[cfg(test)]
mod tests;
