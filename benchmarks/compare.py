"""Calibration and power of ``diveval compare``, and its speed.

Calibration (A/A): on DailyDialog++ dev (5 human responses per context), each run draws
``--prompts`` contexts and splits each context's responses at random into two "systems" from one
source, then runs ``diveval.compare`` on them (a fresh seed per run):

- per-set family (sets of k = 2: responses 1-2 and 3-4 of a random order), the lexical defaults;
- corpus family (one response per context: the first and the second of a random order), the
  pooled n-gram metrics recomputed from per-prompt states;

each with the permutation test (the default: the sign flip of per-prompt differences, or the
corpus metric recomputed with the answers swapped on random prompts) and with the paired
bootstrap's p-value.

A test at alpha = 0.05 should reject about 5 % of A/A runs; with R runs the 2-sigma band is
0.05 +- 2 sqrt(0.05 * 0.95 / R) (500 runs: 0.031-0.069). Printed per metric and per family (the
family's rate is the mean of its metrics' rates), with the family-wise rate under Holm.

Power: the same draws with a planted difference in system B on a share of the prompts: one
response of the set replaced by a copy of the other (sets), or the response replaced by a copy
of another (unplanted) prompt's response (corpus). Printed: the share of runs where B is found
less diverse (Holm-adjusted, alpha 0.05).

Speed: ``compare`` on three systems x 1,000 prompts x 10 responses (DailyDialog++ dev's 5
positive and 5 adversarial responses, each system a different order of contexts' responses)
with the lexical defaults (target: under 10 s).

    python benchmarks/compare.py [--runs 500] [--prompts 300] [--power-runs 100]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "dailydialog-plusplus"
SETS_METRICS = ["distinct-1", "distinct-2", "avg-distinct", "ead", "cos-diversity", "self-bleu"]
CORPUS_METRICS = ["distinct-1", "distinct-2", "avg-distinct", "ead"]


def contexts(split: str = "dev") -> list[dict]:
    path = DATA / f"{split}.json"
    if not path.exists():
        sys.exit(f"no DailyDialog++ at {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def draw(rows: list[dict], n: int, rng: np.random.Generator, setting: str, plant: float = 0.0):
    """Two systems from one source (A/A), B with a planted loss of diversity on a share ``plant``
    of the prompts."""
    chosen = rng.choice(len(rows), size=n, replace=False)
    a, b = {}, {}
    planted = set(rng.choice(n, size=int(round(plant * n)), replace=False).tolist())
    for j, i in enumerate(chosen):
        resp = rows[i]["positive_responses"]
        order = rng.permutation(len(resp))
        key = str(rows[i]["id"])
        if setting == "sets":
            a[key] = [resp[order[0]], resp[order[1]]]
            b[key] = [resp[order[2]], resp[order[3]]]
            if j in planted:
                b[key] = [b[key][0], b[key][0]]
        else:
            a[key], b[key] = resp[order[0]], resp[order[1]]
    if setting == "corpus" and planted:
        keys = list(b)
        others = [j for j in range(n) if j not in planted]
        for j in sorted(planted):  # each planted response becomes a copy of an unplanted one
            b[keys[j]] = b[keys[others[int(rng.integers(len(others)))]]]
    return a, b


def band(runs: int, alpha: float = 0.05) -> tuple[float, float]:
    half = 2 * math.sqrt(alpha * (1 - alpha) / runs)
    return alpha - half, alpha + half


def calibrate(rows, runs: int, prompts: int, setting: str, metrics: list[str], test: str):
    from diveval.meta.compare import compare

    reject = {m: 0 for m in metrics}
    any_holm = 0
    for r in range(runs):
        rng = np.random.default_rng([7, r])
        a, b = draw(rows, prompts, rng, setting)
        res = compare({"A": a, "B": b}, metrics, test=test, seed=r)
        for row in res.rows:
            reject[row.metric] += row.p_value < 0.05
        any_holm += any(row.significant for row in res.rows)
    return {m: c / runs for m, c in reject.items()}, any_holm / runs


def power(rows, runs, prompts, setting, metrics, plant):
    from diveval.meta.compare import compare

    found = {m: 0 for m in metrics}
    for r in range(runs):
        rng = np.random.default_rng([11, r])
        a, b = draw(rows, prompts, rng, setting, plant)
        res = compare({"A": a, "B": b}, metrics, seed=r)
        for row in res.rows:
            found[row.metric] += row.more_diverse == "A"
    return {m: c / runs for m, c in found.items()}


def timing(rows, n_prompts: int = 1000, k: int = 10, repeats: int = 1) -> float:
    from diveval.meta.compare import compare

    pool = [r["positive_responses"] + r["adversarial_negative_responses"] for r in rows[:n_prompts]]
    systems = {}
    for s in range(3):
        rng = np.random.default_rng([13, s])
        systems[f"sys{s}"] = {
            str(i): [resp[j] for j in rng.permutation(len(resp))[:k]] for i, resp in enumerate(pool)
        }
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        compare(systems)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=500, help="A/A runs per family")
    ap.add_argument("--prompts", type=int, default=300, help="contexts per run")
    ap.add_argument("--power-runs", type=int, default=100, help="runs per planted share")
    ap.add_argument("--plants", default="0.05,0.1,0.2", help="planted shares of the prompts")
    ap.add_argument(
        "--families",
        default="sets-permutation,sets-bootstrap,corpus-permutation,corpus-bootstrap",
        help="the A/A families to run (each seeded alone: a subset prints the same rates)",
    )
    ap.add_argument("--skip-power", action="store_true")
    ap.add_argument("--power-settings", default="sets,corpus", help="sets, corpus or both")
    ap.add_argument("--skip-timing", action="store_true")
    args = ap.parse_args()
    rows = contexts()
    low, high = band(args.runs)
    print(
        f"A/A calibration on DailyDialog++ dev: {args.runs} runs x {args.prompts} prompts, "
        f"alpha 0.05 (2-sigma band for {args.runs} runs: {low:.3f}-{high:.3f})"
    )
    families = {
        "sets-permutation": (
            "per-set, permutation (sign flip; the default)",
            "sets",
            "permutation",
        ),
        "sets-bootstrap": ("per-set, paired bootstrap", "sets", "bootstrap"),
        "corpus-permutation": (
            "corpus, permutation of states (the default)",
            "corpus",
            "permutation",
        ),
        "corpus-bootstrap": ("corpus, paired bootstrap of states", "corpus", "bootstrap"),
    }
    for name in filter(None, args.families.split(",")):
        title, setting, test = families[name]
        metrics = SETS_METRICS if setting == "sets" else CORPUS_METRICS
        start = time.perf_counter()
        rates, fwer = calibrate(rows, args.runs, args.prompts, setting, metrics, test)
        family = float(np.mean(list(rates.values())))
        print(
            f"\n{title}: false-positive rate {family:.3f} (mean of its metrics); any Holm-adjusted "
            f"rejection in a run (family-wise) {fwer:.3f}  [{time.perf_counter() - start:.0f} s]"
        )
        for m, rate in rates.items():
            flag = "" if low <= rate <= high else "  (outside the band)"
            print(f"  {m:14s} {rate:.3f}{flag}")
    plants = [] if args.skip_power else [float(x) for x in args.plants.split(",")]
    if plants:
        print(
            f"\nPower: share of {args.power_runs} runs where B (planted) is found less diverse "
            f"after Holm, {args.prompts} prompts"
        )
    for title, setting, metrics in (
        ("per-set (one response of the set a copy of the other)", "sets", SETS_METRICS),
        ("corpus (the response a copy of another prompt's)", "corpus", CORPUS_METRICS),
    ):
        if not plants:
            break
        if setting not in args.power_settings.split(","):
            continue
        print(f"  {title}")
        print("    " + " " * 14 + "".join(f"  plant {p:>4.0%}" for p in plants))
        table = {p: power(rows, args.power_runs, args.prompts, setting, metrics, p) for p in plants}
        for m in metrics:
            print(f"    {m:14s}" + "".join(f"  {table[p][m]:>10.2f}" for p in plants))
    if not args.skip_timing:
        seconds = timing(rows)
        print(
            f"\nSpeed: compare on 3 systems x 1,000 prompts x 10 responses, lexical defaults: "
            f"{seconds:.2f} s (target < 10 s)"
        )


if __name__ == "__main__":
    main()
