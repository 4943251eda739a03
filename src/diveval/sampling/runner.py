"""Sampling many prompts: bounded concurrency, retries, an output that survives a kill.

``run_sampling`` sends at most ``concurrency`` requests at a time. A request that fails with a
rate limit (429), a server error (5xx), a timeout or a dropped connection is sent again after an
exponential backoff with jitter (``RetryPolicy``); any other error, or a request still failing
after the last retry, stops the run with a ``SamplingError`` naming the prompt (file:line), never
a short set of responses.

Records are written in input order, one JSON line each, flushed as soon as every earlier prompt's
record is written; so the file is always a prefix of the finished output (at worst with a last
line cut by a kill, which the next run removes). Started again with the same settings it skips the
records already there; with other settings it refuses (``io.resume``). Each request's seed is a
function of the run's seed, the prompt and the sample's index alone, so with a seeded backend the
resumed file equals an uninterrupted run's byte for byte.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from ..errors import DivevalError, InputError
from ..io import json_out
from ..io.resume import read_resumable
from ..models.chat import ChatRequest
from ..models.lm_backends import LoadOptions
from ..options import RESPONSES_PER_PROMPT
from .protocols import PARAPHRASE_FIELD, ShortAnswer, paraphrases_of, protocol, protocol_settings
from .records import PromptItem, cost, make_record, request_seed


class SamplingError(DivevalError):
    """A prompt got no (complete) answer; the message names it."""


@dataclass(frozen=True)
class RetryPolicy:
    """``retries`` more tries after the first; the wait before try a+1 is d/2 + uniform(0, d/2)
    with d = min(cap, base * 2**a) seconds ("equal jitter"); ``timeout``: seconds one request may
    take (None: no limit)."""

    retries: int = 8
    base: float = 0.5
    cap: float = 30.0
    timeout: Optional[float] = 60.0

    def delay(self, attempt: int, rng: random.Random) -> float:
        d = min(self.cap, self.base * 2**attempt)
        return d / 2 + rng.uniform(0, d / 2)


#: The settings a record always holds, in the order it writes them.
_RECORDED = ("protocol", "k", "temperature", "top_p", "max_tokens", "seed", "model")


@dataclass(frozen=True)
class SamplingSettings:
    """Every choice that changes the samples; stored in each record as ``sampling``."""

    model: str
    protocol: str = "regenerate"
    k: int = RESPONSES_PER_PROMPT.default
    temperature: float = 1.0
    top_p: Optional[float] = None  # None: the server's default (not sent)
    max_tokens: int = 512
    seed: Optional[int] = 0
    paraphrase_field: str = PARAPHRASE_FIELD
    logprobs: bool = True  # ask for token log-probabilities (they never change a sample)

    def load_options(self, **server: Any) -> LoadOptions:
        """How a backend loads to sample with these settings; ``server``: the other
        ``LoadOptions`` (timeout, api_key_env, device)."""
        return LoadOptions(
            temperature=self.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            logprobs=self.logprobs,
            **server,
        )

    def as_dict(self) -> dict[str, Any]:
        # "logprobs" only when asked for: a file written without them (--no-logprobs, or before
        # diveval recorded them) resumes with --no-logprobs, never mixing records with and
        # without log-probabilities
        return {
            **{k: getattr(self, k) for k in _RECORDED},
            **({"logprobs": True} if self.logprobs else {}),
            **protocol_settings(self.protocol, self.paraphrase_field),
        }


@dataclass
class Stats:
    requests: int = 0  # answered requests of this run
    retries: int = 0
    asked_n: int = 0  # requests that asked for n > 1 choices
    short_n: int = 0  # ... and got fewer
    ignores_n: bool = False  # a request for n > 1 came back with one choice
    last_retry: str = ""
    served: set = field(default_factory=set)


class Scored(str):
    """A response with the log-probabilities of its tokens: protocols pass responses on as
    strings, and the record reads the scores back from them."""

    token_logprobs: Optional[list[float]]

    def __new__(cls, text: str, token_logprobs: Optional[list[float]]) -> Scored:
        obj = super().__new__(cls, text)
        obj.token_logprobs = token_logprobs
        return obj


def scored_texts(comp: Any) -> list[str]:
    """A completion's texts, each carrying its token log-probabilities where the backend gave
    them."""
    texts = list(comp.texts)
    scores = getattr(comp, "token_logprobs", None)
    if not scores or len(scores) != len(texts):
        return texts
    return [Scored(t, s) if s is not None else t for t, s in zip(texts, scores)]


def check_settings(s: SamplingSettings, policy: RetryPolicy, concurrency: int) -> None:
    if s.k < 1:
        raise InputError(f"--k must be at least 1, got {s.k}")
    if s.temperature < 0:
        raise InputError(f"--temperature must be at least 0, got {s.temperature}")
    if s.top_p is not None and not 0 < s.top_p <= 1:
        raise InputError(f"--top-p must be in (0, 1], got {s.top_p}")
    if s.max_tokens < 1:
        raise InputError(f"--max-tokens must be at least 1, got {s.max_tokens}")
    if concurrency < 1:
        raise InputError(f"--concurrency must be at least 1, got {concurrency}")
    if policy.retries < 0:
        raise InputError(f"--retries must be at least 0, got {policy.retries}")
    if policy.timeout is not None and policy.timeout <= 0:
        raise InputError(f"--timeout must be positive, got {policy.timeout}")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "timed out"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def read_done(out: str, items: Sequence[PromptItem], settings: dict, source: str) -> list[dict]:
    """The records of an earlier run with the same settings, checked to be the first prompts of
    ``items`` in order (a file for other prompts is refused)."""
    done = read_resumable(
        out,
        "sampling",
        settings,
        "sample",
        required=("prompt", "responses"),
        ignore=("served_model",),
    )
    if len(done) > len(items):
        raise InputError(
            f"holds {len(done)} records, more than the {len(items)} prompts of {source}", out
        )
    for i, rec in enumerate(done):
        if rec["prompt"] != items[i].prompt:
            raise InputError(
                f"record {i + 1} answers another prompt than line {items[i].line} of {source}; "
                "choose another --out or delete it",
                out,
                i + 1,
            )
    return done


def check_inputs(items: Sequence[PromptItem], settings: SamplingSettings, source: str) -> None:
    """What the protocol needs of each record, checked before the first request: an
    InputError naming the file and line."""
    if settings.protocol != "paraphrase":
        return
    for it in items:
        try:
            paraphrases_of(it.fields, settings.k, settings.paraphrase_field)
        except InputError as exc:
            raise InputError(exc.problem, source, it.line) from None


def run_sampling(
    items: Sequence[PromptItem],
    backend: Any,
    settings: SamplingSettings,
    out: str,
    *,
    source: str = "input",
    concurrency: int = 8,
    policy: RetryPolicy = RetryPolicy(),
    on_progress: Optional[Callable[[int], None]] = None,
    log: Optional[Callable[[str], None]] = None,
) -> dict[str, Any]:
    """Sample every prompt not yet in ``out``; returns the summary (see :func:`summarize`)."""
    check_settings(settings, policy, concurrency)
    run = settings.as_dict()
    done = read_done(out, items, run, source)
    todo = list(items[len(done) :])
    check_inputs(todo, settings, source)
    if done and log is not None:
        log(f"resuming after {len(done)} prompts already in {out} ({len(todo)} to go)")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    stats = Stats()
    began = time.perf_counter()
    written: list[dict] = []
    try:
        if todo:
            asyncio.run(
                _sample_all(
                    todo,
                    backend,
                    settings,
                    run,
                    out,
                    source,
                    concurrency,
                    policy,
                    stats,
                    written,
                    on_progress,
                )
            )
    finally:
        seconds = time.perf_counter() - began
    return summarize([*done, *written], settings, stats, resumed=len(done), seconds=seconds)


async def _sample_all(
    todo, backend, settings, run, out, source, concurrency, policy, stats, written, on_progress
) -> None:
    asker = _Asker(
        backend, settings, run, source, policy, stats, asyncio.Semaphore(concurrency), on_progress
    )
    try:
        # prompts in flight at most; records still leave in input order
        await _write_in_order(todo, asker.record, out, written, max(2 * concurrency, 4))
    finally:
        await backend.aclose()


@dataclass
class _Asker:
    """What every request of one run shares: the backend, the settings, the bound on requests
    in flight, the retry policy and the counters."""

    backend: Any
    settings: SamplingSettings
    run: dict
    source: str
    policy: RetryPolicy
    stats: Stats
    limiter: asyncio.Semaphore
    on_progress: Optional[Callable[[int], None]]
    rng: random.Random = field(default_factory=random.Random)  # jitter only: never a sample

    async def record(self, pos: int, item: PromptItem) -> tuple[int, dict]:
        """The output record of one prompt, with its position in the run."""
        settings = self.settings
        where = f"{self.source}:{item.line}: prompt {item.index + 1} ({item.prompt[:40]!r})"
        usage = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0}
        served: list[str] = []

        async def ask(messages, n: int, j: int) -> list[str]:
            return await self.request(where, item, usage, served, messages, n, j)

        ask.ignores_n = self.stats.ignores_n  # type: ignore[attr-defined]
        fn = protocol(settings.protocol, settings.paraphrase_field)
        try:
            responses = await fn(item.prompt, item.fields, settings.k, ask)
        except ShortAnswer as exc:
            raise SamplingError(f"{where}: {exc}") from None
        if len(responses) != settings.k:  # a protocol bug, never a short set on disk
            raise SamplingError(f"{where}: {len(responses)} responses for k = {settings.k}")
        self.stats.served.update(served)
        sampling = {**self.run, "served_model": ",".join(served)}
        scores = [getattr(r, "token_logprobs", None) for r in responses]
        complete = [x for x in scores if x is not None]
        return pos, make_record(
            item,
            settings.model,
            responses,
            sampling,
            usage,
            token_logprobs=complete if len(complete) == len(scores) else None,
        )

    async def request(self, where, item, usage, served, messages, n: int, j: int) -> list[str]:
        """The choices of one chat request for samples j, j+1, ... of a prompt, tried again
        after a retryable failure (``RetryPolicy``)."""
        backend, settings, policy, stats = self.backend, self.settings, self.policy, self.stats
        seed = request_seed(settings.seed, item.prompt, j) if backend.takes_seed else None
        ask = ChatRequest(n, seed, settings.temperature, settings.top_p, settings.max_tokens)
        last: BaseException | None = None
        for attempt in range(policy.retries + 1):
            hint = None
            async with self.limiter:
                try:
                    call = backend.chat(messages, ask)
                    comp = await (
                        asyncio.wait_for(call, policy.timeout) if policy.timeout else call
                    )
                except asyncio.TimeoutError as exc:
                    last = exc
                except Exception as exc:
                    if not backend.retryable(exc):
                        raise SamplingError(f"{where}: {_describe(exc)}") from exc
                    last = exc
                    hint = getattr(backend, "retry_after", lambda e: None)(exc)
                else:
                    return self._count(comp, n, usage, served)
            if attempt < policy.retries:
                stats.retries += 1
                stats.last_retry = _describe(last)
                wait = policy.delay(attempt, self.rng)
                if hint is not None:  # the server's Retry-After, within the cap
                    wait = max(wait, min(hint, policy.cap))
                await asyncio.sleep(wait)
        raise SamplingError(
            f"{where}: no response after {policy.retries + 1} tries "
            f"(last: {_describe(last) if last else '?'})"
        )

    def _count(self, comp: Any, n: int, usage: dict, served: list[str]) -> list[str]:
        """A completion's texts (at most n), its requests and tokens counted."""
        stats = self.stats
        texts = scored_texts(comp)[:n]
        usage["requests"] += 1
        usage["prompt_tokens"] += comp.prompt_tokens
        usage["completion_tokens"] += comp.completion_tokens
        stats.requests += 1
        if n > 1:
            stats.asked_n += 1
            stats.short_n += len(texts) < n
            stats.ignores_n = stats.ignores_n or len(texts) == 1
        if comp.model not in served:
            served.append(comp.model)
        if self.on_progress is not None:
            self.on_progress(len(texts))
        return texts


