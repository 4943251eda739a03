"""Language-model backends, one table: ``sample``, ``generate`` and ``augment`` name a language
model by a spec string, and this table parses and loads it, once.

- ``openai:NAME``: OpenAI's API through the official ``openai`` client; the key comes from
  ``OPENAI_API_KEY`` and nowhere else.
- ``openai-compatible:URL[:NAME]``: any server with ``/v1/chat/completions`` (vLLM, llama.cpp's
  server, TGI, LM Studio...). Without NAME, the server's only model (``/v1/models``). A key, if the
  server wants one, from the environment variable named by ``api_key_env``.
- ``hf:NAME_OR_PATH``: a local transformers causal LM; ``smollm2`` (or ``default``): the offline
  SmolLM2-135M-Instruct (``models.generators``).

Each entry says how the rest of its spec is parsed, how a parsed spec loads as a ``ChatModel``
(``models.chat``: k samples of a conversation, seeded, with token log-probabilities where the
model gives them) and, for a model that runs in this process, how its weights load as a
``CausalLM`` (``models.local_lm``: DELOREAN and the SCARCE stand-ins decode with them). Adding a
backend is one entry in ``BACKENDS``; e.g. a GGUF file run in this process by ``llama-cpp-python``,
given a ``ChatModel`` class of one's own (``LlamaCppChat``):

    Backend(
        "gguf",
        "gguf:PATH",
        parse=lambda rest: Spec("gguf", name=rest),
        chat=lambda spec, options: LlamaCppChat(spec.name, options),
    )

``ChatGenerator`` puts any ``ChatModel`` behind the ``Generator`` protocol of threshold
generation (``sample(context, k, seed)``).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..errors import InputError
from .chat import ChatModel, ChatRequest, Context, dialogue_messages, first_line
from .generators import SMOLLM2_NAME, HFGenerator, converted_smollm2
from .local_lm import CausalLM, LocalChat, load_pretrained, on_device
from .openai_chat import OpenAIChat, served_models


@dataclass(frozen=True)
class Spec:
    kind: str  # the name of a BACKENDS entry
    name: Optional[str] = None
    url: Optional[str] = None


@dataclass(frozen=True)
class LoadOptions:
    """Every choice a backend may take when it loads. A model in this process fixes its sampling
    settings here (a server takes them with each request); ``device`` None is the CPU for a chat
    model and the best available for ``load_causal_lm``."""

    temperature: float = 1.0
    top_p: Optional[float] = None  # None: the backend's default (a local model: 1, no nucleus)
    top_k: int = 0  # 0: off
    max_tokens: int = 512
    first_line: bool = False  # keep each response's first non-empty line (a dialogue turn)
    timeout: float = 60.0  # seconds a server request may take
    api_key_env: Optional[str] = None
    device: Optional[str] = None
    threads: Optional[int] = None
    logprobs: bool = True  # ask for token log-probabilities (they never change a sample)


@dataclass(frozen=True)
class Backend:
    """One backend: its ``name`` (the spec's prefix), its ``form`` for messages, ``parse`` (the
    rest of the spec after ``name:``, to a Spec, or an InputError saying the form), ``chat`` (a
    Spec and LoadOptions to a loaded ``ChatModel``) and ``causal_lm`` (a Spec and a device to a
    ``CausalLM``; None for a model that is not in this process). ``aliases``: whole specs that
    name it alone (no ``:``)."""

    name: str
    form: str
    parse: Callable[[str], Spec]
    chat: Callable[[Spec, LoadOptions], ChatModel]
    causal_lm: Optional[Callable[[Spec, Optional[str]], CausalLM]] = None
    aliases: tuple[str, ...] = ()


_COMPATIBLE = re.compile(r"^(?P<url>https?://[^/:\s]+(?::\d+)?(?:/[^:\s]*)?)(?::(?P<name>.+))?$")


def _parse_openai(rest: str) -> Spec:
    if not rest:
        raise InputError("openai:NAME needs a model name, e.g. openai:gpt-4o-mini")
    return Spec("openai", name=rest)


def _parse_compatible(rest: str) -> Spec:
    m = _COMPATIBLE.match(rest)
    if not m:
        raise InputError(
            f"openai-compatible:URL[:NAME] needs an http(s) URL, e.g. "
            f"openai-compatible:http://127.0.0.1:8000/v1:my-model; got {rest!r}"
        )
    return Spec("openai-compatible", name=m.group("name"), url=m.group("url").rstrip("/"))


def _parse_hf(rest: str) -> Spec:
    if not rest:
        raise InputError("hf:NAME_OR_PATH needs a model name or folder")
    return Spec("hf", name=rest)


def _openai_chat(spec: Spec, o: LoadOptions) -> ChatModel:
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        raise InputError("openai:NAME reads its key from OPENAI_API_KEY, which is not set")
    return OpenAIChat(
        str(spec.name), api_key=key, timeout=o.timeout, official=True, logprobs=o.logprobs
    )


def _compatible_chat(spec: Spec, o: LoadOptions) -> ChatModel:
    """The server's chat model; without NAME, its only model."""
    key = "EMPTY"
    if o.api_key_env:
        key = os.environ.get(o.api_key_env, "")
        if not key:
            raise InputError(f"--api-key-env {o.api_key_env}: that variable is not set")
    name = spec.name
    if name is None:
        try:
            names = asyncio.run(served_models(str(spec.url), key, o.timeout))
        except Exception as exc:
            raise InputError(f"cannot list the models of {spec.url}: {exc}") from None
        if len(names) != 1:
            raise InputError(
                f"{spec.url} serves {len(names)} models ({', '.join(names[:5])}); "
                "name one: openai-compatible:URL:NAME"
            )
        name = names[0]
    return OpenAIChat(name, base_url=spec.url, api_key=key, timeout=o.timeout, logprobs=o.logprobs)


