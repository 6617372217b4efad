"""Where the answer comes from: a LangChain chat model, an OpenAI-compatible server, or offline extraction."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from cite_core import (
    CitedAnswer,
    Source,
    build_messages,
    extractive_answer,
    split_sentences,
    strip_controls,
    verify,
)

from ._errors import CliError, require

__all__ = ["Answerer", "choose_answerer"]

EXTRACTIVE_NOTE = (
    "no LLM configured (--model/--base-url or CITE_MODEL/CITE_BASE_URL): "
    "answering offline with the best-matching sentences of the sources"
)


@dataclass
class Answerer:
    """Something that streams an answer's text for a question over numbered sources."""

    name: str
    extractive: bool = False
    model: Any = None
    where: str | None = None
    max_tokens: int | None = None

    def prepare(self, question: str, sources: Sequence[Source]) -> tuple[Any, list[Source], list[Source]]:
        """``(messages or None, the sources the model sees, the sources the token budget dropped)``."""
        messages = _messages(question, sources, self.max_tokens)
        if self.extractive:  # the same budget as a model's prompt: the same sources, the same errors
            return None, list(getattr(messages, "sources", sources)), list(getattr(messages, "dropped", []))
        return messages, list(getattr(messages, "sources", sources)), list(getattr(messages, "dropped", []))

    def stream(self, question: str, sources: Sequence[Source], messages: Any = None) -> Iterator[str]:
        if self.extractive:
            text = _extractive(question, sources)
            # written in small pieces, as a model would, so the terminal shows it streaming
            yield from re.findall(r"\S+\s*|\s+", text)
            return
        if messages is None:
            messages = _messages(question, sources, self.max_tokens)
        try:
            for chunk in self.model.stream(
                [(m["role"].replace("user", "human"), m["content"]) for m in messages]
            ):
                text = _text(chunk.content)
                if text:
                    yield text
        except CliError:
            raise
        except Exception as exc:
            raise CliError(_model_error(exc, self)) from exc


def question_parts(question: str) -> list[str]:
    """The sentences of a question (a question in several parts is retrieved and answered per part)."""
    parts = [question[s:e].strip() for s, e in split_sentences(question)]
    return [p for p in parts if p]


def _extractive(question: str, sources: Sequence[Source]) -> str:
    """The extractive answer to each part of the question (a part with no answer is left out)."""
    parts = question_parts(question)
    if len(parts) < 2:
        return extractive_answer(question, sources)
    answers = [extractive_answer(p, sources) for p in parts]
    answered = [a for a in dict.fromkeys(answers) if "[" in a]  # no marker: "the sources do not contain..."
    if not answered:
        return extractive_answer(question, sources)
    # each part's sentences, without repeating a sentence an earlier part already quoted
    seen: set[str] = set()
    out = []
    for answer in answered:
        sentences = [s for s in re.split(r"(?<=\])\s+", answer.strip()) if s and s not in seen]
        seen.update(sentences)
        out.extend(sentences)
    return " ".join(out)


def verified(answer: CitedAnswer, answerer: Answerer) -> CitedAnswer:
    """``answer`` with the model's verdict on each cited claim (one more call; ``cite_core.verify``)."""
    claims = len(answer.claims)
    if claims:
        print(
            strip_controls(f"cite: verifying {claims} cited claim(s) with {answerer.name}"), file=sys.stderr
        )
    try:
        return verify(answer, answerer.model)
    except CliError:
        raise
    except Exception as exc:
        raise CliError(_model_error(exc, answerer)) from exc


def _messages(question: str, sources: Sequence[Source], max_tokens: int | None) -> Any:
    from cite_core import TokenizerUnavailableError

    if max_tokens:
        try:
            return build_messages(question, sources, max_tokens=max_tokens)
        except TokenizerUnavailableError:
            pass  # no tokenizer files offline: send what retrieval returned
    return build_messages(question, sources)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(
            b.get("text", "") if isinstance(b, dict) else str(b)
            for b in content
            if not isinstance(b, dict) or b.get("type", "text") == "text"
        )
    return ""


def _model_error(exc: BaseException, answerer: Answerer) -> str:
    name = type(exc).__name__
    message = " ".join(str(exc).split())[:200] or name
    if "Connection" in name or "Timeout" in name or "ConnectError" in name:
        return f"cannot reach the model at {answerer.where or answerer.name}: {message}"
    if "Authentication" in name or "PermissionDenied" in name:
        return f"the model at {answerer.where or answerer.name} refused the API key: {message}"
    if "NotFound" in name:
        return f"model {answerer.name!r} not found at {answerer.where or 'its provider'}: {message}"
    return f"the model {answerer.name!r} failed: {name}: {message}"


def choose_answerer(
    model: str | None, base_url: str | None, api_key: str | None, *, max_tokens: int | None = 12000
) -> Answerer:
    """The configured answerer: flags first, then ``CITE_MODEL``/``CITE_BASE_URL``/``CITE_API_KEY``."""
    model = model or os.environ.get("CITE_MODEL") or None
    base_url = base_url or os.environ.get("CITE_BASE_URL") or None
    api_key = api_key or os.environ.get("CITE_API_KEY") or None
    if not model and not base_url:
        return Answerer(name="extractive", extractive=True, max_tokens=max_tokens)
    if base_url:
        if not re.match(r"https?://", base_url):
            raise CliError(f"--base-url must be an http(s) URL, got {base_url!r}")
        openai = require("langchain_openai", "--base-url (an OpenAI-compatible server)")
        name = model or "default"
        chat = openai.ChatOpenAI(
            model=name,
            base_url=base_url,
            api_key=api_key or "not-needed",
            streaming=True,
            temperature=0,
            max_retries=0,
            timeout=120,
        )
        return Answerer(name=name, model=chat, where=base_url, max_tokens=max_tokens)
    try:
        chat_models = __import__("langchain.chat_models", fromlist=["init_chat_model"])
    except ImportError as exc:
        raise CliError(
            f"--model {model!r} without --base-url needs the 'langchain' package for init_chat_model: "
            "the extra cite-anything[cli] (in a clone: pip install -e '.[cli]') plus the provider's package "
            "(e.g. langchain-anthropic), "
            "or pass --base-url for an OpenAI-compatible server"
        ) from exc
    assert model is not None  # no base URL here, and not both missing
    kwargs: dict[str, Any] = {"temperature": 0}
    if api_key:
        kwargs["api_key"] = api_key
    try:
        chat = chat_models.init_chat_model(model, **kwargs)
    except Exception as exc:
        raise CliError(f"cannot load model {model!r}: {' '.join(str(exc).split())[:200]}") from exc
    return Answerer(name=model, model=chat, max_tokens=max_tokens)
