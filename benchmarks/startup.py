"""Start-up of the ``diveval`` command as a whole process, beside ``python -c pass``.

Three commands, each a fresh ``python -m diveval`` process: ``--version`` (building the parser
is all it does), ``score examples/responses.txt -m distinct-2`` (a small lexical run) and
``score ... --json``. "new" is this tree's ``src``; "old" is the source of ``--baseline``
(default: the parent of the commit that made the parser lazy) taken with ``git archive``;
``--baseline ''`` leaves it out. The runs rotate over ``--rounds`` rounds, so a load spike
from other users hits all of them alike; the medians are printed, in wall time and in CPU time
(user + system of the process, steadier on a shared machine), and as a multiple of
``python -c pass``: the part of the time that is diveval's own. The outputs of old and new are
compared byte for byte.

    python benchmarks/startup.py [--rounds 15] [--baseline REV]

Measured on the shared 2-core development machine (load average 7-17 from other users: the wall
times are noise there, the CPU times are not), ``--rounds 3``, CPU medians, old -> new:
``--version`` 0.629 -> 0.170 s (0.27x; ``python -c pass`` 0.022 s), ``score -m distinct-2``
0.802 -> 0.575 s (0.72x), with ``--json`` 0.600 -> 0.451 s (0.75x); outputs identical.

Then ``--version`` answered before any parser is built, one command's parser built alone, the Ray
engine and the semantic and reference families left unimported by a lexical run:
``--rounds 7 --baseline 182fabe`` on the same machine (load average about 5, a long benchmark run
sharing the 2 cores), CPU medians, old -> new: ``--version`` 0.100 -> 0.023 s (0.23x; ``python
-c pass`` 0.014 s), ``score -m distinct-2`` 0.331 -> 0.265 s (0.80x), with ``--json`` 0.305 ->
0.243 s (0.79x); outputs identical. Of the 0.25 s a lexical score still adds, numpy (which
Distinct-n and Score need) is about 0.075 s, registering the lexical family about 0.035 s and
rich (the table) about 0.016 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from _baseline import baseline_source  # noqa: E402

SAMPLE = str(ROOT / "examples" / "responses.txt")
COMMANDS = {
    "--version": ["--version"],
    "score -m distinct-2": ["score", SAMPLE, "-m", "distinct-2"],
    "score -m distinct-2 --json": ["score", SAMPLE, "-m", "distinct-2", "--json"],
}


def timed(argv: list[str], src: str | None) -> tuple[float, float, bytes]:
    """Wall and CPU seconds of one process, and its stdout (the runs are one at a time, so the
    growth of the children's usage is this one's)."""
    env = dict(os.environ, PYTHONPATH=src or "", COLUMNS="100")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise RuntimeError(f"{argv} exited with {proc.returncode}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--baseline", default="2f81778", help="commit of the old source ('': none)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"new": str(ROOT / "src")}
        if args.baseline:
            trees["old"] = baseline_source(args.baseline, tmp)
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        outputs: dict[tuple[str, str], bytes] = {}
        jobs = [("python -c pass", "", [sys.executable, "-c", "pass"], None)]
        for tree, src in trees.items():
            for name, argv in COMMANDS.items():
                jobs.append((name, tree, [sys.executable, "-m", "diveval", *argv], src))
        for i in range(args.rounds):
            print(f"round {i + 1} of {args.rounds}", file=sys.stderr, flush=True)
            for name, tree, argv, src in jobs:
                wall, cpu, out = timed(argv, src)
                runs.setdefault((name, tree), []).append((wall, cpu))
                outputs[name, tree] = out
    base_wall = statistics.median(w for w, _ in runs["python -c pass", ""])
    base_cpu = statistics.median(c for _, c in runs["python -c pass", ""])
    print(f"{args.rounds} rounds, medians; x: a multiple of `python -c pass`")
    print(f"{'':34} {'wall s':>8} {'x':>6} {'cpu s':>8} {'x':>6}")
    for (name, tree), times in runs.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        label = f"{name} ({tree})" if tree else name
        print(f"{label:34} {wall:8.3f} {wall / base_wall:6.1f} {cpu:8.3f} {cpu / base_cpu:6.1f}")
    if "old" in trees:
        for name in COMMANDS:
            new = [c for _, c in runs[name, "new"]]
            old = [c for _, c in runs[name, "old"]]
            same = (
                "same output" if outputs[name, "new"] == outputs[name, "old"] else "OUTPUT DIFFERS"
            )
            print(
                f"{name}: new/old cpu {statistics.median(new) / statistics.median(old):.2f}, "
                f"diveval's own (less python -c pass) {statistics.median(new) - base_cpu:.3f} s "
                f"vs {statistics.median(old) - base_cpu:.3f} s; {same}"
            )


if __name__ == "__main__":
    main()
