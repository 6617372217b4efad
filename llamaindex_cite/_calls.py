"""The LLM calls of one cited synthesis: one numbering, shown over as many calls as the budget needs.

The nodes are numbered once. ``compact`` (the default) packs the numbered sources, best first, into as
few calls as fit; ``refine`` shows one source per call. The first call is cite_core's prompt; each later
call is LlamaIndex's refine prompt showing the existing answer as the model wrote it (its ``[n]``
markers kept) and the next sources under their own numbers, so every label shown is a label the parser
knows and the last answer is parsed against every source shown. ``single`` makes one call; the sources
that do not fit are dropped, lowest-ranked first. In every mode a source too big for a call on its own is
shown in part (cite_core's ``on_overflow="truncate"``), and sources that no call can hold are dropped.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from llama_index.core.prompts.default_prompts import DEFAULT_REFINE_PROMPT

from cite_core import (
    MESSAGE_FRAMING_TOKENS,
    CitationPrompt,
    Source,
    TokenBudgetError,
    build_prompt,
    citation_instructions,
    format_sources,
    token_counter,
)

from ._convert import NumberedNodes
from ._reasoning import adeltas, areplayed, cut_off, deltas, replayed, reply_parts
from ._streaming import AsyncCitedStreamingResponse, CitedStreamingResponse
from ._verify import judge_of, verified

if TYPE_CHECKING:
    from ._synthesizer import CiteSynthesizer

__all__ = [
    "DEFAULT_REFINE_PROMPT",
    "CallPlan",
    "ResponseMode",
    "Run",
    "adeltas",
    "aiterate",
    "araw",
    "deltas",
    "verified",
]

ResponseMode = Literal["compact", "refine", "single"]
logger = logging.getLogger("llamaindex_cite")


class CallPlan:
    """Plans the calls of one synthesis, one after the other (a later call needs the earlier answer)."""

    def __init__(self, synthesizer: CiteSynthesizer, question: str, sources: Sequence[Source]) -> None:
        self.synthesizer = synthesizer
        # a chat turn's question names the reader's numbers: the model reads it in this call's numbering
        rewrite = getattr(synthesizer, "question", None)  # CiteChatEngine's ConversationSynthesizer
        self.question = rewrite(question, sources) if rewrite is not None else question
        self.rest = list(sources)
        """The sources not shown yet, best first, with their numbers."""
        self.shown: list[Source] = []
        """Every source shown so far (a truncated one as the part shown)."""
        self.truncated: list[Source] = []
        self.dropped: list[Source] = []
        self.calls = 0
        self.mode: ResponseMode = "single" if synthesizer.style == "statements" else synthesizer.response_mode
        """The response mode used: ``statements`` numbers sentences across the sources of one call, so
        that style makes one call."""

    @property
    def final(self) -> bool:
        """Whether the call planned last shows the last sources (its answer is the answer)."""
        return not self.rest

    def prompt(self) -> CitationPrompt:
        """What the answer is parsed against: every source shown, and those dropped or cut."""
        return CitationPrompt(
            messages=[],
            sources=list(self.shown),
            dropped=list(self.dropped),
            truncated=list(self.truncated),
            style=self.synthesizer.style,
        )

    def first(self) -> CitationPrompt:
        """The first call: cite_core's prompt over as many sources as fit (one, in ``refine`` mode)."""
        s = self.synthesizer
        candidates = self.rest[:1] if self.mode == "refine" else self.rest
        prompt = self._fit(candidates, s.system_template, s.user_template)
        if prompt is None:
            raise TokenBudgetError(
                f"the instructions and question alone do not fit the prompt budget of {s.budget()} tokens"
            )
        self._advance(prompt.sources, bool(prompt.truncated))
        if self.mode == "single":
            self.drop_rest()
        return prompt

    def next(self, existing_answer: str) -> CitationPrompt | None:
        """The next call: the refine prompt with ``existing_answer`` (as the model wrote it) and the next
        sources; None when none fits beside the answer (the rest are dropped)."""
        s = self.synthesizer
        template = (s.refine_template or DEFAULT_REFINE_PROMPT).get_template()
        escaped = existing_answer.replace("{", "{{").replace("}", "}}")
        user = template.replace("{existing_answer}", escaped)
        user = user.replace("{query_str}", "{question}").replace("{context_msg}", "{sources}")
        candidates = self.rest[:1] if self.mode == "refine" else self.rest
        local = [source.model_copy(update={"number": n}) for n, source in enumerate(candidates, start=1)]
        prompt = self._fit(local, s.system_template, user)
        if prompt is None:
            self.drop_rest()
            return None
        group = [
            part.model_copy(update={"number": candidates[part.number - 1].number}) for part in prompt.sources
        ]
        cut, count = bool(prompt.truncated), token_counter(s.encoding)
        while True:  # the same sources under their own numbers; when a digit more does not fit, one fewer
            system = citation_instructions(group[-1].number, style=s.style, template=s.system_template)
            content = user.format(question=self.question, sources=format_sources(group, style=s.style))
            if len(group) == 1 or count(system) + count(content) + MESSAGE_FRAMING_TOKENS <= s.budget():
                break
            group, cut = group[:-1], False
        self._advance(group, cut)
        messages = [{"role": "system", "content": system}, {"role": "user", "content": content}]
        return CitationPrompt(messages=messages, sources=group)

    # -- budget -------------------------------------------------------------------------------------

    def _fit(self, sources: list[Source], system: str | None, user: str | None) -> CitationPrompt | None:
        """cite_core's prompt over the best ``sources`` that fit whole; the first one in part when it
        does not fit alone; None when not even that fits."""
        s = self.synthesizer
        options: dict[str, Any] = {
            "style": s.style,
            "max_tokens": s.budget(),
            "encoding": s.encoding,
            "system_template": system,
            "user_template": user,
            # in compact and refine the sources left out go to later calls: they are not dropped
            "warn_dropped": self.mode == "single",
        }
        for overflow in ("drop", "truncate"):
            try:
                return build_prompt(self.question, sources, on_overflow=overflow, **options)
            except TokenBudgetError:
                continue
        return None

    def _advance(self, shown: list[Source], cut: bool) -> None:
        """One more call shows ``shown`` (the next sources; the last of them in part when ``cut``)."""
        self.calls += 1
        self.shown += shown
        if cut:
            self.truncated.append(self.rest[len(shown) - 1])
        self.rest = self.rest[len(shown) :]

    def drop_rest(self) -> None:
        """Show no more sources: the rest are dropped."""
        if self.rest and self.mode != "single":  # single: cite_core logged it
            # one short line: 5,000 numbers written out made a 28 KB warning
            numbers = ", ".join(str(source.number) for source in self.rest[:10])
            more = f" and {len(self.rest) - 10} more" if len(self.rest) > 10 else ""
            logger.warning(
                "token budget: %d source(s) not shown to the model (numbers %s%s)",
                len(self.rest),
                numbers,
                more,
            )
        self.dropped += self.rest
        self.rest = []


