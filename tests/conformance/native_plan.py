"""The recorded native answers of the native rows: what a provider's own citations say for the scenarios
that apply to a converter (plain; invalid markers: a citation of a document the model was not sent)."""

from __future__ import annotations

from .matrix import DOCUMENTS, SCENARIOS

__all__ = ["CONVERTED", "NATIVE_PLANS", "not_converted"]

_SUN = "In its core, hydrogen nuclei fuse into helium."
_MOON = "It reflects the light of the Sun back to the Earth."

NATIVE_PLANS: dict[str, list[tuple[str, list[tuple[int, str]]]]] = {
    # each answer sentence, then its citations: (index of the document sent, 0-based; the quoted text)
    "plain": [
        ("The Sun shines because hydrogen fuses into helium in its core.", [(0, _SUN)]),
        (" The Moon reflects the light of the Sun.", [(1, _MOON)]),
    ],
    "invalid_and_odd_markers": [
        ("The Sun fuses hydrogen into helium.", [(0, _SUN), (1, _MOON)]),
        (" The Moon reflects the light of the Sun.", [(1, _MOON)]),
        (" It is old.", [(8, "The Moon is old.")]),  # a ninth document, never sent: an invalid [9]
    ],
}
"""scenario -> the answer's text blocks with their native citations (as the provider returned them)."""

CONVERTED = tuple(NATIVE_PLANS)
assert all(doc in DOCUMENTS for name in CONVERTED for doc in SCENARIOS[name].documents)


def not_converted(entry: str) -> dict[str, str]:
    """Why each other scenario is not a cell of the converter ``entry`` (it reads one recorded message)."""
    turns = f"{entry} converts one message; numbering across turns is CitationSession's (its rows)"
    reasoning = f"{entry} reads the answer's text blocks; a provider keeps its reasoning in other blocks"
    return {
        "history": turns,
        "reload": turns,
        "follow_up_number": turns,
        "parallel_tools": f"{entry} converts a model's answer; tool calls are the agents' rows",
        "think": reasoning,
        "lone_think_close": reasoning,
        "reasoning_content": reasoning,
        "truncated": "a recorded message holds whole citation blocks; cut-off replies are the chains' rows",
        "structured": "native citations are refused with structured output (schema= / output_cls=)",
        "verify_calibration": f"{entry} passes calibration= to cite_core.from_native (its row); verify is "
        "cite_core.verify(answer, judge) on the answer it returns",
    }
