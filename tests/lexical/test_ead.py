"""EAD against exact rational arithmetic, and its stability for very large corpora."""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

import diveval
from diveval.errors import InputError
from diveval.lexical.ead import ead_value, expected_distinct


def exact_ead(n_distinct, total, vocab):
    expected = vocab * (1 - Fraction(vocab - 1, vocab) ** total)
    return Fraction(n_distinct) / expected


@given(st.integers(1, 60), st.integers(1, 200))
def test_formula_equals_fractions(total, vocab):
    n_distinct = min(total, vocab)
    want = exact_ead(n_distinct, total, vocab)
    assert ead_value(n_distinct, total, vocab) == pytest.approx(float(want), rel=1e-12)


@pytest.mark.parametrize("total", [10**6, 10**8, 10**9, 10**12])
def test_stable_for_huge_corpora(total):
    vocab = 30522
    mpmath.mp.dps = 50
    want = vocab * (1 - mpmath.power(1 - mpmath.mpf(1) / vocab, total))
    assert expected_distinct(total, vocab) == pytest.approx(float(want), rel=1e-12)
    assert ead_value(vocab, total, vocab) == pytest.approx(1.0, rel=1e-12)


def test_small_corpus_tends_to_distinct_ratio():
    # With C much smaller than V, E[N] ~ C, so EAD ~ N / C = distinct-1.
    texts = ["a b c d e f", "a b g h"]
    assert diveval.ead(texts).value == pytest.approx(diveval.distinct(texts, n=1).value, rel=1e-3)


def test_ead_from_texts_matches_formula_and_vocab_choices():
    texts = ["the cat sat", "the dog sat down"]
    n_distinct, total = 5, 7
    assert diveval.ead(texts, vocab=10).value == pytest.approx(
        float(exact_ead(n_distinct, total, 10))
    )
    corpus_v = diveval.ead(texts, vocab=["a b c d e f g h"])
    assert corpus_v.value == pytest.approx(float(exact_ead(n_distinct, total, 8)))
    assert "V:corpus(8)" in corpus_v.signature
    assert "V:30522" in diveval.ead(texts).signature
    two = diveval.ead(texts, n=2, vocab=10)
    assert two.value == pytest.approx(float(exact_ead(5, 5, 100)))
    with pytest.raises(InputError, match="no fixed vocabulary"):
        diveval.ead(texts, vocab="tokenizer")
    with pytest.raises(InputError, match="at least 1"):
        diveval.ead(texts, vocab=0)


def test_a_distinct_count_near_the_vocabulary_warns_in_details_and_on_the_cli(tmp_path, capsys):
    # regression: EAD 14.7 on one line with more distinct tokens than V, no word said
    from diveval.cli import main

    line = " ".join(f"t{i}" for i in range(40000))
    ead = diveval.ead
    s = ead([line])
    assert s.value > 1 and "131% of the vocabulary size V = 30522" in s.details["warnings"][0]
    assert "warnings" not in ead(["a b c a"]).details
    # V far above the distinct count: no vocabulary warning, but 40,000 tokens that never repeat
    # still score above 1 (1 + 39999 / 2e6 ~ 1.02), which the above-1 warning says
    (far,) = ead([line], vocab=1_000_000).details["warnings"]
    assert "vocabulary size" not in far and far.startswith("EAD is above 1 on the corpus (1.02")
    assert ead([line], vocab=60000).details["warnings"]  # 67%: nearing V warns too
    path = tmp_path / "line.txt"
    path.write_text(line + "\n")
    assert main(["score", str(path), "-m", "ead"]) == 0
    assert "diveval: warning: ead: 40000 distinct tokens" in capsys.readouterr().err


def test_ead_above_one_on_tiny_sets_says_so_with_the_reason():
    # C tokens all distinct, C far below V: N = C > E[N] = V(1 - (1 - 1/V)^C), EAD ~ 1 + (C-1)/(2V)
    got = diveval.ead([["a b c", "d e"], ["a a", "a a"], ["x y", "z"]])
    v = 30522
    # C = 5; the first-order formula leaves out terms of order (C/V)^2 ~ 3e-8
    assert got.items[0] == pytest.approx(1 + 4 / (2 * v), abs=1e-8)
    assert got.items[0] > 1 and got.items[2] > 1 and got.items[1] < 1
    assert got.details["above_one"] == 2
    (w,) = got.details["warnings"]
    assert w.startswith("EAD is above 1 on 2 of 3 sets (at most 1.00007)")
    assert "below C for any C >= 2" in w and "1 + (C-1)/(2V)" in w
    # a set with repeats stays below 1 and says nothing
    quiet = diveval.ead([["a a b", "b a"]]).details
    assert "warnings" not in quiet and "above_one" not in quiet
    # the sharded path (corpus states) says the same
    from diveval.lexical.ngram_state import NgramState

    state = NgramState([1])
    state.update(["a b c d"])
    assert state.result("ead", n=1).details["above_one"] == 1
