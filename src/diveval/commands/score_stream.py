"""`diveval score CORPUS.txt --stream-memory SIZE`: the metrics with a one-pass state over a
text corpus read as a stream, in bounded memory (``scale.streaming``)."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from . import print_warnings
from .options import metric_options
from .score_modes import Mode, mergeable_defaults

MODE = Mode("--stream-memory", ("memory", "approx"), frozenset())


def run(args: Any) -> int:
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
    names = mergeable_defaults(args.metrics, "corpus", streamable, "no one-pass state")
    scores = stream_score(
        args.input,
        names,
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
