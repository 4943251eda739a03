"""Identical responses in the similarity and equivalence metrics: one rule (``identical=``), each
metric's default its reference's, both values shown for three copies of "yes ." per metric."""

from __future__ import annotations

import hashlib
import math
import subprocess
import sys

import numpy as np
import pytest

import diveval
from diveval.errors import InputError
from diveval.options import OPTION
from diveval.registry import all_metrics, get_metric
from diveval.semantic.identical import same_text

YES = [["yes ."] * 3]
P_SELF = 0.81  # P(entailment) the shipped NLI model gives "yes ." and itself


class SelfDoubtNLI:
    """A text with itself: P(entailment) 0.81 (as the shipped model on "yes ."); other pairs: a
    hash of the pair."""

    name = "self-doubt-nli"
    fingerprint = "0003"

    @staticmethod
    def probs(p: str, h: str) -> np.ndarray:
        if p == h:
            return np.array([0.09, 0.10, P_SELF])
        raw = hashlib.sha256(f"{p}\x00{h}".encode()).digest()
        x = np.frombuffer(raw[:3], dtype=np.uint8).astype(float) + 1
        return x / x.sum()

    def predict(self, premises, hypotheses):
        return np.array([self.probs(p, h) for p, h in zip(premises, hypotheses)]).reshape(-1, 3)


class HashEmbedder:
    name = "hash-emb"
    fingerprint = "0002"

    def encode(self, texts):
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
            out.append(np.random.default_rng(seed).normal(size=8))
        return np.array(out, dtype=np.float32).reshape(-1, 8)


def nltk_self_bleu(text: str) -> float:
    """nltk's BLEU-4 (method1) of a text against itself as the single reference."""
    bleu = pytest.importorskip("nltk.translate.bleu_score")
    tokens = text.split()
    smooth = bleu.SmoothingFunction().method1
    return bleu.sentence_bleu([tokens], tokens, smoothing_function=smooth)


# -- the values by hand, for W = (1 - s) I + s J, s = 0.81, k = 3 ------------------------------
# eigenvalues of W: 1 + 2s (once), 1 - s (twice); the degrees are all 1 + 2s, so the normalised
# Laplacian's eigenvalues are 0 and (twice) 1 - (1 - s) / (1 + 2s)
S = P_SELF
EIGV_MODEL = 1 + 2 * (1 - S) / (1 + 2 * S)
DEGREE_MODEL = 1 - (3 + 6 * S) / 9
HILL_MODEL = 3 / (1 + 2 * S)  # every (Zp)_i = (1 + 2s) / 3, at every order q

NLI = {"nli_model": SelfDoubtNLI()}
EMB = {"embedding_model": HashEmbedder()}
SPECTRAL = {**NLI, "similarity": "nli-entailment"}
LOGDET_EPS = 1e-6

#: metric, options, value with identical="one", with "model", the default rule
CASES = [
    ("spectral-eigv", SPECTRAL, 1.0, EIGV_MODEL, "one"),
    ("spectral-degree", SPECTRAL, 0.0, DEGREE_MODEL, "one"),
    ("spectral-eccentricity", SPECTRAL, 0.0, 0.0, "one"),
    ("similarity-hill", SPECTRAL, 1.0, HILL_MODEL, "one"),
    ("similarity-hill", {**EMB, "similarity": "cosine"}, 1.0, 1.0, "one"),
    # NoveltyBench's BLEU: two copies of a 1-word text share no 4-gram, BLEU 0
    ("semantic-entropy", {"judge": "bleu"}, 0.0, math.log(3), "one"),
    ("semantic-entropy", {**NLI, "judge": "nli"}, 0.0, 0.0, "one"),
    # NoveltyBench's rule (model) only with its own classifier (hf:), not with these judges
    ("equivalence-classes", {"judge": "bleu"}, 1.0, 3.0, "one"),
    ("equivalence-classes", {"judge": "unigram"}, 1.0, 1.0, "one"),
    ("vendi", EMB, 1.0, 1.0, "one"),
    ("vendi-ngram", {}, 1.0, 1.0, "one"),
    ("rke", EMB, 1.0, 1.0, "one"),
    # homogenization: the mean similarity to the other documents (higher = more homogeneous)
    ("homogenization-bleu", {}, 1.0, lambda: nltk_self_bleu("yes ."), "model"),
    ("homogenization-rougel", {}, 1.0, 1.0, "model"),
    ("dcscore", EMB, 1.0, 1.0, "one"),
    ("intdiv", EMB, 0.0, 0.0, "one"),
    ("logdet", EMB, *[math.log(LOGDET_EPS**2 * (3 + LOGDET_EPS))] * 2, "one"),
    ("chamfer", EMB, 0.0, 0.0, "one"),
    ("remote-clique", EMB, 0.0, 0.0, "one"),
]


