"""`diveval score INPUT`: the registered metrics over a file of responses."""

from __future__ import annotations

from typing import Any, Sequence

from ..errors import InputError
from ..io.grouping import groups_by_field
from ..meta.defaults import DEFAULT_DRAWS
from ..models.devices import SETTINGS_OPTIONS
from ..scale.engine import EngineOptions
from . import add_json_flag, add_metric_flag, print_json, print_warnings
from .options import (
    add_at_k_options,
    add_engine_options,
    add_hidden_alias,
    add_input_flags,
    add_model_options,
    add_option_flags,
    add_resampling_flags,
    metric_options,
    parse_vocab,
    resampling_arguments,
)

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
    add_level_options(p)
    add_engine_options(p)
    add_json_flag(p)
    return p


def add_level_options(p) -> None:
    g = p.add_argument_group(
        "reporting levels (Kirk et al. 2024; see docs/guides/llm-sampling.md#reporting-levels)"
    )
    g.add_argument(
        "--level",
        choices=["per-input", "across-input", "cross-model"],
        default=None,
        help="score each --metric at this level, with a bootstrap interval; JSONL records with "
        "responses (and prompt/context and model for cross-model)",
    )
    # named --level-*: --at-k K, --at-k-draws and --at-k-seed are another mode's look-alikes
    g.add_argument(
        "--level-k",
        dest="k",
        type=int,
        default=None,
        metavar="K",
        help="per-input: subsample K outputs per input (seeded)",
    )
    g.add_argument(
        "--level-draws",
        dest="draws",
        type=int,
        default=DEFAULT_DRAWS,
        metavar="D",
        help="seeded draws averaged",
    )
    g.add_argument(
        "--model-field", default="model", help="cross-model: the record field naming the model"
    )
    add_resampling_flags(g, seed_help="seed of draws and resamples", seed_flag="--level-seed")
    # the names before the --level- prefix still work, unlisted
    add_hidden_alias(g, "--k", "k", int)
    add_hidden_alias(g, "--draws", "draws", int)
    add_hidden_alias(g, "--seed", "seed", int)
    s = p.add_argument_group("systems side by side (with --by SYSTEM_FIELD)")
    s.add_argument(
        "--across",
        action="store_true",
        help="how alike the systems' answers to the same prompt are: "
        "gamma (the pooled answers), alpha (each system alone) and beta (the effective number of "
        "distinct systems, Reeve et al. 2016) per prompt and overall; --similarity (cosine "
        "or exact) and --viewpoint choose the similarity and the order q",
    )
    s.add_argument(
        "--viewpoint",
        default="1",
        metavar="Q",
        help="--across: the order q of the Hill numbers (0, 1, 2, ..., inf)",
    )


def _refuse_mixed_modes(args) -> None:
    """Refuse the flags that belong to another kind of run than the one asked (a whole run, a
    shard or a streamed run, --level, --across), before the input is read."""
    if (args.memory or args.shard or args.state) and (
        args.by or args.summary or args.items or args.report
    ):
        raise InputError(
            "--by, --summary, --items and --report go with a whole run, not --shard or --stream-memory"
        )
    if args.report and not args.report.lower().endswith((".html", ".htm")):
        raise InputError("the report is an HTML file: name it FILE.html", args.report)
    if (args.at_k_draws is not None or args.at_k_seed is not None) and args.at_k is None:
        raise InputError("--at-k-draws and --at-k-seed go with --at-k K")
    if args.at_k is not None and (args.level or args.memory or args.shard or args.state):
        raise InputError(
            "--at-k goes with a whole run: not with --level, --stream-memory or --shard"
        )
    if args.level:
        if args.memory or args.shard or args.state or args.by or isinstance(args.items, str):
            raise InputError(
                "--level runs alone: not with --by, --items FILE, --shard, --stream-memory"
            )
        if args.report:
            raise InputError(
                "--report goes with a whole run; for --level, give its --json to `diveval report`"
            )
        if args.engine != "local":
            raise InputError("--level runs in one process: not with --engine ray")
    if (args.classes or args.quality) and (
        args.level or args.across or args.memory or args.at_k is not None
    ):
        raise InputError(
            "--classes and --quality go with a whole run or --shard: not with --level, --across, "
            "--stream-memory or --at-k"
        )
    if args.across:
        if not args.by:
            raise InputError("--across compares systems: add --by FIELD naming the system field")
        if args.level or args.memory or args.shard or args.state or args.engine != "local":
            raise InputError(
                "--across runs alone: not with --level, --shard, --stream-memory or ray"
            )


