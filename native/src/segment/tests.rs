use super::*;
use crate::chars::RustClasses;

fn sentences(text: &str) -> Vec<String> {
    let t: Vec<char> = text.chars().collect();
    split_sentences(&t, &RustClasses)
        .into_iter()
        .map(|(a, b)| t[a..b].iter().collect())
        .collect()
}

#[test]
fn abbreviations_initials_and_list_markers_do_not_end_a_sentence() {
    assert_eq!(
        sentences("Dr. Smith met J. R. R. Tolkien. See Fig. 3 now."),
        ["Dr. Smith met J. R. R. Tolkien.", "See Fig. 3 now."]
    );
    assert_eq!(sentences("1. First item"), ["1. First item"]);
}

#[test]
fn spanish_and_chinese() {
    assert_eq!(
        sentences("¿Qué pasa? ¡Nada! Sra. Pérez llegó."),
        ["¿Qué pasa?", "¡Nada!", "Sra. Pérez llegó."]
    );
    assert_eq!(
        sentences("他来了。《标题。内容》很好。"),
        ["他来了。", "《标题。内容》很好。"]
    );
}

#[test]
fn offsets_are_code_points_and_lines_split_unless_they_wrap() {
    let t: Vec<char> = "😀 One. Two.".chars().collect();
    assert_eq!(split_sentences(&t, &RustClasses), [(0, 6), (7, 11)]);
    let t: Vec<char> = "Title\nBody,\ngoes on".chars().collect();
    assert_eq!(split_lines(&t, &RustClasses, 0, t.len()), [(0, 5), (6, 19)]);
    let t: Vec<char> = "see https://example.org/\nnext".chars().collect();
    assert_eq!(
        split_lines(&t, &RustClasses, 0, t.len()),
        [(0, 24), (25, 29)]
    );
}

#[test]
fn no_abbreviation_is_longer_than_the_bound() {
    let longest = ABBREV.iter().chain(NUM_ABBREV).map(|a| a.chars().count());
    assert_eq!(longest.max(), Some(ABBREV_MAX_CHARS));
    // a token of more characters lower-cases to at least as many
    for c in ['A', 'İ', 'Σ', 'ẞ', 'K', 'Å'] {
        assert!(c.to_lowercase().count() >= 1);
    }
    assert_eq!(
        sentences("Approx. 5 kg. Messrs. Smith and Jones came. Approxx. Then."),
        [
            "Approx. 5 kg.",
            "Messrs. Smith and Jones came.",
            "Approxx.",
            "Then."
        ]
    );
}

#[test]
fn skipping_plain_blocks_passes_no_event() {
    let text =
        "Plain words here, and more words there; then. A line\nends? Yes! Dots… 中文。 x".repeat(3);
    let t: Vec<char> = text.chars().collect();
    for p in 0..=t.len() {
        let q = skip_plain(&t, p);
        assert!(p <= q && q <= t.len());
        assert!(t[p..q].iter().all(|&c| c != '\n' && !term(c)), "{p}..{q}");
        // a block is skipped only whole: what is left unskipped is shorter than a block or holds
        // a character that may start an event
        let rest = &t[q..t.len().min(q + 8)];
        assert!(rest.len() < 8 || rest.iter().any(|&c| maybe_event(c)));
    }
}

#[test]
fn hostile_runs_end_and_spans_stay_in_order() {
    for text in [
        ".".repeat(10_000),
        "[1, ".repeat(5_000),
        "\n \n".repeat(5_000),
        "《。".repeat(5_000),
    ] {
        let t: Vec<char> = text.chars().collect();
        let spans = split_units(&t, &RustClasses);
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
        assert!(spans.iter().all(|&(a, b)| a <= b && b <= t.len()));
    }
}