@pytest.mark.parametrize("name,options,one,model,default", CASES)
def test_three_copies_of_yes_under_each_rule(name, options, one, model, default):
    metric = get_metric(name)
    model = model() if callable(model) else model
    got_one = metric(YES, identical="one", **options)
    got_model = metric(YES, identical="model", **options)
    got_default = metric(YES, **options)
    # the embedding kernels: the same vector's cosine with itself, 1 to round-off
    tol = 1e-6 if name == "logdet" else 1e-12
    assert got_one.value == pytest.approx(one, abs=tol)
    assert got_model.value == pytest.approx(model, abs=tol)
    assert "ident:one" in got_one.signature and "ident:model" in got_model.signature
    assert f"ident:{default}" in got_default.signature
    assert got_default.value == (got_one if default == "one" else got_model).value


def test_every_similarity_metric_takes_the_rule():
    takes = {name for name, m in all_metrics().items() if "identical" in m.options}
    assert {c[0] for c in CASES} | {"vendi-weighted", "intdiv-weighted"} <= takes


def test_shipped_nli_model_on_three_copies_of_yes():
    """The numbers of the report: the shipped model's own P(entailment) of "yes ." and itself."""
    pytest.importorskip("onnxruntime")
    try:
        one = diveval.score(YES, ["spectral-eigv", "spectral-degree"], identical="one")
        model = diveval.score(YES, ["spectral-eigv", "spectral-degree"], identical="model")
    except diveval.errors.MissingDependencyError as err:  # pragma: no cover
        pytest.skip(str(err))
    assert one["spectral-eigv"].value == pytest.approx(1.0, abs=1e-9)
    assert one["spectral-degree"].value == pytest.approx(0.0, abs=1e-9)
    # int8 ONNX model, deterministic; 1e-3: the figures of the report, not the model's last bits
    assert model["spectral-eigv"].value == pytest.approx(1.1418, abs=1e-3)
    assert model["spectral-degree"].value == pytest.approx(0.1242, abs=1e-3)


# -- the default is the reference's --------------------------------------------------------------


def uq_nlg_w(texts: list[str]) -> np.ndarray:
    """zlin7/UQ-NLG's W, restated: the NLI model scores each *distinct* answer pair once
    (``mapping`` sends each generation to its distinct answer), ``recover_sim_mat_new`` puts the
    logits (-inf, -inf, 100) on the distinct answers' diagonal, and ``get_affinity_mat``
    (agreement_w) symmetrises the entailment column, diagonal 1."""
    unique = sorted(set(texts))
    mapping = [unique.index(t) for t in texts]
    u = len(unique)
    with np.errstate(divide="ignore"):
        sim = np.array(
            [[np.log(SelfDoubtNLI.probs(a, b)) for b in unique] for a in unique]
        ).reshape(u, u, 3)
    for i in range(u):
        sim[i, i] = [-np.inf, -np.inf, 100]
    logits = np.array(
        [[sim[mapping[i], mapping[j]] for j in range(len(texts))] for i in range(len(texts))]
    )
    z = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    w = p[:, :, 2]
    w = (w + w.T) / 2
    np.fill_diagonal(w, 1.0)
    return w


def test_spectral_default_is_the_authors_w_for_repeated_answers():
    rng = np.random.default_rng(5)
    words = ["yes", "no", "maybe"]
    sets = [[str(rng.choice(words)) for _ in range(int(rng.integers(2, 7)))] for _ in range(30)]
    got = diveval.score(sets, ["spectral-degree"], nli_model=SelfDoubtNLI())["spectral-degree"]
    model = get_metric("spectral-degree")(sets, nli_model=SelfDoubtNLI(), identical="model")
    for g, s in enumerate(sets):
        k = len(s)
        assert got.items[g] == pytest.approx(1 - uq_nlg_w(s).sum() / k**2, abs=1e-12)
    repeated = [g for g, s in enumerate(sets) if len(set(s)) < len(s)]
    assert repeated and all(model.items[g] > got.items[g] + 1e-3 for g in repeated)


def test_equivalence_under_model_is_novelty_bench_asking_the_judge():
    """NoveltyBench's partition asks the judge about every pair, identical or not: identical="model"
    is that algorithm; without the benchmark's classifier it is not the default."""
    import sacrebleu

    def nb_bleu(a, b):
        return (
            sacrebleu.corpus_bleu([a], [[b]]).score + sacrebleu.corpus_bleu([b], [[a]]).score
        ) / 200 >= 0.3

    sets = [["ok .", "ok .", "fine , thanks a lot for asking", "fine , thanks a lot for asking"]]
    part = [-1] * 4
    classes = 0
    for i in range(4):
        if part[i] < 0:
            part[i] = classes
            for j in range(i + 1, 4):
                if part[j] < 0 and nb_bleu(sets[0][i], sets[0][j]):
                    part[j] = classes
            classes += 1
    got = get_metric("equivalence-classes")(sets, judge="bleu", identical="model")
    assert got.value == classes == 3
    assert "1 pair of identical answers" in got.details["warnings"][0]
    assert get_metric("equivalence-classes")(sets, judge="bleu").value == 2


