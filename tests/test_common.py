"""The common contract, checked once for every registered metric and every setting it supports
(as scikit-learn's ``test_common.py`` checks every estimator).

A new metric gets these checks for free: register it and it is collected here. Model-backed
metrics run with stub models (``models/`` protocols); a metric whose optional backend is not
installed is skipped, never failed.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import tempfile

import numpy as np
import pytest
from conftest import registered

import diveval
from diveval._version import __version__
from diveval.errors import InputError, MissingDependencyError
from diveval.registry import (
    DIRECTIONS,
    KNOWN_OPTIONS,
    METRICS,
    Metric,
    all_metrics,
    get_metric,
    register,
)
from diveval.results import CORPUS, SETS


class EqualIsEntailment:
    """NLI stub: a sentence entails itself; other pairs get a label from a hash of the pair."""

    name = "stub-nli"
    fingerprint = "0000"

    def predict(self, premises, hypotheses):
        rows = []
        for p, h in zip(premises, hypotheses):
            if p == h:
                rows.append([0.0, 0.0, 1.0])
                continue
            raw = hashlib.sha256(f"{p}\x00{h}".encode()).digest()
            x = np.frombuffer(raw[:3], dtype=np.uint8).astype(float) + 1
            rows.append(list(x / x.sum()))
        return np.array(rows, dtype=float).reshape(-1, 3)


class HashEmbedder:
    """Embedder stub: a text's vector is a function of the text (equal texts, equal vectors)."""

    name = "stub-emb"
    fingerprint = "0000"

    def encode(self, texts):
        def vec(t):
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
            return np.random.default_rng(seed).normal(size=8)

        return np.array([vec(t) for t in texts], dtype=np.float32).reshape(-1, 8)


SETS_DATA = [
    ["the cat sat on the mat", "a dog ran in the park", "birds sing at dawn"],
    ["i like green tea", "coffee is better", "i like green tea with milk"],
    ["see you tomorrow", "good night", "sleep well my friend"],
]
CORPUS_DATA = [s for group in SETS_DATA for s in group[:2]]
IDENTICAL_SETS = [["the same words here"] * 3 for _ in SETS_DATA]
IDENTICAL_CORPUS = ["the same words here"] * len(CORPUS_DATA)


def _cases() -> list:
    return [
        pytest.param(name, setting, id=f"{name}[{setting}]")
        for name, m in sorted(all_metrics().items())
        for setting in (CORPUS, SETS)
        if m.supports(setting)
    ]


def _inputs(metric: Metric, data: list) -> dict:
    """What this metric needs beside the responses: references, reference groups, stub models."""
    out: dict = {}
    if "references" in metric.options:  # corpus: one reference list per response
        out["references"] = [[f"{t} indeed", "something else"] for t in data]
    if "reference_groups" in metric.options:  # sets: reference groups per set
        out["reference_groups"] = [[[s[0]], [s[-1] + " too"]] for s in data]
    if "logprobs" in metric.options and data and not isinstance(data[0], str):
        # a function of the text, so a permuted input carries the same numbers with its responses
        out["logprobs"] = [[-0.5 * len(t) for t in s] for s in data]
    if "nli_model" in metric.options:
        out["nli_model"] = EqualIsEntailment()
    if "judge" in metric.options:
        # the stub NLI model as judge: an equivalence (equal texts only), so these checks see the
        # metric's own arithmetic. A learned judge need not be transitive, and then the greedy
        # partition of NoveltyBench depends on the order by definition (its own tests cover it).
        out["judge"] = "nli"
    if "embedding_model" in metric.options and "bertscore" not in metric.name:
        out["embedding_model"] = HashEmbedder()  # BERTScore needs a transformers model: default
    return out


def _data(setting: str, identical: bool = False) -> list:
    if setting == CORPUS:
        return list(IDENTICAL_CORPUS if identical else CORPUS_DATA)
    return [list(s) for s in (IDENTICAL_SETS if identical else SETS_DATA)]


def run(metric: Metric, data: list, **extra):
    """One metric through diveval.score, as users call it; a missing backend skips."""
    try:
        return diveval.score(data, [metric.name], **_inputs(metric, data), **extra)[metric.name]
    except MissingDependencyError as exc:
        pytest.skip(f"{metric.name}: {exc}")


def _permuted(setting: str, data: list) -> tuple[list, list]:
    """A permutation of the input and the index it applied (sets: also each set reversed)."""
    order = list(reversed(range(len(data))))
    if setting == SETS:
        return [list(reversed(data[i])) for i in order], order
    return [data[i] for i in order], order


# -- the checks: one function each, run over the registry below and over the toy metric ------------


