"""Diversity during training: a transformers ``TrainerCallback`` that, every ``every`` steps,
samples ``k`` responses per prompt from the model being trained and logs their diversity.

A callback is given the model but not the trainer, and ``Trainer.log`` is the one call that
reaches both ``state.log_history`` and every reporting integration (TensorBoard, W&B, ...): the
callback therefore takes the trainer, as TRL's sampling callbacks do::

    trainer = Trainer(model=model, args=args, train_dataset=data, processing_class=tokenizer)
    trainer.add_callback(DiversityCallback(trainer, prompts, k=8, every=200,
                                           metrics=["distinct-2", "self-bleu"]))

The responses to each prompt are one set (the *sets* setting): the logged value is
``diveval.score(sets, metrics)``, under ``diversity/<metric>``. A prompt goes through the
tokenizer's chat template when it has one (``tokenizer.chat_template``; ``chat=False`` turns it
off): an instruct model given the raw text of a prompt often answers with nothing at all.
Empty responses are skipped as ``diveval.score`` skips them, and their share is logged under
``diversity/empty-responses``; a step whose responses are all empty logs no diversity (it would
read as a number about texts that do not exist) and warns instead. Sampling runs in eval mode
without gradients, from a seeded random stream forked off torch's (the training's own random
numbers are untouched), and the model goes back to the mode it was in. Each step's responses
stay in ``samples`` (step -> sets), so a value can be traced to the texts it came from.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Optional

import torch
from transformers import TrainerCallback

from ..api import score
from ..data import is_empty
from ..errors import InputError
from ..options import RESPONSES_PER_PROMPT


class DiversityCallback(TrainerCallback):
    """See the module docstring. ``tokenizer``: the trainer's ``processing_class`` by default;
    ``seed``: the sampling seed (the same at every step, so steps differ by the model only);
    ``options``: diveval options for the metrics; ``chat``: whether a prompt goes through the
    tokenizer's chat template (None: when it has one); other keywords go to ``model.generate``
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
        chat: Optional[bool] = None,
        **generate_kwargs: Any,
    ):
        self.prompts = [str(p) for p in prompts]
        if not self.prompts or k < 2 or every < 1:
            raise InputError("DiversityCallback needs prompts, k >= 2 responses and every >= 1")
        self.trainer, self.k, self.every = trainer, int(k), int(every)
        self.metrics, self.tokenizer, self.seed = list(metrics), tokenizer, int(seed)
        self.prefix, self.options, self.chat = prefix, dict(options or {}), chat
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
        texts = [t for s in sets for t in s]
        empty = sum(is_empty(t) for t in texts)
        logs = {f"{self.prefix}empty-responses": empty / len(texts)}
        try:
            scores = score(sets, self.metrics, **self.options)
        except InputError as exc:
            if not empty:
                raise  # not the model's answers: the caller's metrics or options
            # too few responses left (none, or a set of one for a pairwise metric): the
            # training goes on, the step says why it has no diversity
            warnings.warn(
                f"DiversityCallback, step {state.global_step}: {exc}; no diversity logged",
                stacklevel=2,
            )
        else:
            logs.update({f"{self.prefix}{name}": s.value for name, s in scores.items()})
        self.trainer.log(logs)

    def encode(self, tokenizer: Any, prompt: str) -> Any:
        """The model's input for ``prompt``: through the chat template as the user's message,
        the assistant's turn opened, where the tokenizer has a template (and ``chat`` is not
        False); the prompt's own text otherwise."""
        chat = (
            self.chat if self.chat is not None else bool(getattr(tokenizer, "chat_template", None))
        )
        if not chat:
            return tokenizer(prompt, return_tensors="pt")
        text = tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )
        # the template writes the special tokens (BOS...) itself
        return tokenizer(text, return_tensors="pt", add_special_tokens=False)

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
                    inputs = self.encode(tokenizer, prompt).to(device)
                    out = model.generate(
                        **inputs, num_return_sequences=self.k, **self.generate_kwargs
                    )
                    new = out[:, inputs["input_ids"].shape[1] :]
                    sets.append(tokenizer.batch_decode(new, skip_special_tokens=True))
        finally:
            model.train(was_training)
        return sets
