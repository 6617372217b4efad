"""Fakes shared by the test folders (importable: ``from tests.fakes import hash_vector``).

Framework-free on purpose, so that importing it needs no optional extra; the LlamaIndex and LangChain
embedding classes of the tests wrap ``hash_vector``. The examples keep their own copy: tests may
depend on examples, examples never on tests.
"""

from __future__ import annotations

import hashlib
import math
import re

__all__ = ["hash_vector", "hash_vectors"]

_WORD = re.compile(r"\w+")


def hash_vector(text: str, size: int = 256) -> list[float]:
    """Deterministic offline embedding: a hashed bag of lower-cased words, L2-normalised."""
    vector = [0.0] * size
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vector[int.from_bytes(digest, "little") % size] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def hash_vectors(texts: list[str]) -> list[list[float]]:
    """``hash_vector`` of each text: the callable form ``embedding_scorer`` and ``embeddings=`` accept."""
    return [hash_vector(text) for text in texts]