def check_declaration(metric: Metric) -> None:
    assert metric.direction in DIRECTIONS
    assert set(metric.options) <= set(KNOWN_OPTIONS)
    assert metric.settings and set(metric.settings) <= {CORPUS, SETS}
    assert metric.description


def check_result(metric: Metric, setting: str) -> None:
    data = _data(setting)
    got = run(metric, data)
    assert got.metric == metric.name
    assert got.setting == setting
    assert f"setting:{setting}" in got.signature
    assert got.signature.endswith(f"diveval:{__version__}")
    assert math.isfinite(got.value)
    if got.items is not None:
        assert len(got.items) == len(data)
    back = pickle.loads(pickle.dumps(got))
    assert (back.metric, back.value, back.signature) == (got.metric, got.value, got.signature)
    again = run(metric, _data(setting))
    assert again.value == got.value and again.signature == got.signature  # deterministic


def _run_permuted(metric: Metric, setting: str, data: list, **extra):
    """(the Score of the input, the Score of its permutation, the permutation's index)."""
    got = run(metric, data, **extra)
    perm, order = _permuted(setting, data)
    inputs = _inputs(metric, data)
    for key in ("references", "reference_groups"):
        if key in inputs:  # the references travel with their responses
            inputs[key] = [inputs[key][i] for i in order]
    if "logprobs" in inputs:  # so do the responses' log-probabilities
        inputs["logprobs"] = _inputs(metric, perm)["logprobs"]
    try:
        moved = diveval.score(perm, [metric.name], **inputs, **extra)[metric.name]
    except MissingDependencyError as exc:
        pytest.skip(str(exc))
    return got, moved, order


def _same(a, b) -> bool:
    return a == pytest.approx(b, rel=1e-9, abs=1e-12)


def check_order_invariance(metric: Metric, setting: str) -> None:
    """The same value in any order of the responses. A metric whose row says it is
    ``order_dependent`` (it joins the responses, as given by default) is held to this with
    ``join="sorted"``, the variant that joins them in code-point order."""
    if not metric.order_dependent:
        inputs, extra = [_data(setting)], {}
    else:  # also on the inputs where joining as given does see the order
        inputs, extra = _order_sensitive_inputs(setting), {"join": "sorted"}
    for data in inputs:
        got, moved, order = _run_permuted(metric, setting, data, **extra)
        assert _same(moved.value, got.value)
        if got.items is not None and setting == SETS:
            np.testing.assert_allclose(moved.items, got.items[order], rtol=1e-9, atol=1e-12)


def _order_sensitive_inputs(setting: str) -> list:
    """The suite's input, then longer ones with many shared words across responses (a joining
    metric may not see the order in a few short responses, e.g. MATTR within one window)."""
    from diversity_reference import generated_documents

    out = [_data(setting)]
    for seed in (1, 2):
        docs = generated_documents(60, seed, max_len=20)
        out.append(docs if setting == CORPUS else [docs[i : i + 20] for i in (0, 20, 40)])
    return out


def check_join_given_depends_on_order(metric: Metric, setting: str) -> None:
    """An ``order_dependent`` row means it: joined as given (the default, signature join:given)
    its value changes with the order for at least one permuted input, while join:sorted is
    signed as such (its invariance: check_order_invariance). Order-invariant rows: nothing to do."""
    if not metric.order_dependent:
        return
    assert "join" in metric.options
    for data in _order_sensitive_inputs(setting):
        got, moved, _ = _run_permuted(metric, setting, data)
        assert "join:given" in got.signature
        assert "join:sorted" in run(metric, data, join="sorted").signature
        if not _same(moved.value, got.value):
            return
    raise AssertionError(
        f"{metric.name} is declared order_dependent, but joined as given it scored every "
        "permuted input the same: the join option would mean nothing"
    )


def check_identical_is_least_diverse(metric: Metric, setting: str) -> None:
    # the rows' tags (diveval.registry.TAGS) say where identical responses are no extreme: a
    # quality score against references; a measure of each response on its own; templates of 5
    # tokens, which the 4-token responses here cannot hold
    if metric.tags & {"quality", "per-response", "five-token-spans"}:
        return
    varied = run(metric, _data(setting)).value
    same = run(metric, _data(setting, identical=True)).value
    if metric.direction == "higher":
        assert same <= varied + 1e-12
    else:
        assert same >= varied - 1e-12


def check_small_inputs(metric: Metric, setting: str) -> None:
    """Empty and one-element inputs: a finite score or an InputError, never another exception."""
    one = ["just one response here"] if setting == CORPUS else [["just one response here"]]
    for data in ([], one):
        try:
            got = run(metric, data)
        except InputError:
            continue
        assert math.isfinite(got.value)


