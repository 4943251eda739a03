"""`diveval compare`: the corpus metric recomputed on an explicitly resampled corpus (the
resampling itself is checked against scipy and statsmodels in test_resampling.py), the
calibration under A/A on real data as a rate with a binomial tolerance, reruns, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import shared_path

import diveval
from diveval.cli import main
from diveval.errors import InputError
from diveval.meta.statistics.compare import compare
from diveval.meta.statistics.paired_corpus import unit_statistics
from diveval.meta.statistics.resampling import bootstrap_p, multiplicities, sign_flip_p
from diveval.meta.statistics.systems import System
from diveval.registry import get_metric

WORDS = [f"w{i}" for i in range(400)]


def _sets(rng, n, k, vocab=400, length=8):
    return {
        f"p{i}": [" ".join(rng.choice(WORDS[:vocab], length)) for _ in range(k)] for i in range(n)
    }


# -- corpus metrics from summed per-prompt states ------------------------------------------------


@pytest.mark.parametrize("metric", ["distinct-1", "distinct-2", "avg-distinct", "ead", "ead-2"])
def test_resampled_corpus_metric_equals_the_metric_on_the_resampled_corpus(metric):
    """The vectorised union of per-prompt n-gram sets, with the prompts' multiplicities, gives
    exactly the registry metric on the corpus built by repeating each prompt's response."""
    rng = np.random.default_rng(5)
    texts = [" ".join(rng.choice(WORDS[:40], rng.integers(0, 7))) for _ in range(30)]
    summed = unit_statistics(get_metric(metric), {}, texts, {})
    weights = multiplicities(len(texts), 8, rng)
    got = summed.values(np.vstack([np.ones(len(texts)), weights]))
    for row, value in zip(np.vstack([np.ones(len(texts)), weights]), got):
        corpus = [t for t, m in zip(texts, row) for _ in range(int(m))]
        assert value == pytest.approx(diveval.score(corpus, [metric])[metric].value, rel=1e-12)


def test_corpus_comparison_matches_the_registry_values_and_recomputes_corpus_self_bleu():
    rng = np.random.default_rng(2)
    a = {k: v[0] for k, v in _sets(rng, 60, 1).items()}
    b = {k: v[0] for k, v in _sets(rng, 60, 1, vocab=60).items()}
    res = compare({"a": a, "b": b}, ["distinct-2", "self-bleu"], n_resamples=200)
    row, bleu = res.rows
    assert row.baseline_value == pytest.approx(
        diveval.score(list(a.values()), ["distinct-2"])["distinct-2"].value
    )
    assert row.interval[0] <= row.difference <= row.interval[1]
    assert "ci:shifted-percentile" in row.signature and "compare:permutation" in row.signature
    # corpus Self-BLEU has no state that adds up over prompts: each resampled or swapped corpus
    # is scored again through the registry (nltk-equal Self-BLEU)
    sa = diveval.score(list(a.values()), ["self-bleu"])["self-bleu"].value
    sb = diveval.score(list(b.values()), ["self-bleu"])["self-bleu"].value
    assert bleu.difference == pytest.approx(sb - sa, rel=1e-12)
    assert "corpus:recomputed" in bleu.signature and 0 < bleu.p_value <= 1
    assert bleu.interval[0] <= bleu.difference <= bleu.interval[1]
    assert res.settings["adjustment"] == "holm over 2 tests"


