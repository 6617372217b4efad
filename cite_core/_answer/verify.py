"""``verify(answer, judge)``: a grounding check of every cited claim with the user's own model.

The lexical ``support`` score cannot see that "28 to 32 days" is not "28 to 35 days". A judge can: a
LangChain chat model (``invoke``), a LlamaIndex LLM (``complete``), a plain function from a prompt to
its reply, or a local NLI cross-encoder (sentence-transformers' ``CrossEncoder``: ``predict``). The
judge is recognised by what it has (the core never imports a framework) and called **once per answer**:
every cited claim with the passages it cites goes into one prompt (``_prompt_verify``), answered with
one JSON object that is validated; a malformed reply is asked again once, then reported on the answer
(``Verification.problem``), never guessed. A cross-encoder scores every (passages, claim) pair in one
``predict`` call. Each claim's verdict is stored on the answer (``answer.claims[i].verdict``,
``answer.verdicts``, ``answer.verification``) and shown by every renderer (a note).
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Generator, Iterable, Mapping
from typing import Any

from .._args import shown
from .._exceptions import ArgumentError
from .._schema.models import CitedAnswer
from .._schema.verdicts import Verdict, Verification
from .prompt_verify import (
    VERIFY_RETRY_TEMPLATE,
    ClaimToCheck,
    MalformedReply,
    parse_verdicts,
    verify_messages,
)

__all__ = ["NLI_PARTIAL", "averify", "judge_kind", "verify"]

NLI_PARTIAL = 0.25
"""A cross-encoder pair whose most likely label is neutral is ``partially_supported`` when its
entailment probability reaches this (else ``not_supported``); not tuned on any data."""
_NLI_DEFAULT_LABELS = ("contradiction", "entailment", "neutral")
"""The label order of the common NLI cross-encoders, used when the model names no labels."""

Reply = Generator[list[dict[str, str]], Any, tuple[list[Verdict] | None, int, str | None]]


def judge_kind(judge: Any) -> str:
    """How ``judge`` is called: ``langchain`` (``invoke``/``ainvoke``), ``llamaindex`` (``complete``/
    ``acomplete``), ``cross-encoder`` (``predict`` of (premise, hypothesis) pairs) or ``callable``."""
    if hasattr(judge, "invoke") and hasattr(judge, "ainvoke"):
        return "langchain"
    if hasattr(judge, "complete") and hasattr(judge, "acomplete"):
        return "llamaindex"
    if callable(getattr(judge, "predict", None)):
        return "cross-encoder"
    if callable(judge):
        return "callable"
    raise ArgumentError(
        "judge must be a LangChain chat model, a LlamaIndex LLM, a sentence-transformers CrossEncoder or a "
        f"function from a prompt (str) to its reply, got {type(judge).__name__}"
    )


def _name(judge: Any, kind: str) -> str:
    label = getattr(judge, "__name__", None) if kind == "callable" else None
    while kind == "langchain" and getattr(judge, "bound", None) is not None:  # a model with its config
        judge = judge.bound
    return f"{kind}:{label or type(judge).__name__}"


def _claims(answer: CitedAnswer) -> list[ClaimToCheck]:
    labels = {ref.source.number - 1: f"[{ref.number}] {ref.source.label}" for ref in answer.references}
    return [
        (
            block.text,
            [(labels.get(c.document_index, f"[{c.reference}]"), c.cited_text) for c in block.citations],
        )
        for block in answer.content
        if block.citations
    ]


def _text(reply: Any) -> str:
    """The text of a model's reply: a string, a message (``content``: a string or text blocks), or a
    completion (``text``, ``message.content``)."""
    if isinstance(reply, str):
        return reply
    content = getattr(reply, "content", None)
    if content is None and getattr(reply, "message", None) is not None:
        content = getattr(reply.message, "content", None)
    if content is None:
        content = getattr(reply, "text", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # text blocks: only their str texts (a huge int would not print)
        texts = (b if isinstance(b, str) else b.get("text") if isinstance(b, dict) else "" for b in content)
        return "".join(t for t in texts if isinstance(t, str))
    raise MalformedReply(f"the judge returned a {type(reply).__name__}, not text or a message")


def _flat(messages: list[dict[str, str]]) -> str:
    """Messages as one prompt, for judges that take text (LlamaIndex ``complete``, a function)."""
    return "\n\n".join(
        m["content"] if m["role"] != "assistant" else f"Your reply:\n{m['content']}" for m in messages
    )


def _conversation(claims: list[ClaimToCheck]) -> Reply:
    """The exchange with a prompt judge: sends messages, receives reply texts; ends with the verdicts
    (or None), the calls made and the problem."""
    messages = verify_messages(claims)
    reply = yield messages
    try:
        return parse_verdicts(_text(reply), len(claims)), 1, None
    except MalformedReply as first:
        try:
            said = _text(reply)
        except MalformedReply:
            said = ""
        retry = [
            *messages,
            {"role": "assistant", "content": said},
            {"role": "user", "content": VERIFY_RETRY_TEMPLATE.format(problem=first, count=len(claims))},
        ]
    reply = yield retry
    try:
        return parse_verdicts(_text(reply), len(claims)), 2, None
    except MalformedReply as second:
        return None, 2, f"the judge's reply could not be read, twice (last: {second}); no claim was verified"


def _probabilities(row: Any) -> list[float]:
    """A row's scores as probabilities; ``MalformedReply`` when it is not a row of finite numbers."""
    items = row if isinstance(row, (list, tuple)) else [row]
    if not items or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        raise MalformedReply("a row that is not numbers")
    try:
        values = [float(v) for v in items]
    except OverflowError:  # an int too large for a float
        raise MalformedReply("a score too large for a float") from None
    if not all(math.isfinite(v) for v in values):
        raise MalformedReply("a score that is not finite")
    if len(values) > 1 and not (all(0 <= v <= 1 for v in values) and abs(sum(values) - 1) < 1e-3):
        top = max(values)
        exps = [math.exp(v - top) for v in values]
        values = [e / sum(exps) for e in exps]
    return values


