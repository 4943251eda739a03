"""The shipped answer-equivalence judge (``--judge answers``): its model, its rules, and its
agreement with NoveltyBench's classes on prompts it was not trained on."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import PROJECT_ROOT, shared_path

answers_judge = pytest.importorskip("diveval.models.answers_judge")
if not answers_judge.shipped_model_available():
    pytest.skip("onnxruntime / tokenizers not installed", allow_module_level=True)

from diveval.semantic.equivalence import (  # noqa: E402
    AnswersJudge,
    equivalence_classes,
    make_judge,
    parse_judge,
    partition,
)
from diveval.text.answer_overlap import FEATURES, pair_features  # noqa: E402

LONG = [
    "Paris is the capital of France, and it is known for the Eiffel Tower and the Louvre museum.",
    "The capital city of France is Paris, famous for the Eiffel Tower and its art museums.",
    "Here is a short poem about the sea: waves roll in, the gulls cry, the tide goes out again.",
    "Bananas are rich in potassium and make a quick snack before a long run in the morning.",
]


@pytest.fixture(scope="module")
def model():
    return answers_judge.default_answers_model()


def test_embeddings_are_unit_and_do_not_depend_on_the_batch(model):
    together = model.embed(LONG)
    alone = np.stack([model.embed([t])[0] for t in LONG])
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    # weight-only int8, fp32 activations: padding adds exact zeros; float32 sums may reorder
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_the_head_reads_the_features_in_their_declared_order(model):
    assert len(model.weights) == len(FEATURES)
    cos = np.array([0.3, 0.9])
    pairs = [(LONG[0], LONG[3]), (LONG[0], LONG[1])]
    x = np.array([pair_features(c, a, b) for c, (a, b) in zip(cos, pairs)])
    expected = 1 / (1 + np.exp(-(x @ model.weights + model.bias)))
    np.testing.assert_allclose(model.probabilities(cos, pairs), expected, rtol=1e-12)


def test_pair_features_are_symmetric_and_bounded():
    a, b = LONG[0], LONG[1]
    assert pair_features(0.5, a, b) == pair_features(0.5, b, a)
    f = pair_features(1.0, a, a)
    assert f[1:] == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert pair_features(0.0, "", a)[1:3] == [0.0, 0.0]
    # short: the longer answer has at most 5 white-space words (NoveltyBench's count)
    assert pair_features(0.8, "Cairo, Egypt", "Lagos, Nigeria")[4:] == [1.0, 0.8]
    assert pair_features(0.8, "one two three four five six", "one")[4:] == [0.0, 0.0]


def test_identical_long_answers_are_one_class_and_different_ones_are_not(model):
    judge = AnswersJudge(model)
    assert judge.judge_pairs([(t, t) for t in LONG]) == [True] * len(LONG)
    # a paraphrase is equivalent, an answer on another topic is not
    assert judge.judge_pairs([(LONG[0], LONG[1]), (LONG[0], LONG[3])]) == [True, False]


def test_short_answers_are_the_model_s_to_judge_not_the_word_rule_s(model):
    """The benchmark's stored classes put "Giraffe." and "Elephant" in one class, which its
    later word rule would split: the answers judge asks its model about short pairs too."""
    judge = AnswersJudge(model)
    pairs = [("Blue", "blue"), ("Giraffe.", "Elephant")]
    cos = np.array([float(model.embed([a])[0] @ model.embed([b])[0]) for a, b in pairs])
    expected = [bool(p > judge.threshold) for p in model.probabilities(cos, pairs)]
    assert judge.judge_pairs(pairs) == expected
    assert expected[0] is True  # one word in two cases is one answer


def test_the_spec_and_the_signature_name_model_threshold_and_truncation(model):
    assert parse_judge("answers") == ("answers", None)
    assert parse_judge("answers:0.3") == ("answers", 0.3)
    judge = make_judge("answers:0.3")
    assert judge.threshold == 0.3
    score = equivalence_classes([LONG[:3]], "answers")
    sig = score.signature
    assert f"answers:{model.name}:{model.fingerprint}:p>{model.threshold:g}" in sig
    assert f"trunc:{model.max_length}" in sig


def test_the_shipped_config_matches_the_committed_training_record():
    cfg = json.loads((answers_judge.MODEL_DIR / "config.json").read_text())
    assert tuple(cfg["head"]["features"]) == FEATURES
    assert 0 < cfg["head"]["threshold"] < 1
    split = json.loads((PROJECT_ROOT / "training" / "answers_judge_split.json").read_text())
    assert not set(split["validation"]) & (set(split["train"]) | set(split["calibration"]))


def test_agreement_with_noveltybench_on_withheld_prompts():
    """On 5 of the 20 models (all 20 validation prompts), the judge's partitions agree with the
    benchmark's about as well as on all of them (benchmarks/answers_judge.py): mean per-set
    adjusted Rand index well above the unigram judge's."""
    from sklearn.metrics import adjusted_rand_score

    root = shared_path("novelty-bench", "curated")
    ids = set(
        json.loads((PROJECT_ROOT / "training" / "answers_judge_split.json").read_text())[
            "validation"
        ]
    )
    records = []
    for path in sorted(root.rglob("scores.jsonl"))[::4]:
        with open(path, encoding="utf-8") as f:
            records += [r for r in map(json.loads, f) if r["id"] in ids]
    sets = [r["generations"] for r in records]

    def mean_ari(labels):
        return np.mean(
            [
                1.0 if len(set(g)) == 1 == len(set(p)) else adjusted_rand_score(g, p)
                for g, p in zip((r["partition"] for r in records), labels)
            ]
        )

    answers = mean_ari(partition(sets, "answers", identical="one").labels)
    unigram = mean_ari(partition(sets, "unigram", identical="one").labels)
    assert answers > unigram + 0.05, (answers, unigram)


def test_the_answers_similarity_is_the_model_s_probability(model):
    from diveval.semantic.pair_similarity import set_similarities

    sets = [LONG[:3], [LONG[3], LONG[3].upper(), "No."]]
    _, matrices, params = set_similarities(sets, "answers", "spectral-eigv")
    assert params["sim"] == "answers-p" and params["fp"] == model.fingerprint
    for s, w in zip(sets, matrices):
        np.testing.assert_array_equal(w, w.T)
        np.testing.assert_array_equal(np.diag(w), 1.0)
        emb = model.embed(s)
        expected = model.probabilities(np.array([emb[0] @ emb[1]]), [(s[0], s[1])])[0]
        assert w[0, 1] == pytest.approx(expected, abs=1e-6)  # float32 embeddings


def test_semantic_entropy_takes_the_answers_judge():
    import diveval

    scores = diveval.score([LONG[:2] + LONG[3:]], metrics=["semantic-entropy"], judge="answers")
    score = scores["semantic-entropy"]
    assert "answers:" in score.signature
    assert score.value == pytest.approx(-(2 / 3) * np.log(2 / 3) - (1 / 3) * np.log(1 / 3))
