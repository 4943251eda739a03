"""The study's result: human scores per system and per set, next to diveval's metrics of the same
sets, as rows for `diveval correlate --human human`; and the rater filter's verdict per rater, the
rows `diveval report` shows of the filter.

Bookkeeping columns start with "_" (``_ratings``, ``_sets``, ``_subset``): `correlate` skips such
columns, so every other numeric column is a metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from ..scale.local import score
from .aggregate import Aggregate, RaterCheck, aggregate
from .store import Store
from .study import Study

DEFAULT_METRICS = ("distinct-1", "distinct-2", "ead")


def export_rows(
    study: Study,
    metrics: Sequence[str] = DEFAULT_METRICS,
    min_pearson: float = 0.65,
    min_raters: int | None = None,
    filter: str = "one-pass",
    **options: Any,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Aggregate]:
    """(system rows, set rows, the aggregation) of a study's submitted ratings."""
    ratings = Store(study.db_path).submitted_ratings()
    needed = study.raters if min_raters is None else min_raters
    agg = aggregate(ratings, min_pearson, needed, filter=filter)
    if not agg.sets:
        raise InputError(
            "no subset has enough ratings to export yet (" + "; ".join(agg.notes[:3]) + ")",
            str(study.folder),
        )
    sets = [study.page_sets(int(s.page))[s.system] for s in agg.sets]
    per_set: dict[str, np.ndarray] = {}
    for name, result in score(sets, metrics=list(metrics), **options).items():
        if result.items is None or len(result.items) != len(sets):
            raise InputError(f"metric {name!r} has no per-set values to export")
        per_set[name] = np.asarray(result.items, dtype=float)

    set_rows = []
    for i, s in enumerate(agg.sets):
        row: dict[str, Any] = {"system": s.system, "_subset": int(s.page), "human": s.human}
        row["_ratings"] = s.n_ratings
        row.update({name: float(values[i]) for name, values in per_set.items()})
        set_rows.append(row)
    system_rows = []
    for sys_score in agg.systems:
        mine = [i for i, s in enumerate(agg.sets) if s.system == sys_score.system]
        row = {"system": sys_score.system, "human": sys_score.human}
        row["_sets"], row["_ratings"] = sys_score.n_sets, sys_score.n_ratings
        # the sets setting's value: the mean of the per-set values
        row.update({name: float(values[mine].mean()) for name, values in per_set.items()})
        system_rows.append(row)
    return system_rows, set_rows, agg


def rater_row(check: RaterCheck) -> dict[str, Any]:
    """One rater's verdict as a CSV row (Pearson empty where the filter could not compute it)."""
    return {
        "rater": check.rater,
        "pearson": "" if check.pearson is None else float(check.pearson),
        "n_sets": check.n_sets,
        "kept": check.kept,
        "reason": check.reason,
    }


def rows_to_csv(rows: list[dict[str, Any]]) -> str:
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
    return out.getvalue()
