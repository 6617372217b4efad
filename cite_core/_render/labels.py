"""Labels of every rendered format in English, Spanish and Chinese, and the language guess.

One table (``LABELS``) serves HTML, Markdown, the terminal and the notes, so a language is added in one
place. ``{0}``/``{items}``/``{count}`` are filled with ``str.format``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._schema.models import Citation, Reference

__all__ = [
    "LABELS",
    "LANGUAGES",
    "MAX_LABEL_CHARS",
    "cited_pages",
    "detect_lang",
    "labels_for",
    "one_line",
    "page_text",
    "pages_cited",
    "short",
    "short_name",
]

MAX_LABEL_CHARS = 300
"""Titles, authors, URLs and other metadata are shown cut to this many characters (with ``…``); HTML
keeps the whole title in the reference's ``data-title`` attribute. A 100 KB title without spaces
otherwise takes seconds to lay out on every hover."""

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "references": "References",
        "sources": "Sources",
        "source": "Source",
        "close": "Close",
        "reference": "Reference",
        "back": "Back to the answer",
        "open": "Open the source at this passage",
        "page": "p. {0}",
        "pages": "pp. {0}–{1}",
        "page_list": "pp. {0}",
        "weak": "weak support",
        "cited": "Cited passage",
        "note": "Note: ",
        "note_invalid_markers": "Markers that pointed at no source were removed: {items}",
        "note_unsupported": "Weak support: the cited passage may not back the claim at {items}",
        "note_unverified": (
            "Cited by the model's provider; the quoted text was not checked against the source at {items}"
        ),
        "note_removed_reference_list": (
            "The model wrote its own reference list; it was removed, and the references below come "
            "from the markers in the answer."
        ),
        "note_extractive": (
            "Extractive answer: no language model wrote it; its sentences are quoted from the sources."
        ),
        "note_verification": "Checked against the cited passages by {judge}: {items}",
        "note_verification_failed": "Not verified: {problem}",
        "verdict_supported": "supported",
        "verdict_partially_supported": "partly supported",
        "verdict_not_supported": "not supported",
        "verdict_contradicted": "contradicted",
        "note_dropped_sources": (
            "{count} source(s) did not fit the token budget and were not shown to the model: {items}"
        ),
        "note_truncated": (
            "The answer was cut off before the model finished (its output token limit or a lost connection)."
        ),
        "note_stopped_in_reasoning": (
            "The model stopped while still reasoning, for example at its output token limit, before "
            "it finished answering."
        ),
        "note_empty_answer": "The model gave no answer: its reply was empty.",
        "note_no_model_no_sources": (
            "No sources were retrieved, so no model was asked and there is no answer."
        ),
        "note_no_model_no_text": (
            "Only the retrieved sources were asked for (no text), so no model was asked and there is "
            "no answer."
        ),
        "note_left_out": (
            "Given but not shown to the model or not citable, so left out of the sources: {items}"
        ),
    },
    "es": {
        "references": "Referencias",
        "sources": "Fuentes",
        "source": "Fuente",
        "close": "Cerrar",
        "reference": "Referencia",
        "back": "Volver a la respuesta",
        "open": "Abrir la fuente en este pasaje",
        "page": "p. {0}",
        "pages": "pp. {0}–{1}",
        "page_list": "pp. {0}",
        "weak": "respaldo débil",
        "cited": "Pasaje citado",
        "note": "Nota: ",
        "note_invalid_markers": "Se quitaron marcadores que no remitían a ninguna fuente: {items}",
        "note_unsupported": "Respaldo débil: el pasaje citado puede no sostener la afirmación en {items}",
        "note_unverified": (
            "Citado por el proveedor del modelo; el texto citado no se comprobó en la fuente en {items}"
        ),
        "note_removed_reference_list": (
            "El modelo escribió su propia lista de referencias; se quitó, y las referencias de abajo "
            "salen de los marcadores de la respuesta."
        ),
        "note_extractive": (
            "Respuesta extractiva: no la escribió ningún modelo de lenguaje; "
            "sus frases se citan de las fuentes."
        ),
        "note_verification": "Comprobado con los pasajes citados por {judge}: {items}",
        "note_verification_failed": "Sin verificar: {problem}",
        "verdict_supported": "respaldada",
        "verdict_partially_supported": "respaldada en parte",
        "verdict_not_supported": "sin respaldo",
        "verdict_contradicted": "contradicha",
        "note_dropped_sources": (
            "{count} fuente(s) no cabían en el presupuesto de tokens y no se mostraron al modelo: {items}"
        ),
        "note_truncated": (
            "La respuesta se cortó antes de que el modelo terminara (su límite de tokens de salida o una "
            "conexión perdida)."
        ),
        "note_stopped_in_reasoning": (
            "El modelo se detuvo mientras aún razonaba, por ejemplo al llegar a su límite de tokens de "
            "salida, antes de terminar la respuesta."
        ),
        "note_empty_answer": "El modelo no dio ninguna respuesta: su respuesta estaba vacía.",
        "note_no_model_no_sources": (
            "No se recuperó ninguna fuente, así que no se consultó a ningún modelo y no hay respuesta."
        ),
        "note_no_model_no_text": (
            "Solo se pidieron las fuentes recuperadas (sin texto), así que no se consultó a ningún modelo "
            "y no hay respuesta."
        ),
        "note_left_out": (
            "Se dieron pero no se mostraron al modelo o no se pueden citar, así que quedaron fuera de las "
            "fuentes: {items}"
        ),
    },
    "zh": {
        "references": "参考文献",
        "sources": "来源",
        "source": "来源",
        "close": "关闭",
        "reference": "参考",
        "back": "返回回答",
        "open": "在此段落处打开来源",
        "page": "第 {0} 页",
        "pages": "第 {0}–{1} 页",
        "page_list": "第 {0} 页",
        "weak": "支持度低",
        "cited": "引用的段落",
        "note": "说明：",
        "note_invalid_markers": "以下标记没有对应的来源，已移除：{items}",
        "note_unsupported": "支持度低：以下标记所引的段落可能不足以支持相应说法：{items}",
        "note_unverified": "以下标记由模型提供方给出引用，所引文字未在来源中核对：{items}",
        "note_removed_reference_list": (
            "模型自行写出的参考文献列表已被移除；下面的参考文献根据回答中的标记生成。"
        ),
        "note_extractive": "抽取式回答：没有使用语言模型，句子直接摘自来源。",
        "note_verification": "已由 {judge} 对照所引段落核查：{items}",
        "note_verification_failed": "未核查：{problem}",
        "verdict_supported": "有依据",
        "verdict_partially_supported": "部分有依据",
        "verdict_not_supported": "无依据",
        "verdict_contradicted": "与来源矛盾",
        "note_truncated": "回答在模型完成之前被截断（达到输出 token 上限或连接中断）。",
        "note_stopped_in_reasoning": "模型在推理过程中停止（例如达到输出 token 上限），未完成回答。",
        "note_empty_answer": "模型没有给出回答：它的回复是空的。",
        "note_no_model_no_sources": "没有检索到任何来源，因此没有询问模型，也没有回答。",
        "note_no_model_no_text": "只请求了检索到的来源（不要文本），因此没有询问模型，也没有回答。",
        "note_left_out": "以下内容已提供，但未展示给模型或无法引用，因此未列为来源：{items}",
        "note_dropped_sources": "{count} 个来源超出 token 预算，未提供给模型：{items}",
    },
}
"""Every label, per language; every language has every key (a test checks it)."""

LANGUAGES = tuple(LABELS)
"""The languages with labels: ``en``, ``es``, ``zh``."""

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_]+")
_ES_WORDS = frozenset(
    """el la los las de del que y en es por para con una un se su sus al lo como más pero sin sobre
    entre también está son fue ser esta este estos estas""".split()
)
_EN_WORDS = frozenset(
    "the of and to in is are was for with that this it as by on be from or an which not".split()
)


def labels_for(lang: str | None) -> dict[str, str]:
    """The labels of ``lang`` (``"es-MX"`` gives Spanish); English for any other language."""
    return LABELS.get((lang or "en").split("-")[0].split("_")[0].lower(), LABELS["en"])


def detect_lang(text: str) -> str:
    """``zh`` when CJK characters make up a third of the letters, ``es`` when Spanish words outnumber
    English ones (or ``ñ``/``¿``/``¡`` appear among mostly Latin words), else ``en``."""
    letters = len(_LETTER.findall(text))
    cjk = len(_CJK.findall(text))
    if cjk and cjk * 3 >= letters:
        return "zh"
    words = [w.lower() for w in _WORD.findall(text[:20_000])]
    es = sum(w in _ES_WORDS for w in words) + 3 * sum(c in "ñ¿¡" for c in text[:20_000])
    en = sum(w in _EN_WORDS for w in words)
    return "es" if es > en else "en"


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (line breaks included) made one space."""
    return " ".join(text.split())


