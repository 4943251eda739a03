"""The GEM benchmark's lexical set and intra-distinct against GEM-metrics' formulas restated here
with plain loops (GEM-metrics is not on PyPI: ``gem_metrics/ngrams.py`` NGramStats,
``msttr.py`` MSTTR._MSTTR, ``local_recall.py`` LocalRecall), on real responses of
../shared/data (skipped when absent) and on generated inputs."""

from __future__ import annotations

import json
import math
import string
import warnings

import numpy as np
import pytest
from conftest import shared_path
from diversity_reference import generated_documents
from hypothesis import given, settings
from hypothesis import strategies as st

import diveval
from diveval.errors import InputError
from diveval.lexical.gem import cond_entropy, entropy, intra_distinct, msttr, unique_ngrams
from diveval.reference.local_recall import local_recall
from diveval.registry import all_metrics
from diveval.text.ngrams import group_code_keys

# ---------------------------------------------------------------- GEM-metrics, restated with loops

GEM_PUNCT = set(string.punctuation)


def gem_nopunct(token_lists):
    return [[w for w in toks if w not in GEM_PUNCT] for toks in token_lists]


def gem_ngram_freqs(token_lists, n):
    """NGramStats._ngram_stats: n-grams of each instance (nltk.ngrams), counted over all."""
    freqs: dict = {}
    for toks in token_lists:
        for i in range(len(toks) - n + 1):
            gram = tuple(toks[i : i + n])
            freqs[gram] = freqs.get(gram, 0) + 1
    return freqs


def gem_entropy(freqs):
    total = sum(freqs.values())
    return -sum(f / total * math.log2(f / total) for f in freqs.values())


def gem_cond_entropy(joint, ctx):
    total_joint = sum(joint.values())
    total_ctx = sum(ctx.values())
    return -sum(
        f / total_joint * math.log2((f / total_joint) / (ctx[g[:-1]] / total_ctx))
        for g, f in joint.items()
    )


def gem_unique(freqs):
    return len([v for v in freqs.values() if v == 1])


def gem_msttr(token_lists, window=100):
    """MSTTR._MSTTR: the instances concatenated, non-overlapping windows, the last partial one
    dropped; NaN when there is no full window."""
    concatenated = [w for toks in token_lists for w in toks]
    ttrs = []
    for i in range(0, len(concatenated), window):
        seg = concatenated[i : i + window]
        if len(seg) < window:
            break
        ttrs.append(len(set(seg)) / len(seg))
    return sum(ttrs) / len(ttrs) if ttrs else float("nan")


def gem_local_recall(predictions, references):
    """LocalRecall.local_recall_scores: {level: pooled recall}."""
    outcomes: dict = {}
    num_refs = set()
    for pred, refs in zip(predictions, references):
        counts: dict = {}
        for ref in refs:
            for w in set(ref):
                counts[w] = counts.get(w, 0) + 1
        index: dict = {}
        for w, c in counts.items():
            index.setdefault(c, set()).add(w)
        pred_tokens = set(pred)
        num_refs.add(len(refs))
        for n in range(1, len(refs) + 1):
            words = index.get(n, set())
            outcomes.setdefault(n, []).append((len(pred_tokens & words), len(words)))
    scores = {}
    for n in range(1, max(num_refs) + 1):
        overlaps = sum(o for o, _ in outcomes[n])
        sizes = sum(s for _, s in outcomes[n])
        scores[n] = overlaps / sizes if sizes > 0 else 0
    return scores


def loops_intra_distinct(token_lists, n):
    """Mean over responses with an n-gram of (distinct n-grams / n-grams) of the response."""
    values = []
    for toks in token_lists:
        grams = [tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)]
        if grams:
            values.append(len(set(grams)) / len(grams))
    return sum(values) / len(values) if values else 0.0


def gem_values(token_lists):
    """{row name: GEM's value} for one corpus of token lists (whitespace tokens as given)."""
    out = {}
    for suffix, data in (("", token_lists), ("-nopunct", gem_nopunct(token_lists))):
        last = None
        for n in (1, 2, 3):
            freqs = gem_ngram_freqs(data, n)
            out[f"entropy-{n}{suffix}"] = gem_entropy(freqs)
            out[f"unique-{n}{suffix}"] = gem_unique(freqs)
            if n > 1:
                # GEM reports it only when there are (n-1)-grams; without, diveval's rule is 0
                out[f"cond-entropy-{n}{suffix}"] = gem_cond_entropy(freqs, last) if last else 0.0
            last = freqs
        out[f"msttr-100{suffix}"] = gem_msttr(data, 100)
    for n in (1, 2):
        out[f"intra-distinct-{n}"] = loops_intra_distinct(token_lists, n)
    return out