@dataclass
class Run:
    """One synthesis: the numbered nodes, the call plan, and the response once made."""

    numbered: NumberedNodes
    plan: CallPlan
    response: Any = None

    def reply(self, reply: Any, streaming: bool = False, aio: bool = False) -> None:
        """The response of a whole final ``ChatResponse`` (its reasoning beside its text), streamed as
        one chunk when ``streaming``."""
        text, reasoning = reply_parts(reply)
        truncated = cut_off(reply)
        if streaming:
            parts = (
                areplayed(text, reasoning, truncated) if aio else iter(replayed(text, reasoning, truncated))
            )
            self.respond(parts)
        else:
            self.respond(text, reasoning=reasoning, truncated=truncated)

    def respond(self, text: Any, **options: Any) -> None:
        """The response of the final answer: ``text`` (a str), or its deltas when streaming."""
        synthesizer, prompt, numbered = self.plan.synthesizer, self.plan.prompt(), self.numbered
        threshold = synthesizer.unsupported_threshold
        response: Any
        if not isinstance(text, str):
            kind = AsyncCitedStreamingResponse if hasattr(text, "__aiter__") else CitedStreamingResponse
            response = kind.start(
                text,
                numbered,
                prompt,
                unsupported_threshold=threshold,
                embeddings=synthesizer.embeddings,
                # a conversation's numbers (CiteChatEngine's ConversationSynthesizer)
                numbering=synthesizer.numbering(prompt.sources)
                if hasattr(synthesizer, "numbering")
                else None,
                judge=judge_of(synthesizer),
                **options,
            )
        elif "answer" in options:
            response = numbered.response(
                options["answer"], raw=text, shown=prompt.sources, dropped=prompt.dropped
            )
        else:
            response = synthesizer.respond(
                numbered,
                prompt,
                text,
                reasoning=options.get("reasoning", ""),
                truncated=options.get("truncated", False),
            )
        cut = {source.number for source in prompt.truncated}
        parts = [source for source in prompt.sources if source.number in cut]
        response.metadata.update(
            llm_calls=self.plan.calls,
            truncated_sources=list(prompt.truncated),
            dropped_nodes=numbered.dropped_nodes(prompt.dropped, parts),
        )
        self.response = response


async def araw(responses: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for response in responses:
        yield response.raw


async def aiterate(texts: list[str]) -> AsyncIterator[str]:
    for text in texts:
        yield text
