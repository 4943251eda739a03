"""NLI Diversity of the shipped NLI model against Tevet & Berant's diversity-eval data.

For every response set (resp_0..resp_4 by default) all n(n-1) ordered pairs (premise i,
hypothesis j, i != j) are scored; per set:
  nli-baseline   = sum over pairs of +1 (argmax contradiction), 0 (neutral), -1 (entailment)
  nli-confidence = sum of +P(contradiction) if that is the argmax, -P(entailment) if that is, else 0
(Stasaski & Hearst 2022). Spearman correlation with ``label_value`` on conTest, decTest_1000 and
decTest_200, and with ``metric_abs_hds_mean`` (human diversity score) where a file has it, beside
the paper's roberta-large-mnli figures, with a 95% percentile bootstrap interval over sets (2,000 resamples,
seed 0). ``--compare PATH`` scores a second model on the same sets and prints the paired bootstrap
interval of the difference in nli-confidence rho (PATH minus the first model).

    python benchmarks/nli_tevet.py [--data ../shared/data/diversity-eval] [--model PATH] [--json OUT]
    python benchmarks/nli_tevet.py --compare /tmp/nli_export   # a retrained model against the shipped one
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

# Stasaski & Hearst (2022), roberta-large-mnli: (nli-baseline, nli-confidence).
PAPER = {
    ("conTest", "label_value"): (0.59, 0.62),
    ("decTest_1000", "label_value"): (0.58, 0.44),
    ("conTest", "metric_abs_hds_mean"): (0.63, 0.64),
}
FILES = {
    "conTest": "conTest/con_test_200_with_hds_resp_gen.csv",
    "decTest_1000": "decTest/dec_test_1000_no_hds_resp_gen.csv",
    # the 200-set file with human scores, on which the quick check was reported
    "decTest_200": "decTest/dec_test_200_with_hds_resp_gen.csv",
}


def set_scores(probs: np.ndarray) -> tuple[float, float]:
    """nli-baseline and nli-confidence of one set from its pair probabilities [pairs, 3]."""
    from diveval.semantic.nli_diversity import pair_scores  # the metric's own per-pair rule

    return float(pair_scores(probs, "baseline").sum()), float(
        pair_scores(probs, "confidence").sum()
    )


def score_file(model, path: Path, n_resp: int, max_sets=None):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))[:max_sets]
    prem, hyp, owner = [], [], []
    for r_i, r in enumerate(rows):
        resp = [r[f"resp_{k}"] for k in range(n_resp)]
        for i in range(n_resp):
            for j in range(n_resp):
                if i != j:
                    prem.append(resp[i])
                    hyp.append(resp[j])
                    owner.append(r_i)
    t = time.perf_counter()
    probs = model.predict(prem, hyp)
    secs = time.perf_counter() - t
    owner = np.asarray(owner)
    base, conf = zip(*(set_scores(probs[owner == k]) for k in range(len(rows))))
    return rows, np.array(base), np.array(conf), len(prem) / secs


def main(argv=None):
    from scipy.stats import spearmanr

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "diversity-eval"))
    ap.add_argument(
        "--model", default=None, help="folder of an ONNX export (default: the shipped model)"
    )
    ap.add_argument("--responses", type=int, default=5)
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument(
        "--max-sets", type=int, default=None, help="first N sets per file (quick checks)"
    )
    ap.add_argument(
        "--compare", default=None, help="folder of a second ONNX export to compare with"
    )
    ap.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args(argv)

    from diveval.meta.statistics.bootstrap import bootstrap
    from diveval.meta.studies.correlate import coefficient_rows
    from diveval.models.nli_eval import load_nli_model

    def rho_rows(x, y):
        return coefficient_rows(x, y, "spearman")

    def diff_rows(a, b, y):
        return rho_rows(b, y) - rho_rows(a, y)

    model = load_nli_model(args.model)
    other = load_nli_model(args.compare) if args.compare else None
    results = []
    for name, rel in FILES.items():
        rows, base, conf, rate = score_file(
            model, Path(args.data) / rel, args.responses, args.max_sets
        )
        if other is not None:
            other_conf = score_file(other, Path(args.data) / rel, args.responses, args.max_sets)[2]
        for target in ("label_value", "metric_abs_hds_mean"):
            if target not in rows[0]:
                continue
            y = np.array(
                [float(r[target]) if r[target] not in ("", None) else np.nan for r in rows]
            )
            ok = ~np.isnan(y)
            rb = spearmanr(base[ok], y[ok]).statistic
            rc = spearmanr(conf[ok], y[ok]).statistic
            ci = bootstrap(rho_rows, conf[ok], y[ok], n_resamples=args.resamples, vectorized=True)
            paper = PAPER.get((name, target), (None, None))
            row = {
                "set": name,
                "target": target,
                "sets": int(ok.sum()),
                "nli_baseline": float(rb),
                "nli_confidence": float(rc),
                "nli_confidence_ci95": [ci.low, ci.high],
                "paper_baseline": paper[0],
                "paper_confidence": paper[1],
                "pairs_per_s": rate,
            }
            if other is not None:
                d = bootstrap(
                    diff_rows,
                    conf[ok],
                    other_conf[ok],
                    y[ok],
                    n_resamples=args.resamples,
                    vectorized=True,
                )
                own = bootstrap(
                    rho_rows, other_conf[ok], y[ok], n_resamples=args.resamples, vectorized=True
                )
                row["compare_confidence"] = float(spearmanr(other_conf[ok], y[ok]).statistic)
                row["compare_confidence_ci95"] = [own.low, own.high]
                row["difference_ci95"] = [d.low, d.high]
            results.append(row)

    print(
        f"NLI Diversity vs Tevet diversity-eval ({model.name}, weights {model.fingerprint}, "
        f"{args.responses} responses per set)\n"
    )
    print(
        f"{'set':<13} {'target':<20} {'sets':>5} {'baseline':>9} {'confid.':>8} {'95% CI':>15}   "
        f"{'paper base':>10} {'paper conf':>10}"
    )
    for r in results:
        pb = "" if r["paper_baseline"] is None else f"{r['paper_baseline']:.2f}"
        pc = "" if r["paper_confidence"] is None else f"{r['paper_confidence']:.2f}"
        lo, hi = r["nli_confidence_ci95"]
        print(
            f"{r['set']:<13} {r['target']:<20} {r['sets']:>5} {r['nli_baseline']:>9.3f} "
            f"{r['nli_confidence']:>8.3f} {f'[{lo:.3f}, {hi:.3f}]':>15}   {pb:>10} {pc:>10}"
        )
    print(
        "\nSpearman rho; paper = Stasaski & Hearst (2022) with roberta-large-mnli; CI: percentile "
        f"bootstrap over sets, {args.resamples} resamples, seed 0."
    )
    if other is not None:
        print(
            f"\n--compare {other.name} (weights {other.fingerprint}): its nli-confidence rho with "
            "95% CI, and the paired 95% CI of (compared - first)"
        )
        for r in results:
            lo, hi = r["difference_ci95"]
            olo, ohi = r["compare_confidence_ci95"]
            print(
                f"{r['set']:<13} {r['target']:<20} {r['compare_confidence']:>8.3f} [{olo:.3f}, {ohi:.3f}]  "
                f"difference {r['compare_confidence'] - r['nli_confidence']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
            )
    if args.json:
        record = {
            "model": model.name,
            "fingerprint": model.fingerprint,
            "responses": args.responses,
            "resamples": args.resamples,
            "results": results,
        }
        if other is not None:
            record["compare"] = {
                "model": other.name,
                "fingerprint": other.fingerprint,
                "path": args.compare,
            }
        Path(args.json).write_text(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
