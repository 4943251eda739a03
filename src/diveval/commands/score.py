"""`diveval score INPUT`: the registered metrics over a file of responses. A whole run is here;
the kinds of run a flag chooses (--level, --across, --stream-memory, --shard) are modules of
their own, each declaring the flags it takes (``score_modes``)."""

from __future__ import annotations

from ..errors import InputError
from ..io.grouping import groups_by_field
from ..scale.engine import EngineOptions
from . import (
    add_json_flag,
    add_metric_flag,
    print_json,
    print_warnings,
    score_across,
    score_level,
    score_shard,
    score_stream,
)
from .options import (
    add_at_k_options,
    add_engine_options,
    add_input_flags,
    add_model_options,
    add_option_flags,
    metric_options,
    parse_vocab,
)
from .score_modes import WHOLE, chosen_mode, read_scored_input

__all__ = ["add_model_options", "add_parser", "parse_vocab", "run"]  # older import paths kept

EPILOG = """examples:
  diveval score responses.txt                      one response per line (corpus setting)
  diveval score sets.jsonl --metric avg-distinct   {"responses": [...]} per line (sets setting)
  diveval score tevet.csv --tokenizer tevet --json   resp_0..resp_k columns (sets setting)
  diveval score responses.txt --metric ead --vocab tokenizer --tokenizer bert
  diveval score items.jsonl -m ref-bleu-4 --reduction max   {"response": ..., "references": [...]}
  diveval score responses.txt -m mattr --join sorted   joined in code-point order, not as given
  diveval score sets.jsonl --by system --at-k 5    every set-level metric at 5 responses per set
  diveval score scores.jsonl -m equivalence-classes --classes partition --quality generation_scores
                                                   NoveltyBench's stored classes, no judge asked
"""


def add_parser(sub):
    p = sub.add_parser(
        "score",
        help="score a file of responses",
        # the flags are listed by group below; argparse's own usage line would repeat all 55
        usage="diveval score INPUT [-m METRIC ...] [options]",
        description="Compute diversity metrics over a corpus (.txt, one response per "
        "line) or response sets (.jsonl / .csv).",
        epilog=EPILOG,
    )
    p.add_argument(
        "input",
        help="a .txt, .jsonl, .json, .csv, .tsv or .parquet file, a datasets folder, or - (stdin)",
    )
    add_input_flags(
        p,
        "the record field (JSON, Parquet, datasets) or CSV column holding the responses, "
        "e.g. positive_responses for DailyDialog++",
    )
    add_metric_flag(p, "a metric name (repeatable); default: the lexical metrics")
    add_option_flags(
        p, "tokenizer", "lowercase", "join", "vocab", "aligner", "reduction", "smoothing", "variant"
    )
    add_at_k_options(p)
    add_option_flags(p, "classes", "quality")
    p.add_argument(
        "--items",
        nargs="?",
        const=True,
        default=None,
        metavar="FILE",
        help="FILE (.csv or .jsonl): one row per set/response with every metric and the input "
        "record's other fields; without FILE (with --json): per-item values in the JSON",
    )
    p.add_argument(
        "--by",
        metavar="COLUMN",
        default=None,
        help="score each value of this record field (e.g. system) separately, side by side",
    )
    p.add_argument(
        "--summary",
        metavar="FILE",
        default=None,
        help="with --by: one row per group (metrics, size as _n, and the mean of every numeric "
        "record field that is not an id, e.g. human scores), ready for `diveval correlate`",
    )
    p.add_argument(
        "--report",
        metavar="FILE.html",
        default=None,
        help="also write the self-contained HTML report of this run (see `diveval report`)",
    )
    add_model_options(p)
    score_level.add_options(p)
    score_across.add_options(p)
    add_engine_options(p)
    add_json_flag(p)
    return p


#: the kinds of run a flag chooses, each a module with its MODE and its run(args)
MODE_MODULES = (score_level, score_across, score_stream, score_shard)
MODES = tuple(m.MODE for m in MODE_MODULES)
RUNS = {m.MODE: m.run for m in MODE_MODULES}


def run(args) -> int:
    mode = chosen_mode(args, MODES)
    if mode is not WHOLE:
        return RUNS[mode](args)
    return run_whole(args)


