"""Writers that never leave a half-written file: write to a temporary file, then rename."""

from __future__ import annotations

import os
import stat
import tempfile
import threading


def write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".diveval-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        # mkstemp makes the file 0600; the renamed file gets the mode open() would have given it
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


_umask_lock = threading.Lock()


def _mode_for(path: str) -> int:
    """The mode a plain ``open(path, "w")`` leaves: an existing file's own, else 0666 less the
    umask."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        pass
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux says it without changing it (no window where another thread's files differ)
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _umask_lock:
        umask = os.umask(0o022)
        os.umask(umask)
    return umask
