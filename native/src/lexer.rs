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

#[cfg(test)]
mod tests {
    use super::Stops;

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
}
