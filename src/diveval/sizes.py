"""Memory sizes as people write them (``2G``, ``500M``, ``1.5GiB``, ``1048576``) and back.

One reader for every option that takes a size (``--memory``, ``--memory-budget``), so that they
accept the same spellings. Units are binary (K = 1024 bytes, as ``free -h`` and ``ulimit`` count);
``B`` and the ``i`` of ``GiB`` are optional, case is ignored.
"""

from __future__ import annotations

import numbers
import re
from typing import Union

from .errors import InputError

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", re.IGNORECASE)


def parse_size(text: Union[str, int], flag: str = "--memory-budget") -> int:
    """``"2G"``, ``"500M"``, ``"64K"``, ``"1048576"`` or an int -> bytes (> 0); ``flag`` names
    the option in the message when the text is not a size."""
    if isinstance(text, bool):
        raise InputError(f"{flag} takes a size such as 2G or 500M, got {text!r}")
    if isinstance(text, numbers.Integral):  # numpy integers too
        value = int(text)
    else:
        m = _SIZE.fullmatch(str(text))
        if not m:
            raise InputError(f"{flag} takes a size such as 2G or 500M, got {text!r}")
        value = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if value <= 0:
        raise InputError(f"{flag} must be a positive size, got {text!r}")
    return value


def size_text(n_bytes: float) -> str:
    """``"1.5 GiB"``, ``"12.0 MiB"``, ``"3.2 KiB"`` or ``"512 B"``."""
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n_bytes >= div:
            return f"{n_bytes / div:.1f} {unit}"
    return f"{int(n_bytes)} B"
