"""`diveval merge SHARD...`: the run's scores from the files of `diveval score --shard I/N`."""

from __future__ import annotations

from . import add_json_flag, print_warnings

EPILOG = """examples:
  for i in 0 1 2 3; do diveval score big.jsonl --shard $i/4 --state out.$i.state; done
  diveval merge out.*.state
"""


def add_parser(sub):
    p = sub.add_parser(
        "merge",
        help="merge the shard files of a sharded score run",
        description="Join the per-set scores and merge the corpus states written by "
        "`diveval score --shard I/N --state FILE`: the same values and signatures as one run.",
        epilog=EPILOG,
    )
    p.add_argument("states", nargs="+", metavar="STATE", help="shard files, in any order")
    p.add_argument("--items", action="store_true", help="with --json: include per-item values")
    add_json_flag(p)
    return p


def run(args) -> int:
    from ..report.tables import counted, scores_table, scores_to_json
    from ..scale.shards import ShardResult, merge_shards

    shards = [ShardResult.load(path) for path in args.states]
    scores = merge_shards(shards)
    setting, n_items = shards[0].setting, shards[0].n_items
    meta = {"input": f"{len(shards)} shards", "setting": setting, "items": n_items}
    print_warnings({None: scores})  # the warnings a one-process run prints
    if args.json:
        print(scores_to_json(scores, meta, with_items=args.items))
    else:
        what = counted(n_items, "set" if setting == "sets" else "response")
        print(scores_table(scores, f"merged {counted(len(shards), 'shard')}: {what}"))
    return 0
