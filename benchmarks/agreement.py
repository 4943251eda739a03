"""The agreement leaderboard: every metric against Tevet & Berant's labels, on every shared file.

Runs ``diveval.meta.studies.agreement`` (Spearman's rho with ``label_value``, OCA on the 0/1 conTest
label, seeded bootstrap intervals over sets, ranks from paired bootstrap differences) for every
registered metric that applies to sets and the authors' own ``metric_*`` columns (their metrics, and
the human score absHDS where collected) on the nine files of ``../shared/data/diversity-eval``:
conTest (200 sets of 5 human responses, content diversity 0/1) and decTest with 200 and 1,000 sets
(10 model responses, the sampling temperature: form diversity), for resp_gen, prompt_gen and
story_gen.

It writes the numbers, never the data:
- ``src/diveval/meta/studies/agreement.json``: every row (the package reads it for
  ``diveval metrics --recommended``; the documentation generator reads it for each metric's page);
- ``docs/agreement.md``: the leaderboard page.

Model work (embeddings, NLI pairs) goes through the process-wide score caches, so a text or a pair
shared by two files (half of decTest-200's sets are also in decTest-1000) is sent to a model once.

    nice python benchmarks/agreement.py                     # the whole run (prints its time)
    python benchmarks/agreement.py --max-sets 30 --resamples 200 --no-write   # a quick look
    python benchmarks/agreement.py --merge -m NEW-METRIC    # add (or redo) rows of a board

``--merge`` scores only the named metrics and puts their rows into the published board (or the
one ``--merge-from`` names). Ranks come from paired bootstrap differences, which need each row's
resampled correlations, and the board keeps numbers only: so the merge also recomputes every row
whose interval reaches down to a new row's upper bound (same sets, seed and resamples, so the
same numbers, which it checks), ranks the new rows against those by the paired test, counts the
rows whose interval lies wholly above a new row's as ranked above it (their difference is
resolved), and adds to the rank of every row a new row beats. The rule for the rows above is
checked on every pair of recomputed rows (how often the paired test agrees with it is printed
and written on the page).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

DATA = ROOT.parent / "shared" / "data" / "diversity-eval"
TASKS = ("resp_gen", "prompt_gen", "story_gen")
#: (test, sets, kind of diversity, path under DATA)
FILES = [
    *(("conTest", 200, "content", f"conTest/con_test_200_with_hds_{t}.csv", t) for t in TASKS),
    *(("decTest", 200, "form", f"decTest/dec_test_200_with_hds_{t}.csv", t) for t in TASKS),
    *(("decTest", 1000, "form", f"decTest/dec_test_1000_no_hds_{t}.csv", t) for t in TASKS),
]
JSON_OUT = ROOT / "src" / "diveval" / "meta" / "studies" / "agreement.json"
MD_OUT = ROOT / "docs" / "agreement.md"


def _subset(path: Path, max_sets: int | None, folder: str) -> Path:
    """The file itself, or its first ``max_sets`` rows in a temporary copy (development runs)."""
    if not max_sets:
        return path
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)[:max_sets]
        fields = reader.fieldnames or []
    out = Path(folder) / path.name
    with open(out, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    return out


def _r(v, d=3):
    return None if v is None else round(float(v), d)


def _row_dict(r, registry_rank) -> dict:
    """One row of the board: an AgreementRow's numbers, rounded as the page shows them."""
    d = r.to_dict()
    return {
        "metric": r.metric,
        "family": r.family,
        "source": r.source,
        "direction": r.direction,
        "n": r.n,
        "spearman": _r(d["spearman"]),
        "spearman_interval": [_r(x) for x in d["spearman_interval"] or []] or None,
        "oca": _r(d["oca"]),
        "oca_interval": [_r(x) for x in d["oca_interval"] or []] or None,
        "rank": r.rank,
        "registry_rank": registry_rank,
        "signature": r.signature,
        "error": r.error,
        "seconds": _r(r.seconds, 2),
    }


def _ok(row: dict) -> bool:
    return row["error"] is None and row["spearman"] is not None and bool(row["spearman_interval"])


