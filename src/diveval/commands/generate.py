"""`diveval generate INPUT`: Diversity Threshold Generation over a file of contexts."""

from __future__ import annotations

from ..io import json_out
from . import add_json_flag
from .options import DTG_TOP_P, MODEL_FLAGS, add_model_options, add_option_flags, add_sampling_flags
from .options import metric_options as options_of

EPILOG = """examples:
  diveval generate dev.json --generator pool --metric avg-distinct --out pool.jsonl
        DailyDialog++: pool = positive + random-negative responses, threshold 0.98
  diveval generate contexts.jsonl --generator smollm2 --metric sent-bert --out smol.jsonl --limit 20
  diveval generate contexts.jsonl --generator hf:gpt2 --metric nli --out gpt2.jsonl
  diveval generate contexts.jsonl --generator pool --metric cos-diversity --threshold -0.2 --out o.jsonl

input: JSON lines {"id", "context": str | [turns], "candidates": [...], "references": [...]}
or DailyDialog++ records. An interrupted run started again with the same --out goes on where it
stopped.
"""


def add_parser(sub):
    p = sub.add_parser(
        "generate",
        help="resample response sets until they are diverse enough",
        description="Diversity Threshold Generation (Stasaski & Hearst 2022): sample n "
        "responses; while the set is not above the threshold and fewer "
        "than --max-samples were drawn, drop the response whose removal "
        "leaves the most diverse subset and sample a replacement.",
        epilog=EPILOG,
    )
    p.add_argument("input", help="JSON lines of contexts (see below)")
    p.add_argument(
        "--generator",
        "-g",
        default="pool",
        help="pool (the record's candidates), smollm2 (SmolLM2-135M-Instruct, offline), "
        "hf:NAME_OR_PATH, openai:NAME or openai-compatible:URL[:NAME] (as diveval sample)",
    )
    p.add_argument(
        "--metric",
        "-m",
        default="avg-distinct",
        help="preset nli | avg-distinct | sent-bert (paper thresholds) or a sets metric",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="a set must score above it (default: the preset's)",
    )
    p.add_argument("--out", "-o", required=True, help="output JSON lines, appended per context")
    p.add_argument("--n", type=int, default=5, help="set size (default 5)")
    p.add_argument(
        "--max-samples", type=int, default=20, help="sample budget per context (default 20)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of every draw (default 0)")
    p.add_argument(
        "--keep",
        choices=["last", "best"],
        default="last",
        help="ending set: the last one (the paper's procedure) or the most diverse one met",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N contexts")
    p.add_argument(
        "--pool-fields",
        default="positive_responses,random_negative_responses",
        help="DailyDialog++ fields that make the pool (comma-separated)",
    )
    p.add_argument("--shuffle-seed", type=int, default=0, help="seed of the pool order (default 0)")
    g = p.add_argument_group("model generators")
    add_sampling_flags(g, top_p=DTG_TOP_P, max_tokens=("--max-new-tokens", 40), top_k=True)
    p.add_argument(
        "--bertscore",
        action="store_true",
        help="relevance also by BERTScore F1 against the references (models extra)",
    )
    add_option_flags(p, "tokenizer")  # unset: each preset takes the tokenizer of its paper
    add_model_options(p)
    add_json_flag(p)
    return p


def run(args) -> int:
    import sys

    # here, not at the top: the parser of every command is built at each start, and these
    # (numpy, bm25s, the models) load only when this command runs
    from ..generation.runner import run_threshold_generation, summarize
    from ..generation.scorers import resolve_preset
    from ..io.contexts import read_contexts
    from ..report.run_summaries import generation_summary

    items = read_contexts(
        args.input, [f.strip() for f in args.pool_fields.split(",") if f.strip()], args.shuffle_seed
    )
    if args.limit is not None:
        items = items[: args.limit]
    metric_options = options_of(args, "tokenizer", *MODEL_FLAGS)
    # which threshold, and why: a model-dependent preset takes the threshold of the model in use
    _, threshold, _, why = resolve_preset(args.metric, args.threshold, **metric_options)
    print(f"diveval: threshold {threshold:g}: {why}", file=sys.stderr)
    run_settings = {
        "generator": args.generator,
        "metric": args.metric,
        "threshold": threshold,
        "threshold_source": why,
        "n": args.n,
        "max_samples": args.max_samples,
        "seed": args.seed,
        "keep": args.keep,
    }
    generator_for = _generators(args, items, run_settings)
    run_settings.update(
        {
            f"metric_{k}": v
            for k, v in metric_options.items()
            if k in ("tokenizer", "nli_model", "embedding_model")
        }
    )
    records = run_threshold_generation(
        items,
        generator_for,
        args.metric,
        args.out,
        run_settings,
        threshold=args.threshold,  # None: each result resolves (and records) the preset's
        n=args.n,
        max_samples=args.max_samples,
        seed=args.seed,
        keep=args.keep,
        progress=None,
        log=lambda line: print(f"diveval: {line}", file=sys.stderr),
        metric_options=metric_options,
        with_bertscore=args.bertscore,
    )
    summary = summarize(records)
    if args.json:
        print(json_out.dumps({"input": args.input, "out": args.out, "summary": summary}, indent=2))
    else:
        print(generation_summary(summary, args.input))
    return 0


def _generators(args, items, run_settings: dict):
    """``generator_for(item)``: a pool of the item's own candidates, or one model (any backend of
    ``models.lm_backends``, loaded once) for every item; its settings go into ``run_settings``."""
    from ..errors import InputError
    from ..models.generators import PoolGenerator, context_key
    from ..models.lm_backends import ChatGenerator, LoadOptions, load_chat, parse_spec

    if args.generator == "pool":
        missing = [it.id for it in items if not it.candidates]
        if missing:
            raise InputError(
                f"context {missing[0]!r} has no candidates for the pool generator", args.input
            )
        run_settings.update(pool_fields=args.pool_fields, shuffle_seed=args.shuffle_seed)
        return lambda it: PoolGenerator({context_key(it.context): it.candidates})
    options = LoadOptions(
        temperature=args.temperature,
        top_p=args.top_p,
        top_k=args.top_k,
        max_tokens=args.max_new_tokens,
        first_line=True,  # a response is one dialogue turn
        device=args.device,
        threads=args.threads,
        logprobs=False,
    )
    gen = ChatGenerator(load_chat(parse_spec(args.generator), options), options, args.generator)
    run_settings.update(gen.settings)
    return lambda it: gen
