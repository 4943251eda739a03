"""`diveval rarefy` and ``diveval.rarefy``: a system's sets rarefied and extrapolated."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import shared_path
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from stub_nli import EntailAll

import diveval
from diveval.errors import InputError

SETS = [
    ["the cat sat", "the cat ran", "a dog sat down", "the cat sat", "birds fly high", "a dog"],
    ["hello there", "hello there friend", "hi", "good day to you", "hello", "hi there"],
    ["yes", "yes", "yes yes", "no", "yes", "no way"],
]


def first_word(a: str, b: str) -> bool:
    """A judge that is an equivalence relation: same first word."""
    return a.split()[0] == b.split()[0]


def _classes(s):
    firsts = list(dict.fromkeys(t.split()[0] for t in s))
    return np.bincount([firsts.index(t.split()[0]) for t in s])


def test_classes_at_k_are_the_expected_classes_of_every_subset():
    for k in (2, 3, 6):
        r = diveval.rarefy(SETS, "classes", judge=first_word, at_k=k, rarefy_resamples=20)
        assert [x.q for x in r] == [0, 1, 2] and r[0].name == "classes-richness"
        brute = np.mean(
            [
                np.mean([len({t.split()[0] for t in sub}) for sub in itertools.combinations(s, k)])
                for s in SETS
            ]
        )
        assert r[0].value == pytest.approx(brute, rel=1e-12)
    assert r[0].value == pytest.approx(
        diveval.score(SETS, ["equivalence-classes"], judge=first_word)["equivalence-classes"].value
    )
    assert "at-k:6" in r[0].signature and "measure:classes" in r[0].signature


def test_classes_extrapolation_equals_copia_on_the_class_sizes():
    pytest.importorskip("copia", reason="copia 0.1.4 is the reference (test extra)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import copia.stats
    s = SETS[0] + ["a cat", "birds", "the end", "zebra"]
    r = diveval.rarefy([s], "classes", judge=first_word, sizes=range(1, 25), rarefy_resamples=20)
    theirs = copia.stats.rarefaction_extrapolation(_classes(s), 25)
    np.testing.assert_allclose(r[0].curve.value, theirs, atol=1e-9)


def test_ngrams_below_the_set_size_are_the_exact_distinct_counts():
    r = diveval.rarefy(SETS, "2-grams", at_k=4, rarefy_resamples=20)
    assert len(r) == 1 and r[0].name == "2-grams-richness"
    exact = diveval.score(SETS, ["distinct-2"], at_k=4)["distinct-2"]
    assert r[0].value == pytest.approx(exact.details["expected_distinct_ngrams"].mean(), rel=1e-12)
    # past the sets' size: Chao et al.'s sample-based extrapolation, units = responses
    far = diveval.rarefy(SETS, "2-grams", at_k=12, rarefy_resamples=20)[0]
    assert far.value >= r[0].value


def test_bad_input():
    with pytest.raises(InputError, match="unknown measure"):
        diveval.rarefy(SETS, "words")
    with pytest.raises(InputError, match="at least 2 responses"):
        diveval.rarefy([["a", "b"], ["c"]], "1-grams")
    with pytest.raises(InputError, match="orders 0"):
        diveval.rarefy(SETS, "1-grams", orders=[1])


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "diveval", *args], capture_output=True, text=True)


def test_cli_json_and_report(tmp_path):
    path = tmp_path / "sets.jsonl"
    rows = [
        {"system": sys_, "prompt": f"p{i}", "responses": s}
        for sys_ in ("a", "b")
        for i, s in enumerate(SETS if sys_ == "a" else [s[:4] for s in SETS])
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _cli(
        "rarefy", str(path), "--by", "system", "--judge", "bleu", "--measure", "classes",
        "--measure", "1-grams", "--at-k", "8", "--rarefy-resamples", "30", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    entries = body["groups"]["b"]["rarefaction"]
    assert [(e["measure"], e["q"]) for e in entries] == [
        ("classes", 0), ("classes", 1), ("classes", 2), ("1-grams", 0)
    ]  # fmt: skip
    assert 8 in entries[0]["curve"]["sizes"] and entries[0]["at_k"] == 8
    low, high = entries[0]["interval"]
    assert low <= entries[0]["value"] <= high
    saved = tmp_path / "rarefy.json"
    saved.write_text(out.stdout)
    html = tmp_path / "r.html"
    rep = _cli("report", str(saved), str(path), "-o", str(html))
    assert rep.returncode == 0, rep.stderr
    page = html.read_text()
    assert "classes-richness (rarefaction and extrapolation)" in page
    assert "1-grams-richness" in page
    bad = _cli("rarefy", str(path), "--measure", "words")
    assert bad.returncode == 2 and "unknown measure" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_the_guide_commands_run_as_written(monkeypatch, capsys):
    """Each `diveval` line of the guide's sample-size section, from the project root."""
    import re
    from pathlib import Path

    from diveval.cli import main

    root = Path(__file__).resolve().parents[3]
    text = (root / "docs" / "guides" / "llm-sampling.md").read_text(encoding="utf-8")
    section = text.split("## Sample size")[1].split("\n## ")[0]
    commands = [
        line
        for block in re.findall(r"```bash\n(.*?)```", section, re.S)
        for line in block.splitlines()
        if line.startswith("diveval ")
    ]
    assert len(commands) == 2
    monkeypatch.chdir(root)
    for command in commands:
        assert main([*command.split()[1:], "--json"]) == 0, command
        body = json.loads(capsys.readouterr().out)
        assert "at-k:" in json.dumps(body)


