"""`diveval nli-eval`: accuracy and per-class F1 of an NLI model on the held-out NLI sets."""

from __future__ import annotations

from pathlib import Path

from . import add_json_flag, add_online_flag, print_json
from .options import add_option_flags

EPILOG = """examples:
  diveval nli-eval                                   the NLI model that ships with diveval
  diveval nli-eval --model roberta-large-mnli        any Hugging Face NLI model (name or folder)
  diveval nli-eval --model my_model.onnx --data ../shared/data/nli --limit 500 --json

The held-out slices are the ones the shipped model never saw in training (diveval.models.nli_data):
SNLI and MultiNLI slices, dialogue-nli-gu test, ANLI R1 dev, SICK test, XNLI-en dev.
"""


def add_parser(sub):
    p = sub.add_parser(
        "nli-eval",
        help="evaluate an NLI model on held-out NLI sets",
        description="Accuracy, per-class F1 and the majority-class baseline of an NLI "
        "model on the held-out sets of the labelled NLI data.",
        epilog=EPILOG,
    )
    p.add_argument("--model", default=None, help="model name or path (default: the shipped model)")
    p.add_argument(
        "--data",
        default=None,
        help="the folder of labelled NLI pairs (default: $DIVEVAL_NLI_DATA, else shared/data/nli "
        "beside the diveval checkout)",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N pairs of each set")
    add_option_flags(p, "batch_size")
    add_online_flag(p)
    add_json_flag(p)
    return p


def run(args) -> int:
    from ..errors import InputError
    from ..models.nli_data import EVAL_SET_NAMES, default_data_dir
    from ..models.nli_eval import evaluate_nli, format_nli_report, load_nli_model
    from ..progress import track

    data_dir = args.data or default_data_dir()
    if data_dir is None:
        raise InputError(
            "no NLI data folder found (shared/data/nli beside the diveval checkout or the "
            "working directory): give --data FOLDER or set DIVEVAL_NLI_DATA"
        )
    if not Path(data_dir).is_dir():  # before the model loads: a typo should not wait for it
        raise InputError(f"NLI data folder {str(data_dir)!r}: no such folder")
    kwargs = {"batch_size": args.batch_size} if args.batch_size else {}
    model = load_nli_model(args.model, **kwargs)
    # evaluate_nli calls progress(set, n) before each set: step a bar over the set names with it.
    bar = track(EVAL_SET_NAMES, "NLI held-out sets", total=len(EVAL_SET_NAMES))
    result = evaluate_nli(
        model, data_dir, limit=args.limit, progress=lambda name, n: next(bar, None)
    )
    if args.json:
        print_json(result)
    else:
        print(format_nli_report(result))
    return 0
