"""engine="ray" gives the local run's values and signatures, on a local Ray and a 2-node cluster."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same_scores

import diveval

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sets.jsonl"


def example_sets(copies=3):
    sets = [json.loads(line)["responses"] for line in EXAMPLE.read_text().splitlines()]
    return sets * copies


@pytest.fixture(scope="module")
def local_ray():
    # a Ray of its own: without an address Ray joins any Ray running on the machine
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_every_sets_family_equals_the_local_run(local_ray):
    sets = example_sets()
    names = [
        "distinct-2", "ead", "avg-distinct", "cos-diversity", "self-bleu", "vendi-ngram",
        "nli-baseline", "nli-confidence", "nli-counts", "sent-bert", "vendi",
    ]  # fmt: skip
    local = diveval.score(sets, names)
    remote = diveval.score(sets, names, engine="ray", concurrency=2, batch_rows=5)
    # MiniLM embeds again inside each actor, in other batches: float32 cosines agree to a few e-7
    # (sent-bert is a mean of them; Vendi's eigenvalue entropy moves by as much); the rest exact
    assert_same_scores(local, remote, tols={"sent-bert": 1e-6, "vendi": 1e-6})
    # details are joined across batches: label counts per set, totals added
    for key in ("contradiction", "neutral", "entailment"):
        assert np.array_equal(
            remote["nli-counts"].details["counts"][key], local["nli-counts"].details["counts"][key]
        )
        assert (
            remote["nli-counts"].details["total"][key] == local["nli-counts"].details["total"][key]
        )


def test_corpus_metrics_reduce_from_mergeable_states(local_ray):
    texts = [t for s in example_sets(4) for t in s] + ["", "one"]
    names = ["distinct-1", "distinct-4", "ead", "ead-3", "avg-distinct", "self-bleu", "self-bleu-2"]
    names += ["vendi-ngram"]  # no mergeable form: one task, same code
    local = diveval.score(texts, names, lowercase=True)
    remote = diveval.score(texts, names, engine="ray", batch_rows=7, lowercase=True)
    assert_same_scores(local, remote)
    assert dict(remote["distinct-4"].details) == dict(local["distinct-4"].details)


def test_corpus_reference_metrics_and_vendi_by_block(local_ray):
    texts = [t for s in example_sets(4) for t in s]
    refs = [[t.upper(), " ".join(reversed(t.split())) or "x"] for t in texts]
    names = ["ref-bleu-2", "ref-rouge-l", "vendi", "distinct-2"]
    local = diveval.score(texts, names, references=refs)
    remote = diveval.score(texts, names, engine="ray", batch_rows=6, references=refs)
    # the embedding Vendi of each block is embedded in another process and batch: float32 noise
    assert_same_scores(local, remote, tol=1e-9, tols={"vendi": 1e-6})


def test_unknown_engine_is_an_input_error():
    with pytest.raises(diveval.InputError, match="unknown engine"):
        diveval.score(["a b"], ["distinct-1"], engine="spark")


def test_two_node_cluster_on_loopback():
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        sets = example_sets()
        names = ["distinct-2", "self-bleu", "nli-confidence"]
        local = diveval.score(sets, names)
        remote = diveval.score(sets, names, engine="ray", concurrency=2, batch_rows=4)
        assert_same_scores(local, remote)
        texts = [t for s in sets for t in s]
        assert_same_scores(
            diveval.score(texts, ["distinct-3", "self-bleu"]),
            diveval.score(texts, ["distinct-3", "self-bleu"], engine="ray", batch_rows=6),
        )
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_per_item_options_travel_with_their_sets(local_ray):
    sets = [["the cat sat", "a dog ran"], ["hello there", "hi"], ["good night", "see you"]] * 3
    groups = [[["the cat sat down"], ["a dog ran off", "dogs run"]], [["hello"], ["hi you"]],
              [["good night all"], ["see you soon"]]] * 3  # fmt: skip
    names = ["lsdscc-mds", "lsdscc-maxbleu", "distinct-1"]
    local = diveval.score(sets, names, reference_groups=groups)
    remote = diveval.score(sets, names, engine="ray", batch_rows=2, reference_groups=groups)
    assert_same_scores(local, remote)


def test_inputs_read_by_ray_data_on_the_cluster(local_ray, tmp_path):
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    from diveval.scale.ray_read import read_dataset

    sets = example_sets()
    texts = [t for s in sets for t in s]
    jsonl = tmp_path / "sets.jsonl"
    jsonl.write_text(
        "".join(json.dumps({"id": i, "responses": s}) + "\n" for i, s in enumerate(sets))
    )
    pq.write_table(pa.table({"response": texts}), tmp_path / "texts.parquet")
    datasets.Dataset.from_dict({"answers": sets}).save_to_disk(str(tmp_path / "hf"))
    set_names = ["distinct-2", "self-bleu", "nli-baseline", "sent-bert"]
    local_sets = diveval.score(sets, set_names)
    for path, field in ((jsonl, None), (tmp_path / "hf", "answers")):
        remote = diveval.score(read_dataset(str(path), field), set_names, engine="ray")
        # sent-bert: float32 MiniLM embedded again in an actor, in other batches; a mean of
        # cosines of float32 embeddings agrees to a few e-7 (the NLI model is batch-invariant)
        assert_same_scores(local_sets, remote, tols={"sent-bert": 1e-6})
    corpus_names = ["distinct-1", "ead", "self-bleu-2", "vendi"]
    remote = diveval.score(
        read_dataset(str(tmp_path / "texts.parquet")), corpus_names, engine="ray"
    )
    # vendi: the corpus is embedded on the cluster in other batches (float32 noise, as above)
    assert_same_scores(diveval.score(texts, corpus_names), remote, tol=1e-9, tols={"vendi": 1e-6})
    with pytest.raises(
        diveval.InputError, match="none of the fields responses, response, generations, text"
    ):
        read_dataset(str(tmp_path / "hf"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"responses": ["a", "b"]}\n{"responses": ["c", 3]}\n')
    with pytest.raises(diveval.InputError, match="bad.jsonl.*not a list of strings"):
        diveval.score(read_dataset(str(bad)), ["distinct-1"], engine="ray")


def test_corpus_states_on_ray_warn_of_the_script_as_one_process(local_ray):
    # Chinese responses written for this test, read by the whitespace tokenizer
    texts = ["我今天很高兴。", "今天天气很好。", "我们去公园散步吧。", "你吃饭了吗？"] * 5
    names = ["distinct-1", "ead", "self-bleu"]
    local = diveval.score(texts, names)
    remote = diveval.score(texts, names, engine="ray", batch_rows=7)
    assert_same_scores(local, remote)
    for name in names:
        assert list(remote[name].details["warnings"]) == list(local[name].details["warnings"])
        assert any("--tokenizer zh" in w for w in remote[name].details["warnings"])