GEM_ROWS = [
    "entropy-1",
    "entropy-2",
    "entropy-3",
    "entropy-1-nopunct",
    "entropy-2-nopunct",
    "entropy-3-nopunct",
    "cond-entropy-2",
    "cond-entropy-3",
    "cond-entropy-2-nopunct",
    "cond-entropy-3-nopunct",
    "unique-1",
    "unique-2",
    "unique-3",
    "unique-1-nopunct",
    "unique-2-nopunct",
    "unique-3-nopunct",
    "msttr-100",
    "msttr-100-nopunct",
    "intra-distinct-1",
    "intra-distinct-2",
]


def _close(got, want, what):
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12), what


def check_corpus(texts, **options):
    """Every row on a corpus equals GEM's formula on the same whitespace tokens; MSTTR where GEM
    defines it (at least one full segment)."""
    # diveval.score skips blank responses (data.is_empty), so GEM's formula sees the others
    kept = [t for t in texts if t.strip()]
    if not kept:
        with pytest.raises(InputError, match="no responses to score"):
            diveval.score(texts, GEM_ROWS, **options)
        return None
    tokens = [t.lower().split() if options.get("lowercase") else t.split() for t in kept]
    want = gem_values(tokens)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the skipped blank responses, named
        got = diveval.score(texts, GEM_ROWS, **options)
    for name in GEM_ROWS:
        if name.startswith("msttr") and math.isnan(want[name]):
            continue
        _close(got[name].value, want[name], name)
    return got


def check_sets(sets, **options):
    """Per set GEM's formula, the value the mean over sets."""
    # diveval.score skips blank responses, and a set left with none (data.is_empty)
    sets = [kept for kept in ([t for t in s if t.strip()] for s in sets) if kept]
    if not sets:
        return None
    got = diveval.score(sets, GEM_ROWS, **options)
    lower = options.get("lowercase")
    per_set = [gem_values([(t.lower() if lower else t).split() for t in s]) for s in sets]
    for name in GEM_ROWS:
        if name.startswith("msttr"):
            continue  # sets of short responses have no full segment: checked apart
        want = [v[name] for v in per_set]
        np.testing.assert_allclose(got[name].items, want, rtol=1e-12, atol=1e-12, err_msg=name)
        _close(got[name].value, float(np.mean(want)), name)
    return got


# ---------------------------------------------------------------- real data


def _hred_lines():
    path = shared_path("multirefeval", "hredf.txt")
    return path.read_text(encoding="utf-8").splitlines()


def _multiref_turn_references():
    """The 5 human references of every replied turn of the multirefeval test split, in file
    order (the HRED outputs' order)."""
    path = shared_path("multirefeval", "multireftest.json")
    refs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for turn in json.loads(line)["dialogue"]:
            if "responses" in turn:  # the last turn of a dialogue has no reply
                refs.append(turn["responses"])
    return refs


def test_equal_to_gem_on_the_hred_responses_of_multirefeval():
    # 6,740 responses, tokenized and lower-cased as GEM's nltk tokens would be: punctuation is
    # split off, so the -nopunct rows drop something
    lines = _hred_lines()
    got = check_corpus(lines)
    assert got["entropy-1-nopunct"].value != got["entropy-1"].value
    assert got["msttr-100"].details["segments"] == sum(len(t.split()) for t in lines) // 100
    # the responses joined in code-point order: GEM's MSTTR of the sorted responses
    srt = diveval.score(lines, ["msttr-100"], join="sorted")["msttr-100"]
    _close(srt.value, gem_msttr([t.split() for t in sorted(lines)]), "msttr sorted")


def test_local_recall_equals_gem_on_multirefeval():
    lines, refs = _hred_lines(), _multiref_turn_references()
    assert len(lines) == len(refs)
    got = local_recall(lines, refs)
    want = gem_local_recall(
        gem_nopunct([t.split() for t in lines]),
        [gem_nopunct([r.split() for r in rs]) for rs in refs],
    )
    assert set(got.details["by_level"]) == set(want) == {1, 2, 3, 4, 5}
    for k, v in want.items():
        _close(got.details["by_level"][k], v, f"level {k}")
    _close(got.value, want[5], "top level")
    # through the registry and diveval.score, as the CLI runs it
    row = diveval.score(lines, ["ref-local-recall"], references=refs)["ref-local-recall"]
    assert row.value == got.value and "setting:corpus" in row.signature


