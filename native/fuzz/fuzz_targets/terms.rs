//! Any words: the stemmer never panics, and a stem is a prefix of its word (or that prefix and `y`
//! for `ies`/`ied`), of at least three characters when it differs from the word.
#![no_main]

use cite_native::terms::{ascii_words, Stemmer};
use libfuzzer_sys::fuzz_target;

const SUFFIXES: &[&str] = &[
    "ational", "ization", "fulness", "ousness", "iveness", "mente", "ciones", "amiento", "imiento",
    "ation", "ition", "ción", "sión", "ments", "ment", "ness", "ings", "ing", "edly", "ies", "ied",
    "ed", "es", "ly", "s",
];

fuzz_target!(|text: &str| {
    let stemmer = Stemmer::new(&["the", "a"], SUFFIXES);
    for word in ascii_words(text).chain(text.split(' ')) {
        let stem = stemmer.stem(word);
        if stem != word {
            let base = stem
                .strip_suffix('y')
                .filter(|_| word.ends_with("ies") || word.ends_with("ied"));
            assert!(
                word.starts_with(base.unwrap_or(&stem)),
                "{word:?} -> {stem:?}"
            );
            assert!(stem.chars().count() >= 3, "{word:?} -> {stem:?}");
        }
    }
});
