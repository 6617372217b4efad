//! Any text and any stop set: the plain-text scan never panics, and its answer is the number of
//! characters before the first stop (every one before it plain, the one at it a stop), as a plain
//! character-by-character count gives it; a text split anywhere scans as its two halves joined. The
//! steady path's decision (`Stops::steady`) takes exactly the plain texts, holds exactly their trailing
//! spaces and tabs, and refuses a run of them longer than the limit.
#![no_main]

use cite_native::lexer::{Steady, Stops};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (&str, &str)| {
    let (stops_text, text) = input;
    for stops_given in [stops_text, "[【［〔(<`\n"] {
        let stops = Stops::new(stops_given);
        let n = stops.plain_len(text);
        let chars: Vec<char> = text.chars().collect();
        let expected = chars
            .iter()
            .position(|&c| stops_given.contains(c))
            .unwrap_or(chars.len());
        assert_eq!(n, expected, "{text:?} with stops {stops_given:?}");
        let held = stops_text.len() % 70;
        let body = text.trim_end_matches([' ', '\t']).len();
        let trailing = text.len() - body;
        let answer = stops.steady(text, held, 64);
        let expected_answer = if text.is_empty() || n < chars.len() {
            Steady::Refuse
        } else if body == 0 {
            if held + trailing > 64 {
                Steady::Refuse
            } else {
                Steady::Hold
            }
        } else if trailing > 64 {
            Steady::Refuse
        } else {
            Steady::Text { body }
        };
        assert_eq!(answer, expected_answer, "{text:?} held {held}");
        for (i, _) in text.char_indices().step_by(7) {
            let (head, tail) = text.split_at(i);
            let h = stops.plain_len(head);
            let joined = if h < head.chars().count() {
                h
            } else {
                h + stops.plain_len(tail)
            };
            assert_eq!(joined, n, "{text:?} split at byte {i}");
        }
    }
});
