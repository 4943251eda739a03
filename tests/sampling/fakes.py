"""A chat backend without a model: each answer is a pure function of the conversation, the seed
and the choice's index, so tests can say which answer belongs where; faults on demand."""

from __future__ import annotations

import asyncio
import hashlib

from diveval.models.chat import Completion


class Flaky(Exception):
    """A fault the fake backend calls retryable."""


class Fatal(Exception):
    """A fault it does not."""


def answer(messages, seed, i: int) -> str:
    key = repr((messages, seed, i)).encode()
    return "ans-" + hashlib.blake2b(key, digest_size=4).hexdigest()


class FakeChat:
    takes_seed = True
    local = False

    def __init__(self, honour_n=True, faults=(), delay=0.0, model="fake-model"):
        self.honour_n = honour_n
        self.faults = list(faults)  # exceptions raised by the first requests, in order
        self.delay = delay
        self.model = model
        self.calls: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = False

    async def chat(self, messages, ask):
        n, seed = ask.n, ask.seed
        self.calls.append({"messages": [dict(m) for m in messages], "n": n, "seed": seed})
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            if self.faults:
                fault = self.faults.pop(0)
                if fault is not None:
                    raise fault
            count = n if self.honour_n else 1
            texts = [answer(messages, seed, i) for i in range(count)]
            return Completion(texts, self.model, 10 * len(messages), 3 * count)
        finally:
            self.in_flight -= 1

    def retryable(self, exc):
        return isinstance(exc, Flaky)

    async def aclose(self):
        self.closed = True
