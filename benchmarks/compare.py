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
family's rate is the mean of its metrics' rates), with the family-wise rate under Holm, and the
share of runs where an interval excludes 0: an unadjusted 95 % one, a shown (simultaneous) one,
and one extended to 0 because the bootstrap and the permutation test disagreed.

Power: the same draws with a planted difference in system B on a share of the prompts: one
response of the set replaced by a copy of the other (sets), or the response replaced by a copy
of another (unplanted) prompt's response (corpus). Printed: the share of runs where B is found
less diverse (Holm-adjusted, alpha 0.05).

Speed: ``compare`` on three systems x 1,000 prompts x 10 responses (DailyDialog++ dev's 5
positive and 5 adversarial responses, each system a different order of contexts' responses)
with the lexical defaults (target: under 10 s).

References (``--references``): the corpus metrics that read references, on the same A/A draws
(one response per context each system, the context's other three human responses as the shared
references): pooled ref-bleu-2 and ref-local-recall (summed statistics), ref-rouge-l (per-item
means), and MAUVE (refitted; the offline all-MiniLM-L6-v2 features, ``--mauve-runs`` runs of
``--mauve-prompts`` contexts, 19 refit resamples: then p <= 0.05 exactly when no swap is as
extreme, probability 1/20 under A/A). A rejection is p <= 0.05, compare's own rule (the same
count as p < 0.05 for the other metrics, whose p-values cannot equal 0.05).

Sampled (``--sampled``): the same A/A on responses sampled with ``diveval sample`` from the
offline SmolLM2-135M-Instruct, to the short open prompts of ``benchmarks/compare_prompts.jsonl``:
10 responses at temperature 1.0 (seed 1) and 10 at 0.7 (seed 2) to each of its 60 prompts
(``--sampled-prompts``, ``--cooler-prompts``), 16 tokens at most, sampled once into
``runs/compare-sampled/`` (git-ignored) and reused (a shorter file is resumed). Each A/A run
splits each prompt's 10 responses at temperature 1.0 at random into two systems of 5; power: 5
of them against 5 of the 10 at 0.7, and against the other 5 with one response a copy of another,
on all prompts and on random subsets of ``--power-prompts`` of them. (On this project's 2 shared
cores 10 samples of one prompt took 7 s to a minute, with the load: the sizes are what sampling
could afford.)

    python benchmarks/compare.py [--runs 500] [--prompts 300] [--power-runs 100]
    python benchmarks/compare.py --references --skip-power --skip-timing --families ""
    python benchmarks/compare.py --sampled
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data" / "dailydialog-plusplus"
PROMPTS = Path(__file__).resolve().parent / "compare_prompts.jsonl"
SAMPLED = ROOT / "runs" / "compare-sampled"
# label: (temperature, responses per prompt, seed); 16 tokens at most (sampling on 2 shared
# cores is the cost of this benchmark)
TEMPERATURES = {"t1.0": (1.0, 10, 1), "t0.7": (0.7, 10, 2)}
MAX_TOKENS = 16
REFERENCE_METRICS = ["ref-bleu-2", "ref-local-recall", "ref-rouge-l"]
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


def print_rates(rates: dict[str, float], low: float, high: float, width: int = 14) -> None:
    for m, rate in rates.items():
        flag = "" if low <= rate <= high else "  (outside the band)"
        print(f"  {m:{width}s} {rate:.3f}{flag}")


def calibrate(rows, runs: int, prompts: int, setting: str, metrics: list[str], test: str):
    from diveval.meta.statistics.compare import compare

    reject = {m: 0 for m in metrics}
    any_holm = 0
    # the intervals beside the decisions: runs where an unadjusted 95 % interval excludes 0
    # (what read as a contradiction beside Holm), where a shown (simultaneous) one does, and
    # where one was extended to 0 (the bootstrap and the permutation test disagreeing)
    intervals = {"unadjusted": 0, "shown": 0, "extended": 0}
    for r in range(runs):
        rng = np.random.default_rng([7, r])
        a, b = draw(rows, prompts, rng, setting)
        res = compare({"A": a, "B": b}, metrics, test=test, seed=r)
        for row in res.rows:
            reject[row.metric] += row.p_value < 0.05
        any_holm += any(row.significant for row in res.rows)
        intervals["unadjusted"] += any(_excludes_0(row.interval_unadjusted) for row in res.rows)
        intervals["shown"] += any(_excludes_0(row.interval) for row in res.rows)
        intervals["extended"] += any(row.interval_extended for row in res.rows)
    shares = {k: v / runs for k, v in intervals.items()}
    return {m: c / runs for m, c in reject.items()}, any_holm / runs, shares


def _excludes_0(interval) -> bool:
    return interval is not None and (interval[0] > 0 or interval[1] < 0)


def power(rows, runs, prompts, setting, metrics, plant):
    from diveval.meta.statistics.compare import compare

    found = {m: 0 for m in metrics}
    for r in range(runs):
        rng = np.random.default_rng([11, r])
        a, b = draw(rows, prompts, rng, setting, plant)
        res = compare({"A": a, "B": b}, metrics, seed=r)
        for row in res.rows:
            found[row.metric] += row.more_diverse == "A"
    return {m: c / runs for m, c in found.items()}


