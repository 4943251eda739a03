"""A metric owns its state: a row registered in a test shards, streams and runs on Ray with the
one-process numbers, and nothing under diveval.scale knows its name; corpus Self-BLEU shards
through the same two commands as the other metrics."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import registered

import diveval
from diveval.cli import main
from diveval.errors import InputError
from diveval.registry import Metric
from diveval.results import CORPUS, SETS, Score, make_signature
from diveval.state_files import load_state, save_state

SCALE = Path(diveval.__file__).parent / "scale"


def toy_types(data, lowercase=False):
    """Distinct word types / word tokens, pooled over the corpus or per set."""
    from diveval.data import as_setting

    setting, items = as_setting(data)
    groups = items if setting == SETS else [items]
    per = [_ratio(*_types_and_count(g, lowercase)) for g in groups]
    if not per:
        raise InputError("toy-types needs at least one response")
    sig = make_signature("toy-types", lc=lowercase, setting=setting)
    return Score("toy-types", float(np.mean(per)), sig, setting, per if setting == SETS else None)


def _types_and_count(texts, lowercase):
    toks = [t.lower() if lowercase else t for s in texts for t in s.split()]
    return set(toks), len(toks)


def _ratio(types, count):
    return len(types) / count if count else 0.0


class ToyTypesState:
    """The toy's state: the set of types and the token count, which add up over any split."""

    kind = "toy-types"

    def __init__(self, options: dict[str, Any]):
        self.lowercase = bool(options.get("lowercase"))
        self.types: set[str] = set()
        self.count = 0

    def settings(self):
        return {"kind": self.kind, "lowercase": self.lowercase}

    def update(self, texts):
        types, count = _types_and_count(texts, self.lowercase)
        self.types |= types
        self.count += count

    def merge(self, *others):
        out = ToyTypesState({"lowercase": self.lowercase})
        for state in (self, *others):
            out.types |= state.types
            out.count += state.count
        return out

    def result(self):
        sig = make_signature("toy-types", lc=self.lowercase, setting=CORPUS)
        return Score("toy-types", _ratio(self.types, self.count), sig, CORPUS)

    def dump(self):
        return {"count": self.count}, {"types": np.array(sorted(self.types), dtype=str)}

    @classmethod
    def restore(cls, header, data):
        state = cls({"lowercase": header["lowercase"]})
        state.types, state.count = {str(t) for t in data["types"]}, int(header["count"])
        return state

    def save(self, path):
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path):
        return load_state(path, cls.kind, cls.restore)


TOY = Metric(
    "toy-types",
    "types / tokens, pooled",
    toy_types,
    options=("lowercase",),
    direction="higher",
    state=ToyTypesState,
)


def corpus(n=400, seed=7):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(60)] + [f"W{i}" for i in range(20)]
    weights = [1 / (i + 1) for i in range(len(words))]
    return [" ".join(rng.choices(words, weights, k=rng.randint(0, 12))) for _ in range(n)]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_no_engine_names_a_metric():
    # what the engines used to match metric names with
    for path in SCALE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for needle in ("ngram_metric", "self_bleu_order", 'startswith("ref-")', '== "vendi"'):
            assert needle not in text, f"{path.name} names metrics: {needle}"
        assert "toy" not in text


@pytest.mark.parametrize("lowercase", [False, True])
def test_a_toy_state_shards_through_the_cli(capsys, tmp_path, lowercase):
    texts = corpus()
    source = tmp_path / "c.txt"
    source.write_text("\n".join(texts) + "\n", encoding="utf-8")
    flags = ["-m", "toy-types", "-m", "distinct-2"] + (["--lowercase"] if lowercase else [])
    with registered(TOY):
        files = [tmp_path / f"s.{i}.state" for i in range(3)]
        for i, path in enumerate(files):
            run(capsys, "score", source, *flags, "--shard", f"{i}/3", "--state", path)
        merged = json.loads(run(capsys, "merge", *reversed(files), "--json"))["scores"]
        whole = json.loads(run(capsys, "score", source, *flags, "--json"))["scores"]
    assert merged == whole
    # the toy is no lexical metric: the whole run gives it the texts, and it is case-sensitive
    assert whole["toy-types"]["signature"].startswith(
        f"toy-types|lc:{'yes' if lowercase else 'no'}"
    )


def test_a_toy_state_streams(tmp_path):
    from diveval.scale.streaming import stream_score

    texts = corpus(3000, seed=8)
    source = tmp_path / "c.txt"
    source.write_text("\n".join(texts) + "\n", encoding="utf-8")
    with registered(TOY):
        local = diveval.score(texts, ["toy-types", "ead"])
        streamed = stream_score(source, ["toy-types", "ead"], memory="64M")
    for name in ("toy-types", "ead"):
        assert (streamed[name].value, streamed[name].signature) == (
            local[name].value,
            local[name].signature,
        )


def test_a_toy_state_runs_on_ray():
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    # the toy lives in this test module, which Ray's workers cannot import: ship it by value
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    texts = corpus(500, seed=9)
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with registered(TOY):
            names = ["toy-types", "avg-distinct"]
            local = diveval.score(texts, names, lowercase=True)
            remote = diveval.score(texts, names, engine="ray", batch_rows=37, lowercase=True)
        for name in names:
            assert (remote[name].value, remote[name].signature) == (
                local[name].value,
                local[name].signature,
            )
    finally:
        ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        if started:
            ray.shutdown()


def test_corpus_self_bleu_shards_like_the_rest(capsys, tmp_path):
    texts = corpus(600, seed=10) + ["", "w0", "w0 w1"]
    source = tmp_path / "c.txt"
    source.write_text("\n".join(texts) + "\n", encoding="utf-8")
    flags = ["-m", "self-bleu", "-m", "self-bleu-2", "-m", "distinct-1", "--lowercase"]
    files = [tmp_path / f"s.{i}.state" for i in range(3)]
    for i, path in enumerate(files):
        run(capsys, "score", source, *flags, "--shard", f"{i}/3", "--state", path)
    merged = json.loads(run(capsys, "merge", *files, "--json", "--items"))["scores"]
    whole = json.loads(run(capsys, "score", source, *flags, "--json", "--items"))["scores"]
    assert list(merged) == list(whole)
    for name in ("self-bleu", "self-bleu-2"):
        assert merged[name]["signature"] == whole[name]["signature"]
        assert merged[name]["value"] == pytest.approx(whole[name]["value"], abs=1e-12)
        got, want = np.array(merged[name]["items"]), np.array(whole[name]["items"])
        assert got.shape == want.shape and np.allclose(got, want, rtol=0, atol=1e-12)
    assert 0 < whole["self-bleu"]["value"] < 1


def test_a_two_pass_state_needs_every_sentence():
    from diveval.lexical.self_bleu_state import SelfBleuState

    state = SelfBleuState()
    state.update(["a b c", "a b d"])
    table = state.summary()  # pass 1 only: the sentences stay where they are
    with pytest.raises(InputError, match="did not keep every sentence"):
        table.result()
    assert table.result(table.score(["a b c", "a b d"])).value == state.result().value
