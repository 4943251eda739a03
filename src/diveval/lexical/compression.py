"""Compression ratio (Shaib et al. 2024): bytes of the documents joined / bytes after compression.

A corpus that repeats itself compresses well, so a HIGHER ratio means MORE REPETITIVE (less
diverse): the registry's direction is "lower". The POS compression ratio is the same ratio over
the sequence of part-of-speech tags, so it measures repeated syntax rather than repeated words.

Definitions, and where they differ from the ``diversity`` package (0.3.1):

* the documents are joined with one space in the order given, as the paper and the package do
  (``join="given"``, the default). The compressed size depends on that order; ``join="sorted"``
  joins them in code-point order instead, so that the score is a property of the collection and
  not of its listing (signature ``join:given`` / ``join:sorted``).
* gzip: ``len(text) / len(gzip.compress(text, 9))``. The package writes ``gzip.compress(text)``
  *through* a ``GzipFile``, i.e. it compresses twice and counts a second gzip header carrying the
  file name; its ratio is therefore slightly lower (a few percent on short corpora). xz: the
  package's single xz stream (preset 6, CRC64); diveval's equals it.
* the package rounds to 3 decimals; diveval does not.
* an empty join (no characters at all) has no ratio; by rule it scores 1.0 (nothing repeats).
* the compressed size includes the container's fixed cost (gzip: about 20 bytes of header and
  trailer; xz: about 60 bytes of header, index, footer and check). On short texts (a set of a few
  short responses) that cost outweighs the text and the ratio falls below 1 whatever the text
  repeats: the Score then carries a warning (``details["warnings"]``, printed by the CLI).
"""

from __future__ import annotations

import gzip
import lzma
from typing import Any, Callable, Sequence

from ..errors import InputError
from ..models.pos_tagger import default_tagger
from ..results import Score
from .groups import check_join, group_score, in_join_order, text_groups

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


def joined_bytes(texts: Sequence[str], join: str = "given") -> bytes:
    """The texts joined by one space (in the order ``join`` says), as UTF-8."""
    return " ".join(in_join_order(texts, join)).encode("utf-8")


def ratio_of_joined(texts: Sequence[str], algorithm: str = "gzip", join: str = "given") -> float:
    """Size of the texts joined by one space (UTF-8 bytes) / their compressed size."""
    return _ratio(joined_bytes(texts, join), _compressor(algorithm))


def _ratio(raw: bytes, compress: Callable[[bytes], bytes]) -> float:
    return len(raw) / len(compress(raw)) if raw else 1.0


def container_bytes(algorithm: str) -> int:
    """The container's fixed cost: what compressing one byte adds beyond one byte."""
    return len(_compressor(algorithm)(b"\0")) - 1


def below_one_warnings(
    ratios: Sequence[float], sizes: Sequence[int], algorithm: str, what: str = "text"
) -> list[str]:
    """A warning when a ratio is below 1 (the compressed text is LARGER than the text): on short
    texts the container's header outweighs the text, and the ratio measures that, not repetition.
    ``ratios`` and ``sizes`` (bytes before compression): one per set, or one for a corpus (pass a
    single value). Empty when no ratio is below 1."""
    short = [(r, n) for r, n in zip(ratios, sizes) if n and r < 1]
    if not short:
        return []
    lowest = min(r for r, _ in short)
    longest = max(n for _, n in short)
    if len(ratios) == 1:
        where = f"the ratio is below 1 ({lowest:.3f}): the {what} ({longest} bytes)"
    else:
        where = (
            f"{len(short)} of {len(ratios)} sets have a ratio below 1 (lowest {lowest:.3f}): "
            f"their {what} (at most {longest} bytes)"
        )
    return [
        f"{where} compresses to MORE bytes than it has, because {algorithm}'s container adds "
        f"about {container_bytes(algorithm)} bytes of header and trailer to any input; on a text "
        "this short the ratio measures its length, not its repetition (compare only texts of "
        "similar, larger size, e.g. the corpus setting)"
    ]


def _compression_score(
    metric: str,
    texts: Any,
    to_bytes: Callable[[list[str]], bytes],
    algorithm: str,
    sig: dict,
    setting: str | None,
    what: str,
) -> Score:
    compress = _compressor(algorithm)
    found, groups = text_groups(texts, setting)
    raws = [to_bytes(g) for g in groups]
    values = [_ratio(raw, compress) for raw in raws]
    warnings = below_one_warnings(values, [len(r) for r in raws], algorithm, what)
    details = {"warnings": warnings} if warnings else {}
    return group_score(metric, values, found, sig, details)


def compression_ratio(
    texts: Any, algorithm: str = "gzip", join: str = "given", setting: str | None = None
) -> Score:
    """Compression ratio of a corpus, or of each set then the mean; higher = more repetitive.
    ``join``: ``"given"`` (default, the published definition) or ``"sorted"`` (code-point order).

    >>> compression_ratio(["the cat sat"] * 50).value > 10
    True
    """
    _compressor(algorithm)
    check_join(join)
    return _compression_score(
        "compression-ratio",
        texts,
        lambda g: joined_bytes(g, join),
        algorithm,
        {"alg": algorithm, "join": join},
        setting,
        "text",
    )


def pos_compression_ratio(
    texts: Any,
    algorithm: str = "gzip",
    join: str = "given",
    setting: str | None = None,
    tagger: Any = None,
) -> Score:
    """Compression ratio of the part-of-speech tags (spaCy's fine-grained ``tag_``, one space
    between tags and between documents, documents in the order ``join`` says): repeated syntax.
    ``tagger`` maps a list of texts to their tag lists (default: spaCy ``en_core_web_md``, see
    ``models.pos_tagger``)."""
    _compressor(algorithm)
    check_join(join)

    tag = tagger if tagger is not None else default_tagger()

    def tag_bytes(group: list[str]) -> bytes:
        tags = [" ".join(t) for t in tag.tags(in_join_order(group, join))]
        return joined_bytes(tags, "given")

    return _compression_score(
        "pos-compression-ratio",
        texts,
        tag_bytes,
        algorithm,
        {"alg": algorithm, "join": join, "tagger": tag.name},
        setting,
        "tag sequence",
    )