def test_sets_equal_gem_per_set_on_dailydialog_plusplus():
    path = shared_path("dailydialog-plusplus", "test.json")
    sets = [json.loads(line)["positive_responses"] for line in path.read_text().splitlines()]
    check_sets(sets[:300])
    check_sets(sets[:300], lowercase=True)


# ---------------------------------------------------------------- generated inputs

WORDS = ["a", "b", "c", "dd", ".", ",", "!", "?", "e.", "..."]
texts_st = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)


@settings(max_examples=150)
@given(st.lists(texts_st, min_size=1, max_size=30))
def test_corpus_equals_gem_on_generated_inputs(texts):
    check_corpus(texts)


@settings(max_examples=100)
@given(st.lists(st.lists(texts_st, min_size=0, max_size=6), min_size=1, max_size=6))
def test_sets_equal_gem_per_set_on_generated_inputs(sets):
    check_sets(sets)


@settings(max_examples=60)
@given(st.lists(st.sampled_from(WORDS[:5]), min_size=0, max_size=400), st.integers(1, 120))
def test_msttr_equals_gem_when_a_segment_is_full(tokens, window):
    got = msttr([" ".join(tokens)], window=window)
    want = gem_msttr([tokens], window)
    if math.isnan(want):  # no full segment: diveval's rule, the type/token ratio of all tokens
        assert got.value == (len(set(tokens)) / len(tokens) if tokens else 0.0)
        assert got.details["segments"] == 0 and got.details["short_sets"] == 1
    else:
        _close(got.value, want, "msttr")
        assert got.details["segments"] == len(tokens) // window


@settings(max_examples=100)
@given(
    st.lists(
        st.tuples(texts_st, st.lists(texts_st, min_size=1, max_size=5)), min_size=1, max_size=12
    )
)
def test_local_recall_equals_gem_on_generated_inputs(items):
    hyps = [h for h, _ in items]
    refs = [r for _, r in items]
    got = local_recall(hyps, refs)
    want = gem_local_recall(
        gem_nopunct([h.split() for h in hyps]), [gem_nopunct([x.split() for x in r]) for r in refs]
    )
    assert got.details["by_level"] == pytest.approx(want, rel=1e-12)
    assert got.value == pytest.approx(want[max(want)], rel=1e-12)


def test_equal_to_gem_on_generated_documents_lowercased_and_13a():
    docs = generated_documents(300, 4, max_len=30)
    check_corpus(docs, lowercase=True)
    # 13a splits the punctuation off: GEM's formulas on the same tokens
    from diveval.text.tokenizers import get_tokenizer

    tok = get_tokenizer("13a")
    tokenized = [" ".join(tok(d)) for d in docs]
    got = diveval.score(docs, ["entropy-2-nopunct", "msttr-100-nopunct"], tokenizer="13a")
    want = gem_values([t.split() for t in tokenized])
    for name in ("entropy-2-nopunct", "msttr-100-nopunct"):
        _close(got[name].value, want[name], name)
        assert "tok:13a" in got[name].signature and "punct:no" in got[name].signature


# ---------------------------------------------------------------- rules and worked values


def test_worked_values():
    # a:2 b:1 c:1 -> H = 1.5 bits; b and c seen once
    assert entropy(["a b a c"], n=1).value == 1.5
    assert unique_ngrams(["a b a c"], n=1).value == 2
    # GEM's conditional entropy counts the (n-1)-grams that start no n-gram: "a b" scores
    # -(1) log2(1 / (1/2)) = -1
    assert cond_entropy(["a b"], n=2).value == -1.0
    # n-grams never cross two responses
    assert entropy(["a", "b"], n=2).value == 0.0
    assert entropy(["a", "b"], n=2).details["empty_sets"] == 1
    assert intra_distinct(["a a", "a b"], n=1).value == 0.75


def test_nopunct_drops_single_punctuation_tokens_only():
    got = diveval.score(["a . b ... c , don't !"], ["unique-1", "unique-1-nopunct"])
    assert got["unique-1"].value == 8
    assert got["unique-1-nopunct"].value == 5  # a b ... c don't: "..." is not one character
    assert "punct:yes" in got["unique-1"].signature
    assert "punct:no" in got["unique-1-nopunct"].signature