def check_unknown_option(metric: Metric, setting: str) -> None:
    with pytest.raises(InputError, match=metric.name):
        diveval.score(_data(setting), [metric.name], no_such_option=1)


def check_state_contract(metric: Metric, setting: str) -> None:
    """A row with a state (the corpus setting; sets shard by set): any split of the input, its
    parts' states saved to shard files and merged in any order, gives the one-process Score
    (value and signature); a state of other settings refuses to merge, never mixes two runs."""
    if metric.state is None or setting != CORPUS:
        return
    from diveval.scale.shards import ShardResult, merge_shards, score_shard

    data = _data(setting)
    whole = run(metric, data)
    options = _inputs(metric, data)
    for count in (2, 3):
        parts = [score_shard(data, [metric.name], (i, count), **options) for i in range(count)]
        with tempfile.TemporaryDirectory() as tmp:
            files = []
            for i, part in enumerate(reversed(parts)):  # through the files, in any order
                part.save(f"{tmp}/{i}.state")
                files.append(ShardResult.load(f"{tmp}/{i}.state"))
            merged = merge_shards(files)[metric.name]
        assert merged.signature == whole.signature
        # a float32 model sees other batches (other padding) in parts: its 7th digit may move
        rtol = 1e-5 if {"embedding_model", "nli_model"} & set(metric.options) else 1e-9
        assert merged.value == pytest.approx(whole.value, rel=rtol, abs=1e-12)
        if whole.items is not None and merged.items is not None:
            np.testing.assert_allclose(merged.items, whole.items, rtol=rtol, atol=1e-12)
    if "lowercase" in metric.options:
        plain = metric.make_state(_inputs(metric, data[:2]))
        other = metric.make_state({**_inputs(metric, data[2:]), "lowercase": True})
        assert plain.settings() != other.settings()
        plain.update(data[:2])
        other.update(data[2:])
        with pytest.raises(InputError):
            plain.merge(other)


# Chinese sets written for this check (the Chinese corpus: the first two of each set)
CHINESE_SETS = [
    ["我今天很高兴。", "今天天气很好，我们去公园吧。", "我今天不太高兴。"],
    ["你吃饭了吗？", "我还没吃饭，你呢？", "吃了，谢谢。"],
    ["明天见。", "晚安，好梦。", "明天早上见。"],
]


def check_multilingual_tokenizers(metric: Metric, setting: str) -> None:
    """A metric that tokenizes takes the tokenizers of languages written without spaces (named
    in its signature, no warning), and warns, naming one, when whitespace splits Chinese."""
    if "tokenizer" not in metric.options:
        return
    data = CHINESE_SETS if setting == SETS else [t for s in CHINESE_SETS for t in s[:2]]
    warned = run(metric, data, tokenizer="whitespace")
    assert any("--tokenizer zh" in w for w in warned.details.get("warnings", ()))
    for tokenizer in ("zh", "char"):
        got = run(metric, data, tokenizer=tokenizer)
        assert math.isfinite(got.value) and f"tok:{tokenizer}|" in got.signature
        assert not any("without spaces" in w for w in got.details.get("warnings", ()))


CHECKS = [
    check_result,
    check_state_contract,
    check_order_invariance,
    check_join_given_depends_on_order,
    check_identical_is_least_diverse,
    check_small_inputs,
    check_unknown_option,
    check_multilingual_tokenizers,
]


def run_common_suite(metric: Metric, setting: str) -> None:
    check_declaration(metric)
    for check in CHECKS:
        check(metric, setting)


@pytest.mark.parametrize("name,setting", _cases())
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_every_metric(name, setting, check):
    metric = all_metrics()[name]
    check_declaration(metric)
    check(metric, setting)


def test_the_registry_is_not_empty():
    assert len(_cases()) > 40


# -- a toy metric gets the suite for free ---------------------------------------------------------


def toy_type_token_ratio(data, lowercase=False):
    """Distinct word types / tokens, per set or over the corpus (the function of the toy row)."""
    from diveval.data import as_setting
    from diveval.results import Score, make_signature

    setting, items = as_setting(data)
    groups = items if setting == SETS else [items]
    per = []
    for g in groups:
        toks = [t.lower() if lowercase else t for s in g for t in s.split()]
        per.append(len(set(toks)) / len(toks) if toks else 0.0)
    if not per:
        raise InputError("toy-ttr needs at least one response")
    sig = make_signature("toy-ttr", lc=lowercase, setting=setting)
    return Score("toy-ttr", float(np.mean(per)), sig, setting, per if setting == SETS else None)


