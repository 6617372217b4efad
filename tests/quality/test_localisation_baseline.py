"""The WiCE baseline of issue 13: idf-weighted word overlap without English stop words."""

from bench.eval.localisation import _idf_overlap_top1


def test_the_baseline_ignores_stop_words() -> None:
    sentences = [
        "The program is one of the best in the country for the new talent of the year.",
        "Disney Channel Storytellers runs a writing program.",
        "Tickets are sold at the door.",
    ]
    # with stop words the first sentence wins on "the", "of", "for", "in"; without, the second on the names
    assert (
        _idf_overlap_top1("The Storytellers program of the Disney Channel is for the talent", sentences) == 1
    )


def test_ties_go_to_the_first_sentence() -> None:
    assert _idf_overlap_top1("Budget approved", ["Budget approved Monday.", "Budget approved Friday."]) == 0
