"""Inputs read by Ray Data on the cluster (the formats whose ``io.formats`` entry says how Ray
reads them: JSON lines, Parquet, a Hugging Face ``datasets`` folder), for
``diveval.score(dataset, engine="ray")``: the driver never holds the whole input.

:func:`read_dataset` gives a Ray Dataset of one column, ``responses`` (a list of strings per row:
the sets setting) or ``text`` (a string per row: the corpus setting), chosen as the local readers
choose (``--field``, else ``responses``, ``response`` or ``text``). Rows are checked where Ray
reads them: a row whose value is not a string (or a list of strings) is an InputError naming the
file and what the value is.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import InputError
from ..io.formats import for_ray
from ..results import CORPUS, SETS
from .ray_session import start_ray

#: the local readers' defaults (``io.readers.TEXT_FIELDS``), in order, then Ray's text column
FIELDS = ("responses", "response", "generations", "text")


def read_dataset(path: str, field: str | None = None, address: str | None = None) -> Any:
    """A one-column Ray Dataset (``responses`` or ``text``) of the file or folder at ``path``."""
    if not os.path.exists(path):
        raise InputError("no such file or folder", path)
    fmt = for_ray(path)  # refused before Ray starts
    ray = start_ray(address)
    assert fmt.ray is not None
    ds = fmt.ray(ray, path)
    schema = ds.schema()
    names = list(schema.names)
    chosen = field or next((f for f in FIELDS if f in names), None)
    if chosen is None or chosen not in names:
        want = f"no field {field!r}" if field else f"none of the fields {', '.join(FIELDS)}"
        raise InputError(f"{want}; its fields: {', '.join(names)} (use --field)", path)
    ds = ds.select_columns([chosen])
    first = ds.take(1)  # the first row decides the setting, as the local readers do
    if not first:
        raise InputError("no rows", path)
    setting = CORPUS if isinstance(first[0][chosen], str) else SETS
    column = "responses" if setting == SETS else "text"
    if chosen != column:
        ds = ds.rename_columns({chosen: column})
    return ds.map_batches(
        _check_batch, fn_kwargs={"column": column, "path": path}, batch_format="numpy"
    )


def dataset_setting(ds: Any) -> str:
    """SETS for a ``responses`` column, CORPUS for a ``text`` column."""
    names = list(ds.schema().names)
    if names == ["responses"]:
        return SETS
    if names == ["text"]:
        return CORPUS
    raise InputError(
        f"a Ray Dataset for diveval has one column, 'responses' or 'text' (read it with "
        f"diveval.scale.read_dataset); this one has {', '.join(names)}"
    )


def _check_batch(batch: dict, column: str, path: str) -> dict:
    for value in batch[column]:
        if column == "text":
            ok = isinstance(value, str)
        else:
            ok = value is not None and all(isinstance(v, str) for v in value)
        if not ok:
            what = "a string" if column == "text" else "a list of strings"
            raise InputError(f"a row's {column} is {type(value).__name__}, not {what}", path)
    return batch
