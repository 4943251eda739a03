"""How well each semantic metric, with each offline model, tracks Tevet & Berant's diversity labels.

For every file of ``../shared/data/diversity-eval`` (conTest, decTest_1000, decTest_200; sets of 5
responses, resp_0..resp_4), each metric is computed per set with diveval and correlated (Spearman)
with ``label_value``, with a 95% percentile bootstrap interval over sets (1,000 resamples, seed 0).
Beside them, the authors' own metric columns of the CSV (metric_SentBert: their bert-large
Sent-BERT; metric_BertScore), correlated the same way. Also: seconds per 1,000 texts to embed, for
each embedder, on this machine.

Embedders: the default all-MiniLM-L6-v2 and all-mpnet-base-v2 (``--embedder mpnet``, extra
``mpnet``; skipped with a note when it is not installed). NLI metrics use the shipped NLI model
(no embedder), once.

    python benchmarks/semantic_quality.py [--data ../shared/data/diversity-eval] [--max-sets N]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

FILES = {
    "conTest": "conTest/con_test_200_with_hds_resp_gen.csv",
    "decTest_1000": "decTest/dec_test_1000_no_hds_resp_gen.csv",
    "decTest_200": "decTest/dec_test_200_with_hds_resp_gen.csv",
}
EMBEDDER_METRICS = ["sent-bert", "vendi"]
NLI_METRICS = ["nli-baseline", "nli-confidence"]
AUTHORS = ["metric_SentBert", "metric_BertScore"]


def read(path: Path, max_sets: int | None):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))[:max_sets]
    sets = [[r[f"resp_{k}"] for k in range(5)] for r in rows]
    labels = np.array([float(r["label_value"]) for r in rows])
    authors = {c: np.array([float(r[c]) for r in rows]) for c in AUTHORS if c in rows[0]}
    return sets, labels, authors


def spearman_ci(x: np.ndarray, y: np.ndarray, resamples: int = 1000) -> tuple[float, float, float]:
    from scipy.stats import spearmanr

    rho = float(spearmanr(x, y).statistic)
    rng = np.random.default_rng(0)
    boots = []
    for _ in range(resamples):
        idx = rng.integers(0, len(x), len(x))
        boots.append(spearmanr(x[idx], y[idx]).statistic)
    lo, hi = np.nanpercentile(boots, [2.5, 97.5])
    return rho, float(lo), float(hi)


def embedders() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = [("all-MiniLM-L6-v2", None)]
    try:
        from diveval.models.mpnet import part_files

        part_files()
        out.append(("all-mpnet-base-v2", "mpnet"))
    except Exception as exc:  # the extra is optional
        print(f"(all-mpnet-base-v2 skipped: {exc})")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "diversity-eval"))
    ap.add_argument("--max-sets", type=int, default=None)
    args = ap.parse_args()

    import diveval
    from diveval.models.resolve import resolve_embedder

    data = {name: read(Path(args.data) / rel, args.max_sets) for name, rel in FILES.items()}
    rows: list[tuple[str, str, str, tuple[float, float, float]]] = []
    speed: dict[str, float] = {}
    for label, spec in embedders():
        model = resolve_embedder(spec)
        texts = [t for s in data["conTest"][0] for t in s]
        model.encode(texts[:16])  # load and warm up
        t = time.perf_counter()
        model.encode(texts)
        speed[label] = 1000 * (time.perf_counter() - t) / len(texts)
        for file, (sets, labels, _) in data.items():
            scores = diveval.score(sets, EMBEDDER_METRICS, embedding_model=spec)
            for metric in EMBEDDER_METRICS:
                rows.append((file, metric, label, spearman_ci(scores[metric].items, labels)))
    for file, (sets, labels, authors) in data.items():
        scores = diveval.score(sets, NLI_METRICS)
        for metric in NLI_METRICS:
            rows.append((file, metric, "shipped NLI", spearman_ci(scores[metric].items, labels)))
        for column, values in authors.items():  # already diversity-oriented (minus similarity)
            rows.append((file, column, "authors", spearman_ci(values, labels)))

    print(f"\nSpearman with label_value, 95% bootstrap interval over sets ({args.data})")
    print(f"{'file':<14}{'metric':<18}{'model':<20}{'rho':>7}  interval")
    for file, metric, model_name, (rho, lo, hi) in rows:
        print(f"{file:<14}{metric:<18}{model_name:<20}{rho:>7.3f}  [{lo:.3f}, {hi:.3f}]")
    print("\nseconds to embed 1,000 texts (conTest's 1,000 responses, one call, this machine)")
    for label, seconds in speed.items():
        print(f"  {label:<20}{seconds:7.2f} s")


if __name__ == "__main__":
    main()
