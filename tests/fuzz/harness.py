"""The fuzz harness: feed one file to a reader or a CLI command and check the house rule.

Every input either scores or raises ``InputError`` (exit status 2 and one line on stderr); never
another exception, a traceback, a hang, NaN or text that cannot be written as UTF-8 in the output.
``Target`` pairs a name with a check; the tests (``test_fuzz.py``) and the benchmark
(``benchmarks/reliability.py``) drive the same targets.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import tempfile
from dataclasses import dataclass
from typing import Callable

from diveval.errors import InputError

#: Seconds one input may take before it counts as a hang.
HANG_S = 20.0


class Hang(Exception):
    """An input took longer than HANG_S."""


@contextlib.contextmanager
def time_limit(seconds: float):
    if not hasattr(signal, "setitimer"):  # pragma: no cover - not on this platform
        yield
        return

    def alarm(signum, frame):
        raise Hang(f"no result after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _no_constant(name: str):
    raise AssertionError(f"{name} in the JSON output")


def check_output(out: str) -> None:
    """JSON output: strict JSON (no NaN/Infinity) that can be written as UTF-8."""
    out.encode("utf-8")  # a lone surrogate would crash the real stdout
    json.loads(out, parse_constant=_no_constant)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``diveval ARGV`` in this process: (status, stdout, stderr)."""
    from diveval.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with time_limit(HANG_S):
            try:
                status = main([*argv, "--quiet"])
            except SystemExit as exc:  # argparse
                status = exc.code if isinstance(exc.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def check_cli(argv: list[str], json_out: bool = True) -> int:
    """Run the CLI and assert the house rule; the exit status (0 or 2)."""
    status, out, err = run_cli(argv)
    assert "Traceback" not in err, err
    assert status in (0, 2), f"exit status {status}: {err[-2000:]}"
    lines = err.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    errors = [ln for ln in lines if ln.startswith("diveval") and ": error:" in ln]
    if status == 2:
        assert len(errors) == 1 and lines[-1] == errors[0], f"not one error line: {err!r}"
        assert all(ln == errors[0] or "skipped" in ln for ln in lines), f"extra lines: {err!r}"
        err.encode("utf-8")
    else:
        assert not errors, err
        if json_out:
            check_output(out)
    return status


def check_reader(read: Callable[[], object]) -> bool:
    """A reader either returns or raises InputError (one line); True when it returned."""
    with time_limit(HANG_S):
        try:
            read()
        except InputError as exc:
            assert "\n" not in str(exc), f"a multi-line message: {str(exc)!r}"
            return False
    return True


@dataclass(frozen=True)
class Target:
    """One fuzz target: files of ``suffixes`` written to a scratch folder, then ``check``."""

    name: str
    suffixes: tuple[str, ...]
    check: Callable[[list[str]], object]


def _score(paths: list[str]) -> object:
    argv = ["score", paths[0], "--json", "--metric", "distinct-2", "--metric", "ead"]
    return check_cli([*argv, "--metric", "self-bleu", "--metric", "averaged-distinct"])


def _read_all(paths: list[str]) -> object:
    from diveval.io.readers import read_input, read_records, read_responses

    return (
        check_reader(lambda: read_input(paths[0])),
        check_reader(lambda: read_records(paths[0]) if not paths[0].endswith(".txt") else None),
        check_reader(lambda: read_responses(paths[0])),
    )


def _correlate(paths: list[str]) -> object:
    return check_cli(["correlate", paths[0], "--human", "human", "--json", "--resamples", "20"])


def _meta(paths: list[str]) -> object:
    argv = ["meta", "tevet", paths[0], "--metric", "distinct-2", "--metric", "metric_x"]
    return check_cli([*argv, "--json", "--resamples", "10"])


def _lsdscc(paths: list[str]) -> object:
    from diveval.io.lsdscc import read_lsdscc

    check_reader(lambda: read_lsdscc(paths[0], paths[1]))
    return check_cli(["lsdscc", paths[0], paths[1], "--json"])


TARGETS = {
    t.name: t
    for t in [
        Target("read-txt", ("txt",), _read_all),
        Target("read-jsonl", ("jsonl",), _read_all),
        Target("read-json", ("json",), _read_all),
        Target("read-csv", ("csv",), _read_all),
        Target("read-tsv", ("tsv",), _read_all),
        Target("score-txt", ("txt",), _score),
        Target("score-jsonl", ("jsonl",), _score),
        Target("score-json", ("json",), _score),
        Target("score-csv", ("csv",), _score),
        Target("score-tsv", ("tsv",), _score),
        Target("correlate-csv", ("csv",), _correlate),
        Target("correlate-jsonl", ("jsonl",), _correlate),
        Target("meta-csv", ("csv",), _meta),
        Target("lsdscc", ("json", "txt"), _lsdscc),
    ]
}

_SCRATCH = tempfile.mkdtemp(prefix="diveval-fuzz-")


def write_inputs(target: Target, contents: list[bytes]) -> list[str]:
    """Write one file per suffix of ``target`` (same names each time: no disk growth)."""
    paths = []
    for i, (suffix, data) in enumerate(zip(target.suffixes, contents)):
        path = os.path.join(_SCRATCH, f"{target.name}-{i}.{suffix}")
        with open(path, "wb") as fh:
            fh.write(data)
        paths.append(path)
    return paths


def run_target(target: Target, contents: list[bytes]) -> object:
    return target.check(write_inputs(target, contents))