def _nli_labels(judge: Any, width: int) -> tuple[str, ...]:
    config = getattr(judge, "config", None) or getattr(getattr(judge, "model", None), "config", None)
    names = getattr(config, "id2label", None)
    if isinstance(names, dict) and len(names) == width:
        return tuple(str(names[k]).lower() for k in sorted(names, key=int))
    return _NLI_DEFAULT_LABELS


def _nli_verdict(row: Any, labels: tuple[str, ...]) -> Verdict:
    probs = _probabilities(row)
    if len(probs) == 1:  # one score: the probability that the passages support the claim
        p = min(1.0, max(0.0, probs[0]))
        level = "supported" if p >= 0.5 else "partially_supported" if p >= NLI_PARTIAL else "not_supported"
        return Verdict(level=level, reason=f"support score {p:.2f}", score=p)
    named = dict(zip(labels, probs))
    entail = next((v for k, v in named.items() if k.startswith("entail")), 0.0)
    contra = next((v for k, v in named.items() if k.startswith("contradict")), 0.0)
    top = max(named, key=named.__getitem__)
    if top.startswith("entail"):
        level = "supported"
    elif top.startswith("contradict"):
        level = "contradicted"
    else:
        level = "partially_supported" if entail >= NLI_PARTIAL else "not_supported"
    reason = f"NLI: entailment {entail:.2f}, contradiction {contra:.2f}"
    return Verdict(level=level, reason=reason, score=min(1.0, max(0.0, entail)))


def _nli_pairs(claims: list[ClaimToCheck]) -> list[tuple[str, str]]:
    return [(" ".join(cited for _, cited in passages), claim.strip()) for claim, passages in claims]


def _listed(rows: Any) -> list[Any] | None:
    """What a cross-encoder returned as a list (a numpy array's ``tolist()``), or None when it is not
    a sequence of rows (None, a number, a str, a dict, an object whose iteration fails)."""
    try:
        rows = rows.tolist() if hasattr(rows, "tolist") else rows
        if not isinstance(rows, (str, bytes, Mapping)) and isinstance(rows, Iterable):
            return list(rows)
    except (TypeError, ValueError, AttributeError, RecursionError):
        pass
    return None