@pytest.mark.parametrize("setting", [CORPUS, SETS])
def test_a_toy_metric_registered_by_one_row_passes_the_suite(setting):
    # options without "tokenizer": the function gets the responses as given (with it, it would
    # get the run's shared token ids, text.prepared.Prepared, as the lexical metrics do)
    row = Metric(
        "toy-ttr",
        "types / tokens",
        toy_type_token_ratio,
        options=("lowercase",),
        direction="higher",
    )
    with registered(row) as metric:
        run_common_suite(metric, setting)
    assert "toy-ttr" not in METRICS


def test_the_suite_catches_a_metric_that_breaks_the_contract():
    def order_dependent(data):
        from diveval.data import as_setting

        setting, items = as_setting(data)
        first = items[0] if setting == CORPUS else items[0][0]
        return diveval.results.Score(
            "toy-bad",
            float(len(first)),
            f"toy-bad|setting:{setting}|diveval:{__version__}",
            setting,
        )

    row = Metric(
        "toy-bad", "length of the first response", order_dependent, options=(), direction="higher"
    )
    with registered(row) as metric, pytest.raises(AssertionError):
        check_order_invariance(metric, CORPUS)


def toy_joined_bigrams(data, join="given"):
    """Distinct / all token bigrams of the responses joined into one text, as given or sorted:
    the shape of every joining metric (compression, ngram-diversity, MATTR)."""
    from diveval.data import as_setting
    from diveval.results import Score, make_signature

    setting, items = as_setting(data)
    groups = items if setting == SETS else [items]
    per = []
    for g in groups:
        toks = " ".join(g if join == "given" else sorted(g)).split()
        grams = list(zip(toks, toks[1:]))
        per.append(len(set(grams)) / len(grams) if grams else 0.0)
    if not per:
        raise InputError("toy-joined needs at least one response")
    sig = make_signature("toy-joined", join=join, setting=setting)
    return Score("toy-joined", float(np.mean(per)), sig, setting, per if setting == SETS else None)


def _joined_row(name: str, fn) -> Metric:
    return Metric(
        name, "joined bigrams", fn, options=("join",), direction="higher", order_dependent=True
    )


@pytest.mark.parametrize("setting", [CORPUS, SETS])
def test_an_order_dependent_row_passes_the_suite_through_its_sorted_join(setting):
    with registered(_joined_row("toy-joined", toy_joined_bigrams)) as metric:
        run_common_suite(metric, setting)


def test_the_suite_catches_an_order_dependent_row_whose_sorted_join_still_depends_on_order():
    def ignores_join(data, join="given"):
        return toy_joined_bigrams(data, "given")

    with registered(_joined_row("toy-bad-sort", ignores_join)) as metric:
        with pytest.raises(AssertionError):
            check_order_invariance(metric, CORPUS)


def test_the_suite_catches_an_order_dependent_row_that_does_not_depend_on_order():
    def always_sorted(data, join="given"):
        score = toy_joined_bigrams(data, "sorted")
        return diveval.results.Score(
            score.metric, score.value, score.signature.replace("sorted", join), score.setting
        )

    with registered(_joined_row("toy-never-given", always_sorted)) as metric:
        with pytest.raises(AssertionError, match="order_dependent"):
            check_join_given_depends_on_order(metric, CORPUS)


def test_a_row_takes_the_join_option_exactly_when_it_is_order_dependent():
    with pytest.raises(ValueError, match="join"):
        register(Metric("toy-x", "x", toy_joined_bigrams, options=("join",), direction="higher"))
    with pytest.raises(ValueError, match="join"):
        register(
            Metric(
                "toy-y",
                "y",
                toy_joined_bigrams,
                options=(),
                direction="higher",
                order_dependent=True,
            )
        )
    assert "toy-x" not in METRICS and "toy-y" not in METRICS


def test_the_joining_metrics_are_the_order_dependent_rows():
    dependent = {n for n, m in all_metrics().items() if m.order_dependent}
    assert dependent == {
        "compression-ratio",
        "compression-ratio-xz",
        "pos-compression-ratio",
        "ngram-diversity",
        "mattr",
        "mtld",
        "template-rate",
        "templates-per-token",
        "msttr-100",
        "msttr-100-nopunct",
    }


def test_every_tag_a_row_declares_is_a_known_one():
    """The checks above read a row's tags; a tag outside ``TAGS`` (a typo) would silently run or
    skip a check."""
    from diveval.registry import TAGS

    unknown = {
        name: sorted(set(get_metric(name).tags) - set(TAGS))
        for name in all_metrics()
        if set(get_metric(name).tags) - set(TAGS)
    }
    assert not unknown
    assert {t for name in all_metrics() for t in get_metric(name).tags} == set(TAGS)
