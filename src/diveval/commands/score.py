"""`diveval score INPUT`: the registered metrics over a file of responses."""

from __future__ import annotations

from . import add_json_flag, help_formatter

EPILOG = """examples:
  diveval score responses.txt                      one response per line (corpus setting)
  diveval score sets.jsonl --metric avg-distinct   {"responses": [...]} per line (sets setting)
  diveval score tevet.csv --tokenizer tevet --json resp_0..resp_k columns (sets setting)
  diveval score responses.txt --metric ead --vocab tokenizer --tokenizer bert
  diveval score items.jsonl -m ref-bleu-4 --reduction max   {"response": ..., "references": [...]}
"""


def add_parser(sub):
    p = sub.add_parser(
        "score",
        help="score a file of responses",
        description="Compute diversity metrics over a corpus (.txt, one response per "
        "line) or response sets (.jsonl / .csv).",
        epilog=EPILOG,
        formatter_class=help_formatter(),
    )
    p.add_argument("input", help="a .txt, .jsonl or .csv file")
    p.add_argument("--format", choices=["txt", "jsonl", "csv"], help="override the file ending")
    p.add_argument(
        "--metric",
        "-m",
        action="append",
        dest="metrics",
        metavar="NAME",
        help="a metric name (repeatable); default: the lexical metrics",
    )
    p.add_argument(
        "--tokenizer", default="whitespace", help="whitespace (default), 13a, bert, tevet"
    )
    p.add_argument("--lowercase", action="store_true", help="lower-case before tokenizing")
    p.add_argument(
        "--vocab",
        default=None,
        help="EAD vocabulary: an integer (default 30522), 'tokenizer', or a text file "
        "whose distinct tokens are counted",
    )
    p.add_argument(
        "--aligner", default=None, help="LSDSCC aligner: bleu (default), nltk-bleu, nist, embedding"
    )
    p.add_argument(
        "--reduction",
        default=None,
        help="ref-* metrics: how a response's scores against its references combine: max, "
        "mean, or multi (ref-bleu only); default: multi for ref-bleu, max otherwise",
    )
    p.add_argument("--items", action="store_true", help="with --json: include per-item values")
    add_model_options(p)
    add_json_flag(p)
    return p


def add_model_options(p) -> None:
    g = p.add_argument_group("model-backed metrics")
    g.add_argument(
        "--nli-model", default=None, help="NLI model name or path (default: the shipped one)"
    )
    g.add_argument(
        "--embedding-model", default=None, help="sentence-transformers model name or path"
    )
    g.add_argument(
        "--device", default=None, help="cpu, cuda, cuda:1 ... (default: cuda when present)"
    )
    g.add_argument("--batch-size", type=int, default=None, help="model batch size")
    g.add_argument(
        "--cache", dest="cache_dir", default=None, help="folder of an on-disk score cache"
    )


def parse_vocab(value):
    if value is None or value == "tokenizer":
        return value
    if value.isdigit():
        return int(value)
    from ..io.readers import read_input

    return read_input(value, "txt").items


def run(args) -> int:
    from ..api import score
    from ..io.readers import read_input
    from ..report.tables import scores_table, scores_to_json

    data = read_input(args.input, args.format)
    options = {
        "tokenizer": args.tokenizer,
        "lowercase": args.lowercase,
        "vocab": parse_vocab(args.vocab),
        "nli_model": args.nli_model,
        "embedding_model": args.embedding_model,
        "device": args.device,
        "batch_size": args.batch_size,
        "cache_dir": args.cache_dir,
        "aligner": args.aligner,
        "reduction": args.reduction,
        "progress": True,
    }
    if any("reference_groups" in r for r in data.records):  # for metrics that take them (LSDSCC)
        options["reference_groups"] = [r.get("reference_groups") for r in data.records]
    if any("references" in r for r in data.records):  # for the multi-reference metrics (ref-*)
        options["references"] = [r.get("references") for r in data.records]
    scores = score(data.items, args.metrics, **options)
    meta = {"input": args.input, "setting": data.setting, "items": len(data.items)}
    if args.json:
        print(scores_to_json(scores, meta, with_items=args.items))
    else:
        title = (
            f"{args.input}: {len(data.items)} {'sets' if data.setting == 'sets' else 'responses'}"
        )
        print(scores_table(scores, title))
    return 0
