"""Model specs and the chat backends behind them.

- ``openai:NAME``: OpenAI's API through the official ``openai`` client; the key comes from
  ``OPENAI_API_KEY`` and nowhere else.
- ``openai-compatible:URL[:NAME]``: any server with ``/v1/chat/completions`` (vLLM, llama.cpp's
  server, TGI, LM Studio...). Without NAME, the server's only model (``/v1/models``). A key, if the
  server wants one, from the environment variable named by ``api_key_env``.
- ``hf:NAME_OR_PATH``: a local transformers causal LM; ``smollm2``: the offline SmolLM2-135M.

A backend has ``chat(messages, n=, seed=, temperature=, top_p=, max_tokens=)`` (async) returning a
:class:`Completion`, ``retryable(exc)``, ``takes_seed`` and ``aclose()``. A completion carries the
log-probability of each token of each choice where the backend gives them: the servers' own
``logprobs`` (asked with ``logprobs=true, top_logprobs=0``), and for local models the model's
log-softmax at each generated token (before temperature and nucleus truncation, as a server
reports them), the end-of-sequence token left out as the servers leave out their stop token. The runner owns retries
and timeouts: the ``openai`` client's own retries are turned off (``max_retries=0``).
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ..errors import InputError, MissingDependencyError

SPEC_HELP = "openai:NAME, openai-compatible:URL[:NAME], hf:NAME_OR_PATH or smollm2"
#: HTTP statuses worth another try: timeouts, conflicts, rate limits, server errors.
RETRY_STATUSES = frozenset({408, 409, 425, 429})

_COMPATIBLE = re.compile(r"^(?P<url>https?://[^/:\s]+(?::\d+)?(?:/[^:\s]*)?)(?::(?P<name>.+))?$")


@dataclass(frozen=True)
class Spec:
    kind: str  # openai | openai-compatible | hf | smollm2
    name: Optional[str] = None
    url: Optional[str] = None


@dataclass(frozen=True)
class Completion:
    texts: list[str]
    model: str  # the model name the server reports
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: per choice, the log-probability of each of its tokens (None: the backend gave none)
    token_logprobs: Optional[list[Optional[list[float]]]] = None


def parse_spec(spec: str) -> Spec:
    """A Spec from its string, or an InputError saying the forms."""
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"a model spec is one of {SPEC_HELP}")
    spec = spec.strip()
    if spec.lower() in ("smollm2", "default"):
        return Spec("smollm2")
    kind, sep, rest = spec.partition(":")
    if sep and kind == "openai":
        if not rest:
            raise InputError("openai:NAME needs a model name, e.g. openai:gpt-4o-mini")
        return Spec("openai", name=rest)
    if sep and kind == "openai-compatible":
        m = _COMPATIBLE.match(rest)
        if not m:
            raise InputError(
                f"openai-compatible:URL[:NAME] needs an http(s) URL, e.g. "
                f"openai-compatible:http://127.0.0.1:8000/v1:my-model; got {rest!r}"
            )
        return Spec("openai-compatible", name=m.group("name"), url=m.group("url").rstrip("/"))
    if sep and kind == "hf":
        if not rest:
            raise InputError("hf:NAME_OR_PATH needs a model name or folder")
        return Spec("hf", name=rest)
    raise InputError(f"unknown model spec {spec!r}; use {SPEC_HELP}")


# ------------------------------------------------------------------------------------------------
# OpenAI and OpenAI-compatible servers


def _openai():
    try:
        import openai
    except ImportError:
        raise MissingDependencyError(
            "sampling from an OpenAI-compatible server", "sample"
        ) from None
    return openai


class OpenAIChat:
    """Chat completions through the official ``openai`` client (async)."""

    takes_seed = True

    def __init__(
        self,
        model: str,
        *,
        base_url: Optional[str] = None,
        api_key: str = "EMPTY",
        timeout: float = 60.0,
        official: bool = False,
        logprobs: bool = True,
    ):
        openai = _openai()
        self.model = model
        self.official = official
        self.logprobs = logprobs
        self._client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0
        )

    async def chat(
        self,
        messages: Sequence[dict],
        *,
        n: int = 1,
        seed: Optional[int] = None,
        temperature: float = 1.0,
        top_p: Optional[float] = None,
        max_tokens: int = 512,
    ) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": temperature,
        }
        # OpenAI's newer models refuse max_tokens; most other servers know only max_tokens
        kwargs["max_completion_tokens" if self.official else "max_tokens"] = max_tokens
        if n > 1:
            kwargs["n"] = n
        if top_p is not None:
            kwargs["top_p"] = top_p
        if seed is not None:
            kwargs["seed"] = seed
        if self.logprobs:  # llama.cpp's server returns none without top_logprobs
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = 0
        resp = await self._client.chat.completions.create(**kwargs)
        choices = sorted(resp.choices or [], key=lambda c: c.index)
        usage = resp.usage
        return Completion(
            [c.message.content or "" for c in choices],
            str(resp.model or self.model),
            int(getattr(usage, "prompt_tokens", 0) or 0),
            int(getattr(usage, "completion_tokens", 0) or 0),
            [_choice_logprobs(c) for c in choices] if self.logprobs else None,
        )

    def retryable(self, exc: BaseException) -> bool:
        openai = _openai()
        if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
            return True  # APITimeoutError is one too; a dropped connection is one
        if isinstance(exc, openai.APIStatusError):
            return exc.status_code in RETRY_STATUSES or exc.status_code >= 500
        return False

    def retry_after(self, exc: BaseException) -> Optional[float]:
        """Seconds a 429 or 503 asks to wait (its Retry-After header), or None."""
        response = getattr(exc, "response", None)
        value = response.headers.get("retry-after") if response is not None else None
        try:
            return max(0.0, float(value)) if value is not None else None
        except ValueError:  # an HTTP date: the backoff decides
            return None

    async def aclose(self) -> None:
        await self._client.close()


def _choice_logprobs(choice: Any) -> Optional[list[float]]:
    """The log-probabilities of a choice's content tokens, or None where the server sent none."""
    content = getattr(getattr(choice, "logprobs", None), "content", None)
    if content is None:
        return None
    values = [getattr(t, "logprob", None) for t in content]
    numbers = [float(v) for v in values if isinstance(v, (int, float))]
    return numbers if len(numbers) == len(values) else None


