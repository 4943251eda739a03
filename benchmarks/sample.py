"""Throughput of ``diveval sample`` against a minimal asyncio loop over the ``openai`` client.

    python benchmarks/sample.py [--prompts 24] [--k 4] [--max-tokens 16] [--concurrency 8]
                                [--rounds 3] [--url http://127.0.0.1:PORT/v1]

Without ``--url`` it starts llama-cpp-python's server with the offline SmolLM2-135M GGUF on
loopback (as the tests do, ``--n_batch 1``: a seeded answer then depends on the request alone).
Both sides send the same requests (the regenerate protocol against a server that ignores ``n``:
one request per sample, each with the seed diveval derives for it), so the server does the same
work; the responses must come out equal. Rounds alternate the two and the medians are compared:
requests/s of diveval over requests/s of the bare loop (target >= 0.8).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

THINGS = ["a kitchen", "a forest", "a library", "the sea", "a city", "a garden", "space"]


def prompts_of(n: int) -> list[str]:
    return [f"Name one thing found in {THINGS[i % 7]} (#{i})." for i in range(n)]


async def bare_loop(url, model, prompts, k, concurrency, max_tokens, seed):
    """The minimal client: a semaphore, one request per sample, gather."""
    from openai import AsyncOpenAI

    from diveval.sampling.records import request_seed

    client = AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0, timeout=120)
    limit = asyncio.Semaphore(concurrency)

    async def one(prompt: str, j: int) -> str:
        async with limit:
            resp = await client.chat.completions.create(
                model=model,
                messages=[{"role": "user", "content": prompt}],
                max_tokens=max_tokens,
                temperature=1.0,
                seed=request_seed(seed, prompt, j),
            )
            return resp.choices[0].message.content or ""

    try:
        flat = await asyncio.gather(*(one(p, j) for p in prompts for j in range(k)))
    finally:
        await client.close()
    return [flat[i * k : (i + 1) * k] for i in range(len(prompts))]


def bare(args, url, prompts) -> tuple[float, list]:
    start = time.perf_counter()
    got = asyncio.run(
        bare_loop(url, args.model, prompts, args.k, args.concurrency, args.max_tokens, args.seed)
    )
    return len(prompts) * args.k / (time.perf_counter() - start), got


def diveval_run(args, url, prompts, folder) -> tuple[float, list, int]:
    import json

    from diveval.models.lm_backends import LoadOptions, load_chat, parse_spec
    from diveval.sampling.records import PromptItem
    from diveval.sampling.runner import RetryPolicy, SamplingSettings, run_sampling

    out = os.path.join(folder, f"out{time.perf_counter_ns()}.jsonl")
    items = [PromptItem(i, p, i + 1, {}) for i, p in enumerate(prompts)]
    model = f"openai-compatible:{url}:{args.model}"
    settings = SamplingSettings(
        model=model, k=args.k, temperature=1.0, max_tokens=args.max_tokens, seed=args.seed
    )
    start = time.perf_counter()
    backend = load_chat(parse_spec(model), LoadOptions(max_tokens=args.max_tokens, timeout=120))
    summary = run_sampling(
        items, backend, settings, out, concurrency=args.concurrency, policy=RetryPolicy()
    )
    seconds = time.perf_counter() - start
    got = [json.loads(line)["responses"] for line in open(out)]
    return summary["requests"] / seconds, got, summary["requests"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prompts", type=int, default=24)
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--url", default=None, help="a running server (default: start one)")
    ap.add_argument("--model", default="smollm2-gguf", help="the model name sent")
    args = ap.parse_args()
    server = None
    url = args.url
    if url is None:
        from sampling.servers import LlamaServer, missing

        why = missing()
        if why:
            raise SystemExit(f"cannot start the server: {why}")
        server = LlamaServer().start()
        url = server.url
    prompts = prompts_of(args.prompts)
    try:
        with tempfile.TemporaryDirectory() as folder:
            bare(args, url, prompts[:2])  # warm-up: the model's first answers are slow
            ours, theirs, same = [], [], True
            for _ in range(args.rounds):
                rate, want = bare(args, url, prompts)
                theirs.append(rate)
                rate, got, requests = diveval_run(args, url, prompts, folder)
                ours.append(rate)
                same = same and got == want
    finally:
        if server is not None:
            server.stop()
    a, b = statistics.median(ours), statistics.median(theirs)
    print(
        f"{args.prompts} prompts x k={args.k}, max_tokens {args.max_tokens}, "
        f"concurrency {args.concurrency}, {requests} requests per run, {args.rounds} rounds"
    )
    print(
        f"bare asyncio openai loop: {b:.2f} requests/s  (rounds: {', '.join(f'{x:.2f}' for x in theirs)})"
    )
    print(
        f"diveval sample:           {a:.2f} requests/s  (rounds: {', '.join(f'{x:.2f}' for x in ours)})"
    )
    print(f"ratio diveval / bare:     {a / b:.3f}  (target >= 0.8)")
    print(f"same responses:           {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