def test_msttr_drops_the_last_partial_segment_and_warns_when_short():
    tokens = [f"w{i}" for i in range(100)] + ["x"] * 50
    got = msttr([" ".join(tokens)])
    assert got.value == 1.0 and got.details["segments"] == 1  # the 50 x's are dropped
    short = msttr(["a b a"])
    assert short.value == pytest.approx(2 / 3)
    assert short.details["short_sets"] == 1 and "NaN" in short.details["warnings"][0]
    sets = msttr([[" ".join(tokens)], ["a b a"]])
    assert sets.details["short_sets"] == 1 and "1 of 2 sets" in sets.details["warnings"][0]
    with pytest.raises(InputError, match="segment"):
        msttr(["a"], window=0)
    with pytest.raises(InputError, match="join"):
        msttr(["a"], join="random")


def test_msttr_depends_on_the_order_given_unless_sorted():
    docs = generated_documents(80, 3, max_len=20)
    given_ = diveval.score(docs, ["msttr-100"])["msttr-100"]
    moved = diveval.score(docs[::-1], ["msttr-100"])["msttr-100"]
    assert given_.value != moved.value and "join:given" in given_.signature
    a = diveval.score(docs, ["msttr-100"], join="sorted")["msttr-100"]
    b = diveval.score(docs[::-1], ["msttr-100"], join="sorted")["msttr-100"]
    assert a.value == b.value and "join:sorted" in a.signature


def test_intra_distinct_leaves_out_responses_without_an_ngram_and_is_not_pooled_distinct():
    data = ["a b a b", "c", "", "c d"]
    got = diveval.score(data, ["intra-distinct-2", "distinct-2"])
    # bigrams: "a b a b" 2/3, "c d" 1/1; "c" has none and is left out ("" is skipped before
    # scoring, as every blank response is)
    assert got["intra-distinct-2"].value == pytest.approx((2 / 3 + 1) / 2)
    assert got["intra-distinct-2"].details["empty_responses"] == 1
    assert got["distinct-2"].value == pytest.approx(3 / 4)  # pooled: another number
    # a corpus or set with no bigram at all: 0.0, Distinct-n's rule, counted
    none = intra_distinct([["a", "b"], ["a b", "b c c"]], n=2)
    assert list(none.items) == [0.0, pytest.approx(1.0)]
    assert none.details == {"empty_responses": 2, "empty_sets": 1}


def test_local_recall_needs_references_and_matches_its_worked_value():
    got = local_recall(["a b c", "x y"], [["a b", "a c d"], ["x", "z", "x y"]])
    # level 1: b, c of b c d and y of z y -> 3/5; level 2: a and x -> 2/2; level 3: none -> 0
    assert got.details["by_level"] == {1: 0.6, 2: 1.0, 3: 0.0}
    assert got.value == 0.0 and "level:3" in got.signature
    with pytest.raises(InputError, match="references"):
        diveval.score(["a b"], ["ref-local-recall"])
    with pytest.raises(InputError):
        diveval.score([["a b", "c"]], ["ref-local-recall"], references=[["a"]])


def test_rows_and_their_directions():
    metrics = all_metrics()
    for name in [*GEM_ROWS, "ref-local-recall"]:
        assert metrics[name].direction == "higher", name
    assert metrics["msttr-100"].order_dependent and not metrics["entropy-2"].order_dependent
    assert metrics["ref-local-recall"].settings == ("corpus",)


def test_group_code_keys_separate_groups_in_both_branches():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 50, size=2000).astype(np.int64)
    group = rng.integers(0, 7, size=2000).astype(np.int64)
    for exact in (True, False):  # False: the mixed, group-in-the-top-bits keys
        keys = group_code_keys(codes, exact, group, 7)
        pairs = list(zip(group.tolist(), codes.tolist()))
        by_key: dict = {}
        for k, p in zip(keys.tolist(), pairs):
            by_key.setdefault(k, set()).add(p)
        assert all(len(v) == 1 for v in by_key.values())
        assert len(by_key) == len(set(pairs))


# ---------------------------------------------------------------- states: the corpus setting splits

STATE_ROWS = [n for n in GEM_ROWS if not n.startswith("msttr")]  # MSTTR joins: no state