def timing(rows, n_prompts: int = 1000, k: int = 10, repeats: int = 1) -> float:
    from diveval.meta.statistics.compare import compare

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


def reference_draw(rows: list[dict], n: int, rng: np.random.Generator):
    """Two systems from one source, one response per context each, the context's other
    responses as the references both are scored against."""
    a, b, refs = {}, {}, {}
    for i in rng.choice(len(rows), size=n, replace=False):
        resp = rows[i]["positive_responses"]
        order = rng.permutation(len(resp))
        key = str(rows[i]["id"])
        a[key], b[key], refs[key] = resp[order[0]], resp[order[1]], [resp[j] for j in order[2:]]
    return a, b, refs


def calibrate_references(rows, runs: int, prompts: int, metrics: list[str], **kw):
    """A/A rejection rate (p <= 0.05, compare's rule) of each reference metric."""
    from diveval.meta.statistics.compare import compare

    reject = {m: 0 for m in metrics}
    for r in range(runs):
        a, b, refs = reference_draw(rows, prompts, np.random.default_rng([17, r]))
        res = compare({"A": a, "B": b}, metrics, references=refs, seed=r, **kw)
        for row in res.rows:
            reject[row.metric] += row.p_value <= 0.05
    return {m: c / runs for m, c in reject.items()}


def sampled(sizes: dict[str, int]) -> dict[str, dict[str, list[str]]]:
    """{label: {prompt id: responses}} of the first ``sizes[label]`` prompts at each
    temperature, sampled once with ``diveval sample`` (SmolLM2, offline) and reused."""
    SAMPLED.mkdir(parents=True, exist_ok=True)
    out: dict[str, dict[str, list[str]]] = {}
    for label, (temperature, k, seed) in TEMPERATURES.items():
        n_prompts = sizes[label]
        path = SAMPLED / f"{label}.jsonl"
        done = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        if len(done) < n_prompts:
            start = time.perf_counter()
            command = [sys.executable, "-m", "diveval.cli", "sample", str(PROMPTS)]
            command += ["--model", "smollm2", "--k", str(k), "--temperature", str(temperature)]
            command += ["--max-tokens", str(MAX_TOKENS), "--seed", str(seed), "--no-logprobs"]
            command += ["--limit", str(n_prompts), "--out", str(path), "--quiet"]
            env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
            env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
            subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
            print(
                f"sampled {label}: {n_prompts - len(done)} prompts x {k} responses in "
                f"{time.perf_counter() - start:.0f} s"
            )
            done = path.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in done[:n_prompts]]
        out[label] = {r["id"]: [t for t in r["responses"] if t.strip()] for r in records}
    return out


def sampled_runs(samples, runs: int, seed: int, make, test: str = "permutation"):
    """The share of runs rejecting (p < 0.05) per metric, the share finding B less diverse
    after Holm, and the family-wise share with any Holm-significant row; ``make(rng)`` draws
    the two systems of a run."""
    from diveval.meta.statistics.compare import compare

    reject = {m: 0 for m in SETS_METRICS}
    lower = {m: 0 for m in SETS_METRICS}
    any_holm = 0
    for r in range(runs):
        a, b = make(np.random.default_rng([seed, r]))
        res = compare({"A": a, "B": b}, SETS_METRICS, test=test, seed=r)
        for row in res.rows:
            reject[row.metric] += row.p_value < 0.05
            lower[row.metric] += row.more_diverse == "A"
        any_holm += any(row.significant for row in res.rows)
    return (
        {m: c / runs for m, c in reject.items()},
        {m: c / runs for m, c in lower.items()},
        any_holm / runs,
    )


