"""Causal language models in this process (transformers): loaded once, by Hugging Face name or
folder, and used two ways:

- ``CausalLM``: the weights and tokenizer, for decoding of one's own (DELOREAN's gradient steps,
  greedy completions of the SCARCE stand-ins), with ``encode``/``decode``/``greedy``;
- ``LocalChat``: the ``ChatModel`` interface over an ``HFGenerator`` built on those weights
  (``n`` is honoured through ``num_return_sequences``; requests run one at a time in a worker
  thread).

``load_pretrained`` is the one place a causal LM's weights are read from disk (offline, the
device checked, errors as one-line InputErrors). torch and transformers are imported when a model
loads.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping, Optional, Sequence

from ..errors import InputError, MissingDependencyError
from .chat import ChatRequest, Completion, dialogue_messages
from .devices import check_device
from .fingerprint import state_dict_fingerprint
from .offline import error_line, hub_offline
from .resolve import check_model_spec
from .threads import torch_threads


@dataclass
class CausalLM:
    """A loaded causal LM: ``model`` (eval mode), ``tokenizer``, display ``name``, ``device``."""

    model: Any
    tokenizer: Any
    name: str
    device: str

    @cached_property
    def fingerprint(self) -> str:
        return state_dict_fingerprint(self.model)

    @property
    def max_positions(self) -> int:
        cfg = self.model.config
        for attr in ("max_position_embeddings", "n_positions"):
            value = getattr(cfg, attr, None)
            if isinstance(value, int) and value > 0:
                return value
        return 2048

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def decode(self, ids: list[int]) -> str:
        return str(self.tokenizer.decode(ids, skip_special_tokens=True))

    def dialogue_prompt(self, turns) -> list[int]:
        """Token ids of a dialogue in the chat template: the last turn the user's, earlier ones
        alternating backwards, ready for the assistant's reply."""
        enc = self.tokenizer.apply_chat_template(
            dialogue_messages(list(turns)), add_generation_prompt=True, return_dict=True
        )
        return list(enc["input_ids"])

    def greedy(self, prompt_ids: list[int], max_new_tokens: int, stop_at_newline: bool = True):
        """Greedy continuation of ``prompt_ids`` (new token ids), cut at EOS and, when asked, at
        the first line break after some text."""
        import torch

        ids = torch.tensor([prompt_ids], device=self.device)
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id
        with torch.inference_mode():
            out = self.model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                do_sample=False,
                max_new_tokens=max_new_tokens,
                pad_token_id=pad,
            )
        new = out[0, ids.shape[1] :].tolist()
        eos = self.tokenizer.eos_token_id
        if eos is not None and eos in new:
            new = new[: new.index(eos)]
        return new


def load_pretrained(path: str, name: str, device: Optional[str] = None) -> CausalLM:
    """The causal LM in ``path`` (a Hugging Face name or folder), shown as ``name``, on
    ``device`` (None: the best available; a typo is an InputError)."""
    with hub_offline():  # before transformers is imported: it reads the setting then
        try:
            import torch  # noqa: F401
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise MissingDependencyError("causal language models", "models") from None
    device = check_device(device)
    check_model_spec(path, "causal LM")  # fast, before the weights are read
    try:
        with hub_offline():
            torch_threads()  # before the first model: see models.threads
            tokenizer = AutoTokenizer.from_pretrained(path)
            model = AutoModelForCausalLM.from_pretrained(path)
    except (OSError, ValueError) as err:
        first = error_line(err)
        raise InputError(f"cannot load the causal LM {name!r}: {first}") from err
    return on_device(model, tokenizer, name, device)


def on_device(model: Any, tokenizer: Any, name: str, device: Optional[str] = None) -> CausalLM:
    """A ``CausalLM`` of a model and tokenizer already loaded (eval mode, moved to ``device``)."""
    device = check_device(device)
    model = model.eval()
    if device != "cpu":
        model.to(device)
    return CausalLM(model, tokenizer, name, device)


class LocalChat:
    """A transformers causal LM (``HFGenerator``) behind the chat interface. ``n`` is honoured
    (``num_return_sequences``); requests run one at a time in a worker thread."""

    takes_seed = True
    local = True

    def __init__(self, generator: Any, logprobs: bool = True):
        self.gen = generator
        self.model = generator.name
        self.logprobs = logprobs
        self._lock = threading.Lock()

    @property
    def settings(self) -> dict[str, Any]:
        """Every choice fixed when the model was built (``HFGenerator.settings``)."""
        return dict(self.gen.settings)

    def _run(self, messages: Sequence[Mapping[str, str]], n: int, seed: int) -> Completion:
        with self._lock:
            ids = self.gen.messages_ids(messages)
            if self.logprobs:
                texts, counts, scores = self.gen.sample_ids_scored(ids, n, seed)
            else:
                (texts, counts), scores = self.gen.sample_ids(ids, n, seed), None
        return Completion(texts, self.model, int(ids.shape[1]) * n, int(sum(counts)), scores)

    async def chat(self, messages: Sequence[Mapping[str, str]], ask: ChatRequest) -> Completion:
        # temperature, top_p and max_tokens were fixed when the generator was built
        seed = 0 if ask.seed is None else ask.seed
        return await asyncio.to_thread(self._run, messages, ask.n, seed)

    def retryable(self, exc: BaseException) -> bool:
        return False

    async def aclose(self) -> None:
        return None
