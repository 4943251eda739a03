"""Calibration and speed of ``diveval leaderboard``, and the NoveltyBench models' groups.

Calibration (A/A): each run takes one of the twenty NoveltyBench models (in turn) and splits each
prompt's 10 answers at random into ``--systems`` pseudo-systems of 10 / systems answers each, all
drawn alike from that model, then ranks them with ``diveval.meta.statistics.leaderboard`` (a fresh
seed per run). A run *separates* when Holm's adjustment over the pairs leaves any pair significant;
under A/A the family-wise rate should be at most alpha, the tolerance the binomial's 2 sigma (200
runs: 0.05 + 0.031). Printed with the unadjusted per-pair rejection rate (about alpha: each pair's
test alone is calibrated; Holm makes the family's rate at most alpha).

Groups: ``diveval leaderboard`` on the twenty models' files (all their prompts, 10 answers each),
the metric ``--metric`` (and its ``--judge``), timed and printed as the command prints it.

    python benchmarks/leaderboard.py [--runs 200] [--systems 5] [--metric distinct-2] [--test bootstrap]
    python benchmarks/leaderboard.py --metric equivalence-classes --judge unigram
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "shared", "data", "novelty-bench", "curated")


def _models(root: str) -> list[str]:
    return sorted(glob.glob(os.path.join(root, "*", "*", "scores.jsonl")))


def _answers(path: str) -> dict[str, list[str]]:
    with open(path, encoding="utf-8") as f:
        return {r["id"]: list(r["generations"]) for r in map(json.loads, f)}


def calibration(
    paths: list[str], runs: int, n_systems: int, metric: str, alpha: float, test: str, **options
) -> None:
    from diveval.meta.statistics.leaderboard import leaderboard

    sources = [_answers(p) for p in paths]
    per = min(len(s) for src in sources for s in src.values()) // n_systems
    separated = pair_hits = pairs = 0
    start = time.perf_counter()
    for r in range(runs):
        rng = np.random.default_rng([2026, r])
        source = sources[r % len(sources)]
        systems: dict[str, dict[str, list[str]]] = {f"s{i}": {} for i in range(n_systems)}
        for key, answers in source.items():
            order = rng.permutation(len(answers))
            for i in range(n_systems):
                systems[f"s{i}"][key] = [answers[j] for j in order[i * per : (i + 1) * per]]
        board = leaderboard(systems, metric, seed=r, alpha=alpha, test=test, **options)
        separated += any(p.separated for p in board.pairs)
        pair_hits += sum(p.p_value <= alpha for p in board.pairs)
        pairs += len(board.pairs)
    took = time.perf_counter() - start
    band = 2 * math.sqrt(alpha * (1 - alpha) / runs)
    rate = separated / runs
    print(
        f"A/A calibration: {runs} runs, {n_systems} pseudo-systems of {per} answer(s) each per "
        f"prompt (one NoveltyBench model split at random, the 20 in turn), {metric}, {test} "
        f"test, alpha {alpha}"
    )
    print(
        f"  family-wise separation rate (any pair significant after Holm): {rate:.3f} "
        f"(at most {alpha} + {band:.3f} at 2 sigma: {'ok' if rate <= alpha + band else 'TOO HIGH'})"
    )
    pair_band = 2 * math.sqrt(alpha * (1 - alpha) / pairs)
    print(
        f"  per-pair rejection rate before Holm: {pair_hits / pairs:.3f} over {pairs} pairs "
        f"(about {alpha} +- {pair_band:.3f} if the runs' pairs were independent)"
    )
    print(f"  {took:.1f} s, {took / runs * 1000:.0f} ms a run")


def groups(paths: list[str], metric: str, options: list[str]) -> None:
    cmd = [sys.executable, "-m", "diveval", "leaderboard", *paths, "-m", metric]
    cmd += ["--field", "generations", *options]
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    shown = " ".join(["diveval leaderboard", f"<{len(paths)} files>", *cmd[4 + len(paths) :]])
    print(f"\n$ {shown}   ({took:.1f} s, the process included)")
    print(out.stdout + out.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=DATA, help="the curated NoveltyBench folder")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--systems", type=int, default=5)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--metric", default="distinct-2")
    ap.add_argument("--test", default="permutation", choices=("permutation", "bootstrap"))
    ap.add_argument("--judge", default=None, help="equivalence-classes: its judge (unigram, ...)")
    ap.add_argument("--skip-calibration", action="store_true")
    args = ap.parse_args()
    paths = _models(args.data)
    if not paths:
        sys.exit(f"no <org>/<model>/scores.jsonl under {args.data}")
    if not args.skip_calibration:
        judge = {"judge": args.judge} if args.judge else {}
        calibration(paths, args.runs, args.systems, args.metric, args.alpha, args.test, **judge)
    groups(paths, args.metric, ["--judge", args.judge] if args.judge else [])


if __name__ == "__main__":
    main()