async def served_models(url: str, api_key: str = "EMPTY", timeout: float = 30.0) -> list[str]:
    """The model ids a server lists at ``/v1/models``."""
    openai = _openai()
    client = openai.AsyncOpenAI(api_key=api_key, base_url=url, timeout=timeout, max_retries=2)
    try:
        page = await client.models.list()
        return [m.id for m in page.data]
    finally:
        await client.close()


# ------------------------------------------------------------------------------------------------
# local transformers models


class LocalChat:
    """A transformers causal LM (``HFGenerator``) behind the chat interface. ``n`` is honoured
    (``num_return_sequences``); requests run one at a time in a worker thread."""

    takes_seed = True

    def __init__(self, generator: Any, logprobs: bool = True):
        self.gen = generator
        self.model = generator.name
        self.logprobs = logprobs
        self._lock = threading.Lock()

    def _run(self, messages: Sequence[dict], n: int, seed: int) -> Completion:
        with self._lock:
            ids = self.gen.messages_ids(messages)
            if self.logprobs:
                texts, counts, scores = self.gen.sample_ids_scored(ids, n, seed)
            else:
                (texts, counts), scores = self.gen.sample_ids(ids, n, seed), None
        return Completion(texts, self.model, int(ids.shape[1]) * n, int(sum(counts)), scores)

    async def chat(
        self,
        messages: Sequence[dict],
        *,
        n: int = 1,
        seed: Optional[int] = None,
        temperature: float = 1.0,
        top_p: Optional[float] = None,
        max_tokens: int = 512,
    ) -> Completion:
        # temperature, top_p and max_tokens were fixed when the generator was built
        return await asyncio.to_thread(self._run, messages, n, 0 if seed is None else seed)

    def retryable(self, exc: BaseException) -> bool:
        return False

    async def aclose(self) -> None:
        return None


# ------------------------------------------------------------------------------------------------


def build_backend(
    spec: Spec,
    *,
    temperature: float,
    top_p: Optional[float],
    max_tokens: int,
    timeout: float,
    api_key_env: Optional[str] = None,
    device: Optional[str] = None,
    logprobs: bool = True,
):
    """The backend of a parsed spec; for a compatible server without NAME, its only model."""
    if spec.kind == "openai":
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise InputError("openai:NAME reads its key from OPENAI_API_KEY, which is not set")
        return OpenAIChat(
            str(spec.name), api_key=key, timeout=timeout, official=True, logprobs=logprobs
        )
    if spec.kind == "openai-compatible":
        key = "EMPTY"
        if api_key_env:
            key = os.environ.get(api_key_env, "")
            if not key:
                raise InputError(f"--api-key-env {api_key_env}: that variable is not set")
        name = spec.name
        if name is None:
            try:
                names = asyncio.run(served_models(str(spec.url), key, timeout))
            except Exception as exc:
                raise InputError(f"cannot list the models of {spec.url}: {exc}") from None
            if len(names) != 1:
                raise InputError(
                    f"{spec.url} serves {len(names)} models ({', '.join(names[:5])}); "
                    "name one: openai-compatible:URL:NAME"
                )
            name = names[0]
        return OpenAIChat(name, base_url=spec.url, api_key=key, timeout=timeout, logprobs=logprobs)
    from ..models.generators import HFGenerator, smollm2_generator

    options: dict[str, Any] = {
        "top_p": 1.0 if top_p is None else top_p,
        "temperature": temperature,
        "max_new_tokens": max_tokens,
        "first_line": False,
        "device": device,
    }
    if spec.kind == "smollm2":
        return LocalChat(smollm2_generator(**options), logprobs)
    return LocalChat(HFGenerator(str(spec.name), **options), logprobs)
