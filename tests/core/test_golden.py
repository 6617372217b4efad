"""The golden dump: whole and streamed parses of every case are what tests/data/golden.json records.

A behaviour change updates the file with ``python -m bench.golden write`` in the commit that says why.
Cases built from ``../shared/data`` (the essay, the full ExpertQA file) are checked only where it is
present; the rest (the shipped ExpertQA subset, synthetic prose, soup, multilingual) are checked
everywhere, so the suite passes the same in a clone with no ``../shared`` beside it.
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


def test_the_cases_without_shared_data_are_built_from_the_project_alone(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(golden, "SHARED", tmp_path / "absent")
    names = [name for name, _items, _text in golden.cases()]
    assert not [n for n in names if n.startswith("bench/")]  # the essay is not shipped: skipped
    assert len([n for n in names if n.startswith("bench-prose/")]) == 9
    subset = (golden.ROOT / "tests" / "data" / "expertqa_subset.jsonl").read_text(encoding="utf-8")
    assert len([n for n in names if n.startswith("expertqa/")]) == sum(
        1 for line in subset.splitlines() if line.strip()
    )
    expected = golden.read()
    assert set(names) <= set(expected)
