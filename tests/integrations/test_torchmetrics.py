"""DiversityMetric (torchmetrics) gives diveval.score's corpus value, in one process and split
over two processes synced by torch.distributed (gloo on CPU)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from distributed_metric import split_worker
from tiny_lm import WORDS

import diveval
from diveval.errors import InputError

torch = pytest.importorskip("torch", reason="torch is not installed")
pytest.importorskip("torchmetrics", reason="the torchmetrics extra is not installed")

from diveval.integrations.torchmetrics import DiversityMetric  # noqa: E402

# one metric of each family whose state is declared
METRICS = ["distinct-2", "ead", "self-bleu", "entropy-2"]


def corpus(n: int = 60, seed: int = 0) -> list[str]:
    """Sentences over a small vocabulary: halves of the corpus share many n-grams, so a sync
    that added distinct counts instead of joining the keys would be caught."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=rng.integers(2, 9))) for _ in range(n)]


def one_process(texts: list[str], name: str, **options) -> float:
    return diveval.score(texts, [name], **options)[name].value


@pytest.mark.parametrize("name", METRICS)
def test_batches_in_one_process_give_the_score_of_all(name):
    texts = corpus()
    metric = DiversityMetric(name)
    for start in range(0, len(texts), 7):
        metric.update(texts[start : start + 7])
    assert metric.compute() == pytest.approx(one_process(texts, name), rel=1e-12)
    assert metric.result().signature == diveval.score(texts, [name])[name].signature
    metric.reset()
    metric.update(texts[:10])
    assert metric.compute() == pytest.approx(one_process(texts[:10], name), rel=1e-12)


def test_a_model_metric_with_a_state_fills_it_batch_by_batch():
    # the Vendi Score's Gram matrix adds over batches (a field that the first update sets,
    # carried pickled); the one-process run takes the eigenvalues of the kernel instead
    texts = corpus()
    metric = DiversityMetric("vendi")
    for start in range(0, len(texts), 25):
        metric.update(texts[start : start + 25])
    expected = diveval.score(texts, ["vendi"])["vendi"]
    assert metric.compute() == pytest.approx(expected.value, rel=1e-12)
    assert metric.result().signature == expected.signature


def test_options_reach_the_metric():
    texts = [t.upper() if i % 2 else t for i, t in enumerate(corpus())]
    metric = DiversityMetric("distinct-2", lowercase=True)
    metric.update(texts)
    assert metric.compute() == one_process(texts, "distinct-2", lowercase=True)
    assert metric.compute() != one_process(texts, "distinct-2")


def test_forward_gives_the_batch_value_and_keeps_the_total():
    texts = corpus()
    metric = DiversityMetric("distinct-2")
    assert metric(texts[:20]) == one_process(texts[:20], "distinct-2")
    assert metric(texts[20:]) == one_process(texts[20:], "distinct-2")
    assert metric.compute() == one_process(texts, "distinct-2")


def test_a_metric_without_a_state_is_refused_with_the_supported_ones():
    with pytest.raises(InputError, match="Supported: .*distinct-2"):
        DiversityMetric("nli-baseline")
    with pytest.raises(InputError, match="unknown option"):
        DiversityMetric("distinct-2", tokenzier="whitespace")


def test_two_processes_give_the_one_process_value(tmp_path):
    texts = corpus(80)
    # rank 0: three batches of the first 53 texts; rank 1: the rest in one batch. Then the
    # whole corpus on rank 0 alone, rank 1 seeing nothing (it sends empty fields)
    split = [[texts[:20], texts[20:40], texts[40:53]], [texts[53:]]]
    parts = {name: split for name in METRICS}
    parts.update({f"{name}|alone": [[texts], []] for name in METRICS})
    torch.multiprocessing.spawn(
        split_worker,
        args=(2, str(tmp_path / "store"), str(tmp_path), parts, {}),
        nprocs=2,
        join=True,
    )
    for rank in (0, 1):
        values = json.loads((tmp_path / f"{rank}.json").read_text())
        for key, value in values.items():
            expected = one_process(texts, key.split("|")[0])
            assert value == pytest.approx(expected, rel=1e-12), (rank, key)


@pytest.mark.parametrize(
    "value",
    [
        7,
        2.5,
        np.array([2**64 - 1, 3, 2**63], dtype=np.uint64),
        np.array([(2**64 - 1, 4)], dtype=[("key", "<u8"), ("count", "<i8")]),
        ["a text kept for a second pass", ("any", "picklable", 1)],
        {"model": "set by the first update"},
    ],
    ids=["int", "float", "uint64", "structured", "objects", "set-later"],
)
def test_every_kind_of_field_crosses_as_a_tensor_and_back_unchanged(value):
    from diveval.integrations.torchmetrics import _decode, _encode

    if isinstance(value, dict):
        like = None  # the empty value of a field that only a first update sets
    else:
        like = value[:0] if isinstance(value, (np.ndarray, list)) else type(value)()
    tensor = _encode(value, like, torch.device("cpu"))
    assert isinstance(tensor, torch.Tensor)
    back = _decode(tensor, like)
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.tolist() == value.tolist()
    else:
        assert back == value


@pytest.mark.parametrize("name", METRICS)
def test_result_has_the_details_of_diveval_score_on_the_same_texts(name):
    """The registry's warnings on the texts (here: Chinese text the whitespace tokenizer does not
    split) are in result() as in diveval.score, in batches as in one call."""
    texts = corpus(10) + ["今天天气很好我们去公园散步吧", "他们昨天晚上看了一部很长的电影"] * 5
    metric = DiversityMetric(name)
    for start in range(0, len(texts), 8):
        metric.update(texts[start : start + 8])
    expected = diveval.score(texts, [name])[name]
    assert expected.details.get("warnings")  # the case this test is about
    assert dict(metric.result().details) == dict(expected.details)


def test_empty_texts_are_skipped_and_said_as_diveval_score_says_them():
    texts = corpus(20)
    with_empty = texts[:5] + ["", "  "] + texts[5:] + ["\n"]
    metric = DiversityMetric("distinct-2")
    metric.update(with_empty[:6])
    metric.update(with_empty[6:])
    note = "skipped 3 empty responses (items 5, 6, 22): blank responses are not scored"
    with pytest.warns(UserWarning, match=re.escape(f"diveval.score: {note}")):
        expected = diveval.score(with_empty, ["distinct-2"])["distinct-2"]
    with pytest.warns(UserWarning, match=re.escape(f"DiversityMetric: {note}")):
        assert metric.compute() == expected.value == one_process(texts, "distinct-2")
    assert dict(metric.result().details) == dict(expected.details)
    assert metric.skipped_empty == 3


def test_no_text_or_only_empty_ones_is_an_error_not_zero():
    metric = DiversityMetric("self-bleu")
    with pytest.warns(UserWarning), pytest.raises(InputError, match="^no responses to score$"):
        metric.compute()  # torchmetrics warns that compute comes before any update
    metric.update(["", " "])
    with pytest.raises(InputError, match=r"no responses to score \(2 empty ones skipped\)"):
        metric.compute()
    metric.reset()
    metric.update(["a b c", "a b d"])
    assert metric.compute() == one_process(["a b c", "a b d"], "self-bleu")
