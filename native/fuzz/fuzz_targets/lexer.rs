//! Any text and any stop set: the plain-text scan never panics, and its answer is the number of
//! characters before the first stop (every one before it plain, the one at it a stop), as a plain
//! character-by-character count gives it; a text split anywhere scans as its two halves joined.
#![no_main]

use cite_native::lexer::Stops;
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