def test_report_of_a_score_run_and_a_rarefy_run_together(tmp_path):
    path = tmp_path / "sets.jsonl"
    rows = [{"system": s, "responses": r} for s in ("a", "b") for r in SETS]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runs = []
    for args in (
        ["score", str(path), "--by", "system", "-m", "distinct-2", "--at-k", "4", "--json"],
        ["rarefy", str(path), "--by", "system", "--measure", "1-grams", "--json"],
    ):
        out = _cli(*args)
        assert out.returncode == 0, out.stderr
        runs.append(tmp_path / f"{args[0]}.json")
        runs[-1].write_text(out.stdout)
    for order in (runs, runs[::-1]):
        html = tmp_path / "both.html"
        rep = _cli("report", *map(str, order), "-o", str(html))
        assert rep.returncode == 0, rep.stderr
        page = html.read_text()
        assert "1-grams-richness (rarefaction and extrapolation)" in page
        assert "at-k:4|at-k-by:exact" in page and "distinct-2" in page


# -- reported numbers in their feasible range ---------------------------------------------------


def _texts(counts):
    """A set whose classes (texts, under the judge ``same``) have the given sizes."""
    return [f"class {c}" for c, size in enumerate(counts) for _ in range(size)]


def same(a: str, b: str) -> bool:
    return a == b


def _check_feasible(results, tol=1e-9):
    """Every estimate and bound of every curve in [1, m], and D_0 >= D_1 >= D_2 at each m."""
    for r in results:
        c = r.curve
        for a in (c.value, c.low, c.high):
            assert np.all(a >= 1 - tol) and np.all(a <= c.sizes + tol), (r.name, a)
        assert np.all(c.low <= c.value + tol) and np.all(c.value <= c.high + tol), r.name
        if np.isfinite(c.asymptote):
            assert c.asymptote >= 1 - tol
    for lower, upper in zip(results, results[1:]):
        assert np.all(upper.curve.value <= lower.curve.value + tol), (upper.name, lower.name)
        assert np.all(upper.curve.high <= lower.curve.high + tol), (upper.name, lower.name)
        if np.isfinite(upper.curve.asymptote) and np.isfinite(lower.curve.asymptote):
            assert upper.curve.asymptote <= lower.curve.asymptote + tol


def test_ten_answers_all_different_stay_within_what_k_answers_can_hold():
    """q = 1 extrapolated from ten singletons reaches 25.9 at k = 20 (the entropy estimate's
    weight grows with k): it is capped by the order-0 estimate, with a warning naming the rule;
    the bootstrap's upper end past k at k = 10 is clipped to 10."""
    sets = [_texts([1] * 10)]
    at20 = diveval.rarefy(sets, "classes", judge=same, at_k=20, rarefy_resamples=50)
    _check_feasible(at20)
    d0, d1, d2 = (r.value for r in at20)
    assert d0 >= d1 >= d2 and d1 <= 20
    assert any("25.867" in w and "D_0 >= D_1 >= D_2" in w for w in at20[1].warnings)
    assert any("no doubletons" in w for w in at20[0].warnings)
    assert not any("past twice" in w for w in at20[0].warnings)  # 20 = 2n: at the limit
    at10 = diveval.rarefy(sets, "classes", judge=same, at_k=10, rarefy_resamples=50)
    _check_feasible(at10)
    assert at10[0].value == pytest.approx(10) and at10[0].interval[1] <= 10
    assert any("1 <= D_q(m) <= m" in w for w in at10[0].warnings)
    far = diveval.rarefy(sets, "classes", judge=same, at_k=25, rarefy_resamples=50)
    assert any("past twice the size of 1 of 1 sets" in w for w in far[0].warnings)


