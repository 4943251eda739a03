"""`diveval sample PROMPTS`: k responses per prompt from any model, ready for `diveval score`."""

from __future__ import annotations

from ..io import json_out
from ..options import RESPONSES_PER_PROMPT
from . import add_json_flag, add_valued_flags, same_names
from .options import add_option_flags, add_sampling_flags

EPILOG = """examples:
  diveval sample prompts.txt --model smollm2 --k 5 --out samples.jsonl
  diveval sample prompts.jsonl --model openai:gpt-4o-mini --k 10 --out gpt.jsonl
  diveval sample prompts.jsonl --model openai-compatible:http://127.0.0.1:8000/v1 --k 5 \\
        --protocol in-context --max-tokens 64 --concurrency 8 --out local.jsonl
  diveval score samples.jsonl --level per-input --metric avg-distinct

input: JSON lines with "prompt" (other fields are kept: ids, prompt_paraphrases, references) or
a text file with one prompt per line. output: one JSON line per prompt, in input order, with the
input's fields, "prompt", "model", "responses" (k strings), "sampling" (every setting) and
"usage". An interrupted run started again with the same options goes on where it stopped; other
options are refused. openai: reads its key from OPENAI_API_KEY only.
"""

#: The flags that are SamplingSettings fields of the same name.
SAMPLING_FLAGS = (
    "model",
    "protocol",
    "k",
    "temperature",
    "top_p",
    "max_tokens",
    "seed",
    "paraphrase_field",
)


def add_parser(sub):
    p = sub.add_parser(
        "sample",
        help="k responses per prompt from any model (OpenAI, a /v1 server, transformers)",
        description="Sample k responses to each prompt with one of NoveltyBench's protocols "
        "(Zhang et al. 2025): regenerate (k independent samples), in-context (each asked for "
        "with the earlier ones in the conversation), paraphrase (one per paraphrased prompt), "
        "system-prompt (under a system prompt asking for a novel answer).",
        epilog=EPILOG,
    )
    p.add_argument("input", metavar="PROMPTS", help="JSON lines with prompt, or a .txt file")
    p.add_argument(
        "--model",
        "-M",
        default="smollm2",
        metavar="SPEC",
        help="openai:NAME, openai-compatible:URL[:NAME], hf:NAME_OR_PATH or smollm2 "
        "(SmolLM2-135M-Instruct, offline)",
    )
    k = RESPONSES_PER_PROMPT
    p.add_argument(*k.flags, type=k.type, default=k.default, metavar=k.metavar, help=k.help)
    p.add_argument("--out", "-o", required=True, help="output JSON lines, appended per prompt")
    p.add_argument(
        "--protocol",
        choices=["regenerate", "in-context", "paraphrase", "system-prompt"],
        default="regenerate",
        help="how the k samples are asked for",
    )
    p.add_argument(
        "--paraphrase-field",
        default="prompt_paraphrases",
        metavar="NAME",
        help="paraphrase protocol: the input field with at least k paraphrases",
    )
    g = p.add_argument_group("sampling (recorded in every record and every score's signature)")
    add_sampling_flags(g, top_p=None, max_tokens=("--max-tokens", 512))
    g.add_argument(
        "--seed", type=int, default=0, help="seed of the run; each request's derives from it"
    )
    g.add_argument(
        "--no-logprobs",
        dest="record_logprobs",
        action="store_false",
        help="do not ask for token log-probabilities (by default each record holds them where "
        "the backend gives them: `logprobs`, one sum per response, and `token_logprobs`)",
    )
    r = p.add_argument_group("requests")
    add_valued_flags(
        r,
        ("--concurrency", 8, "requests in flight at most"),
        ("--retries", 8, "tries after the first (429, 5xx...)"),
        ("--timeout", 60.0, "seconds a request may take"),
    )
    r.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help="openai-compatible: the environment variable holding the server's key",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N prompts")
    add_option_flags(p, "device", "threads")
    add_json_flag(p)
    return p


def run(args) -> int:
    import sys

    # here, not at the top: the parser is built for every command, the sampling stack (asyncio,
    # the backends) loads only to sample
    from ..errors import InputError
    from ..models.lm_backends import load_chat, parse_spec
    from ..progress import rate_counter
    from ..report.run_summaries import sampling_summary
    from ..sampling.records import read_prompts
    from ..sampling.runner import (
        RetryPolicy,
        SamplingSettings,
        check_inputs,
        check_settings,
        read_done,
        run_sampling,
    )

    spec = parse_spec(args.model)
    settings = SamplingSettings(
        **same_names(args, *SAMPLING_FLAGS),
        logprobs=args.record_logprobs,
    )
    policy = RetryPolicy(retries=args.retries, timeout=args.timeout)
    check_settings(settings, policy, args.concurrency)
    if args.limit is not None and args.limit < 1:
        raise InputError(f"--limit must be at least 1, got {args.limit}")
    items = read_prompts(args.input)[: args.limit]
    # an output of other settings is refused before a model is loaded or a server asked
    done = len(read_done(args.out, items, settings.as_dict(), args.input))
    check_inputs(items[done:], settings, args.input)
    backend = None
    if done < len(items):
        options = settings.load_options(
            timeout=args.timeout, api_key_env=args.api_key_env, device=args.device
        )
        backend = load_chat(spec, options)
        if backend.local:  # a generation in a thread cannot be interrupted: no time limit
            policy = RetryPolicy(retries=args.retries, timeout=None)

    total = (len(items) - done) * args.k
    with rate_counter("sampling", total, "responses") as advance:
        summary = run_sampling(
            items,
            backend,
            settings,
            args.out,
            source=args.input,
            concurrency=args.concurrency,
            policy=policy,
            on_progress=advance,
            log=lambda line: print(f"diveval: {line}", file=sys.stderr),
        )
    if args.json:
        print(json_out.dumps({"input": args.input, "out": args.out, "summary": summary}, indent=2))
    else:
        print(sampling_summary(summary, args.out))
    return 0
