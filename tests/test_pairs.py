"""All pairs of a corpus in blocks within a memory budget, the refusal before any work, and the
seeded pair sample with its interval."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diveval
from diveval.data import ordered_pairs, unordered_pairs
from diveval.errors import InputError
from diveval.pairs import (
    BudgetError,
    pair_blocks,
    sampled_pair_chunks,
    unrank_unordered,
)
from diveval.semantic.homogenization import (
    homogenization_bleu,
    homogenization_rouge_l,
    rouge_l_pairs,
)
from diveval.semantic.vendi import ngram_features, vendi, vendi_from_kernel
from diveval.text.prepared import prepare

WORDS = "the a cat dog sat ran on under mat rug big small red very quickly".split()


def corpus(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=rng.integers(0, 14))) for _ in range(n)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 9), min_size=1, max_size=6),
    st.integers(1, 40),
    st.booleans(),
)
def test_pair_blocks_list_every_pair_once_in_the_order_of_the_whole_list(sizes, block, ordered):
    want = (ordered_pairs if ordered else unordered_pairs)(np.array(sizes))
    got = list(pair_blocks(np.array(sizes), block, ordered=ordered))
    assert all(f.size <= block for f, _ in got)
    first = np.concatenate([f for f, _ in got]) if got else np.zeros(0, np.int64)
    second = np.concatenate([s for _, s in got]) if got else np.zeros(0, np.int64)
    np.testing.assert_array_equal(first, want[0])
    np.testing.assert_array_equal(second, want[1])


def test_pair_numbers_of_a_huge_corpus_decode_exactly():
    # pair numbers past 2^53 / 8, where the float square root used to decode them rounds
    rng = np.random.default_rng(0)
    i = rng.integers(2, 3_000_000_000, size=100_000)
    i = np.concatenate([i, [2, 3, 4, 2**31, 3_000_000_000]])
    j = (rng.random(i.size) * i).astype(np.int64)
    j = np.concatenate([j[:-5], [0, 2, 3, 2**31 - 1, 0]])
    got_i, got_j = unrank_unordered(i * (i - 1) // 2 + j)
    np.testing.assert_array_equal(got_i, i)
    np.testing.assert_array_equal(got_j, j)


def _old_homogenization_rouge_l(texts: list[str]) -> tuple[float, np.ndarray]:
    """All pairs at once, as homogenization was computed before blocks."""
    n = len(texts)
    first, second, _ = unordered_pairs(np.array([n]))
    sim = rouge_l_pairs(texts, first, second)
    per_doc = (
        np.bincount(first, weights=sim, minlength=n) + np.bincount(second, weights=sim, minlength=n)
    ) / (n - 1)
    return float(per_doc.mean()), per_doc


def test_blocked_rouge_l_equals_all_pairs_at_once():
    texts = corpus(300, 1)
    want, per_doc = _old_homogenization_rouge_l(texts)
    tiny = homogenization_rouge_l(texts, memory_budget=2_000_000)
    assert tiny.details["estimate"]["block_pairs"] < 44_850 // 10  # many blocks
    assert tiny.value == pytest.approx(want, rel=1e-13, abs=1e-15)
    np.testing.assert_allclose(tiny.details["per_document"], per_doc, rtol=1e-13, atol=1e-15)
    whole = homogenization_rouge_l(texts, memory_budget="4G")
    assert whole.details["estimate"]["block_pairs"] == 44_850  # one block
    assert whole.value == pytest.approx(want, rel=1e-13, abs=1e-15)


def test_blocked_bleu_equals_one_block_in_corpus_and_sets():
    texts = corpus(250, 2)
    whole = homogenization_bleu(texts, memory_budget="4G")
    tiny = homogenization_bleu(texts, memory_budget=2_000_000)
    assert tiny.details["estimate"]["block_pairs"] < 250 * 249 // 10
    assert tiny.value == pytest.approx(whole.value, rel=1e-13, abs=1e-15)
    np.testing.assert_allclose(
        tiny.details["per_document"], whole.details["per_document"], rtol=1e-13, atol=1e-15
    )
    sets = [texts[:40], texts[40:45], texts[45:]]
    a = homogenization_bleu(sets, memory_budget="4G")
    b = homogenization_bleu(sets, memory_budget=2_000_000)
    np.testing.assert_allclose(a.items, b.items, rtol=1e-13, atol=1e-15)


def test_blocked_rouge_l_in_sets_equals_each_set_alone():
    texts = corpus(120, 3)
    sets = [texts[:50], texts[50:52], texts[52:]]
    got = homogenization_rouge_l(sets, memory_budget=1_000_000)
    want = [_old_homogenization_rouge_l(s)[0] for s in sets]
    np.testing.assert_allclose(got.items, want, rtol=1e-13, atol=1e-15)


def test_vendi_ngram_filled_in_blocks_equals_the_explicit_kernel():
    texts = [t for t in dict.fromkeys(corpus(260, 4)) if t]
    prep = prepare(texts)
    x = ngram_features(prep).toarray()
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    want = vendi_from_kernel(x @ x.T)
    small = vendi(texts, "ngram", memory_budget=700_000)
    assert small.value == pytest.approx(want, rel=1e-10)
    assert vendi(texts, "ngram").value == pytest.approx(want, rel=1e-10)


def test_past_the_budget_one_line_before_any_allocation():
    texts = corpus(20_000, 5)
    tracemalloc.start()
    with pytest.raises(BudgetError) as err:
        homogenization_rouge_l(texts, memory_budget="1M")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20  # lists of the texts only: no tokens, no pairs
    msg = str(err.value)
    assert "\n" not in msg and "199,990,000 pairs" in msg and "--pairs N" in msg
    assert "--memory-budget" in msg and isinstance(err.value, InputError)
    with pytest.raises(BudgetError, match="eigenvalues of a"):
        vendi([f"w{i} w{i + 1} w{i + 2}" for i in range(3000)], "ngram", memory_budget="10M")


def test_pair_sample_is_seeded_and_its_interval_covers_the_exact_value():
    texts = corpus(400, 6)
    exact = homogenization_rouge_l(texts).value
    got = homogenization_rouge_l(texts, pairs=30_000, seed=7)
    again = homogenization_rouge_l(texts, pairs=30_000, seed=7, memory_budget=1_500_000)
    other = homogenization_rouge_l(texts, pairs=30_000, seed=8)
    assert got.value == again.value and got.value != other.value
    iv = got.details["interval"]
    assert iv["low"] < exact < iv["high"]
    assert iv["high"] - iv["low"] < 0.05 * exact  # a real interval, not a vacuous one
    assert "|pairs:30000|seed:7|" in got.signature and "per_document" not in got.details
    bleu_exact = homogenization_bleu(texts).value
    bleu = homogenization_bleu(texts, pairs=30_000, seed=7).details["interval"]
    assert bleu["low"] < bleu_exact < bleu["high"]


def test_sampled_pairs_are_ordered_pairs_of_distinct_items_whatever_the_chunks():
    i, j = map(np.concatenate, zip(*sampled_pair_chunks(7, 200_000, 3)))
    assert i.size == 200_000 and not (i == j).any()
    counts = np.bincount(i * 7 + j, minlength=49).reshape(7, 7)
    off = counts[~np.eye(7, dtype=bool)]
    assert off.min() > 0.9 * off.mean() and off.max() < 1.1 * off.mean()


def test_pairs_through_the_api_and_refused_for_sets():
    texts = corpus(200, 8)
    got = diveval.score(texts, ["homogenization-rougel"], pairs=5000, pairs_seed=1)
    assert "pairs:5000|seed:1" in got["homogenization-rougel"].signature
    with pytest.raises(InputError, match="sets are exact"):
        homogenization_rouge_l([texts[:10], texts[10:20]], pairs=100)
    with pytest.raises(InputError, match="positive"):
        homogenization_rouge_l(texts, pairs=0)


def test_progress_reports_every_pair():
    seen: list[tuple[int, int]] = []
    homogenization_rouge_l(
        corpus(150, 9), memory_budget=1_000_000, progress=lambda d, t: seen.append((d, t))
    )
    assert len(seen) > 3 and seen[-1] == (150 * 149 // 2, 150 * 149 // 2)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_bleu_of_listed_pairs_equals_the_row_blocks():
    # the sampled path scores pairs one by one; over every ordered pair it is the exact value
    from diveval.semantic.homogenization import _bleu_pairs, _occurrence_features

    texts = corpus(60, 10) + ["", "a"]
    prep = prepare(texts)
    features = [_occurrence_features(prep, k) for k in range(1, 5)]
    first, second, _ = ordered_pairs(np.array([len(texts)]))
    got = _bleu_pairs(features, prep.tids.lengths, first, second, 4, "method1")
    assert got.mean() == pytest.approx(homogenization_bleu(texts).value, rel=1e-12)
