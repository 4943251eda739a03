"""Throughput of the shipped NLI model: pairs per second at batch sizes 1, 32 and 128 (length-sorted,
dynamically padded) against the same model called once per pair in a Python loop.

The pairs are ordered response pairs from Tevet's conTest (the NLI Diversity workload) when
``../shared/data/diversity-eval`` exists, otherwise built-in sentences.

    python benchmarks/nli.py [--pairs 1024] [--threads N]
"""

from __future__ import annotations

import argparse
import csv
import itertools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

_FALLBACK = [
    "I love going to the beach in the summer.",
    "No, I hate the beach.",
    "Sure, sounds fun!",
    "We could go hiking instead if the weather is bad tomorrow morning.",
    "I don't know.",
    "My brother used to live near the coast, so we went swimming almost every single day.",
    "That's a great idea, let's do it.",
    "I would rather stay at home and read a book tonight.",
]


def workload(n: int):
    path = (
        ROOT.parent
        / "shared"
        / "data"
        / "diversity-eval"
        / "conTest"
        / "con_test_200_with_hds_resp_gen.csv"
    )
    sets = []
    if path.exists():
        with open(path, encoding="utf-8", newline="") as f:
            sets = [[r[f"resp_{k}"] for k in range(5)] for r in csv.DictReader(f)]
    else:
        sets = [_FALLBACK[i:] + _FALLBACK[:i] for i in range(len(_FALLBACK))]
    pairs = [(s[i], s[j]) for s in sets for i, j in itertools.permutations(range(5), 2)]
    pairs = list(itertools.islice(itertools.cycle(pairs), n))
    return [p for p, _ in pairs], [h for _, h in pairs], "conTest" if path.exists() else "built-in"


def timed(fn, n: int, repeat: int = 2) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--pairs", type=int, default=1024)
    ap.add_argument(
        "--loop-pairs", type=int, default=256, help="pairs for the one-call-per-pair loop"
    )
    ap.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    ap.add_argument("--model", default=None, help="folder of an ONNX export (default: shipped)")
    args = ap.parse_args(argv)

    from diveval.models.shipped_nli import ShippedNLIModel

    model = ShippedNLIModel(args.model, threads=args.threads)
    prem, hyp, source = workload(args.pairs)
    model.predict(prem[:64], hyp[:64])  # warm-up: session initialisation, allocator

    n_loop = min(args.loop_pairs, len(prem))

    def loop():
        for p, h in zip(prem[:n_loop], hyp[:n_loop]):
            model.predict([p], [h])

    rows = [("unbatched loop (1 pair/call)", timed(loop, n_loop))]
    for bs in (1, 32, 128):
        n = n_loop if bs == 1 else len(prem)
        rows.append(
            (
                f"predict, batch_size={bs}",
                timed(lambda n=n, bs=bs: model.predict(prem[:n], hyp[:n], batch_size=bs), n),
            )
        )

    base = rows[0][1]
    print(
        f"{model.name} ({model.model_path.name}, weights {model.fingerprint}); "
        f"{len(prem)} {source} response pairs, threads={args.threads or 'onnxruntime default'}\n"
    )
    print(f"{'mode':<32} {'pairs/s':>9} {'vs loop':>8}")
    for name, rate in rows:
        print(f"{name:<32} {rate:>9.1f} {rate / base:>7.2f}x")


if __name__ == "__main__":
    main()
