//! Sentence segmentation: the Rust port of `cite_core/_sources/segment.py`, which stays the reference.
//!
//! Each function mirrors the Python function of the same name and each regular expression there is
//! replaced by the scan it amounts to (the comments give the pattern), including what backtracking
//! would find. Offsets are indices into a slice of `char`s: Python's `str` indices (code points).
#![forbid(unsafe_code)]

use crate::chars::Classes;

mod lines;

const LATIN_TERM: &[char] = &['.', '!', '?', '…'];
const CJK_TERM: &[char] = &['。', '！', '？'];
/// `_CLOSE` inside a character class (`[...\]...]`): the backslash there escapes `]`.
const CLOSE_CLASS: &[char] = &[
    '"', '\'', '”', '’', '»', '」', '』', '）', ')', ']', '}', '》', '〉', '】',
];
/// `_OPENERS`, what `lstrip` removes from a token.
const OPENERS: &[char] = &['"', '\'', '“', '‘', '«', '(', '[', '{', '¿', '¡'];
/// `_NEXT_CHAR`'s class of openers skipped before the first significant character.
const NEXT_OPENERS: &[char] = &['"', '\'', '“', '‘', '«', '(', '[', '{', '¿', '¡', '—', '–'];
const BULLETS: &[char] = &['-', '*', '+', '•', '◦', '▪', '‣', '●', '○', '■', '–', '—'];
const CONTINUES: &[char] = &[',', ';', '-', '–', '(', '/', '&'];
const HEADING_MAX: usize = 50;
const LIST_MARKER_MAX: usize = 5;
/// `WRAP_MIN` of segment.py.
pub const WRAP_MIN: usize = 50;

const ABBREV: &[&str] = &[
    "mr", "mrs", "ms", "mx", "dr", "drs", "prof", "rev", "hon", "st", "mt", "ft", "gen", "col",
    "capt", "cmdr", "lt", "sgt", "gov", "sen", "rep", "pres", "messrs", "e.g", "i.e", "vs", "cf",
    "viz", "sr", "sra", "sras", "srta", "sres", "dra", "dras", "lic", "ing", "arq", "dña", "ud",
    "uds", "vd", "vds", "ee", "av", "avda", "ej",
];
const NUM_ABBREV: &[&str] = &[
    "no", "nos", "nº", "núm", "num", "fig", "figs", "eq", "eqs", "vol", "vols", "ch", "chap",
    "sec", "art", "p", "pp", "pág", "págs", "pag", "cap", "tab", "ref", "refs", "approx", "ca",
    "op", "ex", "tel", "jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "ene", "abr", "ago", "dic",
];

/// The most characters of an entry of `ABBREV` or `NUM_ABBREV` (a test checks it).
const ABBREV_MAX_CHARS: usize = 6;

fn latin(c: char) -> bool {
    LATIN_TERM.contains(&c)
}
fn cjk_term(c: char) -> bool {
    CJK_TERM.contains(&c)
}
fn term(c: char) -> bool {
    latin(c) || cjk_term(c)
}
fn close(c: char) -> bool {
    CLOSE_CLASS.contains(&c)
}
/// `_CJK_NEXT`: CJK and Hangul text, or a CJK opening bracket.
fn cjk_next(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}' | '\u{ac00}'..='\u{d7af}'
        | '「' | '『' | '（' | '《' | '〈' | '【')
}
fn ascii_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// Whether `c` may start an event (`next_event`): a line break, a sentence end, or any character
/// outside ASCII (where `…` and the CJK ends are, looked at one by one).
fn maybe_event(c: char) -> bool {
    let u = c as u32;
    // `|`, not `||`: no branch, so a block of them vectorises
    (u == '\n' as u32) | (u == '.' as u32) | (u == '!' as u32) | (u == '?' as u32) | (u >= 0x80)
}

/// The first index from `p` that may start an event, skipping eight characters at a time that cannot
/// (most of a text): the eight tests of a block are or-ed without a branch, which the compiler makes
/// a few vector compares, where testing each character against the two lists of ends cost about
/// eighteen instructions a character (the largest part of a never-seen query's segmentation).
fn skip_plain(t: &[char], mut p: usize) -> usize {
    while let Some(block) = t.get(p..p + 8) {
        if block.iter().fold(false, |any, &c| any | maybe_event(c)) {
            break;
        }
        p += 8;
    }
    p
}

/// The segmenter over one text.
pub struct Segmenter<'a, C: Classes> {
    t: &'a [char],
    n: usize,
    cls: &'a C,
}

impl<'a, C: Classes> Segmenter<'a, C> {
    pub fn new(t: &'a [char], cls: &'a C) -> Self {
        Segmenter { t, n: t.len(), cls }
    }

