"""Threshold generation over many contexts, with an output file that survives interruption.

``run_threshold_generation`` appends one JSON line per finished context to ``out`` and flushes
it, so a run stopped at any moment leaves a valid JSON lines file (at worst a last line cut in
the middle, which the next run drops). Started again with the same settings, it reads the file,
skips the contexts already there and goes on; with other settings it refuses (a file never mixes
two runs). ``summarize`` turns the records into the paper's Table 4 (starting and ending
diversity, mean samples) and, where contexts have references, Table 5 (relevance of the starting
and ending sets by multi-reference BLEU, and BERTScore F1 when asked).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from ..constants import DEFAULT_SMOOTHING
from ..io import json_out
from ..io.resume import read_resumable
from ..progress import track
from ..reference.multiref import bertscore
from ..text.bleu import sentence_bleu
from ..text.tokenizers import get_tokenizer
from .threshold import threshold_generate

#: Relevance: BLEU-4 of each response against all references (nltk sentence_bleu semantics,
#: smoothing method1, sacrebleu's 13a tokenizer, lower-cased), averaged over the set.
BLEU_MAX_N, BLEU_SMOOTHING, BLEU_TOKENIZER, BLEU_LOWERCASE = 4, DEFAULT_SMOOTHING, "13a", True
BLEU_SETTINGS = {
    "max_n": BLEU_MAX_N,
    "smoothing": BLEU_SMOOTHING,
    "tokenizer": BLEU_TOKENIZER,
    "lowercase": BLEU_LOWERCASE,
}


def set_relevance(responses: Sequence[str], references: Sequence[str]) -> float:
    """Mean multi-reference sentence BLEU of the responses (``BLEU_SETTINGS``)."""
    tok = get_tokenizer(BLEU_TOKENIZER, lowercase=BLEU_LOWERCASE)
    refs = [tok(r) for r in references]
    return float(
        np.mean(
            [
                sentence_bleu(tok(h), refs, max_n=BLEU_MAX_N, smoothing=BLEU_SMOOTHING)
                for h in responses
            ]
        )
    )


def set_bertscore(responses: Sequence[str], references: Sequence[str]) -> float:
    """Mean BERTScore F1 of the responses, each against its best reference (``reference.multiref``:
    all-MiniLM-L6-v2 layer 6 by default, no idf, no rescaling); needs the models extra."""
    refs = [list(references)] * len(responses)
    return float(bertscore(list(responses), refs, reduction="max")["F"].value)


def read_finished(path: str, run: dict[str, Any]) -> dict[str, dict]:
    """{id: record} of the contexts already in ``path`` (an earlier run with the same ``run``
    settings). A last line cut short by an interruption is removed from the file."""
    records = read_resumable(path, "run", run, "generate", required=("id",))
    return {str(rec["id"]): rec for rec in records}


def run_threshold_generation(
    items: Iterable[Any],
    generator_for: Callable[[Any], Any],
    metric: Any,
    out: str,
    run: dict[str, Any],
    *,
    threshold: Optional[float] = None,
    n: int = 5,
    max_samples: int = 20,
    seed: int = 0,
    keep: str = "last",
    progress: Optional[bool] = None,
    metric_options: Optional[dict] = None,
    with_bertscore: bool = False,
    on_record: Optional[Callable[[dict], None]] = None,
    log: Optional[Callable[[str], None]] = None,
) -> list[dict]:
    """Threshold generation for every ``ContextItem`` not yet in ``out``; returns all records
    (earlier ones first). ``generator_for(item)`` gives the item's generator (a pool generator is
    built per context; a model is shared). ``run`` is the dict of settings stored in each record."""
    items = list(items)
    done = read_finished(out, run)
    todo = [it for it in items if it.id not in done]
    records = [done[it.id] for it in items if it.id in done]
    if records and log is not None:
        log(f"resuming after {len(records)} contexts already in {out} ({len(todo)} to go)")
    folder = os.path.dirname(os.path.abspath(out))
    os.makedirs(folder, exist_ok=True)
    with open(out, "a", encoding="utf-8") as fh:
        for it in track(todo, "threshold generation", total=len(todo), enabled=progress):
            res = threshold_generate(
                it.context,
                generator_for(it),
                metric,
                threshold,
                n=n,
                max_samples=max_samples,
                seed=seed,
                keep=keep,
                **(metric_options or {}),
            )
            rec = {"id": it.id, **res.to_dict(), "run": run}
            if it.references:
                rec["relevance"] = {
                    "bleu": {
                        "start": set_relevance(res.start, it.references),
                        "end": set_relevance(res.end, it.references),
                    }
                }
                if with_bertscore:
                    rec["relevance"]["bertscore"] = {
                        "start": set_bertscore(res.start, it.references),
                        "end": set_bertscore(res.end, it.references),
                    }
            fh.write(json_out.dumps(rec, ensure_ascii=False) + "\n")
            fh.flush()
            records.append(rec)
            if on_record:
                on_record(rec)
    return records


def summarize(records: Sequence[dict]) -> dict[str, Any]:
    """Table 4 (and Table 5 where there are references) over the records of one run."""
    if not records:
        return {"contexts": 0}
    start = np.array([r["start_diversity"] for r in records], dtype=float)
    end = np.array([r["end_diversity"] for r in records], dtype=float)
    out: dict[str, Any] = {
        "contexts": len(records),
        "metric": records[0]["metric"],
        "threshold": records[0]["threshold"],
        "start_diversity": float(start.mean()),
        "end_diversity": float(end.mean()),
        "change_pct": float((end.mean() - start.mean()) / abs(start.mean()) * 100)
        if start.mean()
        else None,
        "mean_samples": float(np.mean([r["samples"] for r in records])),
        "reached": float(np.mean([r["reached"] for r in records])),
        "reached_at_start": float(
            np.mean([r["samples"] == len(r["start"]) and r["reached"] for r in records])
        ),
        "mean_overlap": float(np.mean([r["overlap"] for r in records])),
        "end_below_start": int((end < start).sum()),
        "stops": {
            s: sum(r["stop"] == s for r in records) for s in ("reached", "budget", "exhausted")
        },
    }
    reported = sorted({k for r in records for k in r.get("report", {})})
    for k in reported:
        rs = [r["report"][k] for r in records if k in r.get("report", {})]
        out.setdefault("report", {})[k] = {
            "start": float(np.mean([x["start"] for x in rs])),
            "end": float(np.mean([x["end"] for x in rs])),
        }
    rel = [r["relevance"]["bleu"] for r in records if "relevance" in r]
    if rel:
        out["relevance"] = {
            "bleu": {
                "start": float(np.mean([x["start"] for x in rel])),
                "end": float(np.mean([x["end"] for x in rel])),
                "contexts": len(rel),
                **BLEU_SETTINGS,
            }
        }
        bs = [r["relevance"]["bertscore"] for r in records if "bertscore" in r.get("relevance", {})]
        if bs:
            out["relevance"]["bertscore"] = {
                "start": float(np.mean([x["start"] for x in bs])),
                "end": float(np.mean([x["end"] for x in bs])),
                "contexts": len(bs),
            }
    return out
