"""Peak memory and time of the default ``diveval score`` on a large corpus, this tree against an
earlier commit, and the two JSON outputs compared byte for byte.

The corpus: ``--responses`` lines (default 1M, about 12M tokens) of 2-22 words drawn from a
Zipf law over 50k words (seed 0), written once to a temporary file. Each run is
``python -m diveval score FILE --json`` in a process of its own: its wall time and its peak RSS
(``ru_maxrss`` of the child, the whole process). The two code paths alternate for ``--rounds``
rounds (the machine's load then weighs on both alike) and the best time of each is printed, with
the ratio. The baseline is the source of ``--baseline`` (default 9b6636f, before the memory work:
1.53-1.59 GB on this 2-core machine) taken with ``git archive`` into a temporary folder.

    python benchmarks/score_memory.py [--responses 1000000] [--rounds 2] [--baseline REV]

Target: peak below 1 GB, time not above the baseline's, identical JSON. Measured on the shared
2-core development machine (heavily loaded by other users, so the times are long and noisy),
``python benchmarks/score_memory.py --rounds 1``: baseline 144.9 s, peak 1553 MiB; this tree
114.4 s, peak 781 MiB (time 0.79x, peak 0.50x); JSON identical.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from _baseline import baseline_source  # noqa: E402


def write_corpus(path: str, responses: int) -> None:
    from _corpus import zipf_sentences

    step = 250_000
    with open(path, "w", encoding="utf-8") as fh:
        for i, start in enumerate(range(0, responses, step)):
            n = min(step, responses - start)
            lines = zipf_sentences(n_sentences=n, vocab=50000, min_len=2, max_len=22, seed=i)
            fh.write("\n".join(lines) + "\n")


def run(src: str, corpus: str, out: str) -> tuple[float, float]:
    """(seconds, peak RSS in MiB) of one ``diveval score`` in a fresh process."""
    code = (
        "import resource, sys\n"
        "from diveval.cli import main\n"
        "rc = main(sys.argv[1:])\n"
        "sys.stderr.write('maxrss=%d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
        "sys.exit(rc)"
    )
    env = dict(os.environ, PYTHONPATH=src)
    t0 = time.perf_counter()
    with open(out, "w") as fh:
        proc = subprocess.run(
            [sys.executable, "-c", code, "score", corpus, "--json", "--quiet"],
            env=env,
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
        )
    seconds = time.perf_counter() - t0
    line = [x for x in proc.stderr.splitlines() if x.startswith("maxrss=")][-1]
    return seconds, int(line.split("=")[1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--responses", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--baseline", default="9b6636f", help="git revision to compare with")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.txt")
        write_corpus(corpus, args.responses)
        paths = {"baseline": baseline_source(args.baseline, tmp), "this tree": str(ROOT / "src")}
        best: dict[str, tuple[float, float]] = {}
        outputs = {}
        for r in range(args.rounds):
            for name, src in paths.items():
                out = os.path.join(tmp, f"{name.replace(' ', '_')}.json")
                seconds, peak = run(src, corpus, out)
                print(f"round {r + 1}  {name:9s}  {seconds:6.1f} s  peak {peak:7.0f} MiB")
                old = best.get(name, (float("inf"), 0.0))
                best[name] = (min(old[0], seconds), max(old[1], peak))
                outputs[name] = Path(out).read_bytes()
        (t0, m0), (t1, m1) = best["baseline"], best["this tree"]
        print(f"\n{args.responses:,} responses, default metrics, best of {args.rounds}:")
        print(f"  baseline ({args.baseline}): {t0:6.1f} s  peak {m0:6.0f} MiB")
        print(f"  this tree:          {t1:6.1f} s  peak {m1:6.0f} MiB")
        print(f"  time ratio {t1 / t0:.2f}x, peak ratio {m1 / m0:.2f}x")
        same = outputs["baseline"] == outputs["this tree"]
        print(f"  JSON outputs identical: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