def merge(args) -> dict:
    """The board of ``--merge-from`` (or the published one) with the rows of ``-m`` metrics
    scored now and ranked against it (see the module docstring)."""
    from diveval.meta.studies.agreement import agreement, ranked

    if not args.metric:
        raise SystemExit("--merge needs the metrics to score (-m NAME)")
    board = json.loads(Path(args.merge_from or args.json_out).read_text(encoding="utf-8"))
    names = list(dict.fromkeys(args.metric))
    checked = agreed = 0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for f in board["files"]:
            rel = next(rel for _, _, _, rel, _ in FILES if rel.endswith("/" + f["file"]))
            if args.only and not any(part in rel for part in args.only):
                continue
            path = _subset(DATA / rel, board.get("max_sets"), tmp)
            t0 = time.perf_counter()
            kw = {"n_resamples": board["resamples"], "seed": 0, "cache_dir": args.cache_dir}
            new = agreement(path, names, **kw).rows
            scored = [r for r in new if r.ok and r.spearman_interval is not None]
            bad = [r for r in new if r not in scored or not math.isfinite(r.spearman_interval.high)]
            if bad:  # every old row would count as above it: a rank that says nothing
                raise SystemExit(f"{f['file']}: {bad[0].metric} has no interval: {bad[0].error}")
            ranked_before = [r["metric"] for r in f["rows"] if r["metric"] in names and r["rank"]]
            if ranked_before:  # the other rows' ranks count it already: undoing that needs them all
                raise SystemExit(
                    f"{f['file']}: {ranked_before} already ranked; a whole run redoes it"
                )
            old = {r["metric"]: r for r in f["rows"] if r["metric"] not in names}
            top = max((r.spearman_interval.high for r in scored), default=None)
            near = [
                m
                for m, r in old.items()
                if top is not None and _ok(r) and r["spearman_interval"][0] <= top
            ]
            above = [m for m, r in old.items() if _ok(r) and m not in near]
            again = []
            if near:
                asked = [
                    m if old[m]["source"] == "registry" else old[m]["source"][7:] for m in near
                ]
                again = agreement(path, asked, **kw).rows
            for r in again:  # the same sets, seed and resamples: the board's own numbers
                o = _row_dict(r, None)
                if (o["spearman"], o["spearman_interval"]) != (
                    old[r.metric]["spearman"],
                    old[r.metric]["spearman_interval"],
                ):
                    raise SystemExit(f"{f['file']}: {r.metric} recomputed differs from the board")
            pool = {r.metric: r for r in ranked(again + scored)}
            beaten_by = {m: {a for a, r in pool.items() if m in r.beats} for m in pool}
            # the rule for the rows left out: an interval wholly above is a resolved difference
            for a in pool.values():
                for b in pool.values():
                    if a.spearman_interval.low > b.spearman_interval.high:
                        checked += 1
                        agreed += a.metric in beaten_by[b.metric]
            registry = {m for m, r in old.items() if r["source"] == "registry"} | set(names)
            rows = []
            for r in f["rows"]:
                if r["metric"] in names:
                    continue
                if r["metric"] in pool:  # ranked above by the new rows that beat it
                    by_new = beaten_by[r["metric"]] & set(names)
                    r = dict(r, rank=r["rank"] + len(by_new))
                    if r["registry_rank"] is not None:
                        r["registry_rank"] += len(by_new & registry)
                rows.append(r)
            for r in new:
                if r.metric not in pool:  # failed: its reason
                    rows.append(_row_dict(r, None))
                    continue
                over = beaten_by[r.metric] | set(above)
                row = _row_dict(pool[r.metric], 1 + len(over & registry))
                rows.append(dict(row, rank=1 + len(over)))
            f["rows"] = rows
            print(
                f"{f['file']}: {', '.join(names)} merged, {len(near)} rows recomputed, "
                f"{len(above)} above, {time.perf_counter() - t0:.0f} s",
                flush=True,
            )
    board.pop("notes", None)  # an earlier run's account of itself
    merged = dict(board.get("merged") or {})
    merged.update(
        metrics=sorted(set(merged.get("metrics", [])) | set(names)),
        pairs_checked=merged.get("pairs_checked", 0) + checked,
        pairs_agreeing=merged.get("pairs_agreeing", 0) + agreed,
    )
    board["merged"] = merged
    board["merge_seconds"] = round(time.perf_counter() - started, 1)
    print(f"the rule for the rows above: the paired test agrees on {agreed} of {checked} pairs")
    return board


