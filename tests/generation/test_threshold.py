"""Diversity Threshold Generation step by step, with stub generators and stub metrics."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from conftest import shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.errors import InputError
from diveval.generation.scorers import PRESETS, FunctionScorer, MetricScorer, resolve_scorer
from diveval.generation.threshold import threshold_generate
from diveval.models.generators import GeneratorExhausted, PoolGenerator


class Scripted:
    """Returns the next items of a fixed script; records every (k, seed) it was asked for."""

    name = "scripted"

    def __init__(self, script):
        self.script = list(script)
        self.calls = []

    def sample(self, context, k, seed):
        self.calls.append((k, seed))
        if len(self.script) < k:
            raise GeneratorExhausted("script ran out")
        out, self.script = self.script[:k], self.script[k:]
        return out


class CountingScorer:
    """Diversity = number of distinct strings; counts how often each method runs."""

    name = "n-distinct"
    signature = "n-distinct|stub"

    def __init__(self):
        self.scored = []
        self.loo = []

    def score(self, responses):
        self.scored.append(list(responses))
        return float(len(set(responses)))

    def leave_one_out(self, responses):
        self.loo.append(list(responses))
        r = list(responses)
        return [float(len(set(r[:i] + r[i + 1 :]))) for i in range(len(r))]


def test_drops_the_response_missing_from_the_best_subset_first_on_ties():
    gen = Scripted(["a", "a", "b", "c", "d", "e"])
    scorer = CountingScorer()
    res = threshold_generate("ctx", gen, scorer, 4.5)
    # removing slot 0 or slot 1 (both "a") leaves 4 distinct: a tie, the earlier slot goes
    assert len(res.steps) == 1
    step = res.steps[0]
    assert step.subset_scores == (4.0, 4.0, 3.0, 3.0, 3.0)
    assert step.dropped_index == 0 and step.dropped == "a" and step.added == "e"
    assert res.end == ("e", "a", "b", "c", "d")  # the replacement takes the dropped slot
    assert res.start == ("a", "a", "b", "c", "d")
    assert res.start_diversity == 4.0 and res.end_diversity == 5.0
    assert res.samples == 6 and res.reached and res.stop == "reached"
    assert res.overlap == 4
    assert gen.calls == [(5, 0), (1, 1)]  # n at once, then one replacement with seed + 1


def test_tie_goes_to_the_first_subset_whatever_the_values():
    # scores that tie between slots 2 and 4: slot 2 goes
    def f(responses):
        return sum(len(x) for x in responses) - 10 * (len(responses) == 5)

    gen = Scripted(["aaaa", "aaa", "a", "aa", "a", "zzzzzzzz"])
    res = threshold_generate("c", gen, FunctionScorer(f), 15)
    first = res.steps[0]
    assert first.subset_scores == (7.0, 8.0, 10.0, 9.0, 10.0)
    assert first.dropped_index == 2


def test_threshold_reached_at_once_draws_nothing_more():
    gen = Scripted(list("abcdefg"))
    scorer = CountingScorer()
    res = threshold_generate("c", gen, scorer, 4.0)
    assert res.reached and res.samples == 5 and res.steps == ()
    assert res.start == res.end and res.overlap == 5
    assert scorer.loo == []  # no subset scoring when the start is good enough
    assert gen.calls == [(5, 0)]


def test_above_is_strict():
    res = threshold_generate("c", Scripted(list("abcdeabcdeabcdeabcde")), CountingScorer(), 5.0)
    assert not res.reached and res.stop == "budget"


def test_never_reached_uses_the_whole_budget():
    gen = Scripted(["x"] * 40)
    scorer = CountingScorer()
    res = threshold_generate("c", gen, scorer, 1.5, seed=7)
    assert res.samples == 20 and not res.reached and res.stop == "budget"
    assert len(res.steps) == 15
    assert res.overlap == 4  # all ties: slot 0 is dropped every time
    assert all(s.dropped_index == 0 for s in res.steps)
    assert [s for _, s in gen.calls] == [7] + list(range(8, 23))
    assert len(scorer.loo) == 15
    short = threshold_generate("c", Scripted(["x"] * 40), CountingScorer(), 1.5, max_samples=7)
    assert short.samples == 7 and len(short.steps) == 2


def test_overlap_counts_samples_not_texts():
    # the replacement repeats a text of the starting set; it is still a new sample
    gen = Scripted(["a", "a", "b", "c", "d", "a", "e"])
    res = threshold_generate("c", gen, CountingScorer(), 4.5)
    assert res.end == ("e", "a", "b", "c", "d")
    assert res.samples == 7 and res.overlap == 4


def test_exhausted_generator_stops_the_loop():
    gen = Scripted(["a", "a", "a", "a", "a", "a"])
    res = threshold_generate("c", gen, CountingScorer(), 3)
    assert res.stop == "exhausted" and res.samples == 6 and not res.reached


def test_too_few_responses_to_start_is_an_input_error():
    with pytest.raises(InputError, match="first 5"):
        threshold_generate("c", Scripted(["a", "b"]), CountingScorer(), 3)


def test_keep_best_is_never_below_the_start_and_last_can_be():
    # start: 5 distinct words; a tiny threshold nobody reaches with score = distinct count,
    # but replacements are duplicates, so the last set is worse than the start
    gen = Scripted(["a", "b", "c", "d", "e"] + ["b"] * 15)
    last = threshold_generate("c", gen, CountingScorer(), 5.5)
    assert last.end_diversity < last.start_diversity
    best = threshold_generate(
        "c", Scripted(["a", "b", "c", "d", "e"] + ["b"] * 15), CountingScorer(), 5.5, keep="best"
    )
    assert best.end_diversity == best.start_diversity == 5.0
    assert best.end == best.start and best.samples == last.samples == 20


def test_nan_subset_never_wins_and_all_nan_is_an_error():
    class Nanny:
        name, signature = "nan", "nan"

        def score(self, r):
            return 0.0

        def leave_one_out(self, r):
            return [math.nan, 2.0, math.nan, 1.0, 0.0]

    res = threshold_generate("c", Scripted(list("abcdef")), Nanny(), 0.5)
    assert res.steps[0].dropped_index == 1

    class AllNan(Nanny):
        def leave_one_out(self, r):
            return [math.nan] * 5

    with pytest.raises(InputError, match="NaN"):
        threshold_generate("c", Scripted(list("abcdef")), AllNan(), 5)


def test_bad_arguments():
    with pytest.raises(InputError):
        threshold_generate("c", Scripted(list("abcde")), CountingScorer(), 1, n=1)
    with pytest.raises(InputError):
        threshold_generate("c", Scripted(list("abcde")), CountingScorer(), 1, max_samples=3)
    with pytest.raises(InputError, match="threshold"):
        threshold_generate("c", Scripted(list("abcde")), "distinct-2")
    with pytest.raises(InputError, match="strings"):
        threshold_generate("c", lambda c, k, s: None, CountingScorer(), 1)
    with pytest.raises(InputError, match="strings"):
        threshold_generate("c", lambda c, k, s: ["only one"], CountingScorer(), 1)


def test_same_seed_same_run_with_a_pool():
    pool = {"ctx": [f"w{i} x{i % 3}" for i in range(30)]}
    a = threshold_generate("ctx", PoolGenerator(pool), "avg-distinct", seed=3)
    b = threshold_generate("ctx", PoolGenerator(pool), "avg-distinct", seed=3)
    c = threshold_generate("ctx", PoolGenerator(pool), "avg-distinct", seed=4)
    assert a.to_dict(with_steps=True) == b.to_dict(with_steps=True)
    assert a.start != c.start


def _reference(draws, score, threshold, n, budget):
    """Independent reading of the procedure: plain lists, subsets by deleting each index."""
    it = iter(draws)
    cur = [next(it) for _ in range(n)]
    drawn = n
    while not score(cur) > threshold and drawn < budget:
        subs = [score(cur[:i] + cur[i + 1 :]) for i in range(n)]
        i = subs.index(max(subs))
        cur[i] = next(it)
        drawn += 1
    return cur, drawn


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a b", "a c", "b c d", "d", "e f g", "a", "c c"]), min_size=20, max_size=20
    ),
    st.floats(0.3, 1.0),
    st.integers(2, 5),
    st.integers(5, 20),
)
def test_matches_an_independent_reading_of_the_procedure(draws, threshold, n, budget):
    def distinct1(resp):
        toks = [t for r in resp for t in r.split()]
        return len(set(toks)) / len(toks) if toks else 0.0

    budget = max(budget, n)
    want_set, want_drawn = _reference(draws, distinct1, threshold, n, budget)
    res = threshold_generate(
        "c", Scripted(draws), FunctionScorer(distinct1), threshold, n=n, max_samples=budget
    )
    assert list(res.end) == want_set and res.samples == want_drawn


def test_metric_scorer_scores_subsets_like_the_metric_alone():
    import diveval

    sets = ["the cat sat", "the dog sat", "a bird flew off", "the cat ran", "we went home"]
    scorer = MetricScorer("avg-distinct", tokenizer="tevet")
    loo = scorer.leave_one_out(sets)
    for i, v in enumerate(loo):
        alone = diveval.avg_distinct([sets[:i] + sets[i + 1 :]], tokenizer="tevet").value
        assert v == pytest.approx(alone, abs=1e-12)
    assert scorer.score(sets) == pytest.approx(
        diveval.avg_distinct([sets], tokenizer="tevet").value
    )
    assert "tok:tevet" in scorer.signature


def test_presets():
    scorer, thr, report = resolve_scorer("avg-distinct")
    assert thr == 0.98 and scorer.options["tokenizer"] == "tevet" and report is None
    scorer, thr, report = resolve_scorer("sent-bert")
    # regression: the paper's -0.179 belongs to its BERT-large embedder; the default
    # MiniLM embedder has its own 90th percentile on DailyDialog++ dev
    assert thr == pytest.approx(-0.15967, abs=1e-5) and scorer.name == "sent-bert"
    scorer, thr, report = resolve_scorer("nli")
    assert thr == 10 and scorer.name == "nli-counts" and report.name == "nli-baseline"
    assert resolve_scorer("avg-distinct", 0.5)[1] == 0.5
    with pytest.raises(InputError):
        resolve_scorer("ead-9", 1)


class StubNLI:
    """A deterministic NLI stub: probabilities from a hash of the pair; counts the pairs it sees."""

    name = "stub-nli"
    fingerprint = "stub0"

    def __init__(self):
        self.pairs = []

    def predict(self, premises, hypotheses):
        import hashlib

        import numpy as np

        self.pairs += list(zip(premises, hypotheses))
        rows = []
        for p, h in zip(premises, hypotheses):
            d = hashlib.blake2b(f"{p}|{h}".encode(), digest_size=3).digest()
            v = np.array([d[0] + 1.0, d[1] + 1.0, d[2] + 1.0])
            rows.append(v / v.sum())
        return np.array(rows)


class StubEmbedder:
    name = "stub-emb"
    fingerprint = "stub0"

    def __init__(self):
        self.texts = []

    def encode(self, texts):
        import hashlib

        import numpy as np

        self.texts += list(texts)
        return np.array(
            [
                [b - 128.0 for b in hashlib.blake2b(t.encode(), digest_size=8).digest()]
                for t in texts
            ]
        )


def test_nli_preset_pays_only_for_the_new_responses_pairs():
    from diveval.semantic.nli_diversity import nli_diversity

    model = StubNLI()
    texts = [f"response number {i}" for i in range(20)]
    res = threshold_generate("c", Scripted(texts), "nli", nli_model=model)
    assert res.metric == "nli-counts" and res.threshold == 10
    steps = len(res.steps)
    # 20 ordered pairs for the first set, then 2(n-1) = 8 per replacement; leave-one-out subsets
    # and the reported Baseline NLI Diversity cost nothing more
    assert len(model.pairs) == 20 + 8 * steps
    assert len(set(model.pairs)) == len(model.pairs)
    fresh = StubNLI()
    want = nli_diversity([list(res.end)], fresh, "baseline").value
    assert res.report["nli-baseline"]["end"] == want
    counts = nli_diversity([list(res.end)], fresh, "baseline").details["counts"]["contradiction"][0]
    assert res.end_diversity == counts and res.reached == (counts > 10)
    assert "stub-nli" in res.signature


def test_sent_bert_preset_embeds_each_response_once():
    from diveval.semantic.embedding_diversity import embedding_diversity

    model = StubEmbedder()
    texts = [f"reply {i}" for i in range(20)]
    res = threshold_generate("c", Scripted(texts), "sent-bert", 0.9, embedding_model=model)
    assert res.samples == 20 and len(res.steps) == 15  # 0.9 is out of reach for 5 vectors
    assert sorted(model.texts) == sorted(texts)  # every sample embedded exactly once
    assert res.end_diversity == pytest.approx(
        embedding_diversity([list(res.end)], StubEmbedder()).value
    )


class OtherEmbedder:
    name = "some-other-embedder"
    fingerprint = "0123456789ab"

    def encode(self, texts):
        return np.ones((len(texts), 4), dtype=np.float32)


def test_a_percentile_preset_belongs_to_the_model_it_was_measured_with():
    from diveval.generation.scorers import resolve_preset

    _, thr, _, why = resolve_preset("sent-bert")
    assert "all-MiniLM-L6-v2" in why and "90th percentile of DailyDialog++ dev" in why
    with pytest.raises(InputError, match="none is known for some-other-embedder.*--threshold"):
        resolve_preset("sent-bert", embedding_model=OtherEmbedder())
    _, thr, _, why = resolve_preset("sent-bert", -0.2, embedding_model=OtherEmbedder())
    assert thr == -0.2 and why == "given (--threshold)"


def test_the_measured_sent_bert_threshold_is_the_default_embedders_percentile():
    from diveval.generation.scorers import MEASURED, _model_fingerprint
    from diveval.generation.thresholds import percentile_threshold
    from diveval.io.contexts import read_response_sets

    sets = read_response_sets(str(shared_path("dailydialog-plusplus", "dev.json")))
    est = percentile_threshold(sets, "sent-bert", 90)
    _, fp = _model_fingerprint(PRESETS["sent-bert"], {})
    # The constant was measured once; the re-measurement runs float32 MiniLM through whatever
    # BLAS/oneDNN kernels this machine has. Each set value is minus a mean of 10 cosines of
    # float32 embeddings (a few ulps of 1.2e-7 per cosine), and the percentile interpolates two
    # such values, so machines agree to a few e-7, not to 1e-9 (3.7e-8 apart seen on one).
    assert MEASURED[("sent-bert", fp)] == pytest.approx(est.value, abs=1e-6)


def _mpnet_embedder():
    """The offline all-mpnet-base-v2 of the mpnet extra, or skip (not installed, or the extra's
    module is not in this tree)."""
    mpnet = pytest.importorskip("diveval.models.mpnet")
    pytest.importorskip("sentence_transformers")
    try:
        mpnet.mpnet_folder()
    except (InputError, ImportError) as err:
        pytest.skip(f"mpnet extra not usable: {err}")
    from diveval.models.resolve import resolve_embedder

    return resolve_embedder("mpnet", device="cpu")


@pytest.mark.skipif(
    not os.environ.get("DIVEVAL_SLOW_TESTS"),
    reason="embeds 5,140 texts with mpnet (minutes on a CPU); set DIVEVAL_SLOW_TESTS=1",
)
def test_the_measured_sent_bert_threshold_of_mpnet_is_its_percentile():
    """MEASURED's mpnet entry is mpnet's own 90th percentile on DailyDialog++ dev."""
    from diveval.generation.scorers import MEASURED, resolve_preset
    from diveval.generation.thresholds import percentile_threshold
    from diveval.io.contexts import read_response_sets

    emb = _mpnet_embedder()
    sets = read_response_sets(str(shared_path("dailydialog-plusplus", "dev.json")))
    est = percentile_threshold(sets, "sent-bert", 90, embedding_model=emb)
    # float32 embeddings: the same tolerance as MiniLM's measured threshold above
    assert MEASURED[("sent-bert", emb.fingerprint)] == pytest.approx(est.value, abs=1e-6)
    _, thr, _, why = resolve_preset("sent-bert", embedding_model=emb)
    assert thr == MEASURED[("sent-bert", emb.fingerprint)] and "all-mpnet-base-v2" in why


def test_the_mpnet_threshold_is_looked_up_by_its_fingerprint():
    """An embedder with mpnet's weight fingerprint gets mpnet's measured threshold, not MiniLM's
    and not the paper's (no model is loaded)."""
    from diveval.generation.scorers import MEASURED, MPNET_FINGERPRINT, resolve_preset

    class MpnetLike(OtherEmbedder):
        name = "all-mpnet-base-v2"
        fingerprint = MPNET_FINGERPRINT

    _, thr, _, why = resolve_preset("sent-bert", embedding_model=MpnetLike())
    assert thr == MEASURED[("sent-bert", MPNET_FINGERPRINT)]
    assert thr not in (-0.179, MEASURED[("sent-bert", "fe70145dbf15")])
    assert f"fp:{MPNET_FINGERPRINT}" in why


