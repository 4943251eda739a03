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
