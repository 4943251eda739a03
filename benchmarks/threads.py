"""Model work on a busy machine: diveval's default threads against the old behaviour (every
backend left to its own thread pools), with and without a competing CPU-bound process.

The workload (``--path``): ``nli`` scores ``--sets`` sets of 5 generated responses with
``nli-baseline`` (the shipped onnxruntime model, 20 ordered pairs per set); ``smollm2`` samples
``--prompts`` prompts with ``diveval sample --model smollm2 --k 3 --max-tokens 32`` (torch).
Each run is a fresh ``python -m diveval`` process. "old" is the source of ``--baseline`` (default
9b6636f, before ``--threads``) taken with ``git archive``; "new" is this tree with its default
(no ``--threads``, no ``$DIVEVAL_THREADS``). "busy" runs ``--burners`` processes (default 1)
that spin on the CPU for the whole run and are stopped after it (bounded by ``--burn-limit``
seconds in any case). The four runs rotate over ``--rounds`` rounds; the best time of each is
printed with the ratios, and the outputs of old and new are compared.

    python benchmarks/threads.py [--path nli|smollm2] [--sets 150] [--rounds 1] [--burners 1]

Measured on the shared 2-core development machine (load average 8-18 from other users, so
"idle" is busy too), ``python benchmarks/threads.py --path smollm2 --prompts 2``:
idle: old 317.5 s, new 57.5 s (0.18x); with one burner: old 445.9 s, new 32.7 s (0.07x).
``python benchmarks/threads.py --sets 40`` (nli): idle old 16.6 s, new 12.5 s; busy old 23.4 s,
new 21.8 s; scores identical. (The issue's figures: 80-93 s for ``sample --model smollm2 --k 3``
beside a busy process, 15 s with one thread.)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from _baseline import baseline_source  # noqa: E402

WORDS = (
    "the a cat dog sat ran on under mat tree red blue big small sun sea apple pear hello friend "
    "quick slow bright dark green happy sad day night bird fish jumps sings"
).split()


def write_inputs(folder: str, sets: int, prompts: int) -> tuple[str, str]:
    rng = random.Random(0)
    sets_path = os.path.join(folder, "sets.jsonl")
    with open(sets_path, "w") as fh:
        for _ in range(sets):
            responses = [" ".join(rng.choices(WORDS, k=rng.randint(4, 12))) for _ in range(5)]
            fh.write(json.dumps({"responses": responses}) + "\n")
    prompts_path = os.path.join(folder, "prompts.txt")
    with open(prompts_path, "w") as fh:
        for i in range(prompts):
            fh.write(f"Name one thing you might see on a {rng.choice(WORDS)} day (#{i}).\n")
    return sets_path, prompts_path


def burner(seconds: float) -> subprocess.Popen:
    """A process that keeps one core busy for at most ``seconds``."""
    code = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end:\n    pass\n"
    return subprocess.Popen([sys.executable, "-c", code])


def run_once(src: str, argv: list[str], busy: int, limit: float) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DIVEVAL_THREADS", "OMP_NUM_THREADS")}
    env.update(PYTHONPATH=src, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    burners = [burner(limit) for _ in range(busy)]
    try:
        time.sleep(1.0 if busy else 0.0)  # the load average sees the neighbour, as a user's would
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "diveval", *argv],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=limit,
        )
        return time.perf_counter() - t0, out.stdout
    finally:
        for b in burners:  # our own children, stopped by their handle
            b.kill()
            b.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--path", choices=("nli", "smollm2"), default="nli")
    ap.add_argument("--sets", type=int, default=150, help="nli: sets of 5 responses")
    ap.add_argument("--prompts", type=int, default=3, help="smollm2: prompts (k = 3 each)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--burners", type=int, default=1, help="competing busy processes")
    ap.add_argument("--burn-limit", type=float, default=600.0, help="seconds a burner may run")
    ap.add_argument("--baseline", default="9b6636f", help="git revision of the old behaviour")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sets_path, prompts_path = write_inputs(tmp, args.sets, args.prompts)
        sources = {"old": baseline_source(args.baseline, tmp), "new": str(ROOT / "src")}

        def argv(name: str) -> list[str]:
            if args.path == "nli":
                return ["score", sets_path, "-m", "nli-baseline", "--json", "--quiet"]
            out = os.path.join(tmp, f"{name}-{time.monotonic_ns()}.jsonl")
            return [
                "sample", prompts_path, "--model", "smollm2", "--k", "3", "--max-tokens", "32",
                "--out", out, "--json", "--quiet",
            ]  # fmt: skip

        best: dict[tuple[str, str], float] = {}
        outputs: dict[str, str] = {}
        for r in range(args.rounds):
            for load in ("idle", "busy"):
                for name, src in sources.items():
                    busy = args.burners if load == "busy" else 0
                    seconds, out = run_once(src, argv(name), busy, args.burn_limit)
                    print(f"round {r + 1}  {load:4s}  {name}  {seconds:7.1f} s", flush=True)
                    key = (load, name)
                    best[key] = min(best.get(key, float("inf")), seconds)
                    if args.path == "nli":
                        outputs[name] = out
        print(
            f"\n{args.path}, best of {args.rounds} (cores usable: {len(os.sched_getaffinity(0))})"
        )
        for load in ("idle", "busy"):
            old, new = best[(load, "old")], best[(load, "new")]
            print(f"  {load}: old {old:7.1f} s   new {new:7.1f} s   new/old {new / old:.2f}x")
        print(
            f"  old busy/idle {best[('busy', 'old')] / best[('idle', 'old')]:.2f}x, "
            f"new busy/idle {best[('busy', 'new')] / best[('idle', 'new')]:.2f}x"
        )
        if outputs:
            same = outputs["old"] == outputs["new"]
            print(f"  scores identical: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
