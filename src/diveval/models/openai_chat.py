"""OpenAI's API and OpenAI-compatible servers (vLLM, llama.cpp's server, TGI, LM Studio...)
behind the ``ChatModel`` interface, through the official ``openai`` client (async).

Token log-probabilities are asked with ``logprobs=true, top_logprobs=0`` (llama.cpp's server
returns none without ``top_logprobs``). The caller owns retries and timeouts: the client's own
retries are turned off (``max_retries=0``); ``retryable`` and ``retry_after`` say what a failure
asks for. ``openai`` is imported when a client is made, never by ``import diveval``.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from ..errors import MissingDependencyError
from .chat import ChatRequest, Completion

#: HTTP statuses worth another try: timeouts, conflicts, rate limits, server errors.
RETRY_STATUSES = frozenset({408, 409, 425, 429})


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
    local = False

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

    async def chat(self, messages: Sequence[Mapping[str, str]], ask: ChatRequest) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": ask.temperature,
        }
        # OpenAI's newer models refuse max_tokens; most other servers know only max_tokens
        kwargs["max_completion_tokens" if self.official else "max_tokens"] = ask.max_tokens
        if ask.n > 1:
            kwargs["n"] = ask.n
        if ask.top_p is not None:
            kwargs["top_p"] = ask.top_p
        if ask.seed is not None:
            kwargs["seed"] = ask.seed
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