def _hf_weights(spec: Spec, device: Optional[str]) -> CausalLM:
    return load_pretrained(str(spec.name), str(spec.name), device)


def _smollm2_weights(spec: Spec, device: Optional[str]) -> CausalLM:
    return load_pretrained(str(converted_smollm2()), SMOLLM2_NAME, device)


def _local_chat(spec: Spec, o: LoadOptions) -> ChatModel:
    """A model of this process as a ChatModel: its weights, loaded once, sampled by an
    ``HFGenerator`` with the options' settings."""
    lm = BACKENDS[spec.kind].causal_lm(spec, o.device or "cpu")  # type: ignore[misc]
    generator = HFGenerator(
        model=lm.model,
        tokenizer=lm.tokenizer,
        name=lm.name,
        device=lm.device,
        top_p=1.0 if o.top_p is None else o.top_p,
        top_k=o.top_k,
        temperature=o.temperature,
        max_new_tokens=o.max_tokens,
        first_line=o.first_line,
        threads=o.threads,
    )
    return LocalChat(generator, o.logprobs)


#: Every backend; a spec is ``NAME:REST`` of one of them, or one of their aliases.
BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("openai", "openai:NAME", _parse_openai, _openai_chat),
        Backend(
            "openai-compatible", "openai-compatible:URL[:NAME]", _parse_compatible, _compatible_chat
        ),
        Backend("hf", "hf:NAME_OR_PATH", _parse_hf, _local_chat, _hf_weights),
        Backend(
            "smollm2",
            "smollm2",
            lambda rest: Spec("smollm2"),
            _local_chat,
            _smollm2_weights,
            aliases=("smollm2", "default"),
        ),
    )
}


def forms(backends: Any = None) -> str:
    """``a, b or c``: the spec forms of ``backends`` (default: all), for help and messages."""
    names = [b.form for b in (BACKENDS.values() if backends is None else backends)]
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]


SPEC_HELP = forms()


