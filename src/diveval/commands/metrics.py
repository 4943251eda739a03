"""`diveval metrics`: list the metric registry."""

from __future__ import annotations

import json

from . import add_json_flag, help_formatter


def add_parser(sub):
    p = sub.add_parser(
        "metrics",
        help="list the available metrics",
        description="List every registered metric with its settings, options and description.",
        epilog="example:\n  diveval metrics --json",
        formatter_class=help_formatter(),
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


def run(args) -> int:
    from ..registry import all_metrics
    from ..report.tables import render_table

    metrics = all_metrics()
    if args.json:
        print(
            json.dumps(
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
                },
                indent=2,
            )
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
