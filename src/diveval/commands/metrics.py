"""`diveval metrics`: list the metric registry."""

from __future__ import annotations

from . import add_json_flag, print_json


def add_parser(sub):
    p = sub.add_parser(
        "metrics",
        help="list the available metrics",
        description="List every registered metric with its settings, options and description.",
        epilog="examples:\n  diveval metrics --json\n  diveval metrics --recommended",
    )
    p.add_argument(
        "--recommended",
        action="store_true",
        help="per kind of diversity (form: decTest, content: conTest), the measures that agree "
        "best with Tevet & Berant's labels, with the evidence (the agreement leaderboard)",
    )
    add_json_flag(p)
    return p


def option_flags(names) -> tuple[list[str], list[str]]:
    """(the flags of the options ``names``, the input fields among them): ``--judge``, ...; an
    option given per item (``references``) comes from the input file, not a flag."""
    from ..options import OPTION

    flags = [OPTION[n].flags[0] for n in names if OPTION[n].flags]
    fields = [n for n in names if not OPTION[n].flags and OPTION[n].per_item]
    return flags, fields


def run_recommended(args) -> int:
    from ..meta.studies.agreement import KINDS, load_leaderboard, recommend
    from ..report.tables import render_table

    board = load_leaderboard()
    picks = {kind: recommend(board, kind) for kind in KINDS}
    if args.json:
        print_json(picks)
        return 0
    blocks = []
    for kind, rows in picks.items():
        table = []
        for r in rows:
            ev = "; ".join(
                f"{e['task']} {e['spearman']:.2f} [{e['spearman_interval'][0]:.2f}, "
                f"{e['spearman_interval'][1]:.2f}] #{e['registry_rank']}"
                if e["spearman_interval"]
                else f"{e['task']} {e['spearman']:.2f}"
                for e in r["evidence"]
            )
            table.append(
                (
                    r["metric"],
                    r["family"],
                    f"{r['mean_spearman']:.2f}",
                    "yes" if r["supported"] else "no",
                    ev,
                )
            )
        blocks.append(
            render_table(
                f"{kind} diversity ({KINDS[kind]})",
                ["metric", "family", "mean ρ", "best", "ρ [95%] #rank among diveval's, per task"],
                table,
            )
        )
    blocks.append(
        "ρ: Spearman with the test's label; best: not beaten by another diveval metric (paired "
        "bootstrap) on most tasks. Leaderboard: docs/agreement.md (benchmarks/agreement.py)."
    )
    if board.get("max_sets"):
        blocks.append(f"(measured on the first {board['max_sets']} sets of each file)")
    print("\n".join(blocks))
    return 0


def run(args) -> int:
    from ..registry import all_metrics
    from ..report.tables import render_table

    if getattr(args, "recommended", False):
        return run_recommended(args)
    metrics = all_metrics()
    if args.json:
        print_json(
            {
                n: {
                    "description": m.description,
                    "settings": list(m.settings),
                    "extra": m.extra,
                    "default": m.default,
                    "direction": m.direction,
                    "order_dependent": m.order_dependent,
                    "options": option_flags(m.options)[0],
                    "input_fields": option_flags(m.options)[1],
                }
                for n, m in metrics.items()
            }
        )
        return 0
    rows = []
    for n, m in metrics.items():
        flags, fields = option_flags(m.options)
        options = " ".join(flags + [f"{f} (input)" for f in fields]) or "-"
        rows.append((n, "/".join(m.settings), m.direction, m.extra or "-", options, m.description))
    columns = ["name", "settings", "better", "extra", "options", "description"]
    print(render_table("diveval metrics (better: which value is more diverse)", columns, rows))
    return 0
