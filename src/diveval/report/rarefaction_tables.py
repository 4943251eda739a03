"""The printed table of ``diveval rarefy`` (its --json is the curves' dicts)."""

from __future__ import annotations

import math


def _number(x: float, width: int = 0) -> str:
    """x to 3 decimals, or 'undefined' (a nan: see the warnings) in the same width."""
    return f"{x:{width}.3f}" if math.isfinite(x) else f"{'undefined':>{width}s}"


def rarefaction_table(results: dict, at_k: int | None) -> str:
    """``diveval rarefy``'s table: a row per system and measure, then the signatures."""
    lines = []
    where = f"at k = {at_k}" if at_k else "asymptote"
    lines.append(f"{'system':14s} {'measure':18s} {'observed':>9s} {where:>10s}  interval (95%)")
    for group, rs in results.items():
        for r in rs:
            low, high = r.interval
            lines.append(
                f"{'all' if group is None else str(group):14s} {r.name:18s} "
                f"{r.curve.empirical:9.3f} {_number(r.value, 10)}  "
                f"[{_number(low)}, {_number(high)}]"
            )
    signatures = dict.fromkeys(r.signature for rs in results.values() for r in rs)
    for sig in signatures:
        lines.append(f"signature: {sig}")
    return "\n".join(lines)
