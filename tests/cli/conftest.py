"""Fixtures for the CLI tests: a small corpus (.txt, .md and a hand-written PDF) and a fake model server."""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import LocalServer, delta_size, sse

# A test runner started in the background of a non-interactive shell (`cmd &`) ignores SIGINT, and the
# commands the tests start inherit that: Python then installs no KeyboardInterrupt handler and the
# interrupt tests' SIGINTs pass unnoticed (test_kill saw every kill end with exit 0). Handlers are reset
# at exec, an ignored signal is not, so the default handler here is what the children start with.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

SKY = (
    "The daytime sky looks blue because of Rayleigh scattering. Sunlight is scattered by the molecules of "
    "the air, and shorter wavelengths are scattered much more strongly than longer ones.\n\n"
    "At sunset the light crosses more air, so the blue is scattered away and reds dominate.\n"
)
LEAVES = (
    "# Why leaves are green\n\n"
    "Chlorophyll absorbs red and blue light and reflects green light, which is why leaves look green.\n"
    "Photosynthesis takes place mainly in the chloroplasts of leaf cells.\n"
)
ZH = "天空之所以呈现蓝色，是因为瑞利散射。太阳光穿过大气时，波长较短的蓝光比波长较长的红光散射得更强烈。\n"
PDF_PAGES = [
    "Optics lecture notes. Chapter one covers reflection and refraction.",
    "Lord Rayleigh described the scattering of light by small particles in 1871.",
]


def minimal_pdf(pages: list[str]) -> bytes:
    """A valid PDF with one line of Helvetica text per page, written by hand (no library)."""
    objects: list[bytes] = []
    n = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    font = 3 + 2 * n
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    for i, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 11 Tf 40 700 Td ({escaped}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    (folder / "sub").mkdir(parents=True)
    (folder / "sky.txt").write_text(SKY, encoding="utf-8")
    (folder / "leaves.md").write_text(LEAVES, encoding="utf-8")
    (folder / "sub" / "天空.txt").write_text(ZH, encoding="utf-8")
    (folder / "optics.pdf").write_bytes(minimal_pdf(PDF_PAGES))
    (folder / "notes.csv").write_text("ignored,file\n", encoding="utf-8")
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "secret.txt").write_text("hidden text", encoding="utf-8")
    return folder


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in a fresh current folder with no model configured in the environment."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for name in ("CITE_MODEL", "CITE_BASE_URL", "CITE_API_KEY", "CITE_QDRANT_URL", "CITE_DENSE", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    return work


class FakeModel:
    """An OpenAI-compatible chat server on 127.0.0.1 that streams a recorded answer.

    The answer is a template: ``{sky}`` and ``{pdf}`` become the numbers of the sources whose titles
    are ``sky`` and ``optics`` in the prompt it receives (so the test does not depend on ranking).
    """

    def __init__(self, template: str) -> None:
        self.template = template
        self.requests: list[dict[str, Any]] = []
        self.server = LocalServer(self._complete)
        self.url = f"{self.server.url}/v1"

    def _complete(self, path: str, body: dict[str, Any]) -> tuple[int, str, list[str]]:
        """The answer as chat-completion chunks of up to 7 characters (``tests.fakes.delta_size``), one
        server-sent event each."""
        self.requests.append(body)
        prompt = "\n".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))
        numbers = {
            title: number for number, title in re.findall(r'<source number="(\d+)" title="([^"]+)"', prompt)
        }
        answer = self.template.format(sky=numbers.get("sky", "9"), pdf=numbers.get("optics", "9"))
        events = []
        size = delta_size(7)
        for piece in [*re.findall(f".{{1,{size}}}", answer, re.S), None]:
            choice = {
                "index": 0,
                "delta": {"content": piece} if piece else {},
                "finish_reason": None if piece else "stop",
            }
            chunk = {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
            }
            events.append(sse(chunk))
        return 200, "text/event-stream", [*events, sse("[DONE]")]

    def __enter__(self) -> FakeModel:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)


@pytest.fixture
def fake_model() -> Iterator[FakeModel]:
    with FakeModel(
        "The sky is blue because shorter wavelengths are scattered much more strongly [{sky}]. "
        "Rayleigh described this scattering in 1871 [{pdf}]. An invented source [42]."
    ) as model:
        yield model


@pytest.fixture
def fake_model_class() -> type[FakeModel]:
    """The fake server class, for tests that script their own answer (no ``from conftest import``)."""
    return FakeModel