def _at_098_set():
    """Five responses whose averaged distinct-n (Tevet's tokenizer) is exactly 0.98 in rational
    arithmetic: distinct-1 27/30, distinct-2..5 all 1; floats give 0.9800000000000001."""
    words = [f"w{i}" for i in range(27)] + ["w0", "w5", "w10"]
    return [" ".join(words[6 * i : 6 * i + 6]) for i in range(5)]


def test_a_score_at_the_threshold_up_to_float_noise_is_not_above_it():
    import diveval
    from diveval.generation.threshold import ABOVE_RTOL, above

    at = _at_098_set()
    value = diveval.avg_distinct([at], tokenizer="tevet").value
    assert value != 0.98 and abs(value - 0.98) < 1e-15  # the float noise this rule absorbs
    assert not above(value, 0.98)
    # the starting set is at 0.98, not above: the loop goes on and replaces a response
    res = threshold_generate("c", Scripted(at + ["brand new words here"] * 15), "avg-distinct")
    # stored as compared: the threshold itself, never 0.9800000000000001 beside "not reached"
    assert res.start_diversity == 0.98 and res.steps and res.steps[0].score_before == 0.98
    assert res.end_diversity == 1.0 and res.reached and res.samples == 6
    # a real margin still counts, however small compared with the metric's resolution
    assert above(0.98 + 1e-9, 0.98) and not above(0.98 + 0.5 * ABOVE_RTOL, 0.98)
    assert above(-0.15 + 1e-9, -0.15) and not above(-0.15, -0.15)
    assert not above(math.nan, 0.5) and above(1.0, -math.inf) and not above(1e300, math.inf)


def test_a_record_at_the_threshold_stores_the_number_its_decision_compared():
    """A set that ends at 0.98 up to float noise: the record said end_diversity
    0.9800000000000001, threshold 0.98, reached false. Stored value and decision now agree."""
    from diveval.generation.threshold import settle

    at = _at_098_set()
    res = threshold_generate("c", Scripted(at), "avg-distinct", max_samples=5)
    record = res.to_dict()
    assert record["end_diversity"] == record["threshold"] == 0.98
    assert record["reached"] is False
    assert (record["end_diversity"] > record["threshold"]) == record["reached"]
    assert settle(0.98 + 1e-9, 0.98) == 0.98 + 1e-9 and math.isnan(settle(math.nan, 0.5))


def test_a_record_keeps_its_field_order():
    # the dataclass declares threshold_source among the defaulted fields (no kw_only on 3.9);
    # records still write it next to the threshold it explains
    pool = {"ctx": [f"w{i} x{i % 3}" for i in range(30)]}
    record = threshold_generate("ctx", PoolGenerator(pool), "avg-distinct", seed=3).to_dict()
    assert list(record)[:5] == ["context", "metric", "threshold", "threshold_source", "start"]
    assert list(record)[-2:] == ["keep", "signature"]
