"""The printed summaries of the runs that write records: ``diveval generate`` (threshold
generation), ``diveval sample`` and ``diveval augment`` (their --json is the summary dict)."""

from __future__ import annotations

from .tables import counted, render_table


def generation_summary(summary: dict, title: str) -> str:
    """``diveval generate``'s tables of ``generation.runner.summarize``: diversity before and
    after, as the DTG paper's Table 4, and relevance to the references, as its Table 5."""
    s = summary
    if not s.get("contexts"):
        return f"{title}: no contexts"
    rows = [
        (
            s["metric"],
            f"{s['threshold']:g}",
            f"{s['start_diversity']:.4f}",
            f"{s['end_diversity']:.4f}",
            f"{s['change_pct']:+.1f}%" if s.get("change_pct") is not None else "-",
            f"{s['mean_samples']:.2f}",
            f"{100 * s['reached']:.1f}%",
            f"{s['mean_overlap']:.2f}",
            str(s["end_below_start"]),
        )
    ]
    for k, v in s.get("report", {}).items():
        rows.append(
            (
                k,
                "",
                f"{v['start']:.4f}",
                f"{v['end']:.4f}",
                f"{(v['end'] - v['start']) / abs(v['start']) * 100:+.1f}%" if v["start"] else "-",
                "",
                "",
                "",
                "",
            )
        )
    text = render_table(
        f"{title} (Table 4): {counted(s['contexts'], 'context')}",
        [
            "metric",
            "threshold",
            "starting div.",
            "ending div.",
            "change",
            "mean samples",
            "reached",
            "overlap",
            "end < start",
        ],
        rows,
    )
    if "relevance" in s:
        b = s["relevance"]["bleu"]
        rel_rows = [
            (
                f"BLEU-{b['max_n']} ({b['tokenizer']}, {b['smoothing']})",
                f"{b['start']:.4f}",
                f"{b['end']:.4f}",
            )
        ]
        if "bertscore" in s["relevance"]:
            bs = s["relevance"]["bertscore"]
            rel_rows.append(
                ("BERTScore F1 (max over refs)", f"{bs['start']:.4f}", f"{bs['end']:.4f}")
            )
        text += "\n" + render_table(
            f"relevance (Table 5): {counted(b['contexts'], 'context')} with references",
            ["metric", "starting set", "ending set"],
            rel_rows,
        )
    return text


def sampling_summary(summary: dict, out: str) -> str:
    """``diveval sample``'s table of ``sampling.runner.run_sampling``'s summary: the whole output
    file (resumed prompts included), what it cost, and this run's request rate."""
    s = summary
    rows = [
        ("prompts", f"{s['prompts']}" + (f" ({s['resumed']} resumed)" if s["resumed"] else "")),
        ("responses", str(s["responses"])),
        ("requests", str(s["requests"])),
        ("prompt tokens", str(s["prompt_tokens"])),
        ("completion tokens", str(s["completion_tokens"])),
    ]
    if s["cost_usd"] is not None:
        rows.append(("cost (list prices)", f"${s['cost_usd']:.4f}"))
    rows.append(("served model", ", ".join(s["served_models"]) or "-"))
    if s["n_honoured"] is not None:
        rows.append(("n honoured", "yes" if s["n_honoured"] else "no (one request per sample)"))
    run = s["run"]
    if run["requests"]:
        rows.append(
            (
                "this run",
                f"{run['requests']} requests, {run['retries']} retries, "
                f"{run['seconds']:.1f} s, {run['requests_per_s']:.2f} requests/s",
            )
        )
    return render_table(
        f"{out}: {s['sampling']['protocol']}, k = {s['sampling']['k']}", ["", "whole file"], rows
    )


def augmentation_summary(
    summary: dict, settings: dict, records: list[dict], seconds: tuple[float, float]
) -> str:
    """``diveval augment``'s table of the run (``summary``: its --json, whose ``retrieval`` is the
    retriever's signature; ``settings``: the run settings written with the records) and the
    first item's added references. ``seconds``: (index build, augmentation), unrounded."""
    build_s, aug_s = seconds
    rows = [
        ("items", len(records)),
        ("added references per item (mean)", f"{summary['added_mean']:.2f}"),
        ("items with none added", summary["items_without_additions"]),
        ("written to", summary["out"]),
        ("adapter", settings["adapter"]),
    ]
    if settings["knowledge"] is not None:
        rows.append(("commonsense", str(settings["knowledge"])))
    if settings["paraphrase"] is not None:
        rows.append(("paraphrase", str(settings["paraphrase"])))
    sig = summary["retrieval"]
    if sig is not None:
        rows += [
            ("retrieval corpus", f"{sig['corpus']} ({sig['turns']} turns)"),
            (
                "BM25",
                f"k1={sig['k1']} b={sig['b']} window={sig['window']} zero={sig['zero']} "
                f"stopwords={sig['stop']}",
            ),
            ("index build / augmentation", f"{build_s:.1f} s / {aug_s:.1f} s"),
        ]
    text = render_table(f"diveval augment {summary['input']}", ["", "value"], rows)
    first = next((r for r in records if r["added_references"]), None)
    if first is not None:
        ex = [
            (
                a["source"],
                f"{a.get('score', 0):.2f}"
                if a["source"] == "retrieval"
                else a.get("relation", a["source"]),
                a["text"],
            )
            for a in first["added_references"][:5]
        ]
        text += "\n" + render_table(
            "first item's added references", ["source", "score / relation", "text"], ex
        )
    return text