def test_recomputed_values_are_the_metric_on_each_weighted_corpus_and_the_swaps_test_exactly():
    """The permutation p-value of a recomputed corpus metric from all 2^n swaps, scored one by
    one: the same number as compare's (exhaustive swaps at n = 7)."""
    from itertools import product

    from diveval.meta.statistics.paired_corpus import recomputed
    from diveval.registry import get_metric

    rng = np.random.default_rng(5)
    a = {k: v[0] for k, v in _sets(rng, 7, 1).items()}
    b = {k: v[0] for k, v in _sets(rng, 7, 1, vocab=40).items()}
    units = list(a.values()) + list(b.values())
    m = get_metric("self-bleu")
    rows = np.array([[1] * 7 + [0] * 7, [2, 0, 1, 1, 0, 2, 1] + [0] * 7])
    got = recomputed(m, units, rows, {})
    assert got[0] == diveval.score(units[:7], ["self-bleu"])["self-bleu"].value
    twice = [units[i] for i, t in enumerate(rows[1]) for _ in range(t)]
    assert got[1] == diveval.score(twice, ["self-bleu"])["self-bleu"].value
    observed = got[0] - diveval.score(units[7:], ["self-bleu"])["self-bleu"].value
    observed = -observed  # candidate - baseline
    stats = []
    for flips in product((0, 1), repeat=7):
        x = [units[i + 7 * f] for i, f in enumerate(flips)]
        y = [units[i + 7 * (1 - f)] for i, f in enumerate(flips)]
        stats.append(m(y).value - m(x).value)
    want = np.mean(np.abs(stats) >= abs(observed) - 1e-12)
    row = compare({"a": a, "b": b}, ["self-bleu"], n_resamples=500, confidence=0.5).rows[0]
    assert row.p_value == pytest.approx(want, abs=1e-12)


# -- sets --------------------------------------------------------------------------------------------


def test_sets_difference_is_the_mean_paired_difference_and_finds_a_planted_loss():
    rng = np.random.default_rng(1)
    a = _sets(rng, 80, 4)
    b = {k: [v[0], v[0], v[2], v[3]] for k, v in a.items()}  # one response a copy of another
    res = compare({"a": a, "b": b}, ["distinct-1", "self-bleu"])
    d1, sb = res.rows
    va = diveval.score(list(a.values()), ["distinct-1"])["distinct-1"].items
    vb = diveval.score(list(b.values()), ["distinct-1"])["distinct-1"].items
    assert d1.difference == pytest.approx(float(np.mean(vb - va)), abs=1e-15)
    assert d1.significant and d1.more_diverse == "a" and d1.gain < 0
    assert sb.significant and sb.more_diverse == "a" and sb.difference > 0  # lower = more diverse
    assert d1.interval[1] < 0
    assert "compare:permutation" in d1.signature and "adjust:holm" in d1.signature


def test_no_winner_without_significance():
    rng = np.random.default_rng(4)
    a, b = _sets(rng, 40, 3), _sets(rng, 40, 3)
    for row in compare({"a": a, "b": b}, ["distinct-1", "distinct-2"]).rows:
        assert (row.more_diverse is None) == (not row.significant)


def test_unmatched_prompts_are_named_and_left_out():
    rng = np.random.default_rng(6)
    a = _sets(rng, 30, 2)
    b = {k: v for k, v in list(a.items())[3:]}
    b["extra"] = ["x y", "z w"]
    res = compare({"a": a, "b": b}, ["distinct-1"])
    assert res.rows[0].n_prompts == 27
    assert res.unmatched["b"] == {"only in a": ["p0", "p1", "p2"], "only in b": ["extra"]}
    assert any("p0, p1, p2" in w for w in res.warnings)


def test_two_levels_widen_the_interval_and_say_so():
    rng = np.random.default_rng(8)
    a, b = _sets(rng, 60, 4, vocab=80), _sets(rng, 60, 4, vocab=80)
    one = compare({"a": a, "b": b}, ["distinct-1"]).rows[0]
    two = compare({"a": a, "b": b}, ["distinct-1"], levels=2).rows[0]
    assert two.difference == one.difference
    assert two.interval[1] - two.interval[0] > one.interval[1] - one.interval[0]
    assert "levels:2|inner:20" in two.signature and two.test == "bootstrap"


def test_reruns_are_identical_and_the_seed_is_used():
    rng = np.random.default_rng(9)
    a, b = _sets(rng, 40, 3), _sets(rng, 40, 3)
    first = json.dumps(compare({"a": a, "b": b}, ["distinct-1"]).to_dict())
    assert json.dumps(compare({"a": a, "b": b}, ["distinct-1"]).to_dict()) == first
    other = compare({"a": a, "b": b}, ["distinct-1"], seed=1).rows[0]
    assert other.interval != compare({"a": a, "b": b}, ["distinct-1"]).rows[0].interval
    assert "seed:1" in other.signature


# -- calibration: A/A rates with binomial tolerances --------------------------------------------------


def _band(rate: float, runs: int, alpha: float = 0.05, sigmas: float = 3.0) -> bool:
    half = sigmas * math.sqrt(alpha * (1 - alpha) / runs)
    return alpha - half <= rate <= alpha + half


