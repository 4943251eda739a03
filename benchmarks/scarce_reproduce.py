"""Reproduce Gangal et al. (2021), Table 2: correlation of reference-based metrics with human
ratings on the 500 rated DailyDialog responses, with the authors' SINGLE, MULTI, SCARCE-SINGLE
and SCARCE-MULTI reference files (../shared/data/scarce), our numbers beside theirs
(``results/*.log``).

    python benchmarks/scarce_reproduce.py            # all metrics (BERTScore takes minutes on CPU)
    python benchmarks/scarce_reproduce.py --no-bert

Same preprocessing as the authors' script: empty references dropped, an item left without any
gets the reference "default". Known differences of implementation (so the numbers are not
expected to match to the digit): the authors used nlg-eval (pycocoevalcap BLEU with its tiny
epsilon instead of smoothing; ROUGE-L with max precision and max recall and beta 1.2; METEOR 1.5
in Java with paraphrase tables; GloVe embedding average) and BERTScore with roberta-large,
rescaled; diveval's defaults are nltk-convention BLEU (method1 smoothing), rouge-score,
nltk's METEOR with WordNet 3.0, spaCy en_core_web_md vectors and BERTScore on all-MiniLM-L6-v2
(layer 6). The rows "(coco)" and "(nlg-eval)" are diveval with the authors' conventions
(``smoothing="coco"``, ``variant="nlg-eval"``): they reproduce the authors' correlations.

Exit status 1 when SINGLE < MULTI < SCARCE-MULTI fails for BLEU-4 or BERT precision (Spearman).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "scarce"
FILES = {
    "SINGLE": "singleref",
    "MULTI": "multiref",
    "SCARCE-SINGLE": "scarce.singleref",
    "SCARCE-MULTI": "scarce.multiref",
}
AUTHOR_NAME = {
    "ref-bleu-1": "Bleu_1",
    "ref-bleu-2": "Bleu_2",
    "ref-bleu-3": "Bleu_3",
    "ref-bleu-4": "Bleu_4",
    "ref-rouge-l": "ROUGE_L",
    "ref-meteor": "METEOR",
    "ref-embedding-average": "EmbeddingAverageCosineSimilairty",
    "ref-bertscore-p": "bert_prec",
    "ref-bertscore-r": "bert_rec",
}


def load(name: str):
    rows = json.loads((DATA / f"{name}.json").read_text())
    hyps = [r["response"] for r in rows]
    refs = [[x for x in r["all_references"] if len(x) > 0] or ["default"] for r in rows]
    human = [float(r["human_average_rating"]) for r in rows]
    return hyps, refs, human


def metric_items(hyps, refs, bert: bool) -> dict[str, tuple]:
    from diveval.reference import multiref as M

    out = {}
    for n in range(1, 5):
        out[f"ref-bleu-{n}"] = M.bleu(hyps, refs, n=n).items
    for n in range(1, 5):
        out[f"ref-bleu-{n} (coco)"] = M.bleu(hyps, refs, n=n, smoothing="coco").items
    out["ref-rouge-l"] = M.rouge_l(hyps, refs).items
    out["ref-rouge-l (nlg-eval)"] = M.rouge_l(hyps, refs, variant="nlg-eval").items
    out["ref-meteor"] = M.meteor(hyps, refs).items
    out["ref-embedding-average"] = M.embedding_average(hyps, refs).items
    if bert:
        b = M.bertscore(hyps, refs, batch_size=128)
        out["ref-bertscore-p"] = b["P"].items
        out["ref-bertscore-r"] = b["R"].items
    return out


def correlations(x, y) -> tuple[float, float]:
    try:
        from diveval.meta.studies.correlate import correlate

        c = correlate(x, y, methods=("spearman", "kendall"), n_resamples=None)
        return c["spearman"].value, c["kendall"].value
    except ImportError:  # pragma: no cover - before diveval.meta existed
        from scipy.stats import kendalltau, spearmanr

        return float(spearmanr(x, y)[0]), float(kendalltau(x, y)[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--no-bert", action="store_true", help="skip BERTScore (minutes on a CPU)")
    args = ap.parse_args(argv)
    if not DATA.exists():
        print(f"shared data not found at {DATA}; nothing to do")
        return 0
    from diveval.reference.multiref import reference_self_bleu
    from diveval.report.tables import render_table

    results: dict[str, dict[str, tuple[float, float]]] = {}
    for label, name in FILES.items():
        t0 = time.perf_counter()
        hyps, refs, human = load(name)
        authors = json.loads((DATA / "results" / f"{name}.log").read_text())
        items = metric_items(hyps, refs, not args.no_bert)
        results[label] = {m: correlations(v, human) for m, v in items.items()}
        rows = []
        for m, (rho, tau) in results[label].items():
            a = authors.get(AUTHOR_NAME.get(m.split(" ")[0], ""), {})
            rows.append(
                (
                    m,
                    f"{rho:.3f}",
                    f"{a['spearmanr']:.3f}" if a else "-",
                    f"{tau:.3f}",
                    f"{a['kendall_tau']:.3f}" if a else "-",
                )
            )
        n_refs = sum(map(len, refs)) / len(refs)
        try:
            sb = reference_self_bleu(refs)
            sb_text = f"; reference-set Self-BLEU-4 {sb.value:.3f} over {len(sb.items)} sets"
        except Exception as exc:  # single references: Self-BLEU undefined
            sb_text = f"; reference-set Self-BLEU-4: {exc}"
        print(
            render_table(
                f"{label} ({name}.json: {len(hyps)} responses, {n_refs:.1f} references each"
                f"{sb_text}; {time.perf_counter() - t0:.0f} s)",
                [
                    "metric",
                    "Spearman (diveval)",
                    "Spearman (authors)",
                    "Kendall (diveval)",
                    "Kendall (authors)",
                ],
                rows,
            )
        )
        print()
    ok = True
    for m in ["ref-bleu-4", "ref-bleu-4 (coco)"] + ([] if args.no_bert else ["ref-bertscore-p"]):
        s, mu, sc = (results[x][m][0] for x in ("SINGLE", "MULTI", "SCARCE-MULTI"))
        holds = s < mu < sc
        ok &= holds
        print(
            f"{m}: Spearman SINGLE {s:.3f} < MULTI {mu:.3f} < SCARCE-MULTI {sc:.3f}: "
            f"{'holds' if holds else 'FAILS'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