def test_same_text_mask_and_bad_rule(tmp_path):
    assert same_text(["a", "b", "a"]).tolist() == [
        [True, False, True],
        [False, True, False],
        [True, False, True],
    ]
    with pytest.raises(InputError, match="identical must be one of one, model"):
        get_metric("spectral-eigv")(YES, nli_model=SelfDoubtNLI(), identical="yes")
    f = tmp_path / "s.jsonl"
    f.write_text('{"responses": ["yes .", "yes .", "yes ."]}\n')
    cmd = [sys.executable, "-m", "diveval", "score", str(f), "-m", "equivalence-classes"]
    out = subprocess.run(
        [*cmd, "--judge", "bleu", "--identical", "one", "--json"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert '"value": 1.0' in out.stdout and "ident:one" in out.stdout
    bad = subprocess.run([*cmd, "--identical", "two"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


# -- equivalence classes: identical answers are one class unless the judge is NoveltyBench's ------

#: one model's ten answers to a "pick a number" prompt, as the NLI judge split them into ten classes
FOURS = [["4", "4", "4", "4", "4", "1", "5", "6", "4", "4"]]


def never(a: str, b: str) -> bool:
    """A judge that calls no pair equivalent, a copy of a text and the text included."""
    return False


def split_identical_pairs(texts: list[str], labels: list[int]) -> int:
    return sum(
        texts[i] == texts[j] and labels[i] != labels[j]
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
    )


def test_identical_answers_are_one_class_under_any_judge_but_the_benchmarks():
    got = get_metric("equivalence-classes")(FOURS, judge=never)
    labels = got.details["labels"][0]
    assert split_identical_pairs(FOURS[0], labels) == 0
    assert got.value == 4.0  # 4, 1, 5, 6
    assert "ident:one" in got.signature and "warnings" not in got.details
    for judge in ("bleu", "unigram", "nli", "embedding:0.9", "bertscore"):
        assert OPTION["identical"].default_for("equivalence-classes", judge=judge) == "one"
    assert OPTION["identical"].default_for("equivalence-classes") == "one"


def test_model_keeps_the_judges_verdict_on_identical_answers_and_says_how_many_it_split():
    got = get_metric("equivalence-classes")(FOURS, judge=never, identical="model")
    assert got.value == 10.0 and "ident:model" in got.signature
    # seven copies of "4": 7 * 6 / 2 = 21 pairs in different classes
    assert got.details["warnings"] == [
        "the judge put 21 pairs of identical answers into different classes (in 1 of 1 sets); "
        "identical='one' (--identical one) makes identical answers one class"
    ]


def test_the_benchmarks_classifier_is_asked_about_identical_answers_by_default(monkeypatch):
    """hf: is NoveltyBench's own judge: its numbers come from asking it about every pair."""
    from diveval.semantic import equivalence

    monkeypatch.setattr(equivalence, "make_judge", lambda *a, **k: equivalence.CallableJudge(never))
    got = get_metric("equivalence-classes")(FOURS, judge="hf:some/classifier")
    assert got.value == 10.0 and "ident:model" in got.signature
    assert "21 pairs of identical answers" in got.details["warnings"][0]
    one = get_metric("equivalence-classes")(FOURS, judge="hf:some/classifier", identical="one")
    assert one.value == 4.0


def test_the_shipped_nli_judge_keeps_identical_answers_together():
    pytest.importorskip("onnxruntime")
    try:
        got = diveval.score(FOURS, ["equivalence-classes"], judge="nli")["equivalence-classes"]
    except diveval.errors.MissingDependencyError as err:  # pragma: no cover
        pytest.skip(str(err))
    assert split_identical_pairs(FOURS[0], got.details["labels"][0]) == 0
    assert got.value == 4.0 and "ident:one" in got.signature
    # asked, the shipped model calls no two copies of "4" equivalent: ten classes
    model = diveval.score(FOURS, ["equivalence-classes"], judge="nli", identical="model")[
        "equivalence-classes"
    ]
    assert model.value == 10.0


def test_semantic_entropy_under_model_says_how_many_identical_pairs_it_split():
    got = get_metric("semantic-entropy")(FOURS, judge=never, identical="model")
    assert got.value == pytest.approx(np.log(10))
    assert "the judge put 21 pairs of identical answers" in got.details["warnings"][0]
    assert "warnings" not in get_metric("semantic-entropy")(FOURS, judge=never).details


def test_rarefy_takes_the_same_rule():
    from diveval.meta.estimation.rarefaction_curves import rarefy

    one = rarefy(FOURS, "classes", judge=never, rarefy_resamples=5)
    model = rarefy(FOURS, "classes", judge=never, identical="model", rarefy_resamples=5)
    assert one[0].curve.empirical == 4.0 and "ident:one" in one[0].signature
    assert model[0].curve.empirical == 10.0 and "ident:model" in model[0].signature


def test_help_says_the_judge_decides_equivalence_classes_default():
    assert OPTION["identical"].shown_default() == (
        "model for equivalence-classes with judge hf:*; model for homogenization-*; one otherwise"
    )