@pytest.mark.parametrize("which", ["permutation", "bootstrap"])
def test_a_a_rate_of_the_per_prompt_tests_on_synthetic_differences(which):
    """Skewed per-prompt differences, symmetric in law (A/A): each test rejects about alpha."""
    runs, n = 1000, 40
    rng = np.random.default_rng(10)
    hits = 0
    for _ in range(runs):
        d = rng.exponential(1.0, n) * rng.choice([-1, 1], n)
        if which == "permutation":
            p = sign_flip_p(d, 500, rng)
        else:
            w = multiplicities(n, 500, rng)
            p = bootstrap_p(w @ d / n, float(d.mean()))
        hits += p < 0.05
    assert _band(hits / runs, runs), hits / runs


def _dailydialog(n_rows=None):
    path = shared_path("dailydialog-plusplus", "dev.json")
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
    return rows[:n_rows]


@pytest.mark.parametrize("setting", ["sets", "corpus"])
def test_a_a_false_positive_rate_on_dailydialog(setting):
    """One source (DailyDialog++ dev's human responses) split at random into two systems: the
    rate of p < 0.05 over 150 runs lies in the binomial 3-sigma band around 0.05."""
    rows = _dailydialog()
    runs, n = 150, 80
    metrics = ["distinct-2", "self-bleu"] if setting == "sets" else ["distinct-2", "ead"]
    hits = dict.fromkeys(metrics, 0)
    for r in range(runs):
        rng = np.random.default_rng([21, r])
        a, b = {}, {}
        for i in rng.choice(len(rows), n, replace=False):
            resp = rows[i]["positive_responses"]
            o = rng.permutation(len(resp))
            key = rows[i]["id"]
            if setting == "sets":
                a[key], b[key] = [resp[o[0]], resp[o[1]]], [resp[o[2]], resp[o[3]]]
            else:
                a[key], b[key] = resp[o[0]], resp[o[1]]
        for row in compare({"a": a, "b": b}, metrics, seed=r, n_resamples=400).rows:
            hits[row.metric] += row.p_value < 0.05
    pooled = sum(hits.values()) / (runs * len(metrics))
    assert _band(pooled, runs * len(metrics)), hits
    for m, h in hits.items():
        assert _band(h / runs, runs), (m, h)


# -- bad input -------------------------------------------------------------------------------------------


def test_refusals():
    rng = np.random.default_rng(11)
    a = _sets(rng, 30, 3)
    with pytest.raises(InputError, match="--at-k"):
        compare({"a": a, "b": _sets(rng, 30, 4)}, ["distinct-1"])
    with pytest.raises(InputError, match="one setting"):
        compare({"a": a, "b": {k: v[0] for k, v in a.items()}}, ["distinct-1"])
    with pytest.raises(InputError, match="a comparison needs 2"):
        compare({"a": a, "b": {"p0": a["p0"]}}, ["distinct-1"])
    with pytest.raises(InputError, match="too few for a 0.95 interval"):
        compare({"a": dict(list(a.items())[:4]), "b": a}, ["distinct-1"])
    with pytest.raises(InputError, match="Holm's first threshold"):
        compare({"a": dict(list(a.items())[:6]), "b": a}, ["distinct-1", "distinct-2"])
    with pytest.raises(InputError, match="each tail needs"):
        compare({"a": a, "b": a}, ["distinct-1"], n_resamples=100)
    with pytest.raises(InputError, match="more than once"):
        System("a", ("p", "p"), [["x"], ["y"]])
    with pytest.raises(InputError, match="not the same prompt"):
        compare(
            [
                System("a", ("1", "2", "3"), [["a"], ["b"], ["c"]], ("x", "y", "z")),
                System("b", ("1", "2", "3"), [["a"], ["b"], ["c"]], ("x", "y", "Z")),
            ],
            ["distinct-1"],
        )


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _files(tmp_path, n=40, k=3):
    rng = np.random.default_rng(12)
    a, b = [], []
    for i in range(n):
        resp = [" ".join(rng.choice(WORDS[:50], 6)) for _ in range(k)]
        a.append({"id": f"q{i}", "prompt": f"prompt {i}", "responses": resp})
        b.append({"id": f"q{i}", "prompt": f"prompt {i}", "responses": [resp[0]] * k})
    return _write(tmp_path / "base.jsonl", a), _write(tmp_path / "copy.jsonl", b)


