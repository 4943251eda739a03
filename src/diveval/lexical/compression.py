"""Compression ratio (Shaib et al. 2024): bytes of the documents joined / bytes after compression.

A corpus that repeats itself compresses well, so a HIGHER ratio means MORE REPETITIVE (less
diverse): the registry's direction is "lower". The POS compression ratio is the same ratio over
the sequence of part-of-speech tags, so it measures repeated syntax rather than repeated words.

Definitions, and where they differ from the ``diversity`` package (0.3.1):

* the documents are joined with one space, as the package does, but in code-point order
  (``groups.canonical_order``): the compressed size depends on the order, and a diversity score
  should not. ``keep_order=True`` joins them as given.
* gzip: ``len(text) / len(gzip.compress(text, 9))``. The package writes ``gzip.compress(text)``
  *through* a ``GzipFile``, i.e. it compresses twice and counts a second gzip header carrying the
  file name; its ratio is therefore slightly lower (a few percent on short corpora). xz: the
  package's single xz stream (preset 6, CRC64); diveval's equals it.
* the package rounds to 3 decimals; diveval does not.
* an empty join (no characters at all) has no ratio; by rule it scores 1.0 (nothing repeats).
"""

from __future__ import annotations

import gzip
import lzma
from typing import Any, Callable, Sequence

from ..errors import InputError
from ..results import Score
from .groups import canonical_order, score_groups

ALGORITHMS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda raw: gzip.compress(raw, compresslevel=9, mtime=0),
    "xz": lambda raw: lzma.compress(raw, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=6),
}


def _compressor(algorithm: str) -> Callable[[bytes], bytes]:
    if algorithm not in ALGORITHMS:
        raise InputError(
            f"unknown compression {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    return ALGORITHMS[algorithm]


def ratio_of_joined(
    texts: Sequence[str], algorithm: str = "gzip", keep_order: bool = False
) -> float:
    """Size of the texts joined by one space (UTF-8 bytes) / their compressed size."""
    compress = _compressor(algorithm)
    raw = " ".join(texts if keep_order else canonical_order(texts)).encode("utf-8")
    if not raw:
        return 1.0
    return len(raw) / len(compress(raw))


def compression_ratio(
    texts: Any, algorithm: str = "gzip", keep_order: bool = False, setting: str | None = None
) -> Score:
    """Compression ratio of a corpus, or of each set then the mean; higher = more repetitive.

    >>> compression_ratio(["the cat sat"] * 50).value > 10
    True
    """
    _compressor(algorithm)
    return score_groups(
        "compression-ratio",
        texts,
        lambda g: ratio_of_joined(g, algorithm, keep_order),
        {"alg": algorithm, "order": "given" if keep_order else "sorted"},
        setting,
    )


def pos_compression_ratio(
    texts: Any,
    algorithm: str = "gzip",
    keep_order: bool = False,
    setting: str | None = None,
    tagger: Any = None,
) -> Score:
    """Compression ratio of the part-of-speech tags (spaCy's fine-grained ``tag_``, one space
    between tags and between documents): repeated syntax. ``tagger`` maps a list of texts to their
    tag lists (default: spaCy ``en_core_web_md``, see ``models.pos_tagger``)."""
    from ..models.pos_tagger import default_tagger

    _compressor(algorithm)
    tag = tagger if tagger is not None else default_tagger()

    def one(group: list[str]) -> float:
        ordered = group if keep_order else canonical_order(group)
        tags = [" ".join(t) for t in tag.tags(ordered)]
        return ratio_of_joined(tags, algorithm, keep_order=True)

    return score_groups(
        "pos-compression-ratio",
        texts,
        one,
        {"alg": algorithm, "order": "given" if keep_order else "sorted", "tagger": tag.name},
        setting,
    )