def run(args) -> dict:
    import diveval
    from diveval.meta.studies.agreement import agreement, ranked

    started = time.perf_counter()
    cpu_started = time.process_time()
    files = []
    with tempfile.TemporaryDirectory() as tmp:
        for test, size, kind, rel, task in FILES:
            path = DATA / rel
            if args.only and not any(part in rel for part in args.only):
                continue
            if not path.exists():
                print(f"missing {path}: skipped", file=sys.stderr)
                continue
            t0 = time.perf_counter()
            res = agreement(
                _subset(path, args.max_sets, tmp),
                args.metric or None,
                n_resamples=args.resamples,
                seed=0,
                cache_dir=args.cache_dir,
            )
            seconds = time.perf_counter() - t0
            # rank among the registered metrics alone: which of diveval's measures to report
            reg = {r.metric: r for r in ranked([r for r in res.rows if r.source == "registry"])}
            rows = [_row_dict(r, reg[r.metric].rank if r.metric in reg else None) for r in res.rows]
            files.append(
                {
                    "test": test,
                    "sets": size,
                    "kind": kind,
                    "task": task,
                    "file": path.name,
                    "n": res.n,
                    "binary": res.binary,
                    "bootstrap": res.bootstrap,
                    "seconds": round(seconds, 1),
                    "rows": rows,
                }
            )
            print(f"{path.name}: {res.n} sets, {len(rows)} metrics, {seconds:.0f} s", flush=True)
            if args.partial:  # what is done so far survives a killed run
                Path(args.partial).write_text(json.dumps({"files": files}, indent=1) + "\n")
    return {
        "about": "diveval meta agreement on Tevet & Berant's (2021) diversity-eval files; "
        "written by benchmarks/agreement.py",
        "diveval": diveval.__version__,
        "max_sets": args.max_sets,
        "resamples": args.resamples,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu_started, 1),
        "cores": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 1),
        "files": files,
    }


# ------------------------------------------------------------------ the page


def _cell(v, iv) -> str:
    if v is None:
        return "-"
    if not iv or iv[0] is None:
        return f"{v:.2f}"
    return f"{v:.2f} [{iv[0]:.2f}, {iv[1]:.2f}]"


def _title(f) -> str:
    return f"{f['test']}-{f['sets']} {f['task']}"


def _anchor(f) -> str:
    """The heading's id as mkdocs' toc makes it (lower case, spaces to "-", "_" kept)."""
    return _title(f).lower().replace(" ", "-")