async def _write_in_order(todo, record, out: str, written: list, window: int) -> None:
    """``record(pos, item)`` of every item, at most ``window`` at a time, each record appended
    to ``out`` (and ``written``) as soon as every earlier one is: the file is always a prefix of
    the finished output. A failure stops the run after the records before it are written."""
    ready: dict[int, dict] = {}
    next_pos = 0
    tasks: set[asyncio.Task] = set()
    with open(out, "a", encoding="utf-8") as fh:

        def flush() -> None:
            nonlocal next_pos
            while next_pos in ready:
                rec = ready.pop(next_pos)
                fh.write(json_out.dumps(rec, ensure_ascii=False) + "\n")
                fh.flush()
                written.append(rec)
                next_pos += 1

        async def collect() -> None:
            finished, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for t in finished:
                tasks.discard(t)
            for t in finished:
                if not t.cancelled() and t.exception() is None:
                    pos, rec = t.result()
                    ready[pos] = rec
            flush()  # the records before a failure are kept
            for t in finished:
                if not t.cancelled() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]

        try:
            for pos, item in enumerate(todo):
                while len(tasks) >= window:
                    await collect()
                tasks.add(asyncio.ensure_future(record(pos, item)))
            while tasks:
                await collect()
        finally:
            for t in tasks:
                t.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)


