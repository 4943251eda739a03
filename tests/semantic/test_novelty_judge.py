"""NoveltyBench's trained judge (``judge="hf:PATH[:T]"`` of equivalence-classes), with tiny
sequence classifiers built and saved here (random weights, a word-level tokenizer): the
classifier's P(similar) equals NoveltyBench's own call (``partition.py``'s ``classifier_score``:
one pair at a time, ``[CLS] a [SEP] b [SEP]``, each text cut to 128 tokens, softmax column 1),
restated below; the judge's decision is that score > T; the short-response rule on hand-picked
pairs equals a re-implementation written here; the partition equals NoveltyBench's algorithm run
with that judge; the model is loaded once and each pair scored once."""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest
from novelty_reference import novelty_bench_partition

from diveval.context import RunContext
from diveval.errors import InputError
from diveval.semantic.equivalence import (
    ClassifierJudge,
    equivalence_classes,
    make_judge,
    parse_hf_judge,
    parse_judge,
    short_pair_rule,
)

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

LONG = [
    "the cat sat on the warm mat by the door all day",
    "a cat was sitting on a mat near the door for the whole day",
    "dogs ran in the park and chased the red ball until dark",
    "my favourite colour is blue because it reminds me of the sea",
    "blue is the colour i like best since it looks like the sea",
    "the recipe needs two eggs some flour and a cup of milk",
    " ".join(["word"] * 90 + ["cat"] * 70),  # 160 tokens: cut to 128
    " ".join(["sea"] * 140 + ["door"] * 5),
]
SHORT = ["Blue", "blue.", "the sky is blue", "it is blue", "i like cats", "dogs are great", ""]


def build_classifier(folder, arch: str):
    """A tiny random sequence classifier and a word-level tokenizer over the test's words."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = sorted({w for t in LONG + SHORT for w in t.lower().replace(".", " . ").split()})
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
    vocab.update({w: i + 4 for i, w in enumerate(words)})
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
    )
    common = dict(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=300,
        num_labels=2,
        pad_token_id=0,
        initializer_range=0.4,  # spread the random outputs, so thresholds fall between them
    )
    torch.manual_seed(0)
    if arch == "deberta-v2":  # as deberta-v3-large: relative attention, no token-type embeddings
        config = transformers.DebertaV2Config(
            **common,
            type_vocab_size=0,
            relative_attention=True,
            position_buckets=64,
            pos_att_type=["p2c", "c2p"],
            position_biased_input=False,
        )
        model = transformers.DebertaV2ForSequenceClassification(config)
    else:  # BERT: token types 0 / 1 change the output
        config = transformers.BertConfig(**common, type_vocab_size=2)
        model = transformers.BertForSequenceClassification(config)
    model.eval()
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module", params=["deberta-v2", "bert"])
def classifier(request, tmp_path_factory):
    return build_classifier(tmp_path_factory.mktemp(request.param), request.param)


@functools.cache
def load_direct(folder: str):
    """The tokenizer and model as NoveltyBench loads them (transformers' Auto classes)."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).eval()
    return tokenizer, model


@functools.cache
@torch.inference_mode()
def novelty_bench_score(folder: str, s1: str, s2: str) -> float:
    """NoveltyBench's classifier_score, restated: one pair, no padding, token types 0 up to and
    including the first [SEP], then 1; P = softmax(logits)[0, 1]."""
    tokenizer, model = load_direct(folder)
    input_ids = [tokenizer.cls_token_id]
    for s in (s1, s2):
        input_ids.extend(
            tokenizer.encode(s, truncation=True, max_length=128, add_special_tokens=False)
        )
        input_ids.append(tokenizer.sep_token_id)
    prompt_len = input_ids.index(tokenizer.sep_token_id) + 1
    token_type_ids = [0] * prompt_len + [1] * (len(input_ids) - prompt_len)
    out = model(input_ids=torch.tensor([input_ids]), token_type_ids=torch.tensor([token_type_ids]))
    return float(out.logits.softmax(-1)[0, 1])


def novelty_bench_short_rule(a: str, b: str):
    """NoveltyBench's maybe_test_equality, written out with loops."""
    wa = a.strip().lower().split()
    wb = b.strip().lower().split()
    longer = len(wa) if len(wa) > len(wb) else len(wb)
    if longer > 5:
        return None
    shared = 0
    for w in set(wa):
        if w in wb:
            shared += 1
    return shared * 2 >= longer


def long_pairs():
    return [(a, b) for a in LONG for b in LONG if a != b]


def test_scores_equal_novelty_bench_classifier_call(classifier):
    from diveval.models.similarity import load_pair_classifier

    scorer = load_pair_classifier(classifier, batch_size=5)  # batches of mixed lengths, padded
    pairs = long_pairs()
    got = scorer.score_pairs([a for a, _ in pairs], [b for _, b in pairs])
    want = np.array([novelty_bench_score(classifier, a, b) for a, b in pairs])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)  # float32 forward passes
    assert want.std() > 1e-3  # the pairs really get different scores
    assert scorer is load_pair_classifier(classifier, batch_size=5)  # loaded once