def page(board: dict) -> str:
    from diveval.meta.studies.agreement import KINDS, recommend

    lines = [
        "# Which metric agrees with people",
        "",
        "Tevet & Berant (EACL 2021) test a diversity metric against a *diversity parameter*: in",
        "**conTest** crowd workers wrote sets of 5 responses with low or high **content** diversity",
        "(a 0/1 label), in **decTest** a model sampled sets of 10 responses at a known temperature",
        "(**form** diversity). A metric that tracks the kind of diversity correlates with the label",
        "(Spearman's ρ) and, on conTest, separates the two classes with one threshold (OCA, the",
        "optimal classification accuracy, read on the metric's own diverse side). The human score",
        "(absHDS, the authors' crowd ratings) and the authors' own metrics (their `metric_*`",
        "columns: BERT-large Sent-BERT, BERTScore, ...) are rows beside diveval's.",
        "",
        "Every number below is computed by `diveval meta agreement`. Intervals: "
        f"{board['files'][0]['bootstrap'] if board['files'] else ''}. **rank** is 1 + the number",
        "of rows whose ρ is higher by the paired bootstrap of the difference (same resampled sets",
        "for both); rows with the same rank cannot be told apart on that file. The rank follows",
        "the paired test, not the order of ρ: two metrics whose values move together are told",
        "apart by a smaller difference than two unrelated ones.",
        "",
        "`python benchmarks/agreement.py` scores every registered metric that applies to sets,",
        "and the files' own columns, on the nine files of Tevet & Berant's `diversity-eval`, and",
        "writes this page and `src/diveval/meta/studies/agreement.json` (diveval "
        f"{board['diveval']}, the offline models, seed 0"
        + (f", the first {board['max_sets']} sets of each file" if board["max_sets"] else "")
        + ").",
        "",
        *variant_note(board),
        *merged_note(board),
        *unranked_note(board),
        *not_measured_note(board),
        *subset_note(board),
        "## Recommended measures",
        "",
    ]
    for kind in KINDS:
        rec = recommend(board, kind)
        lines += [f"**{kind}** diversity ({KINDS[kind]}):", ""]
        lines += [
            "| metric | family | mean ρ | per task: ρ [95%] (rank among diveval's) |",
            "|---|---|---|---|",
        ]
        for r in rec:
            ev = "; ".join(
                f"{e['task']}: {_cell(e['spearman'], e['spearman_interval'])} (#{e['registry_rank']})"
                for e in r["evidence"]
            )
            lines.append(
                f"| {_linked(r['metric'])} | {r['family']} | {r['mean_spearman']:.2f} | {ev} |"
            )
        lines.append("")
    lines += ["## Reading", "", *reading(board), ""]
    lines += ["## Per file", ""]
    lines += [f"- [{_title(f)}](#{_anchor(f)}) ({f['n']} sets)" for f in board["files"]]
    for f in board["files"]:
        lines += ["", f"### {_title(f)}", ""]
        head = "| rank | metric | family | ρ [95%] |" + (" OCA [95%] |" if f["binary"] else "")
        lines += [head, "|---|---|---|---|" + ("---|" if f["binary"] else "")]
        rows = sorted(
            f["rows"], key=lambda r: (r["spearman"] is None, -(r["spearman"] or 0), r["metric"])
        )
        skip = not_measured(board)
        for r in rows:
            if r["metric"] in skip:
                continue
            name = _linked(r["metric"]) if r["source"] == "registry" else f"`{r['source'][7:]}`"
            if r["error"]:
                err = r["error"].replace("|", "/")[:120]
                lines.append(
                    f"| - | {name} | {r['family']} | failed: {err} |"
                    + (" - |" if f["binary"] else "")
                )
                continue
            rank = "–" if r["rank"] is None else r["rank"]  # see unranked_note
            cells = f"| {rank} | {name} | {r['family']} | {_cell(r['spearman'], r['spearman_interval'])} |"
            if f["binary"]:
                cells += f" {_cell(r['oca'], r['oca_interval'])} |"
            lines.append(cells)
    return "\n".join(lines) + "\n"


def variant_note(board: dict) -> list[str]:
    """What the rows named ``metric:key=value`` are
    (``diveval.meta.studies.agreement.VARIANTS``)."""
    names = sorted({r["metric"] for f in board["files"] for r in f["rows"] if ":" in r["metric"]})
    if not names:
        return []
    return [
        "Rows named `metric:key=value` score the metric with that option instead of its default: "
        + ", ".join(f"`{n}`" for n in names)
        + ". `equivalence-classes` itself runs its default judge, diveval's answers judge, and "
        "`semantic-entropy` its papers' bidirectional entailment (NLI); each is measured under "
        "the other judge too.",
        "",
    ]


def merged_note(board: dict) -> list[str]:
    """How the rows added by ``--merge`` were ranked (see the module docstring)."""
    merged = board.get("merged")
    if not merged:
        return []
    names = ", ".join(merged["metrics"])
    return [
        f"{names}: scored by `python benchmarks/agreement.py --merge"
        + "".join(f" -m {m}" for m in merged["metrics"])
        + "`, which ranks a row by the paired bootstrap against every row whose interval reaches "
        "its own (recomputed: the same sets, seed and resamples give the same numbers), counts "
        "the rows whose interval lies wholly above as ranked above it, and adds to the rank of "
        "each row it beats. On the recomputed rows, the paired test found an interval wholly "
        f"above another a resolved difference in {merged['pairs_agreeing']} of "
        f"{merged['pairs_checked']} pairs.",
        "",
    ]


def unranked(board: dict) -> list[str]:
    """The metrics with rows that have a correlation but no rank: scored apart from the run
    that ranked the others (a paired rank needs both rows' resamples)."""
    return sorted(
        {r["metric"] for f in board["files"] for r in f["rows"] if _ok(r) and r["rank"] is None}
    )


