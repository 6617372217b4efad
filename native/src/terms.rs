//! Term analysis: the Rust port of the ASCII path of `cite_core/_sources/terms.py` (which stays the
//! reference): a unit's words (runs of ASCII letters and digits, the text already lower-cased and cut
//! by Python's `ascii_separated`), each mapped to its term: nothing for a stop word, else its stem by
//! the light suffix stripping of `SUFFIXES`. The stop words and suffixes come from Python (one source
//! of truth: `stopwords.py`).
#![forbid(unsafe_code)]

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use crate::scorer::Fnv;

/// ASCII suffixes that end with the same two bytes: (those bytes, each suffix and whether its stem
/// takes a `y`).
type SuffixGroup = ([u8; 2], Vec<(Vec<u8>, bool)>);

/// The stop words and the suffix stripping of `_stem_word`.
pub struct Stemmer {
    stop: HashSet<String, BuildHasherDefault<Fnv>>,
    /// suffixes of two or more characters, in `SUFFIXES` order, as `char`s
    multi: Vec<Vec<char>>,
    /// the ASCII ones among them as bytes, with whether the stem takes a `y` (`ies`, `ied`), grouped
    /// by their last two bytes (in `SUFFIXES` order within a group, as `_SUFFIXES_BY_END`): an ASCII
    /// word ends with no other, and only the group of its own last two bytes can match it, so a word
    /// that ends with none (most) is decided by a few two-byte comparisons
    multi_ascii: Vec<SuffixGroup>,
    one: Vec<char>,
}

impl Stemmer {
    pub fn new<S: AsRef<str>>(stop: &[S], suffixes: &[S]) -> Self {
        let mut multi = Vec::new();
        let mut one = Vec::new();
        for s in suffixes {
            let chars: Vec<char> = s.as_ref().chars().collect();
            match chars.len() {
                0 => {}
                1 => one.push(chars[0]),
                _ => multi.push(chars),
            }
        }
        let mut multi_ascii: Vec<SuffixGroup> = Vec::new();
        for s in multi.iter().filter(|s| s.iter().all(char::is_ascii)) {
            let bytes: Vec<u8> = s.iter().map(|&c| c as u8).collect();
            let end = [bytes[bytes.len() - 2], bytes[bytes.len() - 1]];
            let entry = (bytes, y_stem(s));
            match multi_ascii.iter_mut().find(|group| group.0 == end) {
                Some(group) => group.1.push(entry),
                None => multi_ascii.push((end, vec![entry])),
            }
        }
        Stemmer {
            stop: stop.iter().map(|s| s.as_ref().to_owned()).collect(),
            multi,
            multi_ascii,
            one,
        }
    }

    /// The term of a lower-cased word: None for a stop word.
    pub fn term(&self, word: &str) -> Option<String> {
        let mut term = String::new();
        self.term_in(word, &mut term).then_some(term)
    }

    /// `term` written into `out` (emptied first), which a caller reuses from word to word (no
    /// allocation per word); false for a stop word.
    pub fn term_in(&self, word: &str, out: &mut String) -> bool {
        out.clear();
        if self.stop.contains(word) {
            return false;
        }
        self.stem_in(word, out);
        true
    }

    /// `_stem_word`: the first suffix (in `SUFFIXES` order) the word ends with that leaves three
    /// characters (`ies`/`ied` become `y`), else a final one-letter suffix, else the word.
    pub fn stem(&self, word: &str) -> String {
        let mut stem = String::new();
        self.stem_in(word, &mut stem);
        stem
    }

    /// `stem` appended to `out`.
    fn stem_in(&self, word: &str, out: &mut String) {
        if word.is_ascii() {
            return self.stem_ascii(word, out);
        }
        let w: Vec<char> = word.chars().collect();
        let n = w.len();
        if n <= 3 {
            return out.push_str(word);
        }
        for suffix in &self.multi {
            if w.ends_with(suffix) && n - suffix.len() >= 3 {
                out.extend(&w[..n - suffix.len()]);
                if y_stem(suffix) {
                    out.push('y');
                }
                return;
            }
        }
        if self.one.contains(&w[n - 1]) {
            return out.extend(&w[..n - 1]);
        }
        out.push_str(word);
    }

    /// `stem_in` of an ASCII word, on its bytes (one per character).
    fn stem_ascii(&self, word: &str, out: &mut String) {
        let w = word.as_bytes();
        let n = w.len();
        if n <= 3 {
            return out.push_str(word);
        }
        let end = [w[n - 2], w[n - 1]];
        let group = self.multi_ascii.iter().find(|group| group.0 == end);
        for (suffix, y) in group.map_or(&[][..], |group| &group.1[..]) {
            if w.ends_with(suffix) && n - suffix.len() >= 3 {
                out.push_str(&word[..n - suffix.len()]);
                if *y {
                    out.push('y');
                }
                return;
            }
        }
        if self.one.contains(&char::from(w[n - 1])) {
            return out.push_str(&word[..n - 1]);
        }
        out.push_str(word);
    }
}

/// The word table's maps (python.rs's `Words`): keyed by `SmallStr`, hashed by `WordHash`.
pub type WordMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHash>>;

