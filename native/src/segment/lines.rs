//! The line rules of sentence segmentation: where a line break ends a sentence, list items, headings,
//! titles and URLs (`split_lines` and the checks `sentences` asks of a line), beside the sentence scan
//! of `segment.rs` as a second `impl` block of the same `Segmenter`.

use super::*;

impl<C: Classes> Segmenter<'_, C> {
    /// `_LIST_MARKER.fullmatch(token)`: `\d{1,3}|[A-Za-z]|[IVX]{1,5}`.
    pub(super) fn list_marker(&self, token: &[char]) -> bool {
        let n = token.len();
        ((1..=3).contains(&n) && token.iter().all(|&c| self.cls.decimal(c)))
            || (n == 1 && token[0].is_ascii_alphabetic())
            || ((1..=5).contains(&n) && token.iter().all(|c| matches!(c, 'I' | 'V' | 'X')))
    }

    /// `_single_quote_open`: a single quote opened on this line before `s` and not closed since.
    pub(super) fn single_quote_open(&self, line_start: usize, s: usize) -> bool {
        let t = self.t;
        // _SINGLE_OPEN over [line_start, s): (?<![^\s"“«(\[{—–-])['‘](?=[^\s'‘])
        let mut last_open = None;
        for i in line_start..s {
            if !matches!(t[i], '\'' | '‘') {
                continue;
            }
            let after_opening = i == 0 || {
                let b = t[i - 1];
                self.cls.space(b)
                    || matches!(b, '"' | '“' | '«' | '(' | '[' | '{' | '—' | '–' | '-')
            };
            let before_text =
                i + 1 < s && !self.cls.space(t[i + 1]) && !matches!(t[i + 1], '\'' | '‘');
            if after_opening && before_text {
                last_open = Some(i + 1);
            }
        }
        let Some(from) = last_open else {
            return false;
        };
        // _SINGLE_CLOSE over [from, s): (?<=\S)['’](?![^\W\d_])
        !(from..s).any(|i| {
            matches!(t[i], '\'' | '’')
                && i > 0
                && !self.cls.space(t[i - 1])
                && !(i + 1 < s && self.cls.letter(t[i + 1]))
        })
    }

    /// `_ITEM.match` at `a` in a text that ends at `b`: a list item or Markdown heading; its end.
    pub(super) fn item(&self, a: usize, b: usize) -> Option<usize> {
        let t = self.t;
        let mut i = a;
        while i < b && self.cls.hspace(t[i]) {
            i += 1;
        }
        if i >= b {
            return None;
        }
        let c = t[i];
        let j = if c == '#' {
            let mut j = i;
            while j < b && j - i < 6 && t[j] == '#' {
                j += 1;
            }
            j
        } else if BULLETS.contains(&c) {
            i + 1
        } else if self.cls.decimal(c) {
            let mut j = i;
            while j < b && j - i < 3 && self.cls.decimal(t[j]) {
                j += 1;
            }
            if j < b && matches!(t[j], '.' | ')') {
                j + 1
            } else {
                return None;
            }
        } else if c.is_ascii_alphabetic() && i + 1 < b && t[i + 1] == ')' {
            i + 2
        } else {
            return None;
        };
        (j < b && self.cls.hspace(t[j])).then_some(j + 1)
    }

    /// `_HEADING.match(text, a)`: `[^\S\n]*#{1,6}[^\S\n]`.
    pub(super) fn heading(&self, a: usize) -> bool {
        let t = self.t;
        let mut i = a;
        while i < self.n && self.cls.hspace(t[i]) {
            i += 1;
        }
        let mut j = i;
        while j < self.n && j - i < 6 && t[j] == '#' {
            j += 1;
        }
        j > i && j < self.n && self.cls.hspace(t[j])
    }

    /// `_line_ends_sentence`: whether the single newline `t[s..e]` ends the pending sentence.
    pub(super) fn line_ends_sentence(
        &self,
        boundary: usize,
        line_start: usize,
        s: usize,
        e: usize,
    ) -> bool {
        let t = self.t;
        if e >= self.n {
            return true; // end of text
        }
        // _NEXT_LINE: (ITEM)?[^\S\n]*(.) -- the item counts when a character follows it
        if let Some(end) = self.item(e, self.n) {
            if end < self.n {
                return true; // the next line is a list item or a heading
            }
        }
        let mut j = e;
        while j < self.n && self.cls.hspace(t[j]) {
            j += 1;
        }
        let nxt = if j < self.n { t[j] } else { t[self.n - 1] };
        if self.cls.lower(nxt) {
            return self.heading(line_start);
        }
        let mut a = line_start;
        let b = self.rstrip(line_start, s);
        while a < b && self.cls.space(t[a]) {
            a += 1;
        }
        if self.item(a, b).is_some() {
            return true;
        }
        if a == b {
            return false;
        }
        let last = t[b - 1];
        if term(last) || close(last) || last == '\\' {
            return false; // the punctuation run before the newline already decided
        }
        boundary <= line_start && (b - a <= HEADING_MAX || last == ':' || last == '：')
    }

    /// `_inside_title`: whether `s` lies inside an open `《…》` title within the current sentence.
    pub(super) fn inside_title(&self, start: usize, s: usize) -> bool {
        let t = self.t;
        let lo = start.max(s.saturating_sub(64));
        let open = t[lo..s].iter().rposition(|&c| c == '《');
        let closed = t[lo..s].iter().rposition(|&c| c == '》');
        let later = t[s..(s + 64).min(self.n)].contains(&'》');
        // rfind's -1 for "none" is below every index
        open.map_or(-1, |k| k as i64) > closed.map_or(-1, |k| k as i64) && later
    }

    /// `split_lines`: the span `[start, end)` cut at its line breaks, except where a line wraps.
    pub fn lines(&self, start: usize, end: usize) -> Vec<(usize, usize)> {
        let t = self.t;
        let end = end.min(self.n);
        let start = start.min(end);
        if !t[start..end].contains(&'\n') {
            return vec![(start, end)];
        }
        let mut pieces = Vec::new();
        let mut cursor = start;
        let mut pos = start;
        // _NEWLINE over [start, end): [^\S\n]*\n\s*
        while let Some(q) = t[pos..end].iter().position(|&c| c == '\n').map(|k| k + pos) {
            let mut ms = q;
            while ms > pos && self.cls.hspace(t[ms - 1]) {
                ms -= 1;
            }
            let mut me = q + 1;
            while me < end && self.cls.space(t[me]) {
                me += 1;
            }
            pos = me;
            if me >= end || cursor >= ms {
                continue;
            }
            let line = &t[cursor..ms];
            let last = line[line.len() - 1];
            if (CONTINUES.contains(&last) && !(last == '/' && self.url_end(line)))
                || (line.len() >= WRAP_MIN && self.cls.lower(t[me]))
            {
                continue; // a wrapped line: the sentence goes on
            }
            pieces.push((cursor, ms));
            cursor = me;
        }
        pieces.push((cursor, end));
        pieces
    }

    /// `_URL_END.search(line)`: `(?:https?://|www\.)\S*$`, ignoring case, in a line that ends in a
    /// non-space: its last run of non-spaces holds one of the prefixes.
    pub(super) fn url_end(&self, line: &[char]) -> bool {
        let from = line
            .iter()
            .rposition(|&c| self.cls.space(c))
            .map_or(0, |k| k + 1);
        let word = &line[from..];
        let prefixes: [&[char]; 3] = [
            &['h', 't', 't', 'p', ':', '/', '/'],
            &['h', 't', 't', 'p', 's', ':', '/', '/'],
            &['w', 'w', 'w', '.'],
        ];
        (0..word.len()).any(|i| {
            prefixes.iter().any(|p| {
                word.len() - i >= p.len()
                    && p.iter()
                        .zip(&word[i..])
                        .all(|(&a, &b)| same_ignoring_case(a, b))
            })
        })
    }
}