def unranked_note(board: dict) -> list[str]:
    names = unranked(board)
    if not names:
        return []
    flags = "".join(f" -m {m}" for m in names)
    return [
        f"{', '.join(names)}: scored apart from the run that ranked the other rows, so not "
        f"ranked (–); `python benchmarks/agreement.py --merge{flags}` ranks "
        f"{'it' if len(names) == 1 else 'them'} against the others.",
        "",
    ]


def _linked(row_name: str) -> str:
    """A row's name linked to its metric's page (a variant row, ``name:judge=nli``, to the
    page of ``name``)."""
    from diveval.meta.studies.agreement import variant_base

    return f"[{row_name}](metrics/{variant_base(row_name)}.md)"


def not_measured(board: dict) -> dict[str, str]:
    """{metric: reason} of the registered metrics that failed on every file for one reason
    (a metric that needs a field these files lack): said once, not as a row per file."""
    reasons: dict[str, set] = {}
    for f in board["files"]:
        for r in f["rows"]:
            if r["source"] == "registry":
                reasons.setdefault(r["metric"], set()).add(r["error"])
    return {m: next(iter(e)) for m, e in reasons.items() if len(e) == 1 and None not in e}


def not_measured_note(board: dict) -> list[str]:
    out = [f"- `{m}`: {reason}" for m, reason in sorted(not_measured(board).items())]
    return ["Not measured, on any of these files:", "", *out, ""] if out else []


def _full_sets(name: str) -> int | None:
    """Sets in the whole shared file (to say what a subset run leaves out)."""
    for _, _, _, rel, _ in FILES:
        if rel.endswith(name) and (DATA / rel).exists():
            with open(DATA / rel, encoding="utf-8", newline="") as f:
                return sum(1 for _ in csv.DictReader(f))
    return None


def subset_note(board: dict) -> list[str]:
    """A run on the first sets of each file says so, and what the whole run would cost."""
    if not board.get("max_sets"):
        return []
    used = sum(f["n"] for f in board["files"])
    full = sum(_full_sets(f["file"]) or f["n"] for f in board["files"])
    # each file's share of the CPU time (by its share of the wall clock), scaled to its whole size:
    # decTest's sets of 10 (90 NLI pairs) cost more than conTest's sets of 5 (20 pairs)
    wall = sum(f["seconds"] for f in board["files"]) or 1.0
    scale = sum(
        f["seconds"] / wall * (_full_sets(f["file"]) or f["n"]) / f["n"] for f in board["files"]
    )
    cpu_full = board["cpu_seconds"] * scale / 60
    return [
        '!!! warning "A subset"',
        f"    These numbers come from the first {board['max_sets']} sets of each file ({used} of "
        f"{full} sets), not the whole files: the intervals are wide and few differences are",
        "    resolved. `python benchmarks/agreement.py` runs the whole files and rewrites this",
        f"    page; scaled from this run's CPU time, it costs about {cpu_full:.0f} CPU minutes",
        "    (model loading included once per process).",
        "",
    ]


def _mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def reading(board: dict) -> list[str]:
    """A few sentences read off the numbers (so they cannot drift from the table)."""
    out = []
    for kind, test in (("form", "decTest"), ("content", "conTest")):
        fs = [
            f
            for f in board["files"]
            if f["test"] == test and (test == "conTest" or f["sets"] == 1000)
        ]
        if not fs:
            continue
        fam: dict[str, list[float]] = {}
        for f in fs:
            for r in f["rows"]:
                if r["source"] == "registry" and r["spearman"] is not None:
                    fam.setdefault(r["family"], []).append(r["spearman"])
        best = sorted(((max(v), k) for k, v in fam.items()), reverse=True)[:3]
        mean_by = sorted(((sum(v) / len(v), k) for k, v in fam.items()), reverse=True)[:3]
        out.append(
            f"- **{kind}** ({test}{'-1000' if test == 'decTest' else ''}): the families with the "
            "highest mean ρ over their metrics and tasks are "
            + ", ".join(f"{k} ({m:.2f})" for m, k in mean_by)
            + "; the best single rows reach "
            + ", ".join(f"{m:.2f} ({k})" for m, k in best)
            + "."
        )
    con = [f for f in board["files"] if f["test"] == "conTest"]
    for f in con:
        rows = {r["metric"]: r for r in f["rows"]}
        human = rows.get("abs_hds_mean")
        reg = [r for r in f["rows"] if r["source"] == "registry" and r["spearman"] is not None]
        if not human or not reg or human["spearman"] is None:
            continue
        top = max(reg, key=lambda r: r["spearman"])
        sent = rows.get("SentBert")
        out.append(
            f"- conTest {f['task']}: people (absHDS) ρ {human['spearman']:.2f}, OCA "
            f"{human['oca']:.2f}, rank {human['rank']}; diveval's best, {top['metric']}, ρ "
            f"{top['spearman']:.2f}, OCA {top['oca']:.2f}, rank {top['rank']}"
            + (
                f"; the authors' BERT-large Sent-BERT ρ {sent['spearman']:.2f}, rank {sent['rank']}"
                if sent and sent["spearman"] is not None
                else ""
            )
            + "."
        )
    skip = not_measured(board)
    failed = sorted(
        {r["metric"] for f in board["files"] for r in f["rows"] if r["error"]} - set(skip)
    )
    if failed:
        out.append(f"- Rows that failed (reason in the table): {', '.join(failed)}.")
    return out