def report_sampled(args) -> None:
    samples = sampled({"t1.0": args.sampled_prompts, "t0.7": args.cooler_prompts})
    hot, cool = samples["t1.0"], samples["t0.7"]
    half = 5
    keys = [k for k in hot if len(hot[k]) >= 2 * half]
    cool_keys = [k for k in keys if len(cool.get(k, [])) >= half]

    def split(rng):  # A/A: the responses at temperature 1.0 into two systems of 5
        a, b = {}, {}
        for key in keys:
            order = rng.permutation(len(hot[key]))
            a[key] = [hot[key][j] for j in order[:half]]
            b[key] = [hot[key][j] for j in order[half : 2 * half]]
        return a, b

    def temperature(rng):  # 5 of the temperature-1.0 responses against 5 of those at 0.7
        a, _ = split(rng)
        a = {key: a[key] for key in cool_keys}
        return a, {
            key: [cool[key][j] for j in rng.permutation(len(cool[key]))[:half]] for key in cool_keys
        }

    def planted(rng):  # one response of B's set a copy of another
        a, b = split(rng)
        return a, {key: [v[0], *v[:-1]] for key, v in b.items()}

    low, high = band(args.runs)
    print(
        f"A/A calibration on SmolLM2-135M-Instruct samples (diveval sample, offline): "
        f"{len(keys)} prompts x 10 responses at temperature 1.0 split 5 / 5, {args.runs} runs, "
        f"alpha 0.05 (2-sigma band: {low:.3f}-{high:.3f})"
    )
    for test in args.sampled_tests.split(","):
        start = time.perf_counter()
        rates, _, fwer = sampled_runs(samples, args.runs, 19, split, test)
        print(
            f"\nper-set, {test}: false-positive rate {float(np.mean(list(rates.values()))):.3f} "
            f"(mean of its metrics); family-wise (any Holm-adjusted rejection) {fwer:.3f}  "
            f"[{time.perf_counter() - start:.0f} s]"
        )
        print_rates(rates, low, high)
    if args.skip_power:
        return
    print(
        f"\nPower: share of {args.power_runs} runs where B is found less diverse after Holm "
        f"(sets of 5; T0.7: 5 responses at 0.7 against 5 at 1.0; copy: one of 5 a copy of "
        f"another; n prompts drawn at random from the {len(cool_keys)} sampled at both)"
    )
    sizes = [int(x) for x in args.power_prompts.split(",") if x] + [len(cool_keys)]

    def subset(make, size):  # the systems of a run on ``size`` prompts drawn at random
        def draw(rng):
            a, b = make(rng)
            chosen = rng.choice(sorted(a), size=size, replace=False)
            return {k: a[k] for k in chosen}, {k: b[k] for k in chosen}

        return draw

    columns = {}
    for size in sizes:
        columns[f"T0.7 n={size}"] = sampled_runs(
            samples, args.power_runs, 29, subset(temperature, size)
        )[1]
        columns[f"copy n={size}"] = sampled_runs(
            samples, args.power_runs, 31, subset(planted, size)
        )[1]
    print(f"    {'':14s}" + "".join(f"  {c:>12s}" for c in columns))
    for m in SETS_METRICS:
        print(f"    {m:14s}" + "".join(f"  {col[m]:>12.2f}" for col in columns.values()))


def report_references(rows, args) -> None:
    low, high = band(args.runs)
    print(
        "\nA/A, corpus metrics reading references (DailyDialog++ dev: one response per context "
        "each system, the other three as references)"
    )
    metrics = [m for m in args.reference_metrics.split(",") if m]
    if metrics:
        print(f"  {args.runs} runs x {args.prompts} prompts (2-sigma band {low:.3f}-{high:.3f})")
        start = time.perf_counter()
        rates = calibrate_references(rows, args.runs, args.prompts, metrics)
        print(f"  [{time.perf_counter() - start:.0f} s]")
        print_rates(rates, low, high, width=18)
    if args.mauve_runs:
        start = time.perf_counter()
        mauve = calibrate_references(
            rows,
            args.mauve_runs,
            args.mauve_prompts,
            ["mauve"],
            refit_resamples=19,
            confidence=0.4,
        )["mauve"]
        lo, hi = band(args.mauve_runs)
        print(
            f"  {'mauve':18s} {mauve:.3f}  ({args.mauve_runs} runs x {args.mauve_prompts} prompts, "
            f"19 refit resamples; 2-sigma band {lo:.3f}-{hi:.3f})  "
            f"[{time.perf_counter() - start:.0f} s]"
        )


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
    ap.add_argument("--references", action="store_true", help="A/A of ref-* and MAUVE too")
    ap.add_argument("--reference-metrics", default=",".join(REFERENCE_METRICS), help="ref-*")
    ap.add_argument("--mauve-runs", type=int, default=100, help="A/A runs of MAUVE (0: none)")
    ap.add_argument("--mauve-prompts", type=int, default=50, help="contexts per MAUVE run")
    ap.add_argument("--sampled", action="store_true", help="A/A and power on SmolLM2 samples")
    ap.add_argument("--sampled-prompts", type=int, default=60, help="prompts at temperature 1.0")
    ap.add_argument("--cooler-prompts", type=int, default=60, help="prompts at temperature 0.7")
    ap.add_argument("--power-prompts", default="10,20", help="power also on subsets this size")
    ap.add_argument("--sampled-tests", default="permutation,bootstrap", help="tests to run")
    args = ap.parse_args()
    if args.sampled:
        report_sampled(args)
        return
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
        rates, fwer, iv = calibrate(rows, args.runs, args.prompts, setting, metrics, test)
        family = float(np.mean(list(rates.values())))
        print(
            f"\n{title}: false-positive rate {family:.3f} (mean of its metrics); any Holm-adjusted "
            f"rejection in a run (family-wise) {fwer:.3f}  [{time.perf_counter() - start:.0f} s]"
        )
        print_rates(rates, low, high)
        print(
            f"  runs with an interval excluding 0: unadjusted 95 % {iv['unadjusted']:.3f}, shown "
            f"(simultaneous) {iv['shown']:.3f}; with one extended to 0: {iv['extended']:.3f}"
        )
    if args.references:
        report_references(rows, args)
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