def run(args) -> int:
    import sys

    from ..io.readers import distinct_disagreements, locate, per_item_fields, read_input

    _refuse_mixed_modes(args)
    if args.level:
        return _run_level(args)
    if args.across:
        return _run_across(args)
    if args.memory or args.approx:
        return _run_streamed(args)
    if args.memory_budget is not None:
        from ..pairs import parse_size

        parse_size(args.memory_budget)  # a bad size is refused before the input is read
    if args.items is True and not args.json:
        raise InputError("--items without a FILE adds per-item values to --json output: add --json")
    if args.summary and not args.by:
        raise InputError("--summary writes one row per --by group: add --by COLUMN")
    stored = [f for f in (args.classes, args.quality) if f]
    data = read_input(args.input, args.format, args.field, per_response=stored)
    note = data.skipped_note()
    if note:
        print(f"diveval: note: {note}", file=sys.stderr)
    if args.classes:
        for line in distinct_disagreements(data, args.classes):
            print(f"diveval: warning: {line}", file=sys.stderr)
    options = {**metric_options(args), "progress": True}
    if args.shard or args.state:
        return _run_shard(args, data, per_item_fields(options, data.records))
    if args.engine != "ray" and (args.address or args.concurrency or args.num_gpus or args.verbose):
        raise InputError("--address, --concurrency, --num-gpus and --verbose go with --engine ray")
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
                getattr(args, "models", None),
            )
        except InputError as exc:
            raise locate(exc, data, index) from None
        _add_sampling(results[name], records)
    _write_outputs(args, data, groups, results)
    if args.report:
        _write_report(args, data, groups, results)
    return 0


def _write_report(args, data, groups: dict, results: dict) -> None:
    """The run as `diveval report` would read its --json --items output and the scored file."""
    import json
    import os
    import sys

    from ..report.inputs import scored_records
    from ..report.tables import scores_to_json
    from .report import build_report, write_report

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


def _add_sampling(results, records: Sequence):
    """Responses sampled by `diveval sample` carry their settings (protocol, temperature, top_p,
    max_tokens, seed, model): every score computed from them names those in its signature."""
    import dataclasses

    from ..io.readers import has_field
    from ..sampling.records import sampling_signature, with_sampling

    if not has_field(records, "sampling"):
        return results
    part = sampling_signature(records)
    if part is None:
        return results
    if isinstance(results, list):  # level scores
        return [dataclasses.replace(r, signature=with_sampling(r.signature, part)) for r in results]
    for name, score in list(results.items()):
        results[name] = dataclasses.replace(score, signature=with_sampling(score.signature, part))
    return results


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


def _mergeable_defaults(args, setting: str, splits, why: str) -> list[str] | None:
    """Explicit metrics as given; else the default set minus what cannot be split this way
    (``splits(name)``; ``why`` says what they lack)."""
    import sys

    from ..registry import default_metrics

    if args.metrics:
        return args.metrics
    names = default_metrics(setting)
    kept = [n for n in names if setting == "sets" or splits(n)]
    if kept != names:
        skipped = ", ".join(n for n in names if n not in kept)
        print(f"diveval: skipped default metrics with {why}: {skipped}", file=sys.stderr)
    return kept


def _run_shard(args, data, options) -> int:
    from ..scale.shards import parse_shard, score_shard, shardable

    if not (args.shard and args.state):
        raise InputError("--shard I/N and --state FILE go together")
    if args.engine != "local":
        raise InputError("--shard runs one shard in this process; leave out --engine")
    shard = parse_shard(args.shard)
    names = _mergeable_defaults(args, data.setting, shardable, "no mergeable state")
    options.pop("progress", None)
    result = score_shard(data.items, names, shard, **options)
    # the whole file's sampling settings, so every shard names them as a one-process run does
    result.set_scores = _add_sampling(result.set_scores, data.records or [])
    result.save(args.state)
    print(f"shard {shard[0]}/{shard[1]} of {args.input} written to {args.state}")
    return 0


