//! Any text: the segmenter ends, never panics, and returns ordered, trimmed spans inside the text
//! (Rust's own character tables stand in for Python's; the properties hold for any tables).
#![no_main]

use cite_native::chars::{Classes, RustClasses};
use cite_native::segment::{split_lines, split_sentences, split_units};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let t: Vec<char> = text.chars().collect();
    let cls = RustClasses;
    let sentences = split_sentences(&t, &cls);
    let mut last = 0;
    for &(a, b) in &sentences {
        assert!(last <= a && a < b && b <= t.len(), "{sentences:?}");
        assert!(!cls.space(t[a]) && !cls.space(t[b - 1]));
        last = b;
        let lines = split_lines(&t, &cls, a, b);
        assert_eq!((lines[0].0, lines[lines.len() - 1].1), (a, b));
    }
    let units = split_units(&t, &cls);
    assert!(units.windows(2).all(|w| w[0].1 <= w[1].0));
});