def test_cli_table_json_and_reruns(tmp_path, capsys):
    base, copy = _files(tmp_path)
    assert main(["compare", base, copy, "-m", "distinct-1", "-m", "self-bleu"]) == 0
    out = capsys.readouterr().out
    assert "copy vs base (baseline), 40 prompts in common" in out and " *" in out
    assert "base" in out.split("distinct-1")[1].splitlines()[0]  # the winner, named
    assert main(["compare", base, copy, "-m", "distinct-1", "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["compare", base, copy, "-m", "distinct-1", "--json"]) == 0
    assert capsys.readouterr().out == first
    row = json.loads(first)["rows"][0]
    for key in ("metric", "baseline", "candidate", "difference", "interval", "p_value"):
        assert key in row
    for key in ("p_adjusted", "significant", "n_prompts", "signature"):
        assert key in row
    assert row["candidate"] == "copy" and row["significant"] and row["more_diverse"] == "base"


def test_cli_by_system(tmp_path, capsys):
    base, copy = _files(tmp_path)
    records = [
        {**json.loads(x), "system": s}
        for s, p in (("tuned", copy), ("base", base))
        for x in open(p, encoding="utf-8")
    ]
    one = _write(tmp_path / "both.jsonl", records)
    assert (
        main(["compare", one, "--by", "system", "--baseline", "base", "-m", "distinct-1", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["comparison"]["baseline"] == "base" and out["rows"][0]["candidate"] == "tuned"


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    base, _ = _files(tmp_path)
    rng = np.random.default_rng(0)
    k4 = _write(
        tmp_path / "k4.jsonl",
        [
            {"id": f"q{i}", "responses": [f"a{j} {rng.integers(9)}" for j in range(4)]}
            for i in range(40)
        ],
    )
    assert main(["compare", base, k4]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--at-k" in err
    assert main(["compare", base]) == 2
    assert "CANDIDATE" in capsys.readouterr().err


def test_corpus_permutation_p_equals_the_swapped_corpora_scored_one_by_one():
    """Exact over all 2**n swap patterns: each pattern's corpora built and scored by the registry."""
    import itertools

    rng = np.random.default_rng(13)
    n = 7
    a = {f"p{i}": " ".join(rng.choice(WORDS[:12], 5)) for i in range(n)}
    b = {f"p{i}": " ".join(rng.choice(WORDS[:30], 5)) for i in range(n)}
    row = compare({"a": a, "b": b}, ["distinct-1"], n_resamples=2**n, confidence=0.8).rows[0]

    def value(texts):
        return diveval.score(texts, ["distinct-1"])["distinct-1"].value

    ka, kb = list(a.values()), list(b.values())
    observed = value(kb) - value(ka)
    hits = 0
    for pattern in itertools.product([0, 1], repeat=n):
        sa = [y if s else x for x, y, s in zip(ka, kb, pattern)]
        sb = [x if s else y for x, y, s in zip(ka, kb, pattern)]
        hits += abs(value(sb) - value(sa)) >= abs(observed) - 1e-12
    assert row.difference == pytest.approx(observed, abs=1e-15)
    assert row.p_value == pytest.approx(hits / 2**n, abs=1e-15)


def test_report_shows_the_comparison(tmp_path, capsys):
    base, copy = _files(tmp_path)
    assert main(["compare", base, copy, "-m", "distinct-1", "-m", "distinct-2", "--json"]) == 0
    out = tmp_path / "cmp.json"
    out.write_text(capsys.readouterr().out, encoding="utf-8")
    page = tmp_path / "r.html"
    assert main(["report", str(out), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert 'id="compare"' in html and "Paired comparisons" in html
    assert "copy against base (baseline) on 40 shared prompts" in html
    assert '<tr class="significant">' in html and "<strong>base</strong>" in html
    # the report shows the table's interval, and says which it is
    assert "simultaneous interval" in html and "simultaneous (Bonferroni)" in html


def test_at_k_compares_systems_sampled_with_different_k():
    """k = 3 against k = 4 is refused as it stands; at K = 3 both are scored at 3 responses a set
    (distinct-n exactly: the expectation over 3-subsets, so the k = 4 system's own value at 3)."""
    from diveval.meta.estimation.at_k import score_at_k

    rng = np.random.default_rng(12)
    a, b = _sets(rng, 30, 3), _sets(rng, 30, 4)
    got = compare({"a": a, "b": b}, ["distinct-1", "distinct-2"], at_k=3, n_resamples=200)
    for row in got.rows:
        assert "at-k:3" in row.signature
        at3 = score_at_k(list(b.values()), [row.metric], at_k=3)[row.metric]
        plain = score_at_k(list(a.values()), [row.metric], at_k=3)[row.metric]
        assert row.difference == pytest.approx(at3.value - plain.value, rel=1e-12, abs=1e-12)
    with pytest.raises(InputError, match="fewer than --at-k 4"):
        compare({"a": a, "b": b}, ["distinct-1"], at_k=4)


# -- corpus metrics that read references (ref-*, MAUVE) ---------------------------------------------


def _mauve_embedder():
    """The MAUVE tests' stub embedder (a text's vector is a function of the text)."""
    pytest.importorskip("mauve")
    from reference.test_mauve import HashEmbedder

    return HashEmbedder()


def _with_refs(rng, n, vocab=60, length=7, k_refs=2):
    responses = {f"p{i}": " ".join(rng.choice(WORDS[:vocab], length)) for i in range(n)}
    refs = {
        f"p{i}": [" ".join(rng.choice(WORDS[:vocab], length)) for _ in range(k_refs + i % 2)]
        for i in range(n)
    }
    return responses, refs


@pytest.mark.parametrize(
    "metric,item_mean",
    [
        ("ref-bleu-2", False),
        ("ref-local-recall", False),
        ("mauve", False),
        ("ref-rouge-l", True),
        ("ref-meteor", True),
        ("ref-embedding-average", True),
        ("ref-bertscore-f", True),
    ],
)
def test_which_reference_metrics_are_means_of_independent_items(metric, item_mean):
    from diveval.meta.statistics.reference_resampling import per_item_mean

    assert per_item_mean(get_metric(metric), {}) is item_mean
    # reduction max or mean: BLEU's value is then the mean of its sentence values
    assert per_item_mean(get_metric("ref-bleu-3"), {"reduction": "max"})


@pytest.mark.parametrize("metric", ["ref-bleu-2", "ref-rouge-l"])
def test_an_item_mean_metrics_items_do_not_depend_on_the_other_items(metric):
    """What using per-prompt values directly needs: each item's value is the same scored alone
    as in the whole corpus, and the value is their mean."""
    pytest.importorskip("rouge_score")
    rng = np.random.default_rng(30)
    responses, refs = _with_refs(rng, 12, vocab=25)
    texts, lists = list(responses.values()), list(refs.values())
    options = {"reduction": "max"} if metric.startswith("ref-bleu") else {}
    whole = diveval.score(texts, [metric], references=lists, **options)[metric]
    for i in (0, 5, 11):
        alone = diveval.score([texts[i]], [metric], references=[lists[i]], **options)[metric]
        assert alone.items[0] == pytest.approx(whole.items[i], abs=1e-15)
    assert whole.value == pytest.approx(float(np.mean(whole.items)), abs=1e-15)


@pytest.mark.parametrize(
    "metric,options",
    [
        ("ref-bleu-2", {}),
        ("ref-bleu-4", {"smoothing": "method7", "lowercase": True}),
        ("ref-bleu-3", {"smoothing": "coco"}),
        ("ref-local-recall", {}),
    ],
)
def test_summed_statistics_equal_the_metric_on_the_resampled_corpus(metric, options):
    """Each row of weights builds a corpus (responses and their references repeated together, in
    unit order); the resampler's value is the registry metric on it (nltk-equal BLEU; local
    recall as GEM)."""
    rng = np.random.default_rng(31)
    responses, refs = _with_refs(rng, 16, vocab=20)
    units, lists = list(responses.values()), list(refs.values())
    lists[3] = lists[3] + ["w1 w2 w3", "w2 w3"]  # one item with more references: its level
    m = get_metric(metric)
    sig = diveval.score(units, [metric], references=lists, **options)[metric].signature
    resampler = unit_statistics(m, options, units, {}, lists, sig)
    assert resampler.tag == "corpus:summed-stats"
    weights = np.vstack([np.ones(16, dtype=int), multiplicities(16, 6, rng)])
    weights[1, 3] = 0  # a row without the item of most references
    for row, got in zip(weights, resampler.values(weights)):
        corpus = [u for u, t in zip(units, row) for _ in range(t)]
        given = [r for r, t in zip(lists, row) for _ in range(t)]
        want = diveval.score(corpus, [metric], references=given, **options)[metric].value
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_mauve_refitted_on_a_resample_equals_mauve_on_the_resampled_corpus():
    from diveval.meta.statistics.reference_resampling import MauveResampler

    emb = _mauve_embedder()
    rng = np.random.default_rng(32)
    responses, refs = _with_refs(rng, 14, vocab=30)
    units, lists = list(responses.values()), list(refs.values())
    resampler = MauveResampler(units, lists, {"embedding_model": emb})
    weights = np.vstack([np.ones(14, dtype=int), multiplicities(14, 3, rng)])
    for row, got in zip(weights, resampler.values(weights)):
        corpus = [u for u, t in zip(units, row) for _ in range(t)]
        given = [r for r, t in zip(lists, row) for _ in range(t)]
        want = diveval.mauve(corpus, given, emb, seeds=1).value
        assert got == pytest.approx(want, abs=1e-12)


def _reference_comparison(a, b, refs, metrics, **kw):
    kw.setdefault("refit_resamples", 40)
    kw.setdefault("confidence", 0.5)
    return compare({"a": a, "b": b}, metrics, references=refs, **kw)


def test_a_system_against_itself_differs_by_zero_with_p_one_on_reference_metrics():
    emb = _mauve_embedder()
    rng = np.random.default_rng(33)
    responses, refs = _with_refs(rng, 14)
    metrics = ["mauve", "ref-bleu-2", "ref-local-recall", "ref-meteor"]
    res = _reference_comparison(
        responses, responses, refs, metrics, embedding_model=emb, refit_resamples=80
    )
    tags = ["corpus:refit", "corpus:summed-stats", "corpus:summed-stats", "corpus:item-mean"]
    for row, tag in zip(res.rows, tags):
        assert row.comparable, row.note
        assert row.difference == 0.0 and row.p_value == 1.0 and row.interval == (0.0, 0.0)
        assert row.signature.endswith(tag) and not row.significant
    assert "|B:80|" in res.rows[0].signature and "|B:1000|" in res.rows[1].signature
    assert res.settings["refit_resamples"] == 80


def test_a_planted_loss_is_found_by_mauve_and_the_pooled_reference_metrics():
    """The candidate answers half the prompts with one repeated response: further from the
    human texts as a distribution (MAUVE) and from each prompt's references (BLEU, recall)."""
    emb = _mauve_embedder()
    rng = np.random.default_rng(34)
    n = 20
    refs = {f"p{i}": [" ".join(rng.choice(WORDS[:40], 7)) for _ in range(2)] for i in range(n)}
    a = {k: r[0].split(" ", 1)[1] + " w399" for k, r in refs.items()}  # near its references
    b = {k: (v if i % 2 else "w390 w391 w392 w393") for i, (k, v) in enumerate(a.items())}
    res = _reference_comparison(a, b, refs, ["mauve"], embedding_model=emb)
    row = res.rows[0]
    assert row.significant and row.more_diverse == "a" and row.interval[1] < 0
    want = diveval.mauve(list(b.values()), list(refs.values()), emb, seeds=1).value
    assert row.candidate_value == pytest.approx(want, abs=1e-12)
    for row in _reference_comparison(a, b, refs, ["ref-bleu-1", "ref-local-recall"]).rows:
        assert row.significant and row.more_diverse == "a", row


def test_reference_comparisons_rerun_byte_identical():
    emb = _mauve_embedder()
    rng = np.random.default_rng(35)
    a, refs = _with_refs(rng, 12)
    b, _ = _with_refs(rng, 12)
    metrics = ["mauve", "ref-bleu-2"]

    def run(seed=0):
        got = _reference_comparison(a, b, refs, metrics, embedding_model=emb, seed=seed)
        return json.dumps(got.to_dict())

    first = run()
    assert run() == first and run(seed=1) != first


def test_references_follow_the_prompt_ids_and_their_absence_is_one_line():
    rng = np.random.default_rng(36)
    a, refs = _with_refs(rng, 12)
    b = dict(reversed(list(a.items())))  # the same answers, in another order
    ids = _reference_comparison(a, b, refs, ["ref-bleu-2"]).rows[0]
    listed = _reference_comparison(a, a, list(refs.values()), ["ref-bleu-2"]).rows[0]
    assert ids.difference == listed.difference == 0.0
    with pytest.raises(InputError, match="needs references"):
        compare({"a": a, "b": b}, ["ref-bleu-2"])
    with pytest.raises(InputError, match="5 lists for the 12 items"):
        compare({"a": a, "b": b}, ["ref-bleu-2"], references=list(refs.values())[:5])


def _dailydialog_with_refs(rows, n, rng):
    """Two systems from one source, each context's other responses as the shared references."""
    a, b, refs = {}, {}, {}
    for i in rng.choice(len(rows), n, replace=False):
        resp = rows[i]["positive_responses"]
        o = rng.permutation(len(resp))
        key = rows[i]["id"]
        a[key], b[key], refs[key] = resp[o[0]], resp[o[1]], [resp[j] for j in o[2:]]
    return a, b, refs


def test_a_a_false_positive_rate_of_reference_metrics_on_dailydialog():
    """Pooled BLEU, local recall (summed statistics) and ROUGE-L (per-item means) under A/A: the
    rate of p < 0.05 over 150 runs lies in the binomial 3-sigma band around 0.05."""
    pytest.importorskip("rouge_score")
    rows = _dailydialog()
    runs, metrics = 150, ["ref-bleu-2", "ref-local-recall", "ref-rouge-l"]
    hits = dict.fromkeys(metrics, 0)
    for r in range(runs):
        a, b, refs = _dailydialog_with_refs(rows, 40, np.random.default_rng([22, r]))
        res = compare({"a": a, "b": b}, metrics, references=refs, seed=r, n_resamples=200)
        for row in res.rows:
            hits[row.metric] += row.p_value < 0.05
    assert _band(sum(hits.values()) / (runs * len(metrics)), runs * len(metrics)), hits
    for m, h in hits.items():
        assert _band(h / runs, runs), (m, h)


def test_a_a_false_positive_rate_of_mauve():
    """MAUVE under A/A (DailyDialog++ human responses, stub features): 19 random swaps make the
    permutation test's p <= 0.05 (compare's rule) exactly when no swap is as extreme,
    probability 1/20 under the null; 30 runs, the binomial 3-sigma band (the benchmark runs 100
    with real features)."""
    emb = _mauve_embedder()
    rows = _dailydialog()
    runs, hits = 30, 0
    for r in range(runs):
        a, b, refs = _dailydialog_with_refs(rows, 10, np.random.default_rng([23, r]))
        res = compare(
            {"a": a, "b": b},
            ["mauve"],
            references=refs,
            seed=r,
            refit_resamples=19,
            confidence=0.4,
            embedding_model=emb,
        )
        hits += res.rows[0].p_value <= 0.05
    assert _band(hits / runs, runs), hits


def test_cli_reads_each_records_references(tmp_path, capsys):
    rng = np.random.default_rng(37)
    a, refs = _with_refs(rng, 30)
    records = [{"id": k, "response": v, "references": refs[k]} for k, v in a.items()]
    far = [{**r, "response": "w399 w398 w397"} if i % 3 else r for i, r in enumerate(records)]
    base = _write(tmp_path / "near.jsonl", records)
    cand = _write(tmp_path / "far.jsonl", far)
    assert main(["compare", base, cand, "-m", "ref-bleu-1", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["significant"] and row["more_diverse"] == "near"
    assert row["signature"].endswith("|corpus:summed-stats")
    assert main(["compare", base, cand, "-m", "mauve", "--refit-resamples", "100"]) == 2
    assert "too few for a 0.95 interval" in capsys.readouterr().err


def test_files_with_one_name_are_named_by_the_folders_that_tell_them_apart():
    from diveval.io.matching import system_names

    assert system_names(["runs/a.jsonl", "runs/b.jsonl"]) == ["a", "b"]
    saved = ["/d/curated/openai/gpt-4o/scores.jsonl", "/d/curated/meta/llama/scores.jsonl"]
    assert system_names(saved) == ["openai/gpt-4o", "meta/llama"]
    assert system_names(["x/s.jsonl", "y/s.jsonl"]) == ["x", "y"]
    assert system_names(["s.jsonl", "s.jsonl"]) == [
        "s.jsonl",
        "s.jsonl",
    ]  # nothing tells them apart


# -- the intervals shown beside Holm's decisions -------------------------------------------------


def _decided(rows):
    return [r for r in rows if r.comparable]


def test_a_shown_interval_never_excludes_0_beside_no_decision():
    from hypothesis import given, settings
    from hypothesis import strategies as hs

    @settings(max_examples=40, deadline=None)
    @given(
        hs.integers(0, 2**32 - 1),
        hs.integers(12, 40),
        hs.sampled_from([1, 2]),
        hs.floats(0.0, 0.5),
        hs.sampled_from(["permutation", "bootstrap"]),
    )
    def check(seed, n, k, planted, test):
        rng = np.random.default_rng(seed)
        a = _sets(rng, n, max(k, 2), vocab=60, length=4)
        # b: a share of the prompts with one response copied (less diverse), the rest fresh
        b = _sets(rng, n, max(k, 2), vocab=60, length=4)
        for key in list(b)[: int(planted * n)]:
            b[key][1] = b[key][0]
        if k == 1:
            a = {key: v[0] for key, v in a.items()}
            b = {key: v[0] for key, v in b.items()}
        c = {key: list(v) if k > 1 else v for key, v in b.items()}
        res = compare({"a": a, "b": b, "c": c}, ["distinct-1", "distinct-2"], test=test,
                      n_resamples=200, seed=seed % 1000)  # fmt: skip
        for r in _decided(res.rows):
            low, high = r.interval
            if not r.significant:
                assert low <= 0 <= high, (r.metric, r.interval, r.p_adjusted)
            # the simultaneous interval holds the per-test one (a higher level, the same draws)
            ul, uh = r.interval_unadjusted
            assert low <= ul + 1e-12 and uh - 1e-12 <= high

    check()


def test_the_table_says_which_interval_it_shows_and_json_keeps_the_unadjusted_one(capsys, tmp_path):
    # four metrics, p between alpha/m and alpha: the 95 % interval excludes 0 where Holm decides
    # nothing (the case that read as a contradiction)
    found = None
    for seed in range(60):
        rng = np.random.default_rng(seed)
        a = _sets(rng, 30, 3, vocab=40, length=4)
        b = _sets(rng, 30, 3, vocab=40, length=4)
        for key in list(b)[:6]:
            b[key][1] = b[key][0]
        res = compare({"a": a, "b": b}, ["distinct-1", "distinct-2", "avg-distinct", "ead"])
        rows = [r for r in res.rows if not r.significant]
        if any(r.interval_unadjusted[0] > 0 or r.interval_unadjusted[1] < 0 for r in rows):
            found = a, b
            break
    assert found, "no case where the unadjusted interval excludes 0 beside no decision"
    a, b = found
    res = compare({"a": a, "b": b}, ["distinct-1", "distinct-2", "avg-distinct", "ead"])
    for r in res.rows:
        if not r.significant:
            assert r.interval[0] <= 0 <= r.interval[1]
    assert res.settings["interval_shown"].startswith("simultaneous (Bonferroni)")
    assert "0.9875" in res.settings["interval_shown"]
    row = res.rows[0].to_dict()
    assert "interval_unadjusted" in row and "interval" in row
    assert "shown:bonferroni" in res.rows[0].signature
    (tmp_path / "a.jsonl").write_text(
        "".join(json.dumps({"id": k, "responses": v}) + "\n" for k, v in a.items())
    )
    (tmp_path / "b.jsonl").write_text(
        "".join(json.dumps({"id": k, "responses": v}) + "\n" for k, v in b.items())
    )
    argv = ["compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "-m", "distinct-1",
            "-m", "distinct-2", "-m", "avg-distinct", "-m", "ead"]  # fmt: skip
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "98.75% simultaneous interval" in table
    assert "Intervals: simultaneous (Bonferroni, each at 1 - alpha/m = 0.9875" in table
    assert main([*argv, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert all(len(r["interval_unadjusted"]) == 2 for r in rows)