def summarize(
    records: Sequence[dict],
    settings: SamplingSettings,
    stats: Optional[Stats] = None,
    resumed: int = 0,
    seconds: float = 0.0,
) -> dict[str, Any]:
    """Counts of the whole output (resumed records included): prompts, responses, requests,
    tokens, cost at list prices for known models; and this run's retries, time and rate."""
    stats = stats or Stats()
    prompt_tokens = sum(int(r.get("usage", {}).get("prompt_tokens", 0)) for r in records)
    completion_tokens = sum(int(r.get("usage", {}).get("completion_tokens", 0)) for r in records)
    served = sorted(
        {
            m
            for r in records
            for m in str(r.get("sampling", {}).get("served_model", "")).split(",")
            if m
        }
    )
    dollars = None
    if settings.model.startswith("openai:"):  # a compatible server's names say nothing of price
        for name in [*served, settings.model]:
            dollars = cost(name, prompt_tokens, completion_tokens)
            if dollars is not None:
                break
    if stats.asked_n == 0:
        n_honoured = None
    else:
        n_honoured = stats.short_n == 0 and not stats.ignores_n
    return {
        "prompts": len(records),
        "resumed": resumed,
        "responses": sum(len(r["responses"]) for r in records),
        "requests": sum(int(r.get("usage", {}).get("requests", 0)) for r in records),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost_usd": dollars,
        "served_models": served,
        "n_honoured": n_honoured,
        "run": {
            "requests": stats.requests,
            "retries": stats.retries,
            "seconds": round(seconds, 3),
            "requests_per_s": round(stats.requests / seconds, 3) if seconds > 0 else None,
        },
        "sampling": settings.as_dict(),
    }
