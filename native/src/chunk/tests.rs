use super::*;

#[test]
fn the_separation_table_is_the_range_tests() {
    for b in 0u8..128 {
        let want = if b.is_ascii_alphanumeric() {
            b.to_ascii_lowercase()
        } else {
            b' '
        };
        assert_eq!(ASCII_SEPARATED[b as usize], want);
    }
}

#[test]
fn separate_bytes_makes_every_byte_but_a_letter_or_digit_a_space() {
    for text in ["", "Bridges, 1871!", "a\u{e9}b \u{4e2d}-X9", "\t\r\x1c~"] {
        let want: String = text
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    char::from(b.to_ascii_lowercase())
                } else {
                    ' '
                }
            })
            .collect();
        assert_eq!(separate_bytes(text), want);
    }
}

#[test]
fn separated_words_are_the_runs_between_spaces() {
    for piece in [
        "",
        " ",
        "   ",
        "a",
        " a",
        "a ",
        "  ab  cd e ",
        "one two",
        "é x  中文 ",
        "x\ty  z",
    ] {
        let want: Vec<&str> = piece.split(' ').filter(|w| !w.is_empty()).collect();
        assert_eq!(
            separated_words(piece).collect::<Vec<_>>(),
            want,
            "{piece:?}"
        );
    }
}

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

#[test]
fn separates_as_ascii_separated_and_refuses_other_words() {
    let t = chars("Hello, World—42 x_y");
    let out = separate(&t, |c| Ok::<bool, ()>(c == '—')).unwrap().unwrap();
    assert_eq!(out, b"hello  world 42 x y");
    assert_eq!(
        separate(&chars("café"), |_| Ok::<bool, ()>(false)).unwrap(),
        None
    );
}

#[test]
fn fragments_and_breaks_as_the_python_ones() {
    let t = chars("One. \"Two!\"\nthree (four.)\nfive");
    let spans = [(0, 4), (5, 11), (12, 17), (18, 25), (26, 30)];
    let f = fragments(&t, &spans, &['.', '!'], &['"', ')']);
    assert_eq!(f, [false, false, true, false, true]);
    assert_eq!(breaks(&t, &spans), [false, true, false, true]);
    assert_eq!(fragments(&t, &[(3, 3)], &['.'], &[]), [true]);
    assert!(breaks(&t, &[(0, 4)]).is_empty());
}

#[test]
fn tokens_as_the_python_token_pattern() {
    let class = |c: char| match c {
        '\u{3040}'..='\u{9fff}' => Class::Cjk,
        c if c.is_alphanumeric() => Class::Word,
        _ => Class::Other,
    };
    let got = tokens(&chars("阿q正传的 x-ray"), class, &['的']);
    let want = [
        ("阿", true),
        ("q", false),
        ("正", true),
        ("传", true),
        ("正传", true),
        ("传的", true),
        ("x", false),
        ("ray", false),
    ];
    let want: Vec<(String, bool)> = want.iter().map(|&(s, c)| (s.to_owned(), c)).collect();
    assert_eq!(got, want);
    assert!(tokens(&chars(" - "), class, &[]).is_empty());
}

#[test]
fn local_ids_in_order_with_unit_frequencies() {
    let mut scratch = Scratch::default();
    scratch.begin();
    let mut l = LocalTerms::new();
    for g in [7, 3, 7] {
        l.push(&mut scratch, g);
    }
    l.end_unit();
    l.end_unit(); // an empty unit
    for g in [3, 9] {
        l.push(&mut scratch, g);
    }
    l.end_unit();
    assert_eq!(l.globals, [7, 3, 9]);
    assert_eq!(l.unit(0), [0, 1, 0]);
    assert!(l.unit(1).is_empty());
    assert_eq!(l.unit(2), [1, 2]);
    assert_eq!(l.unit_df, [1, 2, 1]);
    assert_eq!(l.counts(0), [(0, 2), (1, 1)]);
    assert_eq!(l.units(), 3);
    scratch.begin(); // the next chunk: its own local ids
    let mut next = LocalTerms::new();
    assert_eq!(next.push(&mut scratch, 9), (0, true));
    assert_eq!(next.push(&mut scratch, 7), (1, true));
    assert_eq!(next.push(&mut scratch, 9), (0, false));
}
