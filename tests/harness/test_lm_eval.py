"""lm-evaluation-harness runs for real: ``lm_eval --include_path examples/lm_eval`` with its ``hf``
model on a tiny local model, and in process with a canned model. Each test collects the k responses
lm-eval produced per prompt from its samples log, scores them with ``diveval.score`` and compares
with the number lm-eval reports.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

import tiny_lm
from lm_eval.api.model import LM
from lm_eval.api.registry import get_aggregation, get_filter, get_metric, is_higher_better

import diveval
from diveval.harness import set_metrics
from diveval.harness.lm_eval_registry import registered_names

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "lm_eval"


def test_lm_eval_cli_on_a_local_model_equals_diveval_score(tmp_path):
    model = tiny_lm.build(tmp_path / "tiny")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "lm_eval", "--include_path", "examples/lm_eval"]
    cmd += ["--tasks", "diveval_diversity", "--model", "hf", "--model_args", f"pretrained={model}"]
    cmd += ["--device", "cpu", "--gen_kwargs", "max_gen_toks=8", "--seed", "0"]
    cmd += ["--log_samples", "--output_path", str(out)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    (results,) = out.rglob("results_*.json")
    (samples,) = out.rglob("samples_diveval_diversity_*.jsonl")
    reported = json.loads(results.read_text())["results"]["diveval_diversity"]
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    sets = [row["resps"][0] for row in sorted(rows, key=lambda r: r["doc_id"])]
    assert len(sets) == 4 and all(len(s) == 4 for s in sets)  # repeats: 4, k = 4
    assert len({r for s in sets for r in s}) > 4  # sampled, not one answer repeated
    for metric in ("distinct-2", "self-bleu"):
        expected = diveval.score(sets, [metric])[metric].value
        assert reported[f"diveval/{metric},k4"] == pytest.approx(expected, rel=1e-12, abs=1e-15)


class Canned(LM):
    """An lm-eval model that answers generation requests from a list, in order."""

    def __init__(self, texts):
        super().__init__()
        self.texts = list(texts)
        self.asked = 0

    def generate_until(self, requests, disable_tqdm=False):
        out = self.texts[self.asked : self.asked + len(requests)]
        self.asked += len(requests)
        return out

    def loglikelihood(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError


TEXTS = [
    "An apple",
    "a pear",
    "AN APPLE a day",
    "an apple",
    "Hello there",
    "hi there friend",
    "HELLO hello",
    "hello there",
    "the sea is Blue",
    "the sea",
    "THE SEA IS BLUE",
    "a grey sea",
    "the cat sat",
    "The Cat sat down",
    "a dog ran off",
    "THE CAT",
]


def _task_dir(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "tasks"
    shutil.copytree(EXAMPLE, folder)
    yaml = folder / "diveval_diversity.yaml"
    yaml.write_text(edit(yaml.read_text()))
    return folder


def _evaluate(folder: Path, model: LM) -> dict:
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    out = simple_evaluate(
        model=model,
        tasks=["diveval_diversity"],
        task_manager=TaskManager(include_path=str(folder)),
        log_samples=True,
    )
    return out


def test_metric_options_in_the_yaml_reach_diveval(tmp_path):
    folder = _task_dir(
        tmp_path,
        lambda y: y.replace(
            "- metric: diveval/self-bleu\n    aggregation: diveval/self-bleu\n"
            "    higher_is_better: false",
            "- metric: diveval/distinct-1\n    aggregation: diveval/distinct-1\n"
            "    higher_is_better: true\n    lowercase: true",
        ),
    )
    out = _evaluate(folder, Canned(TEXTS))
    rows = sorted(out["samples"]["diveval_diversity"], key=lambda r: r["doc_id"])
    sets = [row["resps"][0] for row in rows]
    assert sorted(r for s in sets for r in s) == sorted(TEXTS)
    value = out["results"]["diveval_diversity"]["diveval/distinct-1,k4"]
    expected = diveval.score(sets, ["distinct-1"], lowercase=True)["distinct-1"].value
    assert value == pytest.approx(expected, rel=1e-12)
    assert expected != diveval.score(sets, ["distinct-1"])["distinct-1"].value
    value = out["results"]["diveval_diversity"]["diveval/distinct-2,k4"]
    assert value == pytest.approx(diveval.score(sets, ["distinct-2"])["distinct-2"].value)


def test_the_example_task_declares_aggregation_and_direction_so_lm_eval_does_not_warn(
    tmp_path, caplog
):
    import yaml

    class Loader(yaml.SafeLoader):  # the task's `!function` tag, read as a plain string
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    config = yaml.load((EXAMPLE / "diveval_diversity.yaml").read_text(), Loader=Loader)
    for entry in config["metric_list"]:
        assert entry["aggregation"] == entry["metric"]
        assert entry["higher_is_better"] is is_higher_better(entry["metric"])
    caplog.set_level("WARNING")
    import logging

    logging.getLogger("lm_eval").propagate = True  # lm-eval may keep its records to itself
    _evaluate(_task_dir(tmp_path, lambda y: y), Canned(TEXTS))
    said = [r.getMessage() for r in caplog.records]
    assert not [m for m in said if "aggregation is not" in m or "higher_is_better is not" in m]


def test_a_task_without_k_responses_per_prompt_is_an_error_that_says_so(tmp_path):
    # no filter: lm-eval's default keeps the first response of each prompt
    folder = _task_dir(
        tmp_path, lambda y: y.split("filter_list:")[0] + "metric_list:" + y.split("metric_list:")[1]
    )
    with pytest.raises(ValueError, match="set repeats: k and the diveval_k filter"):
        _evaluate(folder, Canned(TEXTS))


def test_the_registry_holds_every_set_metric_with_its_direction():
    names = registered_names()
    assert names == ["diveval/" + m for m in set_metrics()]
    for name in names:
        assert get_metric(name) is not None and get_aggregation(name) is not None
    assert is_higher_better("diveval/distinct-2") is True
    assert is_higher_better("diveval/self-bleu") is False  # more overlap = less diverse


def test_the_aggregation_scores_the_sets_of_all_prompts_together():
    per_prompt = get_metric("diveval/ead")
    sets = [["a b c", "a b d"], ["x y", "x y", "z"]]
    items = [per_prompt(references=[""], predictions=[s]) for s in sets]
    assert get_aggregation("diveval/ead")(items) == diveval.score(sets, ["ead"])["ead"].value
    mixed = [
        items[0],
        get_metric("diveval/ead")(references=[""], predictions=[sets[1]], lowercase=True),
    ]
    with pytest.raises(ValueError, match="different options"):
        get_aggregation("diveval/ead")(mixed)


def test_the_k_filter_keeps_k_and_refuses_fewer():
    keep = get_filter("diveval_k")(k=2)
    assert keep.apply([["a", "b", "c"], ["d", "e"]], [{}, {}]) == [["a", "b"], ["d", "e"]]
    with pytest.raises(ValueError, match="prompt 1 has 1 responses, fewer than k = 2"):
        keep.apply([["a", "b"], ["c"]], [{}, {}])