    /// `_WS.match(text, i).end()`: past the white space at `i`.
    fn skip_ws(&self, mut i: usize) -> usize {
        while i < self.n && self.cls.space(self.t[i]) {
            i += 1;
        }
        i
    }

    /// `b - a` less the white space at the end of `t[a..b]` (`rstrip`).
    fn rstrip(&self, a: usize, mut b: usize) -> usize {
        while b > a && self.cls.space(self.t[b - 1]) {
            b -= 1;
        }
        b
    }

    /// The end of `_TAIL` from `i` (greedy): closing quotes/brackets and glued `[1]` or `[2, 3]`.
    fn tail(&self, mut i: usize) -> usize {
        loop {
            if i < self.n && close(self.t[i]) {
                i += 1;
            } else if let Some(e) = self.citation(i) {
                i = e;
            } else {
                return i;
            }
        }
    }

    /// `\[\d+(?:,[ ]?\d+)*\]` at `i`.
    fn citation(&self, i: usize) -> Option<usize> {
        let t = self.t;
        if i >= self.n || t[i] != '[' {
            return None;
        }
        let mut j = self.digits(i + 1)?;
        loop {
            if j < self.n && t[j] == ']' {
                return Some(j + 1);
            }
            if j < self.n && t[j] == ',' {
                let k = if j + 1 < self.n && t[j + 1] == ' ' {
                    j + 2
                } else {
                    j + 1
                };
                j = self.digits(k)?;
            } else {
                return None;
            }
        }
    }

    /// `\d+` at `i`: its end, None when there is no digit.
    fn digits(&self, i: usize) -> Option<usize> {
        let mut j = i;
        while j < self.n && self.cls.decimal(self.t[j]) {
            j += 1;
        }
        (j > i).then_some(j)
    }

    /// `_EVENT` tried at `p`: `(end, cjk)` of a candidate boundary that starts there.
    fn event_at(&self, p: usize) -> Option<(usize, bool)> {
        let t = self.t;
        let c = t[p];
        if c == '\n' {
            // (?<=\n)(?:[^\S\n]*\n)?
            let mut j = p + 1;
            while j < self.n && self.cls.hspace(t[j]) {
                j += 1;
            }
            return Some(if j < self.n && t[j] == '\n' {
                (j + 1, false)
            } else {
                (p + 1, false)
            });
        }
        // (?<![TERM].): a punctuation run is only tried from its first character
        if p > 0 && term(t[p - 1]) {
            return None;
        }
        let mut run = p + 1;
        while run < self.n && latin(t[run]) {
            run += 1;
        }
        if latin(c) {
            // [LATIN]*TAIL(?=\s|\Z|[CJK_NEXT]); nothing shorter can meet the lookahead, which a
            // closing character, `[`, or a Latin terminal never does
            let e = self.tail(run);
            if e == self.n || self.cls.space(t[e]) || cjk_next(t[e]) {
                return Some((e, false));
            }
            // [LATIN]*[CJK_TERM][TERM]*TAIL
            if run < self.n && cjk_term(t[run]) {
                let mut j = run + 1;
                while j < self.n && term(t[j]) {
                    j += 1;
                }
                return Some((self.tail(j), true));
            }
            return None;
        }
        // (?<=[CJK_TERM])[TERM]*TAIL
        let mut j = p + 1;
        while j < self.n && term(t[j]) {
            j += 1;
        }
        Some((self.tail(j), true))
    }

    /// The next candidate boundary at or after `from`: `(start, end, cjk)`.
    fn next_event(&self, from: usize) -> Option<(usize, usize, bool)> {
        let mut p = from;
        while p < self.n {
            p = skip_plain(self.t, p);
            if p >= self.n {
                break;
            }
            let c = self.t[p];
            if c == '\n' || term(c) {
                if let Some((e, cjk)) = self.event_at(p) {
                    return Some((p, e, cjk));
                }
            }
            p += 1;
        }
        None
    }

    /// `split_sentences`.
    pub fn sentences(&self) -> Vec<(usize, usize)> {
        let t = self.t;
        let mut spans = Vec::new();
        let mut start = self.skip_ws(0);
        let mut boundary = 0;
        let mut line_start = 0;
        let has_titles = t.contains(&'《');
        let mut pos = 0;
        while let Some((s, e, cjk)) = self.next_event(pos) {
            pos = e;
            if t[s] == '\n' {
                if start < s && (e - s > 1 || self.line_ends_sentence(boundary, line_start, s, e)) {
                    spans.push((start, self.rstrip(start, s)));
                    boundary = e;
                    start = self.skip_ws(e);
                }
                line_start = e;
                continue;
            }
            if !cjk && !self.latin_boundary(s, e, line_start) {
                continue;
            }
            if has_titles && self.inside_title(start, s) {
                continue;
            }
            spans.push((start, e));
            boundary = e;
            start = self.skip_ws(e);
        }
        if start < self.n {
            spans.push((start, self.rstrip(start, self.n)));
        }
        spans
    }

