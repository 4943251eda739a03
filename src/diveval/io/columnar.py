"""Columnar inputs as (row, record) pairs: Parquet files and Hugging Face ``datasets`` folders.

A ``datasets`` folder (what ``Dataset.save_to_disk`` writes: ``state.json`` and Arrow stream
files) is read with pyarrow directly, so reading one does not need the ``datasets`` package.
pyarrow is imported only here, when such an input is read (extra ``io``).
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator

from ..errors import InputError, MissingDependencyError


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise MissingDependencyError("reading Parquet and datasets folders", "io") from None
    return pyarrow


def is_datasets_folder(path: str) -> bool:
    return os.path.isdir(path) and (
        os.path.exists(os.path.join(path, "state.json"))
        or os.path.exists(os.path.join(path, "dataset_dict.json"))
    )


def _rows(table) -> Iterator[tuple[int, dict[str, Any]]]:
    yield from enumerate(table.to_pylist(), start=1)


def parquet_records(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    pa = _pyarrow()
    try:
        table = pa.parquet.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path) from None
    return _rows(table)


def datasets_records(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows of a folder written by ``datasets.Dataset.save_to_disk``."""
    return _rows(datasets_table(path))


def datasets_table(path: str) -> Any:
    """The pyarrow Table of a folder written by ``datasets.Dataset.save_to_disk`` (memory-mapped
    Arrow stream files)."""
    if os.path.exists(os.path.join(path, "dataset_dict.json")):
        with open(os.path.join(path, "dataset_dict.json"), encoding="utf-8") as fh:
            splits = json.load(fh).get("splits", [])
        raise InputError(
            f"a DatasetDict folder: give one split's folder ({', '.join(splits) or 'none listed'})",
            path,
        )
    pa = _pyarrow()
    try:
        with open(os.path.join(path, "state.json"), encoding="utf-8") as fh:
            files = [f["filename"] for f in json.load(fh)["_data_files"]]
        tables = []
        for name in files:
            with pa.memory_map(os.path.join(path, name)) as source:
                tables.append(pa.ipc.open_stream(source).read_all())
    except (OSError, KeyError, ValueError, pa.ArrowException) as exc:
        raise InputError(f"not a readable datasets folder ({exc})", path) from None
    if not tables:
        raise InputError("the datasets folder lists no data files", path)
    return pa.concat_tables(tables)