/// The hasher of `WordMap`: eight bytes a step with FxHash's rotate, xor and multiply, where FNV (the
/// other maps') multiplies once a byte, and once a byte of the length a slice's hash writes first: a
/// word of seven letters took fifteen steps, about a twentieth of a corpus's analysis. `finish` turns
/// the well-mixed high bits into the low ones the map's buckets are chosen by (as rustc-hash 2 does).
/// Not proof against flooding, as FNV was not: the table is bounded by `max_words` and starts over.
#[derive(Default)]
pub struct WordHash(u64);

const WORD_SEED: u64 = 0xf135_7aea_2e62_a9c5;

impl WordHash {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(WORD_SEED);
    }
}

impl Hasher for WordHash {
    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // zeros after the last bytes: the length, written first, tells "a" from "a\0"
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// The longest string `SmallStr` keeps in place.
const INLINE: usize = 22;

/// A string kept in place when short (most words and terms), else on the heap: the word table's keys,
/// which a stream that starts with `clear_caches` makes anew for every word of its sources, and a
/// `Box<str>` or `String` each cost an allocation and a free (about a tenth of a corpus's analysis).
/// Hashed, compared and looked up as its bytes (`map.get(word.as_bytes())`): as a `str` it would be
/// checked as UTF-8 at every lookup (`Borrow<str>` has no other safe way), a tenth of the analysis again.
#[derive(Clone)]
pub enum SmallStr {
    Inline(u8, [u8; INLINE]),
    Heap(Box<str>),
}

impl SmallStr {
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            SmallStr::Inline(len, bytes) => &bytes[..usize::from(*len)],
            SmallStr::Heap(s) => s.as_bytes(),
        }
    }
}

impl From<&str> for SmallStr {
    fn from(s: &str) -> Self {
        match u8::try_from(s.len()) {
            Ok(len) if s.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..s.len()].copy_from_slice(s.as_bytes());
                SmallStr::Inline(len, bytes)
            }
            _ => SmallStr::Heap(s.into()),
        }
    }
}

impl Borrow<[u8]> for SmallStr {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Hash for SmallStr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl PartialEq for SmallStr {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for SmallStr {}

impl std::fmt::Debug for SmallStr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        String::from_utf8_lossy(self.as_bytes()).fmt(f)
    }
}

/// Whether stripping this suffix leaves a `y` in its place (`ies`, `ied`).
fn y_stem(suffix: &[char]) -> bool {
    suffix == ['i', 'e', 's'] || suffix == ['i', 'e', 'd']
}

/// `str.split()` of ASCII text: runs between Python's ASCII white space (which counts U+001C..U+001F).
pub fn ascii_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' '))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_as_the_python_stemmer() {
        let stop = ["the", "a"];
        let suffixes = [
            "ational", "ation", "ies", "ied", "ing", "ed", "es", "ly", "s",
        ];
        let s = Stemmer::new(&stop, &suffixes);
        assert_eq!(s.term("the"), None);
        let spanish = Stemmer::new(&stop, &["ciones", "ción", "s"]);
        for (word, stem) in [
            ("organizaciones", "organiza"),
            ("organización", "organiza"),
            ("nación", "nación"),
            ("naciones", "nacione"),
            ("cats", "cat"),
        ] {
            assert_eq!(spanish.stem(word), stem, "{word}");
        }
        for (word, stem) in [
            ("relational", "rel"),
            ("parties", "party"),
            ("carried", "carry"),
            ("running", "runn"),
            ("uses", "use"),
            ("cats", "cat"),
            ("bus", "bus"),
            ("ring", "ring"),
            ("quickly", "quick"),
        ] {
            assert_eq!(s.stem(word), stem, "{word}");
        }
        let mut buf = String::from("left over");
        assert!(!s.term_in("the", &mut buf) && buf.is_empty());
        assert!(s.term_in("parties", &mut buf) && buf == "party");
        assert_eq!(
            ascii_words("  a b\x1cc\td ").collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
    }

    #[test]
    fn small_strings_are_their_str() {
        use std::collections::HashMap;
        let long = "x".repeat(INLINE + 1);
        for text in ["", "a", "caf\u{e9}", &"y".repeat(INLINE), &long] {
            let small = SmallStr::from(text);
            assert_eq!(small.as_bytes(), text.as_bytes());
            assert_eq!(matches!(small, SmallStr::Inline(..)), text.len() <= INLINE);
            let mut map: HashMap<SmallStr, usize> = HashMap::new();
            map.insert(small.clone(), text.len());
            assert_eq!(map.get(text.as_bytes()), Some(&text.len()));
            assert_eq!(small, SmallStr::from(text.to_owned().as_str()));
        }
        assert_ne!(SmallStr::from("ab"), SmallStr::from("abc"));
        let mut words: WordMap<SmallStr, usize> = WordMap::default();
        let many: Vec<String> = (0..2000)
            .map(|i| format!("w{i}x{}", "y".repeat(i % 19)))
            .collect();
        for (i, w) in many.iter().enumerate() {
            words.insert(w.as_str().into(), i);
        }
        for (i, w) in many.iter().enumerate() {
            assert_eq!(words.get(w.as_bytes()), Some(&i));
        }
        assert_eq!(words.get(&b"w1x"[..]), None);
    }
}
