"""diveval.integrations.ray.aggregate: a Ray Data aggregation whose value is diveval.score's."""

from __future__ import annotations

import numpy as np
import pytest
from tiny_lm import WORDS

import diveval
from diveval.errors import InputError

ray = pytest.importorskip("ray", reason="the ray extra is not installed")

from diveval.integrations.ray import aggregate  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    # a Ray of its own with 2 workers: without an address Ray joins any Ray running here
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def corpus(n: int = 60, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=rng.integers(2, 9))) for _ in range(n)]


@pytest.mark.parametrize("name", ["distinct-2", "ead", "self-bleu", "entropy-2"])
def test_the_aggregation_over_blocks_equals_the_one_process_score(local_ray, name):
    texts = corpus()
    ds = ray.data.from_items([{"response": t} for t in texts], override_num_blocks=6)
    got = ds.aggregate(aggregate(name, column="response"))
    assert got == {name: pytest.approx(diveval.score(texts, [name])[name].value, rel=1e-12)}


def test_options_and_the_result_name(local_ray):
    texts = [t.upper() if i % 2 else t for i, t in enumerate(corpus())]
    ds = ray.data.from_items([{"text": t} for t in texts], override_num_blocks=4)
    got = ds.aggregate(aggregate("distinct-2", name="d2", lowercase=True))
    assert got == {"d2": diveval.score(texts, ["distinct-2"], lowercase=True)["distinct-2"].value}


def test_a_metric_without_a_state_is_refused():
    with pytest.raises(InputError, match="Supported: .*distinct-2"):
        aggregate("nli-baseline")