def test_an_undefined_q2_asymptote_is_null_with_a_reason():
    sets = [_texts([1] * 10), _texts([3, 2, 1])]
    r = diveval.rarefy(sets, "classes", judge=same, rarefy_resamples=30)
    simpson = r[2].to_dict()
    assert simpson["value"] is None and simpson["interval"] == [None, None]
    assert simpson["curve"]["asymptote"] is None
    assert any("undefined" in w and "1 of 2 sets" in w for w in simpson["warnings"])
    json.dumps(simpson, allow_nan=False)  # no bare NaN anywhere
    _check_feasible(r)


def test_one_class_sets_and_k_1_are_exactly_1_without_a_word():
    sets = [_texts([6]), _texts([6])]
    for k in (1, 4, 12, None):
        r = diveval.rarefy(sets, "classes", judge=same, at_k=k, rarefy_resamples=20)
        _check_feasible(r)
        for x in r:
            assert x.value == pytest.approx(1.0) and x.interval == pytest.approx((1.0, 1.0))
            assert x.warnings == ()
    one = diveval.rarefy([_texts([3, 2, 1, 1])], "classes", judge=same, at_k=1)
    assert [x.value for x in one] == pytest.approx([1.0, 1.0, 1.0])


def test_feasible_numbers_are_left_as_they_are():
    """Rarefaction (k <= n) gives exact expectations, always feasible: unchanged (but for a
    rounding below 1 by 1e-16, raised to 1)."""
    from diveval.meta.estimation.rarefaction import curve

    r = diveval.rarefy(SETS, "classes", judge=first_word, sizes=[1, 2, 3, 4, 5, 6], at_k=3)
    for x in r:
        raw = curve([_classes(s) for s in SETS], x.q, [1, 2, 3, 4, 5, 6], resamples=200)
        np.testing.assert_allclose(x.curve.value, raw.value, rtol=0, atol=1e-12)
        assert x.warnings == ()


def test_a_gemma_like_set_keeps_the_orders_in_line():
    """Two classes of five: the q = 1 extrapolation passes the order-0 estimate (2) at k = 20,
    as on gemma-2-2b's answers; reported as the order-0 estimate, with the rule."""
    r = diveval.rarefy([_texts([5, 5])], "classes", judge=same, at_k=20, rarefy_resamples=40)
    _check_feasible(r)
    assert r[0].value == pytest.approx(2.0) and r[1].value <= r[0].value
    assert any("D_0 >= D_1 >= D_2" in w for w in r[1].warnings)


def test_gemma_2_2b_with_the_unigram_judge_is_feasible():
    """The case a user met: gemma-2-2b's answers, unigram judge, D_1 (11.24) above D_0 (10.53)
    at k = 20 and a NaN q = 2 asymptote before the rules."""
    gemma = shared_path("novelty-bench", "curated", "google", "gemma-2-2b-it", "scores.jsonl")
    sets = [json.loads(line)["generations"] for line in gemma.read_text().splitlines()]
    for k in (10, 20, None):
        r = diveval.rarefy(sets, "classes", judge="unigram", at_k=k, rarefy_resamples=50)
        _check_feasible(r)
        values = [x.value for x in r]
        assert all(np.isfinite(v) or x.q == 2 and k is None for v, x in zip(values, r))
        for x in r:
            json.dumps(x.to_dict(), allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(1, 12), min_size=1, max_size=12), min_size=1, max_size=3))
def test_no_estimate_or_bound_leaves_its_range(class_sizes):
    """Random class-count vectors (k up to 50 per set), the curve to twice the largest set."""
    sets = [_texts(c) for c in class_sizes if 2 <= sum(c) <= 50]
    assume(sets)
    largest = max(len(s) for s in sets)
    r = diveval.rarefy(
        sets, "classes", judge=same, sizes=range(1, 2 * largest + 1), rarefy_resamples=20
    )
    _check_feasible(r)
    for x in r:
        json.dumps(x.to_dict(), allow_nan=False)


# -- every option accepted reaches what it configures --------------------------------------------


def never(a: str, b: str) -> bool:
    """A judge that calls no pair equivalent, identical texts included."""
    return False


