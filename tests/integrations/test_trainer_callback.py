"""DiversityCallback: a tiny GPT-2 trained a few steps on CPU logs the diversity of the responses
it sampled, through Trainer.log, and the values are diveval.score's on those responses."""

from __future__ import annotations

import numpy as np
import pytest
import tiny_lm

import diveval
from diveval.errors import InputError

torch = pytest.importorskip("torch", reason="torch is not installed")
transformers = pytest.importorskip("transformers", reason="transformers is not installed")

from diveval.integrations.transformers import DiversityCallback  # noqa: E402

METRICS = ["distinct-2", "self-bleu"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(trainer, callback, weights before training) after 6 steps, sampling every 3 steps."""
    from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

    path = tiny_lm.build(tmp_path_factory.mktemp("tiny-lm"))
    model = AutoModelForCausalLM.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(24):  # sentences of 8 words: one length, so the default collator stacks them
        ids = tokenizer(" ".join(rng.choice(tiny_lm.WORDS, size=8)))["input_ids"]
        rows.append({"input_ids": ids, "labels": ids})
    args = TrainingArguments(
        output_dir=str(tmp_path_factory.mktemp("out")),
        max_steps=6,
        per_device_train_batch_size=4,
        learning_rate=1e-2,
        logging_steps=2,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        seed=0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=rows, processing_class=tokenizer)
    callback = DiversityCallback(
        trainer, ["the cat", "a dog sat"], k=4, every=3, metrics=METRICS, max_new_tokens=6
    )
    trainer.add_callback(callback)
    trainer.add_callback(Recorder())
    trainer.train()
    return trainer, callback


class Recorder(transformers.TrainerCallback):
    """A stand-in for a reporting integration: what every callback's ``on_log`` is given."""

    seen: list[dict] = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        Recorder.seen.append(dict(logs or {}))


def test_the_logged_values_are_the_scores_of_the_sampled_responses(trained):
    trainer, callback = trained
    assert sorted(callback.samples) == [3, 6]
    logged = {
        row["step"]: row for row in trainer.state.log_history if "diversity/distinct-2" in row
    }
    assert sorted(logged) == [3, 6]
    # the loggers see them too (Trainer.log calls every callback's on_log)
    assert sum("diversity/self-bleu" in logs for logs in Recorder.seen) == 2
    for step, sets in callback.samples.items():
        assert len(sets) == 2 and all(len(s) == 4 for s in sets)
        assert all(text.strip() for s in sets for text in s)
        expected = diveval.score(sets, METRICS)
        for name in METRICS:
            assert logged[step][f"diversity/{name}"] == expected[name].value


def test_sampling_leaves_the_model_training_and_is_seeded(trained):
    trainer, callback = trained
    model = trainer.model
    assert model.training  # back in train mode after the last sampling step
    tokenizer = trainer.processing_class
    first = callback.sample(model, tokenizer)
    assert model.training
    assert callback.sample(model, tokenizer) == first  # the same seed, the same model
    model.eval()
    assert callback.sample(model, tokenizer) == first
    assert not model.training  # the mode it found


def test_bad_arguments_are_refused(trained):
    trainer, _ = trained
    with pytest.raises(InputError):
        DiversityCallback(trainer, [], k=4)
    with pytest.raises(InputError):
        DiversityCallback(trainer, ["the cat"], k=1)


class _Logs:
    """A stand-in trainer: what the callback hands ``Trainer.log``."""

    def __init__(self):
        self.logged: list[dict] = []

    def log(self, logs):
        self.logged.append(dict(logs))


class _Step:
    global_step = 3


def test_a_step_whose_answers_are_all_empty_logs_no_diversity_and_warns(monkeypatch):
    trainer = _Logs()
    callback = DiversityCallback(trainer, ["the cat", "a dog"], k=2, every=3, metrics=METRICS)
    monkeypatch.setattr(callback, "sample", lambda model, tokenizer: [["", " "], ["", ""]])
    with pytest.warns(UserWarning, match="step 3: no responses to score"):
        callback.on_step_end(None, _Step(), None, model=None, processing_class=object())
    assert trainer.logged == [{"diversity/empty-responses": 1.0}]
    # some answers empty: the others scored as diveval.score scores them, the share logged
    sets = [["the cat sat", ""], ["a dog ran", "a dog sat"]]
    monkeypatch.setattr(callback, "sample", lambda model, tokenizer: sets)
    with pytest.warns(UserWarning, match="needs at least two|at least 2"):
        callback.on_step_end(None, _Step(), None, model=None, processing_class=object())
    assert trainer.logged[-1] == {"diversity/empty-responses": 0.25}


def test_prompts_go_through_the_chat_template(trained, monkeypatch):
    trainer, callback = trained
    model, tokenizer = trainer.model, trainer.processing_class
    tokenizer = type(tokenizer).from_pretrained(tokenizer.name_or_path)
    tokenizer.chat_template = (
        "{% for m in messages %}hello {{ m['content'] }}{% endfor %}"
        "{% if add_generation_prompt %} there{% endif %}"
    )
    seen = []
    generate = model.generate
    monkeypatch.setattr(
        model, "generate", lambda **kw: seen.append(kw["input_ids"][0].tolist()) or generate(**kw)
    )
    callback.sample(model, tokenizer)
    assert seen[0] == tokenizer("hello the cat there", add_special_tokens=False)["input_ids"]
    # no template, or chat=False: the prompt's own text
    tokenizer.chat_template = None
    seen.clear()
    callback.sample(model, tokenizer)
    assert seen[0] == tokenizer("the cat")["input_ids"]


def test_the_guides_example_runs_and_the_guide_shows_its_code():
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    example = root / "examples" / "trainer_callback.py"
    guide = (root / "docs" / "guides" / "integrations.md").read_text(encoding="utf-8")
    section = guide.split("## transformers Trainer")[1]
    (block,) = re.findall(r"```python\n(.*?)```", section.split("\n## ")[0], re.S)
    source = [line.strip() for line in example.read_text(encoding="utf-8").splitlines()]
    shown = [line.strip() for line in block.splitlines()]
    starts = [i for i, line in enumerate(source) if line == shown[0]]
    assert any(source[i : i + len(shown)] == shown for i in starts), "the guide's block drifted"
    env = dict(os.environ, PYTHONPATH=str(root / "src"), HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, str(example)], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("step ")]
    assert [line.split(":")[0] for line in lines] == ["step 3", "step 6"], done.stdout
    assert all(re.search(r"distinct-2 [01]\.\d{3}, self-bleu [01]\.\d{3}", x) for x in lines)
