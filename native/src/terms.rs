//! Term analysis: the Rust port of the ASCII path of `cite_core/_sources/terms.py` (which stays the
//! reference): a unit's words (runs of ASCII letters and digits, the text already lower-cased and cut
//! by Python's `ascii_separated`), each mapped to its term: nothing for a stop word, else its stem by
//! the light suffix stripping of `SUFFIXES`. The stop words and suffixes come from Python (one source
//! of truth: `stopwords.py`).
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

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
        if self.stop.contains(word) {
            None
        } else {
            Some(self.stem(word))
        }
    }

    /// `_stem_word`: the first suffix (in `SUFFIXES` order) the word ends with that leaves three
    /// characters (`ies`/`ied` become `y`), else a final one-letter suffix, else the word.
    pub fn stem(&self, word: &str) -> String {
        if word.is_ascii() {
            return self.stem_ascii(word);
        }
        let w: Vec<char> = word.chars().collect();
        let n = w.len();
        if n <= 3 {
            return word.to_owned();
        }
        for suffix in &self.multi {
            if w.ends_with(suffix) && n - suffix.len() >= 3 {
                let mut stem: String = w[..n - suffix.len()].iter().collect();
                if y_stem(suffix) {
                    stem.push('y');
                }
                return stem;
            }
        }
        if self.one.contains(&w[n - 1]) {
            return w[..n - 1].iter().collect();
        }
        word.to_owned()
    }

    /// `stem` of an ASCII word, on its bytes (one per character).
    fn stem_ascii(&self, word: &str) -> String {
        let w = word.as_bytes();
        let n = w.len();
        if n <= 3 {
            return word.to_owned();
        }
        let end = [w[n - 2], w[n - 1]];
        let group = self.multi_ascii.iter().find(|group| group.0 == end);
        for (suffix, y) in group.map_or(&[][..], |group| &group.1[..]) {
            if w.ends_with(suffix) && n - suffix.len() >= 3 {
                let mut stem = String::with_capacity(n - suffix.len() + 1);
                stem.push_str(&word[..n - suffix.len()]);
                if *y {
                    stem.push('y');
                }
                return stem;
            }
        }
        if self.one.contains(&char::from(w[n - 1])) {
            return word[..n - 1].to_owned();
        }
        word.to_owned()
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
        assert_eq!(
            ascii_words("  a b\x1cc\td ").collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
    }
}
