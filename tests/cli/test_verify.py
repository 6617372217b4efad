"""cite ask --verify: the model checks each cited claim after the answer; every output shows it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cite_cli.__main__ import main
from tests.fakes import sse

ANSWER = (
    "The sky is blue because shorter wavelengths are scattered much more strongly [{sky}]. "
    "Rayleigh described this scattering in 1871 [{pdf}]."
)


def verdicts(prompt: str) -> str:
    """A judge's reply: the claim naming 1871 contradicted, every other one supported."""
    claims = re.findall(r'<claim id="(\d+)">(.*?)</claim>', prompt, re.S)
    return json.dumps(
        {
            "claims": [
                {"id": int(i), "verdict": "contradicted", "reason": "the passage gives another year"}
                if "1871" in text
                else {"id": int(i), "verdict": "supported", "reason": "the passage says so"}
                for i, text in claims
            ]
        }
    )


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def judging_model(fake_model_class: Any) -> Any:
    """The fake server, answering the judge's prompt with verdicts (streamed like any answer)."""

    class Judging(fake_model_class):  # type: ignore[misc,valid-type]
        def _complete(self, path: str, body: dict[str, Any]) -> tuple[int, str, list[str]]:
            prompt = "\n".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
            if "<claim id=" not in prompt:
                return super()._complete(path, body)
            self.requests.append(body)
            chunk = {
                "id": "chatcmpl-2",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "delta": {"content": verdicts(prompt)}, "finish_reason": None}],
            }
            done = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            return 200, "text/event-stream", [sse(chunk), sse(done), sse("[DONE]")]

    with Judging(ANSWER) as model:
        yield model


@pytest.mark.parametrize("mode", [["--no-color"], ["--markdown"], ["--json"]])
def test_ask_verify_shows_the_verdicts(
    corpus: Path, workdir: Path, judging_model: Any, capsys: pytest.CaptureFixture[str], mode: list[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(
        capsys, "ask", "Why is the sky blue?", "--base-url", judging_model.url, "--verify", *mode
    )
    assert code == 0, err
    assert len(judging_model.requests) == 2  # the answer, then one call for every claim
    assert re.search(r"verifying \d cited claim\(s\) with default", err)
    if mode == ["--json"]:
        verification = json.loads(out)["verification"]
        assert verification["calls"] == 1 and verification["problem"] is None
        levels = [c["verdict"] for c in verification["claims"]]
        assert levels and set(levels) <= {"supported", "contradicted"}
        assert [c["verdict"] == "contradicted" for c in verification["claims"]] == [
            "1871" in c["claim"] for c in verification["claims"]
        ]
    else:
        assert "Checked against the cited passages by langchain:ChatOpenAI" in out
        assert re.search(r"(supported|contradicted) (\\?\(|&#40;)the passage", out)  # Markdown escapes "("


def test_ask_without_verify_makes_one_call_and_json_says_not_verified(
    corpus: Path, workdir: Path, judging_model: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, out, err = run(capsys, "ask", "Why is the sky blue?", "--base-url", judging_model.url, "--json")
    assert code == 0, err
    assert len(judging_model.requests) == 1 and json.loads(out)["verification"] is None


def test_verify_needs_a_model(corpus: Path, workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "ingest", str(corpus), "--quiet")[0] == 0
    code, _, err = run(capsys, "ask", "Why is the sky blue?", "--verify")
    assert code != 0 and "--verify needs a model" in err