def _run_streamed(args) -> int:
    from ..report.tables import scores_table, scores_to_json
    from ..scale.streaming import parse_memory, stream_score, streamable

    if not args.memory:
        raise InputError("--approx goes with --stream-memory")
    parse_memory(args.memory)  # arguments first, before any work or message
    fmt = args.format or args.input.rsplit(".", 1)[-1].lower()
    if fmt != "txt":
        raise InputError(
            f"{args.input}: --stream-memory streams a .txt corpus (one response per line)"
        )
    if args.shard or args.engine != "local":
        raise InputError("--stream-memory streams in this process; leave out --shard and --engine")
    names = _mergeable_defaults(args, "corpus", streamable, "no one-pass state")
    scores = stream_score(
        args.input,
        names or [],
        **metric_options(args, "tokenizer", "lowercase", "vocab"),
        memory=args.memory,
        approx=args.approx,
    )
    print_warnings({None: scores})  # the warnings a one-process run prints
    meta = {"input": args.input, "setting": "corpus", "streamed": True}
    if args.json:
        print(scores_to_json(scores, meta))
    else:
        print(scores_table(scores, f"{args.input}: streamed in {args.memory}"))
    return 0


def _run_level(args) -> int:
    """`--level`: each metric at one reporting level (``meta.estimation.levels``); printing only
    here."""

    from ..io.readers import locate, read_input
    from ..meta.estimation.levels import group_by_input, score_level
    from ..registry import default_metrics

    data = read_input(args.input, args.format, args.field)
    if data.setting != "sets":
        raise InputError(
            "--level needs the outputs of each input as a set (JSONL records with responses)",
            data.path,
        )
    names = args.metrics or default_metrics("sets")
    payload: Any = data.items
    if args.level == "cross-model":
        payload = group_by_input(data.records, data.items, args.model_field)
    options = metric_options(args)
    try:
        results = _levels(args, names, payload, options, score_level)
    except InputError as exc:  # "set N" of per-input / across-input is record N of the file
        raise (exc if args.level == "cross-model" else locate(exc, data)) from None
    results = _add_sampling(results, data.records or [])
    if args.json:
        out = {"input": args.input, "level": args.level, "scores": {}}
        for r in results:
            out["scores"][r.metric] = r.to_dict(with_items=args.items is True)
        print_json(out)
        return 0
    print(f"{args.input}: level {args.level}")
    for r in results:
        iv = r.interval
        print(
            f"{r.metric:24s} {r.value:.4f}  [{iv.low:.4f}, {iv.high:.4f}] "
            f"({iv.confidence:.0%}; {r.direction} = more diverse)  {r.signature}"
        )
    return 0


def _run_across(args) -> int:
    """`--by SYSTEM --across`: the alpha / beta / gamma decomposition
    (``meta.estimation.metacommunity``)."""
    import sys

    from ..context import RunContext
    from ..io.readers import read_input
    from ..meta.estimation.levels import group_by_input
    from ..meta.estimation.metacommunity import across_systems

    data = read_input(args.input, args.format, args.field)
    if not data.records:
        raise InputError("--across needs records with a prompt and a system field", data.path)
    sets = [x if isinstance(x, list) else [x] for x in data.items]
    groups = group_by_input(data.records, sets, args.by)
    options = {
        k: v
        for k, v in metric_options(args).items()
        if k in ("embedding_model", "nli_model", *SETTINGS_OPTIONS)
    }
    result = across_systems(
        groups,
        args.similarity,
        q=args.viewpoint,
        **resampling_arguments(args),
        context=RunContext(progress=True),
        **options,
    )
    for warning in result.warnings:
        print(f"diveval: warning: across: {warning}", file=sys.stderr)
    if args.json:
        out = {"input": args.input, "by": args.by, "across": result.to_dict(args.items is True)}
        print_json(out)
        return 0
    from ..report.tables import across_table

    print(across_table(result, f"{args.input}: --by {args.by} --across"))
    return 0


def _levels(args, names, payload, options, score_level) -> list:
    from ..context import RunContext

    context = RunContext(progress=True)
    return [
        score_level(
            args.level,
            name,
            payload,
            k=args.k,
            draws=args.draws,
            **resampling_arguments(args),
            context=context,
            **options,
        )
        for name in names
    ]
