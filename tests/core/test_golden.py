"""The golden dump: whole and streamed parses of 656 answers are what tests/data/golden.json records.

A behaviour change updates the file with ``python -m bench.golden write`` in the commit that says why.
"""

from __future__ import annotations

from bench import golden


def test_parser_behaviour_matches_the_golden_dump() -> None:
    expected = golden.read()
    current = golden.current()
    changed = golden.changed_cases(expected, current)
    fields = [
        f"{name}: {line}"
        for name in changed[:3]
        for line in list(golden.differences(expected[name], current[name]))[:5]
    ]
    assert changed == [], (
        f"{len(changed)} cases changed (python -m bench.golden check): {changed[:10]}\n" + "\n".join(fields)
    )
    assert set(current) <= set(expected), sorted(set(current) - set(expected))[:10]


def test_the_check_names_each_differing_field() -> None:
    before = {"answer": {"content": [{"text": "a", "citations": [{"support": 0.5}]}]}, "digest": "x"}
    after = {
        "answer": {"content": [{"text": "a", "citations": [{"support": 0.6}]}]},
        "stream_7": [],
        "digest": "y",
    }
    assert list(golden.differences(before, after)) == [
        "answer.content[0].citations[0].support: 0.5 -> 0.6",
        'digest: "x" -> "y"',
        "stream_7: added []",
    ]


def test_the_canonical_output_does_not_depend_on_how_the_stream_was_cut() -> None:
    one = [{"type": "text_delta", "text": "a"}, {"type": "text_delta", "text": "b"}]
    two = [{"type": "text_delta", "text": "ab"}]
    assert golden._said(one) == golden._said(two) == [{"text": "ab"}]
