"""`diveval lsdscc GROUPS.json HYPS.txt`: MaxBLEU, MDS and PDS over the LSDSCC data format."""

from __future__ import annotations

from . import add_json_flag, print_json
from .options import add_option_flags, metric_options

EPILOG = """examples:
  diveval lsdscc test.group.json hyps.txt                 mean MaxBLEU, MDS, PDS over the queries
  diveval lsdscc test.group.json hyps.txt --alignment     also: each hypothesis -> its group
  diveval lsdscc test.group.json hyps.txt --queries test.queries.txt --aligner nltk-bleu --json

GROUPS.json is {query: {group_id: [reference, ...]}}; HYPS.txt has one line per query (in the
JSON's order) with the hypotheses separated by </s>.
"""


def add_parser(sub):
    p = sub.add_parser(
        "lsdscc",
        help="LSDSCC MaxBLEU / MDS / PDS against grouped references",
        description="Score hypothesis sets against human reference groups with the LSDSCC\n"
        "metrics (Xu et al., NAACL 2018): each hypothesis is aligned to its\n"
        "best-scoring group (the first on ties); MDS = share of groups covered,\n"
        "PDS = share of references in covered groups, MaxBLEU = mean best score.\n"
        "Values are means over queries.",
        epilog=EPILOG,
    )
    p.add_argument("groups", help="reference groups, JSON {query: {group_id: [references]}}")
    p.add_argument("hypotheses", help="one line per query, hypotheses separated by </s>")
    p.add_argument(
        "--queries",
        default=None,
        help="a file with one query per line; checked against the JSON's queries, in order",
    )
    p.add_argument("--eos", default="</s>", help="separator of hypotheses on a line")
    p.add_argument(
        "--alignment",
        action="store_true",
        help="show which group each hypothesis is aligned to (with --json: include it)",
    )
    add_option_flags(p, "aligner", "embedding_model", "device", "batch_size")
    add_json_flag(p)
    return p


def run(args) -> int:
    from ..io.lsdscc import read_lsdscc
    from ..reference.lsdscc import lsdscc_corpus
    from ..report.tables import render_table

    data = read_lsdscc(args.groups, args.hypotheses, args.queries, args.eos)
    options = metric_options(args, "aligner", "embedding_model", "device", "batch_size")
    res = lsdscc_corpus(
        data.hypothesis_sets,
        data.reference_groups,
        queries=data.queries,
        progress=True,
        **options,
    )
    # the paper's MaxBLEU is the best *aligner* score: name it after the aligner in use
    max_label = (
        "MaxBLEU" if res.aligner.startswith(("bleu", "nltk-bleu")) else f"Max({res.aligner})"
    )
    names = {"max_bleu": max_label, "mds": "MDS", "pds": "PDS"}
    if args.json:
        out = {
            "groups": args.groups,
            "hypotheses": args.hypotheses,
            "queries": len(data.queries),
            "aligner": res.aligner,
            "signature": res.signature,
            "scores": {
                "max_score": res.max_bleu,
                "max_score_aligner": res.aligner,
                "mds": res.mds,
                "pds": res.pds,
            },
        }
        if args.alignment:
            out["sets"] = [s.to_dict() for s in res.sets]
        print_json(out)
        return 0
    title = f"LSDSCC of {args.hypotheses}: {len(data.queries)} queries (mean over queries)"
    print(
        render_table(
            title,
            ["metric", "value", "signature"],
            [(label, getattr(res, k), res.signature) for k, label in names.items()],
        )
    )
    if args.alignment:
        rows = []
        for i, s in enumerate(res.sets):
            hyps = data.hypothesis_sets[i]
            for j, (h, gid, best) in enumerate(zip(hyps, s.alignment, s.best)):
                first = j == 0
                rows.append(
                    (
                        str(i) if first else "",
                        s.mds if first else "",
                        s.pds if first else "",
                        h,
                        gid,
                        best,
                    )
                )
        print(
            render_table(
                "alignment (query index, hypothesis -> group, aligner score)",
                ["query", "MDS", "PDS", "hypothesis", "group", "score"],
                rows,
            )
        )
    return 0
