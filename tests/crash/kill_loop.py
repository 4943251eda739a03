"""SIGKILL a long diveval command at random points and resume it: the harness of the crash tests
and of ``benchmarks/reliability.py``.

``kill_loop`` first runs the command once, uninterrupted, for the reference output; then, into a
fresh output, starts it, kills it (SIGKILL, no chance to clean up) after a random delay, checks the
file it left (every complete line is the reference's line at that place: nothing duplicated, lost
or garbled; only the last line may be cut), and starts it again, until it finishes; and again from
scratch until ``kills`` kills have landed. The finished output must equal the reference byte for
byte.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class KillReport:
    kills: int = 0
    runs: int = 0
    episodes: int = 0
    cut_lines_seen: int = 0  # kills that left a last line cut short (the next run repairs it)
    lines_lost: int = 0  # reference lines missing from a finished output
    duplicates: int = 0
    mismatches: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    return env


def _command(argv: list[str]) -> list[str]:
    return [sys.executable, "-m", "diveval", *argv, "--quiet"]


def run_once(argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        _command(argv), env=_env(), capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise AssertionError(f"diveval {' '.join(argv)} failed: {proc.stderr[-2000:]}")
    return proc


def _timed_reference(argv: list[str], out: Path) -> tuple[float, float]:
    """Run once uninterrupted: (seconds to the first byte of output, seconds in all)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        _command(argv), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    first = None
    while proc.poll() is None:
        if first is None and out.exists() and out.stat().st_size:
            first = time.perf_counter() - start
        time.sleep(0.005)
    full = time.perf_counter() - start
    if proc.returncode != 0:
        raise AssertionError(f"diveval {' '.join(argv)} failed: {proc.stderr.read().decode()}")
    return (first if first is not None else 0.8 * full), full


def check_partial(data: bytes, reference: bytes, report: KillReport) -> None:
    """A file left by a kill: a prefix of the reference's lines, the last maybe cut short."""
    ref_lines = reference.split(b"\n")
    lines = data.split(b"\n")
    complete, last = lines[:-1], lines[-1]
    if complete != ref_lines[: len(complete)]:
        seen = set()
        report.duplicates += sum(1 for ln in complete if ln in seen or seen.add(ln))  # type: ignore[func-returns-value]
        report.mismatches.append(f"complete lines differ from the reference ({len(complete)})")
    if last:
        report.cut_lines_seen += 1
        if not ref_lines[len(complete)].startswith(last):
            report.mismatches.append("a cut last line that is not a prefix of the reference's")


def kill_loop(
    argv_for, out: Path, kills: int = 20, seed: int = 0, max_delay: float | None = None
) -> KillReport:
    """``argv_for(out_path)`` gives the command's arguments; see the module docstring."""
    rng = random.Random(seed)
    report = KillReport()
    reference_path = out.with_name(out.stem + ".reference" + out.suffix)
    first, full = _timed_reference(argv_for(reference_path), reference_path)
    reference = reference_path.read_bytes()
    # Kills land from a little before the first byte is written (start-up is most of a short
    # run and tells nothing) to the end of the run.
    delay_min, delay_max = 0.8 * first, max_delay or full
    began = time.perf_counter()
    while report.kills < kills:
        report.episodes += 1
        if out.exists():
            out.unlink()
        attempt = 0
        while True:
            report.runs += 1
            proc = subprocess.Popen(
                _command(argv_for(out)),
                env=_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            # Once enough kills landed, the episode runs to its end; before, later tries wait
            # longer, so a run slowed down by a busy machine still ends.
            stretch = 1.25**attempt
            attempt += 1
            wait = None if report.kills >= kills else rng.uniform(delay_min, delay_max) * stretch
            try:
                proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                report.kills += 1
                if out.exists():
                    check_partial(out.read_bytes(), reference, report)
                continue
            _, err = proc.communicate()
            if proc.returncode != 0:
                raise AssertionError(f"a resumed run failed: {err.decode()[-2000:]}")
            break
        final = out.read_bytes()
        if final != reference:
            got, want = final.split(b"\n"), reference.split(b"\n")
            report.lines_lost += sum(1 for ln in want if ln not in set(got))
            report.duplicates += len(got) - len(set(got))
            report.mismatches.append("the finished output differs from the uninterrupted run")
    report.seconds = time.perf_counter() - began
    return report
