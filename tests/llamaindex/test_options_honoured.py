"""Every LlamaIndex entry point honours each option it is given or refuses it naming where it goes."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from llamaindex_cite import CiteChatEngine, CitePostprocessor, CiteQueryEngine, CiteSynthesizer
from llamaindex_cite._options import ELSEWHERE
from tests.llamaindex.conftest import ListRetriever, ReplayLLM
from tests.options_walk import check_entry, option_values


class Harbour(BaseModel):
    opened: str


ALL = {"calibration", "verify", "judge", "streaming"}
LLM = ReplayLLM(default="The harbour opened in 1850 [1].")
ENTRIES = {
    "CiteQueryEngine": (
        lambda **o: CiteQueryEngine(retriever=ListRetriever([]), llm=LLM, **o),
        ALL,
    ),
    "CiteQueryEngine.from_args": (
        lambda **o: CiteQueryEngine.from_args(ListRetriever([]), llm=LLM, **o),
        ALL,
    ),
    "CiteSynthesizer": (lambda **o: CiteSynthesizer(llm=LLM, **o), {"verify", "streaming"}),
    "CiteSynthesizer(output_cls=...)": (
        lambda **o: CiteSynthesizer(llm=LLM, output_cls=Harbour, **o),
        set(),  # streaming= is refused by its own check (a structured answer is cited whole)
    ),
    "CiteQueryEngine(output_cls=...)": (
        lambda **o: CiteQueryEngine(retriever=ListRetriever([]), llm=LLM, output_cls=Harbour, **o),
        {"calibration"},  # the flag threshold of the cited fields
    ),
    "CitePostprocessor": (CitePostprocessor, set()),
    "CiteChatEngine.from_defaults": (
        lambda **o: CiteChatEngine.from_defaults(ListRetriever([]), llm=LLM, **o),
        set(),
    ),
}
"""Entry point -> (its call with required arguments, the options it honours)."""


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_option_is_honoured_or_refused_naming_where_it_goes(entry: str) -> None:
    make, honoured = ENTRIES[entry]
    outcomes = check_entry(entry, make, honoured, ELSEWHERE, option_values(LLM))
    assert {name for name, outcome in outcomes.items() if outcome == "honoured"} == honoured


def test_every_refusal_names_an_entry_point_that_is_walked() -> None:
    assert set(ELSEWHERE) <= set(ENTRIES)


def test_the_postprocessor_and_synthesizer_name_the_engine() -> None:
    """CitePostprocessor(calibration=..., verify=..., judge=..., streaming=...) accepted and ignored them;
    CiteSynthesizer(calibration=...) raised a bare TypeError."""
    from cite_core import ArgumentError

    with pytest.raises(ArgumentError, match=r"CitePostprocessor does not apply verify=.*CiteQueryEngine"):
        CitePostprocessor(verify=True)
    with pytest.raises(ArgumentError, match=r"CiteSynthesizer does not apply calibration=.*CiteQueryEngine"):
        CiteSynthesizer(llm=LLM, calibration=option_values(LLM)["calibration"])
    assert CitePostprocessor(verify=False).merge_chunks  # a default value is no option given