def test_token_order_and_types_matter(classifier):
    """(a, b) and (b, a) are different inputs to the classifier: the judge asks (rep, candidate)."""
    from diveval.models.similarity import load_pair_classifier

    scorer = load_pair_classifier(classifier)
    a, b = LONG[0], LONG[2]
    ab, ba = scorer.score_pairs([a, b], [b, a])
    assert ab == pytest.approx(novelty_bench_score(classifier, a, b), abs=1e-5)
    assert ba == pytest.approx(novelty_bench_score(classifier, b, a), abs=1e-5)
    assert abs(ab - ba) > 1e-6


def _threshold_between(scores: np.ndarray) -> float:
    """A threshold in the widest gap of the middle scores: decisions split, far from round-off."""
    s = np.sort(scores)
    mid = s[len(s) // 4 : 3 * len(s) // 4 + 1]
    gaps = np.diff(mid)
    i = int(np.argmax(gaps))
    assert gaps[i] > 1e-4
    return float((mid[i] + mid[i + 1]) / 2)


def test_judge_decision_is_the_threshold_rule_on_the_classifiers_output(classifier):
    pairs = long_pairs()
    direct = np.array([novelty_bench_score(classifier, a, b) for a, b in pairs])
    t = _threshold_between(direct)
    judge = make_judge(f"hf:{classifier}:{t!r}")
    assert isinstance(judge, ClassifierJudge)
    got = judge.judge_pairs(pairs)
    assert got == [bool(p > t) for p in direct]
    assert 0 < sum(got) < len(got)
    assert f"p>{t:g}" in judge.name and judge.scorer.fingerprint in judge.name


def test_short_rule_on_hand_picked_pairs():
    pairs = [
        ("Blue", "blue"),  # case folded: equal
        ("Blue", "blue."),  # "blue." is another word: not equal
        ("the sky is blue", "it is blue"),  # 2 shared of 4: 4 >= 4
        ("the sky is blue", "it is green"),  # 1 shared of 4
        ("i like cats", "dogs are great"),
        ("no no no no", "no no no no"),  # 1 distinct shared word, 4 words: not equivalent
        ("", ""),  # no words: 0 >= 0
        ("one two three four five", "one two three four five six"),  # 6 words: the classifier
    ]
    hand = [True, False, True, False, False, False, True, None]
    assert [short_pair_rule(a, b) for a, b in pairs] == hand
    assert [novelty_bench_short_rule(a, b) for a, b in pairs] == hand


class CountingScorer:
    """PairScorer stub: a score from a table, counting the pairs it is asked about."""

    name = "table-scorer"
    fingerprint = "f00d"

    def __init__(self, table):
        self.table = table
        self.asked = []

    def score_pairs(self, firsts, seconds):
        self.asked += list(zip(firsts, seconds))
        return np.array([self.table.get((a, b), 0.0) for a, b in zip(firsts, seconds)])


def test_short_pairs_never_reach_the_classifier_and_long_ones_compare_strictly():
    long_a, long_b = LONG[0], LONG[1]
    scorer = CountingScorer({(long_a, long_b): 0.102, (long_b, long_a): 0.1021})
    judge = ClassifierJudge(scorer, 0.102)
    pairs = [("it is blue", "blue it is"), (long_a, long_b), (long_b, long_a), ("a", long_a)]
    assert judge.judge_pairs(pairs) == [True, False, True, False]  # 0.102 is not > 0.102
    assert scorer.asked == [(long_a, long_b), (long_b, long_a), ("a", long_a)]


def test_partition_equals_novelty_bench_with_its_classifier_judge(classifier):
    sets = [LONG[:6], [LONG[3], "it is blue", "Blue it is", LONG[4], LONG[0]], LONG[::-1]]
    pairs = long_pairs()
    t = _threshold_between(np.array([novelty_bench_score(classifier, a, b) for a, b in pairs]))

    def nb_equivalent(a, b):
        short = novelty_bench_short_rule(a, b)
        return short if short is not None else novelty_bench_score(classifier, a, b) > t

    context = RunContext()
    got = equivalence_classes(sets, f"hf:{classifier}:{t!r}", context=context)
    want = [novelty_bench_partition(s, nb_equivalent) for s in sets]
    assert got.details["labels"].tolist() == want
    assert got.value == pytest.approx(np.mean([max(p) + 1 for p in want]))
    assert "judge:hf:" in got.signature and f"p>{t:g}" in got.signature

    from diveval.models.cache import cached_pair_scorer
    from diveval.models.similarity import load_pair_classifier

    cache = cached_pair_scorer(load_pair_classifier(classifier))
    before = cache.stats()["computed"]
    equivalence_classes(sets, f"hf:{classifier}:{t!r}")  # a new run: pairs come from the cache
    assert cache.stats()["computed"] == before


def test_parse_hf_judge():
    assert parse_hf_judge("hf:org/name") == ("org/name", 0.102)
    assert parse_hf_judge("hf:org/name:0.3") == ("org/name", 0.3)
    assert parse_hf_judge("hf:/a/b:c") == ("/a/b:c", 0.102)
    assert parse_judge("hf:org/name:0.25") == ("hf", 0.25)
    for bad in ("hf:", "hf:org/name:nan", "hf:x:inf"):
        with pytest.raises(InputError):
            parse_judge(bad)


def test_the_real_checkpoint_offline_is_a_clear_input_error(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # an empty local cache
    with pytest.raises(InputError, match="not in the local Hugging Face cache"):
        make_judge("hf:yimingzhang/deberta-v3-large-generation-similarity")


def test_cli_takes_the_hf_judge(tmp_path):
    classifier = build_classifier(tmp_path / "judge", "deberta-v2")
    f = tmp_path / "s.jsonl"
    f.write_text(
        '{"responses": ["it is blue", "Blue it is", "dogs are great", "dogs are great"]}\n'
    )
    cmd = [sys.executable, "-m", "diveval", "score", str(f), "--metric", "equivalence-classes"]
    out = subprocess.run(
        [*cmd, "--judge", f"hf:{classifier}", "--json"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert '"value": 2.0' in out.stdout  # short texts: NoveltyBench's word-overlap rule
    assert "judge:hf:" in out.stdout


def test_a_checkpoint_without_tokenizer_falls_back_to_novelty_bench_tokenizer(
    monkeypatch, tmp_path
):
    """No tokenizer files: NoveltyBench's microsoft/deberta-v3-large is asked for, and its absence
    from an offline cache is a clear error (not a crash)."""
    from diveval.models.similarity import NOVELTYBENCH_TOKENIZER, HFPairClassifier

    folder = tmp_path / "bare"
    build_classifier(folder, "bert")
    for f in folder.iterdir():
        if f.name != "config.json" and not f.name.startswith("model"):
            f.unlink()
    from huggingface_hub import try_to_load_from_cache

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    if not isinstance(try_to_load_from_cache(NOVELTYBENCH_TOKENIZER, "tokenizer_config.json"), str):
        with pytest.raises(InputError, match=NOVELTYBENCH_TOKENIZER):
            HFPairClassifier(str(folder))
    else:  # this machine has it: the fallback loads it
        assert HFPairClassifier(str(folder)).tokenizer_name == NOVELTYBENCH_TOKENIZER
    # a tokenizer named explicitly is used instead
    build_classifier(tmp_path / "with-tok", "bert")
    scorer = HFPairClassifier(str(folder), tokenizer=str(tmp_path / "with-tok"))
    assert scorer.tokenizer_name == str(tmp_path / "with-tok")
    assert scorer.score_pairs([LONG[0]], [LONG[1]])[0] == pytest.approx(
        novelty_bench_score(str(tmp_path / "with-tok"), LONG[0], LONG[1]), abs=1e-5
    )


def test_pair_scores_persist_in_the_disk_cache(tmp_path):
    from diveval.models.cache import CachedPairScorer

    long_a, long_b = LONG[0], LONG[1]
    first = CountingScorer({(long_a, long_b): 0.7, (long_b, long_a): 0.05})
    one = CachedPairScorer(first, tmp_path)
    np.testing.assert_array_equal(one.score_pairs([long_a, long_b], [long_b, long_a]), [0.7, 0.05])
    later = CountingScorer({})  # another process: the same name and fingerprint, no model calls
    two = CachedPairScorer(later, tmp_path)
    np.testing.assert_array_equal(two.score_pairs([long_b, long_a], [long_a, long_b]), [0.05, 0.7])
    assert later.asked == [] and two.stats()["disk_hits"] == 2
