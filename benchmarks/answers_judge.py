"""Agreement of diveval's equivalence judges with NoveltyBench's own classes, on prompts the shipped
``answers`` judge never saw in training.

NoveltyBench's stored partitions (``../shared/data/novelty-bench``: 20 LLMs, 70 prompts, 10 answers
each) come from its DeBERTa-v3-large classifier. The validation prompts are the 20 that
``training/answers_judge_split.json`` withholds from the judge's training and calibration. Every
judge partitions each set by the benchmark's own algorithm (each answer against the first member
of each earlier class, in order; identical texts one class), and the script prints, against the
benchmark's classes:

- per-set adjusted Rand index (sklearn's; a set that both call one class scores 1), mean over sets;
- per-set Spearman of the number of classes (over all sets);
- system Spearman of the mean number of classes (over the 20 models);
- the judging time of all 400 sets on this machine (model loading apart).

Targets (the equivalence judge's): ARI >= 0.65, per-set Spearman >= 0.80, system Spearman >= 0.95,
400 sets in < 60 s on 2 cores.

    python benchmarks/answers_judge.py [--judge answers --judge unigram --judge nli] [--split validation]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DATA = ROOT.parent / "shared" / "data" / "novelty-bench"
SPLIT = ROOT / "training" / "answers_judge_split.json"
TARGETS = {"ari": 0.65, "set_spearman": 0.80, "system_spearman": 0.95, "seconds": 60.0}


def read_sets(split: str = "validation") -> list[dict]:
    """The benchmark's records of the split's prompts, in (model, prompt) order."""
    ids = set(json.loads(SPLIT.read_text())[split]) if split != "all" else None
    out = []
    for path in sorted(DATA.rglob("scores.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    if ids is None or r["id"] in ids:
                        out.append(r)
    return out


def agreement(pred: list[list[int]], gold: list[list[int]], models: list[str]) -> dict:
    """The three agreement figures of predicted against the benchmark's partitions."""
    from scipy.stats import spearmanr
    from sklearn.metrics import adjusted_rand_score

    ari = [
        1.0 if len(set(g)) == 1 and len(set(p)) == 1 else adjusted_rand_score(g, p)
        for g, p in zip(gold, pred)
    ]
    n_gold = np.array([len(set(g)) for g in gold], dtype=float)
    n_pred = np.array([len(set(p)) for p in pred], dtype=float)
    names = sorted(set(models))
    by = np.array(models)
    mean_gold = [n_gold[by == m].mean() for m in names]
    mean_pred = [n_pred[by == m].mean() for m in names]
    return {
        "ari": float(np.mean(ari)),
        "set_spearman": float(spearmanr(n_gold, n_pred).statistic),
        "system_spearman": float(spearmanr(mean_gold, mean_pred).statistic),
        "classes_gold": float(n_gold.mean()),
        "classes_judge": float(n_pred.mean()),
    }


def judge_sets(records: list[dict], judge: str) -> tuple[list[list[int]], float, float]:
    """(partitions, seconds to load the judge, seconds to judge every set)."""
    from diveval.context import RunContext
    from diveval.semantic.equivalence import partition, run_judge

    sets = [r["generations"] for r in records]
    context = RunContext()
    start = time.perf_counter()
    run_judge(judge, context, {})  # loads the model; partition() below finds it in the context
    loaded = time.perf_counter()
    result = partition(sets, judge, identical="one", context=context)
    return result.labels, loaded - start, time.perf_counter() - loaded


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--judge", action="append", help="judge spec (default: answers and unigram)")
    ap.add_argument(
        "--split", default="validation", choices=("validation", "calibration", "train", "all")
    )
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    if not DATA.exists():
        print(f"no NoveltyBench data at {DATA}")
        return 0
    records = read_sets(args.split)
    gold = [r["partition"] for r in records]
    models = [r["model"] for r in records]
    print(
        f"{len(records)} sets ({len(set(models))} models x {len(records) // len(set(models))} "
        f"{args.split} prompts), 10 answers each; against NoveltyBench's classes"
    )
    header = f"{'judge':<10} {'ARI':>6} {'set rho':>8} {'sys rho':>8} {'classes':>8} {'load s':>7} {'judge s':>8}"
    print(header)
    print(f"{'benchmark':<10} {'':>6} {'':>8} {'':>8} {np.mean([len(set(g)) for g in gold]):8.2f}")
    rows = {}
    for judge in args.judge or ["answers", "unigram"]:
        labels, load_s, judge_s = judge_sets(records, judge)
        a = agreement(labels, gold, models)
        a.update(load_seconds=load_s, judge_seconds=judge_s)
        rows[judge] = a
        print(
            f"{judge:<10} {a['ari']:6.3f} {a['set_spearman']:8.3f} {a['system_spearman']:8.3f} "
            f"{a['classes_judge']:8.2f} {load_s:7.1f} {judge_s:8.1f}"
        )
    print(
        "targets:    ARI >= {ari}, set rho >= {set_spearman}, system rho >= {system_spearman}, "
        "< {seconds:g} s for 400 sets".format(**TARGETS)
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