def parse_spec(spec: str, bare: Optional[str] = None) -> Spec:
    """A Spec from its string, or an InputError saying the forms. ``bare``: the backend a spec
    without a known prefix names (``augment --lm gpt2-medium``: a Hugging Face name)."""
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"a model spec is one of {SPEC_HELP}")
    spec = spec.strip()
    for b in BACKENDS.values():
        if spec.lower() in b.aliases:
            return Spec(b.name)
    kind, sep, rest = spec.partition(":")
    if sep and kind in BACKENDS and not BACKENDS[kind].aliases:
        return BACKENDS[kind].parse(rest)
    if bare is not None:
        return BACKENDS[bare].parse(spec)
    raise InputError(f"unknown model spec {spec!r}; use {SPEC_HELP}")


def load_chat(spec: Spec, options: LoadOptions = LoadOptions()) -> ChatModel:
    """The loaded ChatModel of a parsed spec."""
    return BACKENDS[spec.kind].chat(spec, options)


def load_causal_lm(
    spec: Optional[str] = None,
    *,
    model: Any = None,
    tokenizer: Any = None,
    device: Optional[str] = None,
) -> CausalLM:
    """The weights of a model that runs in this process (``smollm2`` when ``spec`` is None; a
    bare name is a Hugging Face name or folder), or a given ``model`` and ``tokenizer``; on
    ``device`` (None: the best available)."""
    if model is not None:
        if tokenizer is None:
            raise InputError("a causal LM given as model= needs tokenizer= too")
        return on_device(model, tokenizer, spec or type(model).__name__, device)
    parsed = parse_spec(spec or "smollm2", bare="hf")
    load = BACKENDS[parsed.kind].causal_lm
    if load is None:
        local = [b for b in BACKENDS.values() if b.causal_lm is not None]
        raise InputError(
            f"{spec!r} is served elsewhere; this needs the weights of a model in this process: "
            f"{forms(local)}"
        )
    return load(parsed, device)


def choice_seed(seed: int, j: int) -> int:
    """The seed of a request for choice j of a call seeded ``seed``: a hash of both, never
    ``seed + j``, the seed threshold generation draws its j-th replacement with (the same seed
    would give the same response twice)."""
    digest = hashlib.blake2b(f"{seed}\x00choice\x00{j}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


class ChatGenerator:
    """A ChatModel as a ``Generator`` (``sample(context, k, seed)``): the context as a dialogue
    (its last turn the user's), ``k`` choices of one request, then one request per choice a
    server did not give (llama.cpp's ignores ``n``), each seeded by ``choice_seed``.
    ``settings``: what the records keep."""

    def __init__(self, model: ChatModel, options: LoadOptions, spec: str):
        self.model = model
        self.options = options
        self.name = model.model
        own = getattr(model, "settings", None)  # a local model fixed its settings when built
        self.settings: dict[str, Any] = (
            dict(own)
            if own is not None
            else {
                "generator": spec,
                "top_p": options.top_p,
                "temperature": options.temperature,
                "max_new_tokens": options.max_tokens,
                "first_line": options.first_line,
            }
        )
        self._loop = asyncio.new_event_loop()  # one loop: a client's connections live in it

    def _ask(self, context: Context, n: int, seed: int) -> list[str]:
        o = self.options
        ask = ChatRequest(n, seed, o.temperature, o.top_p, o.max_tokens)
        call = self.model.chat(dialogue_messages(context), ask)
        return list(self._loop.run_until_complete(call).texts)

    def sample(self, context: Context, k: int, seed: int) -> list[str]:
        texts = self._ask(context, k, seed)[:k]
        for j in range(len(texts), k):
            more = self._ask(context, 1, choice_seed(seed, j))
            if not more:
                raise InputError(f"{self.name} returned no choice")
            texts.append(more[0])
        return [first_line(t) for t in texts] if self.options.first_line else texts

    def close(self) -> None:
        self._loop.run_until_complete(self.model.aclose())
        self._loop.close()