def _state_of(name, texts, cuts, **options):
    """The row's state over the texts cut at ``cuts``, one state per part, merged in reverse."""
    row = all_metrics()[name]
    bounds = sorted({0, len(texts), *(min(c, len(texts)) for c in cuts)})
    parts = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        part = row.make_state(options)
        for i in range(a, b, 3):  # several updates inside a part
            part.update(texts[i : min(i + 3, b)])
        parts.append(part)
    if not parts:
        return row.make_state(options)
    return parts[-1].merge(*parts[-2::-1])


def _same_score(got, want):
    assert got.signature == want.signature
    assert got.value == pytest.approx(want.value, rel=1e-12, abs=1e-12)
    assert dict(got.details) == dict(want.details)


@settings(max_examples=40)
@given(st.lists(texts_st, min_size=1, max_size=25), st.lists(st.integers(0, 25), max_size=3))
def test_any_split_of_the_corpus_merges_to_the_one_process_score(texts, cuts):
    # diveval.score skips blank responses before any state sees them; the states are fed alike
    texts = [t for t in texts if t.strip()]
    if not texts:
        return
    for name in STATE_ROWS:
        got = _state_of(name, texts, cuts).result()
        _same_score(got, diveval.score(texts, [name])[name])


def test_states_shard_through_files_and_keep_their_settings(tmp_path):
    from diveval.scale.shards import ShardResult, merge_shards, score_shard

    docs = generated_documents(400, 11, max_len=25)
    for options in ({}, {"lowercase": True, "tokenizer": "13a"}):
        local = diveval.score(docs, STATE_ROWS, **options)
        files = []
        for i in range(3):
            path = tmp_path / f"gem.{i}.state"
            score_shard(docs, STATE_ROWS, (i, 3), **options).save(path)
            files.append(path)
        merged = merge_shards([ShardResult.load(p) for p in reversed(files)])
        for name in STATE_ROWS:
            _same_score(merged[name], local[name])
    # a state saved and loaded is the same state; states of other settings do not merge
    state = _state_of("cond-entropy-3-nopunct", docs, [100, 250])
    state.save(tmp_path / "one.state")
    back = type(state).load(tmp_path / "one.state")
    _same_score(back.result(), state.result())
    other = all_metrics()["cond-entropy-3"].make_state({})
    with pytest.raises(InputError, match="different settings"):
        state.merge(other)


def test_rows_of_one_run_share_counts_without_mixing_inputs():
    from diveval.context import RunContext

    context = RunContext()
    for seed in range(5):  # fresh inputs through one context: never another input's counts
        docs = generated_documents(30, seed, max_len=10)
        want = gem_values([d.split() for d in docs])
        for fn, name in ((entropy, "entropy-2-nopunct"), (unique_ngrams, "unique-2-nopunct")):
            got = fn(docs, n=2, keep_punctuation=False, context=context).value
            _close(got, want[name], name)
        _close(cond_entropy(docs, n=3, context=context).value, want["cond-entropy-3"], "cond")


@settings(max_examples=40)
@given(
    st.lists(
        st.tuples(texts_st, st.lists(texts_st, min_size=1, max_size=4)), min_size=1, max_size=15
    ),
    st.lists(st.integers(0, 15), max_size=3),
)
def test_local_recall_state_merges_any_split_to_the_one_process_score(items, cuts):
    from diveval.reference.local_recall import LocalRecallState

    hyps, refs = [h for h, _ in items], [r for _, r in items]
    bounds = sorted({0, len(hyps), *(min(c, len(hyps)) for c in cuts)})
    parts = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        part = LocalRecallState(references=refs[a:b])
        for i in range(a, b, 2):
            part.update(hyps[i : min(i + 2, b)])
        parts.append(part)
    got = parts[-1].merge(*parts[:-1]).result()
    _same_score(got, local_recall(hyps, refs))


def test_local_recall_shards_with_its_references(tmp_path):
    from diveval.scale.shards import ShardResult, merge_shards, score_shard

    docs = generated_documents(120, 5, max_len=15)
    refs = [[docs[(i + 1) % 120], docs[(i + 7) % 120], d] for i, d in enumerate(docs)]
    local = diveval.score(docs, ["ref-local-recall"], references=refs, lowercase=True)
    files = []
    for i in range(4):
        path = tmp_path / f"lr.{i}.state"
        shard = score_shard(docs, ["ref-local-recall"], (i, 4), references=refs, lowercase=True)
        shard.save(path)
        files.append(path)
    merged = merge_shards([ShardResult.load(p) for p in files])
    _same_score(merged["ref-local-recall"], local["ref-local-recall"])