_NAME_CONTROLS = {c: 0x2400 + c for c in range(0x20) if c != 0x09}  # C0 -> its control picture (␊ ␍ ␛)
_NAME_CONTROLS.update(dict.fromkeys(range(0x80, 0xA0), 0xFFFD))  # C1 -> �, as strip_controls shows them
_NAME_CONTROLS.update({0x7F: 0x2421, 0x85: 0x2424, 0x2028: 0x2424, 0x2029: 0x2424})  # DEL ␡; NEL, LS, PS ␤


def short_name(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    """A title, path or author as a reference list shows it: :func:`short`, but a line break is shown as
    ``␊`` (``\\r`` as ``␍``, as the CLI's messages show file names) and every other control character as
    its picture, so ``a\\nb.txt`` is neither two lines nor ``a b.txt``, and no control hides text."""
    return short(text.translate(_NAME_CONTROLS), limit)


def short(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters (the last one ``…``) when longer."""
    head = text[: 4 * limit]  # do not split megabytes to show a few hundred characters
    line = one_line(head)
    if len(line) > limit:
        return line[: limit - 1] + "…"
    return line + "…" if len(head) < len(text) and text[len(head) :].strip() else line


def pages_cited(ref: Reference, citations: Iterable[Citation]) -> tuple[int, int] | None:
    """The page range cited from a paged source (first page, last page), else the source's own pages."""
    ranges = [(c.start_page_number, c.end_page_number - 1) for c in citations if c.type == "page_location"]
    if ranges:
        return min(a for a, _ in ranges), max(b for _, b in ranges)
    pages = ref.source.pages
    return (min(pages), max(pages)) if pages else None


def page_text(pages: tuple[int, int] | None, labels: dict[str, str], printed: Any = None) -> str | None:
    """``p. 3`` or ``pp. 3–5`` (in the labels' language), or None without pages. ``printed``: a source's
    ``metadata["page_labels"]`` (physical page -> printed label): ``p. ii`` for physical page 2 of a
    book whose front matter is numbered i, ii (``page_location`` stays the physical page)."""
    if pages is None:
        return None
    names = printed if isinstance(printed, dict) else {}
    first, last = (str(names.get(str(p), p)) for p in pages)
    return labels["page"].format(first) if first == last else labels["pages"].format(first, last)


def cited_pages(ref: Reference, citations: Iterable[Citation], labels: dict[str, str]) -> str | None:
    """The pages a reference's citations come from, as a reader finds them: the physical pages (shown
    by their printed labels when known), else, for a source without page numbers, the printed labels
    of the chunks cited (``metadata["segment_page_labels"]``), else None. Untrusted text: escape it."""
    citations = list(citations)
    shown = page_text(pages_cited(ref, citations), labels, ref.source.metadata.get("page_labels"))
    return shown if shown is not None else _segment_pages(ref, citations, labels)


def _segment_pages(ref: Reference, citations: list[Citation], labels: dict[str, str]) -> str | None:
    """Only when every cited chunk has a label: a range naming some of them would place the others."""
    by_segment = ref.source.metadata.get("segment_page_labels")
    if not isinstance(by_segment, list) or not by_segment:
        return None
    cited = sorted({c.segment for c in citations if isinstance(c.segment, int)})
    if len(cited) < len(citations) or not citations:
        cited = list(range(len(by_segment)))  # a citation without its segment: the whole source's
    found = [by_segment[i] if 0 <= i < len(by_segment) else None for i in cited]
    if not all(isinstance(label, str) and label for label in found):
        return None
    # printed labels have no order to make a range of (chunks may come in rank order): each is named
    names = list(dict.fromkeys(str(label) for label in found))
    if len(names) == 1:
        return labels["page"].format(names[0])
    return labels["page_list"].format(", ".join(names))
