"""Two localisation defects: a line ending in "." run on into a lowercase next line, and a sentence
matching the claim only through the stemmer winning a tie over one that says it verbatim."""

from cite_core import parse_answer, split_sentences

BRAND = (
    "Our company launched a new product line across Europe and Asia this year.\n"
    "eMOTIVe is its newest brand of headphones.\n"
    "It sells well."
)


def test_a_line_ending_in_a_period_ends_its_sentence_before_a_lowercase_line() -> None:
    spans = [BRAND[a:b] for a, b in split_sentences(BRAND)]
    assert spans == [
        "Our company launched a new product line across Europe and Asia this year.",
        "eMOTIVe is its newest brand of headphones.",
        "It sells well.",
    ]


def test_the_cited_span_is_the_brand_sentence_alone() -> None:
    answer = parse_answer("eMOTIVe is a brand of headphones [1].", [BRAND])
    assert answer.citations[0].cited_text == "eMOTIVe is its newest brand of headphones."


def test_a_lowercase_word_on_the_same_line_still_goes_on_with_the_sentence() -> None:
    text = "He met Dr. smith there. Prices rose, e.g.\nthe rent. It rained... and rained."
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "He met Dr. smith there.",
        "Prices rose, e.g.\nthe rent.",
        "It rained... and rained.",
    ]


def test_an_ellipsis_before_a_lowercase_line_still_goes_on() -> None:
    text = "He waited...\nand waited."
    assert [text[a:b] for a, b in split_sentences(text)] == [text]


def test_a_tie_goes_to_the_sentence_with_the_claim_words_as_written() -> None:
    # "married" and "marries" stem alike: both sentences score the same; the verbatim one is cited
    source = "The actor marries his co-star in the film. The actor married his co-star in 2019."
    answer = parse_answer("The actor married his co-star [1].", [source])
    assert answer.citations[0].cited_text == "The actor married his co-star in 2019."
    flipped = "The actor married his co-star in 2019. The actor marries his co-star in the film."
    answer = parse_answer("The actor marries his co-star [1].", [flipped])
    assert answer.citations[0].cited_text == "The actor marries his co-star in the film."


def test_without_a_tie_the_better_match_still_wins() -> None:
    source = "The actor marries his co-star Anna Berg in the film. He married late."
    answer = parse_answer("The actor married his co-star Anna Berg [1].", [source])
    assert answer.citations[0].cited_text.startswith("The actor marries his co-star Anna Berg")