def joined(paths: list[str], cpu_seconds=None, max_sets=None) -> dict:
    """One board from the boards of parts run side by side: files in the usual order, the wall
    clock of the slowest part (they ran at the same time), the CPU time of all."""
    boards = [json.loads(Path(p).read_text(encoding="utf-8")) for p in paths]
    order = {rel.split("/")[-1]: i for i, (_, _, _, rel, _) in enumerate(FILES)}
    seen: dict[str, dict] = {}
    for b in boards:  # a file run by two parts counts once
        for f in b["files"]:
            seen.setdefault(f["file"], f)
    files = sorted(seen.values(), key=lambda f: order[f["file"]])
    import diveval

    out = {"diveval": diveval.__version__, "resamples": None, "max_sets": None}
    out.update(boards[0])
    # a part's --partial file holds its finished files only: its clock is theirs
    out.update(
        files=files,
        seconds=max(b.get("seconds") or sum(f["seconds"] for f in b["files"]) for b in boards),
        cpu_seconds=cpu_seconds
        if cpu_seconds is not None
        else round(sum(b.get("cpu_seconds", 0.0) for b in boards), 1),
        load_average=round(max(b.get("load_average", os.getloadavg()[0]) for b in boards), 1),
        cores=os.cpu_count(),
        parts=len(boards),
    )
    if out["max_sets"] is None:
        out["max_sets"] = max_sets
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--max-sets", type=int, default=None, help="first N sets of each file")
    p.add_argument("--resamples", type=int, default=1000)
    p.add_argument("-m", "--metric", action="append", help="only these metrics (repeatable)")
    p.add_argument("--cache-dir", default=None, help="the score cache's folder (SQLite)")
    p.add_argument("--no-write", action="store_true", help="print, write nothing")
    p.add_argument("--json-out", default=str(JSON_OUT))
    p.add_argument("--md-out", default=str(MD_OUT))
    p.add_argument("--only", action="append", help="only the files whose path holds this text")
    p.add_argument("--partial", default=None, help="rewrite this JSON after every file")
    p.add_argument(
        "--merge",
        action="store_true",
        help="score only the -m metrics and merge their rows into a board, ranked against it",
    )
    p.add_argument(
        "--merge-from", default=None, help="with --merge: the board (default: --json-out)"
    )
    p.add_argument(
        "--from-json",
        nargs="+",
        default=None,
        help="no run: join these boards (runs of parts in parallel processes) and write the page",
    )
    p.add_argument(
        "--cpu-seconds",
        type=float,
        default=None,
        help="with --from-json: the parts' CPU time, where their files do not hold it",
    )
    args = p.parse_args(argv)
    if args.merge:
        board = merge(args)
    else:
        board = (
            joined(args.from_json, args.cpu_seconds, args.max_sets) if args.from_json else run(args)
        )
        print(
            f"total {board['seconds']:.0f} s wall, {board['cpu_seconds']:.0f} s CPU, "
            f"{board['cores']} cores, load {board['load_average']}"
        )
    text = page(board)
    if args.no_write:
        print(text)
        return 0
    Path(args.json_out).write_text(json.dumps(board, indent=1) + "\n", encoding="utf-8")
    Path(args.md_out).write_text(text, encoding="utf-8")
    print(f"wrote {args.json_out} and {args.md_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