def test_identical_and_precision_reach_the_judge():
    sets = [["a", "a", "b", "a"], ["c", "c", "d"]]
    by_model = diveval.rarefy(sets, "classes", judge=never, at_k=3, identical="model")
    by_one = diveval.rarefy(sets, "classes", judge=never, at_k=3, identical="one")
    assert by_one[0].value < by_model[0].value
    assert "ident:one" in by_one[0].signature and "ident:model" in by_model[0].signature
    # an explicit half precision cannot apply to a model object: refused, so it reached it
    with pytest.raises(InputError, match="precision bf16"):
        diveval.rarefy(sets, "classes", judge="nli", nli_model=EntailAll(), precision="bf16")
    with pytest.raises(InputError, match="tokenizer does not configure"):
        diveval.rarefy(sets, "classes", judge=never, tokenizer="whitespace")
    with pytest.raises(InputError, match="judge does not configure"):
        diveval.rarefy(sets, "1-grams", judge=never)


def test_cli_options_reach_the_judge(tmp_path, monkeypatch, capsys):
    from diveval.cli import main
    from diveval.semantic import equivalence

    made = []
    real = equivalence.make_judge

    def spy(judge, **kwargs):
        made.append(kwargs.get("settings"))
        return real(judge, **kwargs)

    monkeypatch.setattr(equivalence, "make_judge", spy)
    path = tmp_path / "sets.jsonl"
    path.write_text("".join(json.dumps({"responses": s}) + "\n" for s in SETS))
    base = ["rarefy", str(path), "--judge", "unigram", "--at-k", "4", "--json"]
    assert main([*base, "--rarefy-resamples", "10"]) == 0
    plain = json.loads(capsys.readouterr().out)["rarefaction"][0]
    assert main([*base, "--rarefy-resamples", "10", "--identical", "model"]) == 0
    model = json.loads(capsys.readouterr().out)["rarefaction"][0]
    # identical answers are one class by default for every judge but NoveltyBench's classifier
    assert "ident:one" in plain["signature"] and "ident:model" in model["signature"]
    assert main([*base, "--precision", "fp16", "--batch-size", "3"]) == 0
    capsys.readouterr()
    assert made[-1].precision == "fp16" and made[-1].batch_size == 3
    # an option that configures no measure asked for is refused in one line, not dropped
    assert main([*base, "--measure", "classes", "--tokenizer", "whitespace"]) == 2
    err = capsys.readouterr().err
    assert "--tokenizer configures no measure" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit):  # --similarity configures nothing rarefy computes
        main([*base, "--similarity", "cosine"])


def test_every_flag_of_rarefy_reaches_its_code():
    import argparse

    from diveval.commands import rarefy as command
    from diveval.meta.estimation.rarefaction_curves import JUDGE_OPTIONS, NGRAM_OPTIONS
    from diveval.options import KNOWN_OPTIONS, OPTION

    parser = argparse.ArgumentParser()
    command.add_parser(parser.add_subparsers())
    sub = parser._subparsers._group_actions[0].choices["rarefy"]
    reached = {*command.OWN_OPTIONS, *JUDGE_OPTIONS, *NGRAM_OPTIONS}
    for action in sub._actions:
        if action.dest in KNOWN_OPTIONS and not OPTION[action.dest].run:
            assert action.dest in reached, action.dest


def test_ngram_counts_are_not_held_to_m():
    """m responses hold many more than m distinct n-grams: the n-gram curve is the estimators'
    own (1.167 distinct 2-grams in one response of these sets), only a bound below 0 raised."""
    from diveval.meta.estimation.rarefaction import curve
    from diveval.meta.estimation.rarefaction_curves import abundances

    vectors, units, _ = abundances(SETS, "2-grams")
    sizes = [1, 2, 3, 6, 9, 12]
    r = diveval.rarefy(SETS, "2-grams", sizes=sizes, at_k=1, rarefy_resamples=50)[0]
    raw = curve(vectors, 0, sizes, units=units, resamples=50)
    np.testing.assert_array_equal(r.curve.value, raw.value)
    assert r.value == pytest.approx(7 / 6) and r.curve.value[-1] > 6
    assert np.all(r.curve.low >= 0) and not any("D_q(m)" in w for w in r.warnings)


def test_the_parsers_list_of_judge_options_is_what_the_partition_declares():
    from diveval.meta.estimation.rarefaction_curves import declared_judge_options
    from diveval.meta.estimation.rarefaction_options import JUDGE_OPTIONS

    assert JUDGE_OPTIONS == declared_judge_options()