    /// `_NEXT_CHAR.match(text, e)`: `\s*[openers]*(.)` with what backtracking finds at the end of
    /// the text; `(character, its index)`.
    fn next_char(&self, e: usize) -> Option<(char, usize)> {
        let i = self.skip_ws(e);
        let mut j = i;
        while j < self.n && NEXT_OPENERS.contains(&self.t[j]) {
            j += 1;
        }
        let at = if j < self.n {
            j
        } else if j > e {
            j - 1 // the last opener, or the last white space, is `(.)`
        } else {
            return None;
        };
        Some((self.t[at], at))
    }

    /// `_latin_boundary`.
    fn latin_boundary(&self, s: usize, e: usize, line_start: usize) -> bool {
        let t = self.t;
        let mut new_line = false;
        let nxt;
        if e + 1 < self.n && t[e] == ' ' && ascii_alnum(t[e + 1]) {
            nxt = t[e + 1];
        } else {
            match self.next_char(e) {
                None => return true,
                Some((c, at)) => {
                    nxt = c;
                    new_line = t[e..at].contains(&'\n');
                }
            }
        }
        let run = &t[s..e];
        let ellipsis = run.contains(&'…') || run.windows(2).any(|w| w == ['.', '.']);
        // a lowercase word goes on with the sentence, except at the start of the next line after ". ! ?"
        if self.cls.lower(nxt) && (ellipsis || !new_line) {
            return false;
        }
        if ellipsis {
            return self.cls.alpha(nxt);
        }
        if run == ['.', '\''] || run == ['.', '’'] {
            return self.single_quote_open(line_start, s);
        }
        if run != ['.'] {
            return true;
        }
        let lo = s.saturating_sub(24).max(line_start);
        let window = &t[lo..s];
        match window.last() {
            None => return true,
            Some(&c) if self.cls.space(c) => return true,
            _ => {}
        }
        // window.rsplit(None, 1): the last word, and whether a word comes before it
        let word_start = window
            .iter()
            .rposition(|&c| self.cls.space(c))
            .map_or(0, |k| k + 1);
        let more_words = window[..word_start].iter().any(|&c| !self.cls.space(c));
        let mut k = word_start;
        while k < window.len() && OPENERS.contains(&window[k]) {
            k += 1;
        }
        let token = &window[k..];
        // lower-casing never makes fewer characters, and no abbreviation is longer than
        // `ABBREV_MAX_CHARS`: a longer token (most words before a period) is none of them, and is not
        // copied and lower-cased to be looked up
        if token.len() <= ABBREV_MAX_CHARS {
            let lowered: String = token.iter().collect::<String>().to_lowercase();
            if ABBREV.contains(&lowered.as_str())
                || (NUM_ABBREV.contains(&lowered.as_str()) && self.cls.digit(nxt))
            {
                return false;
            }
        }
        if token.len() == 1 && self.cls.upper(token[0]) && token[0] != 'I' {
            return false; // an initial, as in "J. R. R. Tolkien"
        }
        if token.len() <= LIST_MARKER_MAX && self.list_marker(token) {
            return lo != line_start || more_words;
        }
        true
    }
}

/// `re.IGNORECASE` for the ASCII letters of `_URL_END`: an ASCII capital, or U+017F (long s) for `s`.
fn same_ignoring_case(pattern: char, c: char) -> bool {
    pattern == c.to_ascii_lowercase() || (pattern == 's' && c == 'ſ')
}

/// `split_sentences` of a text.
pub fn split_sentences<C: Classes>(text: &[char], cls: &C) -> Vec<(usize, usize)> {
    Segmenter::new(text, cls).sentences()
}

/// `split_lines` of a span of a text.
pub fn split_lines<C: Classes>(
    text: &[char],
    cls: &C,
    start: usize,
    end: usize,
) -> Vec<(usize, usize)> {
    Segmenter::new(text, cls).lines(start, end)
}

/// The units of a chunk: its sentences, each cut at its line breaks (`_analyse_segment`).
pub fn split_units<C: Classes>(text: &[char], cls: &C) -> Vec<(usize, usize)> {
    let seg = Segmenter::new(text, cls);
    let mut sentences = seg.sentences();
    if sentences.is_empty() {
        sentences.push((0, text.len()));
    }
    let mut out = Vec::with_capacity(sentences.len());
    for (a, b) in sentences {
        if text[a..b].contains(&'\n') {
            out.extend(seg.lines(a, b));
        } else {
            out.push((a, b));
        }
    }
    out
}

#[cfg(test)]
mod tests;
