"""The one interface of a language model that answers chats: what every backend of
``models.lm_backends`` gives, and what ``sample``, ``generate`` and ``augment`` ask of it.

A ``ChatModel`` is loaded once and then asked ``await chat(messages, ChatRequest(n=, seed=,
temperature=, top_p=, max_tokens=))`` for ``n`` samples of one conversation; it answers a :class:`Completion`:
the texts, the model name it reports, token counts, and the log-probability of each token of each
choice where it gives them (a server's ``logprobs``; a local model's log-softmax at each
generated token, before temperature and nucleus truncation, the end-of-sequence token left out as
servers leave out their stop token). ``takes_seed``: whether a seed fixes its samples;
``local``: whether it runs in this process (a generation in a thread cannot be cut short, so no
per-request time limit applies); ``retryable(exc)``: whether a failed request is worth another
try; ``aclose()``: release its connections.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Protocol, Sequence, Union

Messages = list[dict[str, str]]
Context = Union[str, Sequence[str]]


@dataclass(frozen=True)
class Completion:
    texts: list[str]
    model: str  # the model name the server reports
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: per choice, the log-probability of each of its tokens (None: the backend gave none)
    token_logprobs: Optional[list[Optional[list[float]]]] = None


@dataclass(frozen=True)
class ChatRequest:
    """What one chat request asks for, besides the messages: ``n`` samples, seeded by ``seed``
    where the backend takes one (None: unseeded), and how to sample them (``top_p`` None: not
    sent, the server's own)."""

    n: int = 1
    seed: Optional[int] = None
    temperature: float = 1.0
    top_p: Optional[float] = None
    max_tokens: int = 512


class ChatModel(Protocol):
    model: str
    takes_seed: bool
    local: bool

    async def chat(self, messages: Sequence[Mapping[str, str]], ask: ChatRequest) -> Completion: ...

    def retryable(self, exc: BaseException) -> bool: ...

    async def aclose(self) -> None: ...


def dialogue_messages(context: Context, system_prompt: Optional[str] = None) -> Messages:
    """A dialogue as chat messages: the last turn the user's, earlier ones alternating backwards
    (a string is one user turn; no turn at all is one empty user turn)."""
    turns = [context] if isinstance(context, str) else list(context)
    if not turns:
        turns = [""]
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    n = len(turns)
    for i, t in enumerate(turns):
        messages.append({"role": "user" if (n - 1 - i) % 2 == 0 else "assistant", "content": t})
    return messages


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, stripped ("" when none): a dialogue turn, where a
    chat model runs on."""
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return ""
