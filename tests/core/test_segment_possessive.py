"""A possessive apostrophe after an abbreviation's period is not a closing quote (issue 13.1)."""

from cite_core import number_sources, parse_answer, split_sentences


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def test_possessive_after_a_period_does_not_end_the_sentence() -> None:
    text = "Efron will voice Fred in Warner Bros.' 2020 film. It opens in May."
    assert _sentences(text) == ["Efron will voice Fred in Warner Bros.' 2020 film.", "It opens in May."]
    curly = "The studio is Warner Bros.’ 2020 film unit. It opens in May."
    assert _sentences(curly) == ["The studio is Warner Bros.’ 2020 film unit.", "It opens in May."]


def test_a_single_quote_opened_in_the_line_still_closes_the_sentence() -> None:
    assert _sentences("She said 'go home.' Then he left.") == ["She said 'go home.'", "Then he left."]
    assert _sentences("'We came.' Then we left.") == ["'We came.'", "Then we left."]
    # a quotation of several sentences: its last one still ends at the closing quote
    assert _sentences("He said 'I came. I saw.' Then he left.")[-1] == "Then he left."
    # the quotation was closed before: the later apostrophe is a possessive again
    assert _sentences("She said 'go.' Then Warner Bros.' 2020 film came.") == [
        "She said 'go.'",
        "Then Warner Bros.' 2020 film came.",
    ]


def test_the_claim_of_a_marker_keeps_its_possessive_abbreviation() -> None:
    sources = number_sources(["Zac Efron will voice Fred Jones in Warner Bros.' animated film."])
    answer = parse_answer("Efron will voice Fred Jones in Warner Bros.' 2020 animated film [1].", sources)
    assert answer.content[0].text == "Efron will voice Fred Jones in Warner Bros.' 2020 animated film"
    assert answer.citations[0].cited_text == sources[0].text
