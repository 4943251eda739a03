"""Numbers at a common k: every set-level metric at K responses per set (``at_k``)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from stub_nli import EntailAll

import diveval
from diveval.errors import InputError
from diveval.lexical.expected import miss_probability
from diveval.meta.estimation.at_k import draw_subsets

SETS = [
    ["the cat sat on the mat", "the cat sat", "a dog ran", "the cat sat on a mat", "dogs bark"],
    ["hello there", "hello there friend", "hi", "good day to you", "hello", "hi there"],
    ["yes", "yes", "yes yes", "no"],
]


def _ngrams(text: str, n: int) -> list[tuple[str, ...]]:
    w = text.split()
    return [tuple(w[i : i + n]) for i in range(len(w) - n + 1)]


def _every_subset(s, k):
    """(mean distinct n-grams, mean n-grams) over every k-subset: the expectation, enumerated."""
    out = {}
    for n in (1, 2, 3):
        uniq, total = [], []
        for sub in itertools.combinations(s, k):
            grams = [g for t in sub for g in _ngrams(t, n)]
            uniq.append(len(set(grams)))
            total.append(len(grams))
        out[n] = (np.mean(uniq), np.mean(total))
    return out


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_distinct_at_k_is_the_ratio_of_expectations_over_every_subset(k):
    scores = diveval.score(SETS, ["distinct-1", "distinct-2", "distinct-3"], at_k=k)
    for i, s in enumerate(SETS):
        brute = _every_subset(s, k)
        for n in (1, 2, 3):
            uniq, total = brute[n]
            d = scores[f"distinct-{n}"]
            assert d.details["expected_distinct_ngrams"][i] == pytest.approx(uniq, rel=1e-12)
            assert d.details["expected_total_ngrams"][i] == pytest.approx(total, rel=1e-12)
            assert d.items[i] == pytest.approx(uniq / total if total else 0.0, rel=1e-12)
    sig = scores["distinct-2"].signature
    assert f"at-k:{k}|at-k-by:exact" in sig and "estimand:ratio-of-expectations" in sig


def test_at_k_equal_to_every_set_size_is_the_plain_score():
    sets = [s[:4] for s in SETS]
    plain = diveval.score(sets, ["distinct-2", "avg-distinct", "self-bleu"])
    at = diveval.score(sets, ["distinct-2", "avg-distinct", "self-bleu"], at_k=4)
    for name in plain:
        np.testing.assert_allclose(at[name].items, plain[name].items, rtol=1e-12)


def test_miss_probability_is_the_hypergeometric_zero():
    from scipy.stats import hypergeom

    for k, a, m in [(10, 3, 4), (10, 7, 4), (5, 5, 1), (6, 0, 6), (20, 1, 19)]:
        assert miss_probability(a, k, m) == pytest.approx(hypergeom(k, a, m).pmf(0), abs=1e-15)


def test_metrics_without_a_closed_form_average_seeded_draws():
    """self-bleu at K: the mean over the draws of the metric on each draw's subsets, which
    approaches the mean over every subset (enumerated) as the draws grow."""
    k, draws = 3, 400
    at = diveval.score(SETS, ["self-bleu"], at_k=k, at_k_draws=draws, at_k_seed=5)["self-bleu"]
    assert "at-k:3|at-k-by:draws|draws:400|seed:5" in at.signature
    subsets = draw_subsets(SETS, k, draws, 5)
    per_draw = [diveval.score(sub, ["self-bleu"])["self-bleu"].items for sub in subsets]
    np.testing.assert_allclose(at.items, np.mean(per_draw, axis=0), rtol=1e-12)
    for i, s in enumerate(SETS):
        every = [
            diveval.score([list(c)], ["self-bleu"])["self-bleu"].value
            for c in itertools.combinations(s, k)
        ]
        spread = np.std(every) / np.sqrt(draws)
        assert abs(at.items[i] - np.mean(every)) <= 4 * spread + 1e-12
    again = diveval.score(SETS, ["self-bleu"], at_k=k, at_k_draws=draws, at_k_seed=5)
    np.testing.assert_array_equal(again["self-bleu"].items, at.items)


def test_bad_input_is_an_input_error():
    with pytest.raises(InputError, match="set 2 has 4 responses, fewer than --at-k 5"):
        diveval.score(SETS, ["distinct-2"], at_k=5)
    with pytest.raises(InputError, match="needs sets"):
        diveval.score(["a b", "c d"], ["distinct-2"], at_k=1)
    with pytest.raises(InputError, match="at least 1"):
        diveval.score(SETS, ["distinct-2"], at_k=0)
    with pytest.raises(InputError, match="go with at_k"):
        diveval.score(SETS, ["distinct-2"], at_k_draws=3)


def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "diveval", *args], capture_output=True, text=True, cwd=cwd
    )


def test_cli_at_k(tmp_path):
    path = tmp_path / "sets.jsonl"
    rows = [{"system": "a" if i < 2 else "b", "responses": s} for i, s in enumerate(SETS)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _cli("score", str(path), "-m", "distinct-2", "--at-k", "3", "--by", "system", "--json")
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    s = body["groups"]["a"]["scores"]["distinct-2"]
    expected = diveval.score(SETS[:2], ["distinct-2"], at_k=3)["distinct-2"]
    assert s["value"] == pytest.approx(expected.value, rel=1e-12)
    assert "at-k:3" in s["signature"]
    bad = _cli("score", str(path), "-m", "distinct-2", "--at-k", "5")
    assert bad.returncode == 2 and "fewer than --at-k 5" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    lone = _cli("score", str(path), "--at-k-draws", "3")
    assert lone.returncode == 2 and "go with --at-k" in lone.stderr


class _HashEmbedder:
    name = "hash-emb"
    fingerprint = "feedface"

    def encode(self, texts):
        import hashlib

        def vec(t):
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
            return np.random.default_rng(seed).normal(size=6)

        return np.array([vec(t) for t in texts], dtype=np.float32)


@pytest.mark.parametrize("k", [2, 3])
def test_pair_means_at_k_are_the_mean_over_every_subset(k):
    """cos-diversity and Sent-BERT are means over pairs: their expectation over K-subsets is the
    set's own value; enumerated here."""
    at = diveval.score(SETS, ["cos-diversity"], at_k=k)["cos-diversity"]
    assert f"at-k:{k}|at-k-by:exact" in at.signature
    emb = _HashEmbedder()
    bert = diveval.score(SETS, ["sent-bert"], at_k=k, embedding_model=emb)["sent-bert"]
    for i, s in enumerate(SETS):
        subsets = [list(c) for c in itertools.combinations(s, k)]
        every = diveval.score(subsets, ["cos-diversity"])["cos-diversity"].items
        assert at.items[i] == pytest.approx(np.mean(every), rel=1e-9, abs=1e-12)
        every = diveval.score(subsets, ["sent-bert"], embedding_model=emb)["sent-bert"].items
        assert bert.items[i] == pytest.approx(np.mean(every), rel=1e-5)  # float32 embeddings
    with pytest.raises(InputError, match="K of at least 2"):
        diveval.score(SETS, ["cos-diversity"], at_k=1)


