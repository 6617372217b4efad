//! The plain-text scan of the stream lexer's fast path (`cite_core/_stream/plain_path.py`).
//!
//! `Stops::plain_len(text)` is the length, in code points (Python `str` indices), of the plain text
//! `text` starts with: up to its first stop character. The stop characters are given by the caller
//! (the Python side passes the openers of its one marker table, a backtick and a newline), so this
//! crate holds no copy of the table. The Python reference is `PythonPlainPath`: one regular-expression
//! search for a character class of the stops.
#![forbid(unsafe_code)]

/// A set of stop characters: a bitmap for ASCII, a short sorted list for the rest.
#[derive(Clone, Debug)]
pub struct Stops {
    ascii: [bool; 128],
    other: Vec<char>,
}

impl Stops {
    /// The stop set of every character of `stops` (repeats allowed).
    pub fn new(stops: &str) -> Self {
        let mut ascii = [false; 128];
        let mut other = Vec::new();
        for c in stops.chars() {
            if c.is_ascii() {
                ascii[c as usize] = true;
            } else {
                other.push(c);
            }
        }
        other.sort_unstable();
        other.dedup();
        Stops { ascii, other }
    }

    /// Whether `c` is a stop character.
    pub fn contains(&self, c: char) -> bool {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.binary_search(&c).is_ok()
        }
    }

    /// The number of code points of `text` before its first stop character (`text`'s length in code
    /// points when it has none).
    pub fn plain_len(&self, text: &str) -> usize {
        let bytes = text.as_bytes();
        // ASCII bytes are whole characters, and the bytes of a non-ASCII character are all >= 0x80:
        // the first ASCII stop, or the first non-ASCII byte, is found byte by byte
        let ascii_run = bytes
            .iter()
            .position(|&b| b >= 0x80 || self.ascii[b as usize])
            .unwrap_or(bytes.len());
        if ascii_run == bytes.len() || bytes[ascii_run] < 0x80 {
            return ascii_run;
        }
        let mut count = ascii_run;
        for c in text[ascii_run..].chars() {
            if self.contains(c) {
                return count;
            }
            count += 1;
        }
        count
    }
}

/// What the stream's steady path does with a chunk (`cite_core/_stream/plain_path.py`, `SteadyPath`):
/// a chunk of plain text while nothing is pending, `held` spaces held before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steady {
    /// Not taken: a stop character, an empty chunk, or a run of spaces longer than `max_ws`.
    Refuse,
    /// Spaces alone: held with the spaces held before them.
    Hold,
    /// The text `chunk[..body]` (bytes) after the spaces held; the spaces from `body` on are held.
    Text { body: usize },
}

impl Stops {
    /// Whether `text` holds no stop character.
    pub fn is_plain(&self, text: &str) -> bool {
        if text.is_ascii() {
            return !text.bytes().any(|b| self.ascii[b as usize]);
        }
        !text.chars().any(|c| self.contains(c))
    }

    /// The steady path's decision for `chunk`, `held` spaces (ASCII) held before it: what
    /// `LexerState.plain` does with a plain chunk when nothing is buffered, in text, spaces held
    /// only at the end of the text so far, at most `max_ws`.
    pub fn steady(&self, chunk: &str, held: usize, max_ws: usize) -> Steady {
        if chunk.is_empty() || !self.is_plain(chunk) {
            return Steady::Refuse;
        }
        let body = chunk.trim_end_matches([' ', '\t']).len();
        let trailing = chunk.len() - body; // spaces and tabs: bytes are characters
        if body == 0 {
            if held + trailing > max_ws {
                return Steady::Refuse;
            }
            return Steady::Hold;
        }
        if trailing > max_ws {
            return Steady::Refuse;
        }
        Steady::Text { body }
    }
}

#[cfg(test)]
mod tests {
    use super::{Steady, Stops};

    fn reference(stops: &str, text: &str) -> usize {
        text.chars()
            .position(|c| stops.contains(c))
            .unwrap_or_else(|| text.chars().count())
    }

    #[test]
    fn plain_len_is_the_index_of_the_first_stop_in_code_points() {
        let stops = Stops::new("[【［〔(<`\n");
        for text in [
            "",
            "plain text",
            "a [1]",
            "[",
            "中文。【1】",
            "emoji 🙂 then (x)",
            "é`",
            "no stops here: 中文 🙂",
            "\n",
            "tab\tand ］",
        ] {
            assert_eq!(
                stops.plain_len(text),
                reference("[【［〔(<`\n", text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn closers_and_other_brackets_are_plain() {
        let stops = Stops::new("[【［〔(<`\n");
        assert_eq!(stops.plain_len("]】］〕)>{}"), 8);
    }

    #[test]
    fn steady_takes_plain_chunks_and_holds_their_trailing_spaces() {
        let stops = Stops::new("[【［〔(<`\n");
        assert_eq!(stops.steady("", 0, 64), Steady::Refuse);
        assert_eq!(stops.steady("a [1]", 0, 64), Steady::Refuse);
        assert_eq!(stops.steady("中文【", 0, 64), Steady::Refuse);
        assert_eq!(stops.steady("plain", 0, 64), Steady::Text { body: 5 });
        assert_eq!(stops.steady("中文 \t", 3, 64), Steady::Text { body: 6 });
        assert_eq!(stops.steady("   ", 61, 64), Steady::Hold);
        assert_eq!(stops.steady("   ", 62, 64), Steady::Refuse);
        let long = format!("a{}", " ".repeat(65));
        assert_eq!(stops.steady(&long, 0, 64), Steady::Refuse);
        assert_eq!(stops.steady(&long[..65], 0, 64), Steady::Text { body: 1 });
    }

    /// The fuzz target's property of `steady` (native/fuzz/fuzz_targets/lexer.rs) over every text of up
    /// to four pieces of an alphabet of stops, spaces, tabs, letters and wide characters.
    #[test]
    fn steady_takes_exactly_the_plain_texts_on_every_short_text() {
        let stops = Stops::new("[【［〔(<`\n");
        let pieces = ["", "a", " ", "\t", "[", "\n", "中", "【", "é", "   ", "🙂"];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer);
            texts.sort();
            texts.dedup();
        }
        for text in &texts {
            for (held, max_ws) in [(0, 64), (3, 4), (0, 2), (2, 2)] {
                let plain = !text.chars().any(|c| "[【［〔(<`\n".contains(c));
                let body = text.trim_end_matches([' ', '\t']).len();
                let trailing = text.len() - body;
                let expected = if text.is_empty() || !plain {
                    Steady::Refuse
                } else if body == 0 {
                    if held + trailing > max_ws {
                        Steady::Refuse
                    } else {
                        Steady::Hold
                    }
                } else if trailing > max_ws {
                    Steady::Refuse
                } else {
                    Steady::Text { body }
                };
                assert_eq!(
                    stops.steady(text, held, max_ws),
                    expected,
                    "{text:?} {held}"
                );
            }
        }
    }
}
