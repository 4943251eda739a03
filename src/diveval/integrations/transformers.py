"""Diversity during training: a transformers ``TrainerCallback`` that, every ``every`` steps,
samples ``k`` responses per prompt from the model being trained and logs their diversity.

A callback is given the model but not the trainer, and ``Trainer.log`` is the one call that
reaches both ``state.log_history`` and every reporting integration (TensorBoard, W&B, ...): the
callback therefore takes the trainer, as TRL's sampling callbacks do::

    trainer = Trainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    trainer.add_callback(DiversityCallback(trainer, prompts, k=8, every=200,
                                           metrics=["distinct-2", "self-bleu"]))

The responses to each prompt are one set (the *sets* setting): the logged value is
``diveval.score(sets, metrics)``, under ``diversity/<metric>``. Sampling runs in eval mode
without gradients, from a seeded random stream forked off torch's (the training's own random
numbers are untouched), and the model goes back to the mode it was in. Each step's responses
stay in ``samples`` (step -> sets), so a value can be traced to the texts it came from.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional

import torch
from transformers import TrainerCallback

from ..api import score
from ..errors import InputError
from ..options import RESPONSES_PER_PROMPT


class DiversityCallback(TrainerCallback):
    """See the module docstring. ``tokenizer``: the trainer's ``processing_class`` by default;
    ``seed``: the sampling seed (the same at every step, so steps differ by the model only);
    ``options``: diveval options for the metrics; other keywords go to ``model.generate``
    (``max_new_tokens``, ``temperature``, ``top_p``, ...; sampling is on by default)."""

    def __init__(
        self,
        trainer: Any,
        prompts: Iterable[str],
        *,
        k: int = RESPONSES_PER_PROMPT.default,
        every: int = 100,
        metrics: Iterable[str] = ("distinct-2",),
        tokenizer: Any = None,
        seed: int = 0,
        prefix: str = "diversity/",
        options: Optional[dict[str, Any]] = None,
        **generate_kwargs: Any,
    ):
        self.prompts = [str(p) for p in prompts]
        if not self.prompts or k < 2 or every < 1:
            raise InputError("DiversityCallback needs prompts, k >= 2 responses and every >= 1")
        self.trainer, self.k, self.every = trainer, int(k), int(every)
        self.metrics, self.tokenizer, self.seed = list(metrics), tokenizer, int(seed)
        self.prefix, self.options = prefix, dict(options or {})
        self.generate_kwargs = {"do_sample": True, "max_new_tokens": 32, **generate_kwargs}
        self.samples: dict[int, list[list[str]]] = {}

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step % self.every:
            return
        tokenizer = self.tokenizer or kwargs.get("processing_class")
        if tokenizer is None:
            raise InputError("DiversityCallback needs a tokenizer (or the trainer's)")
        sets = self.sample(kwargs["model"], tokenizer)
        self.samples[state.global_step] = sets
        scores = score(sets, self.metrics, **self.options)
        self.trainer.log({f"{self.prefix}{name}": s.value for name, s in scores.items()})

    def sample(self, model: Any, tokenizer: Any) -> list[list[str]]:
        """``k`` responses to each prompt (the prompt's tokens cut off), one set per prompt."""
        was_training = model.training
        model.eval()
        device = next(model.parameters()).device
        cuda = [device.index or 0] if device.type == "cuda" else []
        sets = []
        try:
            with torch.no_grad(), torch.random.fork_rng(devices=cuda):
                torch.manual_seed(self.seed)
                for prompt in self.prompts:
                    inputs = tokenizer(prompt, return_tensors="pt").to(device)
                    out = model.generate(
                        **inputs, num_return_sequences=self.k, **self.generate_kwargs
                    )
                    new = out[:, inputs["input_ids"].shape[1] :]
                    sets.append(tokenizer.batch_decode(new, skip_special_tokens=True))
        finally:
            model.train(was_training)
        return sets