def _nli_result(judge: Any, rows: Any, count: int) -> tuple[list[Verdict] | None, int, str | None]:
    """The verdicts of a cross-encoder's scores, or the problem when they are not ``count`` rows of
    finite numbers (one row's width for all): never a built-in error from what the model returned."""
    listed = _listed(rows)
    if listed is None:
        return None, 1, f"the cross-encoder returned {shown(rows)}, not rows of scores; no claim was verified"
    rows = listed
    if len(rows) != count:
        return None, 1, f"the cross-encoder returned {len(rows)} scores for {count} claims; none was verified"
    first = rows[0] if rows else []
    width = len(first) if isinstance(first, (list, tuple)) else 1
    try:
        if any((len(row) if isinstance(row, (list, tuple)) else 1) != width for row in rows):
            raise MalformedReply("rows of different widths")
        labels = _nli_labels(judge, width)
        return [_nli_verdict(row, labels) for row in rows], 1, None
    except ValueError as problem:  # MalformedReply, or int() of a label id in the model's config
        return None, 1, f"the cross-encoder returned {problem}; no claim was verified"


def _check(answer: Any) -> CitedAnswer:
    if not isinstance(answer, CitedAnswer):
        raise ArgumentError(f"verify expects a CitedAnswer (from parse_answer), got {type(answer).__name__}")
    return answer


def _verified(
    answer: CitedAnswer, name: str, count: int, result: tuple[list[Verdict] | None, int, str | None]
) -> CitedAnswer:
    verdicts, calls, problem = result
    verified = answer.model_copy()
    verified._verification = Verification(
        judge=name,
        claims=count,
        calls=calls,
        verdicts=tuple(verdicts) if verdicts is not None else (None,) * count,
        problem=problem,
    )
    return verified


def verify(answer: CitedAnswer, judge: Any) -> CitedAnswer:
    """A copy of ``answer`` whose cited claims carry the judge's verdict (``answer.claims[i].verdict``,
    ``answer.verdicts``: supported, partially supported, not supported or contradicted, with a short
    reason) and whose ``verification`` says how it went. One model call per answer (two when the
    first reply is not the JSON asked for; a second bad reply is reported in ``verification.problem``,
    nothing guessed).
    ``judge``: a LangChain chat model, a LlamaIndex LLM, a sentence-transformers ``CrossEncoder`` (NLI),
    or a function from a prompt to its reply (async ones: ``averify``)."""
    answer = _check(answer)
    kind = judge_kind(judge)
    claims = _claims(answer)
    if not claims:
        return _verified(answer, _name(judge, kind), 0, ([], 0, None))
    if kind == "cross-encoder":
        result = _nli_result(judge, judge.predict(_nli_pairs(claims)), len(claims))
        return _verified(answer, _name(judge, kind), len(claims), result)
    exchange = _conversation(claims)
    messages = next(exchange)
    try:
        while True:
            messages = exchange.send(_call(judge, kind, messages))
    except StopIteration as done:
        return _verified(answer, _name(judge, kind), len(claims), done.value)


def _call(judge: Any, kind: str, messages: list[dict[str, str]]) -> Any:
    if kind == "langchain":
        return judge.invoke(messages)
    if kind == "llamaindex":
        return judge.complete(_flat(messages))
    reply = judge(_flat(messages))
    if inspect.isawaitable(reply):
        if hasattr(reply, "close"):
            reply.close()
        raise ArgumentError("the judge is an async function: use averify(answer, judge)")
    return reply


async def _acall(judge: Any, kind: str, messages: list[dict[str, str]]) -> Any:
    if kind == "langchain":
        return await judge.ainvoke(messages)
    if kind == "llamaindex":
        return await judge.acomplete(_flat(messages))
    reply = judge(_flat(messages))
    return await reply if inspect.isawaitable(reply) else reply


async def averify(answer: CitedAnswer, judge: Any) -> CitedAnswer:
    """``verify`` with the judge's async API (``ainvoke``, ``acomplete``, an async function; a
    cross-encoder runs in a thread)."""
    answer = _check(answer)
    kind = judge_kind(judge)
    claims = _claims(answer)
    if not claims:
        return _verified(answer, _name(judge, kind), 0, ([], 0, None))
    if kind == "cross-encoder":
        rows = await asyncio.to_thread(judge.predict, _nli_pairs(claims))
        return _verified(answer, _name(judge, kind), len(claims), _nli_result(judge, rows, len(claims)))
    exchange = _conversation(claims)
    messages = next(exchange)
    try:
        while True:
            messages = exchange.send(await _acall(judge, kind, messages))
    except StopIteration as done:
        return _verified(answer, _name(judge, kind), len(claims), done.value)