def run_whole(args) -> int:
    """The default kind of run: every metric over the whole input, or over each --by group."""
    if args.report and not args.report.lower().endswith((".html", ".htm")):
        raise InputError("the report is an HTML file: name it FILE.html", args.report)
    if (args.at_k_draws is not None or args.at_k_seed is not None) and args.at_k is None:
        raise InputError("--at-k-draws and --at-k-seed go with --at-k K")
    if args.items is True and not args.json:
        raise InputError("--items without a FILE adds per-item values to --json output: add --json")
    if args.summary and not args.by:
        raise InputError("--summary writes one row per --by group: add --by COLUMN")
    if args.engine != "ray" and (args.address or args.concurrency or args.num_gpus or args.verbose):
        raise InputError("--address, --concurrency, --num-gpus and --verbose go with --engine ray")
    from ..io.readers import locate, per_item_fields
    from ..sampling.records import add_sampling

    data = read_scored_input(args)
    options = {**metric_options(args), "progress": True}
    engine = EngineOptions(args.engine)
    if args.engine == "ray":
        engine = EngineOptions(
            "ray",
            address=args.address,
            concurrency=args.concurrency,
            num_gpus=args.num_gpus or 0,
            verbose=args.verbose,
        )
    groups = groups_by_field(data, args.by)
    results = {}
    for name, index in groups.items():
        part = _take(data.items, index)
        records = _take(data.records, index) if data.records else []
        try:
            results[name] = _score(
                part,
                args.metrics,
                engine,
                per_item_fields(options, records),
                args.models,
            )
        except InputError as exc:
            raise locate(exc, data, index) from None
        add_sampling(results[name], records)
    _write_outputs(args, data, groups, results)
    if args.report:
        _write_report(args, data, groups, results)
    return 0


def _write_report(args, data, groups: dict, results: dict) -> None:
    """The run as `diveval report` would read its --json --items output and the scored file."""
    import json
    import os
    import sys

    from ..meta.studies.report_figures import build_report, write_report
    from ..report.inputs import scored_records
    from ..report.tables import scores_to_json

    bodies = {
        "all" if g is None else g: json.loads(scores_to_json(r, {"items": len(groups[g])}, True))
        for g, r in results.items()
    }
    run: dict = {"input": args.input, "setting": data.setting, "items": len(data.items)}
    if args.by:
        run.update(by=args.by, groups=bodies)
    else:
        run.update(scores=bodies["all"]["scores"])
    report = build_report(
        [],
        runs=[run],
        records=scored_records(data),
        sources=[args.input] if os.path.isfile(args.input) else [],
        command="diveval " + " ".join(sys.argv[1:]) if sys.argv[1:] else "",
    )
    size = write_report(report, args.report)
    print(f"diveval: wrote {args.report} ({size / 1e6:.2f} MB)", file=sys.stderr)


def _score(items, metrics, engine, options, models=None):
    """``diveval.score``, with the model settings the CLI resolved (``cli.check_common_arguments``)."""
    from ..api import score

    return score(items, metrics, engine=engine, models=models, **options)


def _take(seq, index):
    """``seq``'s elements at ``index``; ``seq`` itself when ``index`` is all of it (a copy of
    a million records would be made for nothing)."""
    if index == range(len(seq)):
        return seq
    return [seq[i] for i in index]


def print_skipped(results: dict, data, groups: dict) -> None:
    """The default metrics a run skipped (undefined on the input), once each, on stderr, with
    the file and line of the set that made them undefined."""
    import sys

    from ..io.readers import locate

    said = set()
    for group, scores in results.items():
        for name, why in getattr(scores, "skipped", {}).items():
            if name not in said:
                said.add(name)
                where = locate(InputError(why), data, groups[group])
                print(f"diveval: note: skipped default metric {name}: {where}", file=sys.stderr)


def _write_outputs(args, data, groups: dict, results: dict) -> None:
    print_warnings(results, args.by)
    print_skipped(results, data, groups)
    from ..report.item_rows import item_rows, summary_rows, write_rows
    from ..report.tables import groups_table, scores_table, scores_to_json

    if isinstance(args.items, str):
        write_rows(args.items, item_rows(data, groups, results, args.by))
    if args.summary:
        write_rows(args.summary, summary_rows(data, groups, results, args.by))
    meta: dict = {"input": args.input, "setting": data.setting, "items": len(data.items)}
    # how the input was read, so `diveval report` can read it again for the sets' texts
    meta.update({k: v for k, v in (("field", args.field), ("format", args.format)) if v})
    if data.skipped:
        meta["skipped_empty"] = len(data.skipped)
    from ..report.tables import counted

    what = counted(len(data.items), "set" if data.setting == "sets" else "response")
    if args.by:
        meta["by"] = args.by
        if args.json:
            import json

            meta["groups"] = {
                g: json.loads(scores_to_json(r, {"items": len(groups[g])}, args.items is True))
                for g, r in results.items()
            }
            print_json(meta)
        else:
            title = f"{args.input}: {what} by {args.by}"
            print(groups_table(results, {g: len(ix) for g, ix in groups.items()}, title))
        return
    scores = results[None]
    if getattr(scores, "skipped", None):
        meta["skipped_metrics"] = dict(scores.skipped)
    if args.json:
        print(scores_to_json(scores, meta, with_items=args.items is True))
    else:
        print(scores_table(scores, f"{args.input}: {what}"))
