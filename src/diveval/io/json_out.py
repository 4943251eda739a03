"""JSON text of everything diveval writes or prints: a negative zero is written 0.0.

-0.0 is what rounding a tiny negative number (a per-set value rounded to 3 decimals) or negating a
zero (a diversity defined as minus a similarity) leaves; it equals 0.0 but reads as a sign, and a
diff of two outputs would show it. One function, so no output forgets it.
"""

from __future__ import annotations

import json
from typing import Any


def without_negative_zero(obj: Any) -> Any:
    """``obj`` with every -0.0 (in dicts, lists, tuples, numpy arrays and scalars) made 0.0;
    numpy values become Python ones, as ``json`` needs."""
    if isinstance(obj, float):
        return 0.0 if obj == 0.0 else obj
    if isinstance(obj, dict):
        return {k: without_negative_zero(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [without_negative_zero(v) for v in obj]
    if type(obj).__module__ == "numpy":  # numpy without importing it: arrays and scalars
        return without_negative_zero(obj.tolist()) if hasattr(obj, "tolist") else obj
    return obj


def dumps(obj: Any, **kwargs: Any) -> str:
    """``json.dumps`` of ``obj`` without negative zeros (same keyword arguments)."""
    return json.dumps(without_negative_zero(obj), **kwargs)