def test_equivalence_classes_at_k_by_draws():
    """A judge-backed metric without a closed form: seeded draws, the judge's cache shared."""

    def same_first_word(a, b):
        return a.split()[0] == b.split()[0]

    at = diveval.score(SETS, ["equivalence-classes"], at_k=2, judge=same_first_word)
    s = at["equivalence-classes"]
    assert "at-k:2|at-k-by:draws|draws:10|seed:0" in s.signature
    assert np.all((s.items >= 1) & (s.items <= 2))


def test_the_callers_model_settings_reach_the_at_k_path(tmp_path):
    """``models=`` (settings the caller resolved) loads the judge at K as in a plain run: an
    explicit half precision cannot apply to a model object, so both refuse it; a cache
    directory is written."""
    from diveval.models.devices import ModelSettings

    half = ModelSettings(precision="bf16")
    run = dict(metrics=["equivalence-classes"], judge="nli", nli_model=EntailAll(), models=half)
    with pytest.raises(InputError, match="precision bf16"):
        diveval.score(SETS, **run)
    with pytest.raises(InputError, match="precision bf16"):
        diveval.score(SETS, **run, at_k=2)
    cached = ModelSettings(cache_dir=str(tmp_path))
    at = diveval.score(SETS, **{**run, "models": cached}, at_k=2)
    assert at["equivalence-classes"].value == 1.0
    assert (tmp_path / "diveval-cache.sqlite").exists()
