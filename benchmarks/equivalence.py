"""Speed of equivalence-classes' judges on LLM answers: judged pairs per second, this tree beside an
earlier commit, in one run.

Data: one model's answers from ``../shared/data/novelty-bench`` (``generations``: 10 answers of
100-300 tokens per prompt), the first ``--prompts`` prompts. For each judge (the default NLI judge
with the shipped model, and NoveltyBench's unigram judge) and each source ("old": the package at
``--baseline``; "new": this tree), a fresh process loads the judge, then times
``partition_sets`` over all the sets (model loading is not timed). It prints

- judged: pairs the judge decided (each (representative, answer) pair once), beside all-pairs,
  the k(k-1)/2 pairs per set an eager design would judge;
- runs: for the NLI judge, the (premise, hypothesis) pairs the model ran (two per pair when both
  directions run);
- seconds, judged pairs per second and answers per second, and old/new time as a ratio;
- whether both sources found the same classes (they must: only the work differs).

    python benchmarks/equivalence.py [--model anthropic/claude-3-5-haiku@20241022] [--prompts 20]
        [--baseline a8d0331 | --old-src DIR] [--judges nli,unigram] [--threads 1] [--answers FILE]

Timings on a shared machine are noisy; the ratio of the two sources, run one after the other,
is the figure to read.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _baseline import baseline_source  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "novelty-bench" / "curated"

# Runs in a fresh process with PYTHONPATH at one source tree; prints one JSON line.
CHILD = r"""
import json, sys, time
from diveval.context import RunContext
from diveval.semantic.equivalence import partition_sets, run_judge

path, prompts, judge = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, encoding="utf-8") as f:
    sets = [json.loads(line)["generations"] for line in f if line.strip()][:prompts]
cached = run_judge(judge, RunContext(), {})  # loads the model: not timed
model = getattr(cached.judge, "model", None)
# one pair outside the data, so that no first-call cost (a session's first run, a lazy import)
# lands in the timed part; it is not counted
cached.judge_pairs([("A warm-up premise.", "A warm-up hypothesis.")])
judged, runs = cached.judged, getattr(model, "computed", 0)
start = time.perf_counter()
labels = partition_sets(sets, cached)
seconds = time.perf_counter() - start
print(json.dumps({
    "seconds": seconds,
    "judged": cached.judged - judged,
    "runs": None if model is None else model.computed - runs,
    "answers": sum(len(s) for s in sets),
    "all_pairs": sum(len(s) * (len(s) - 1) // 2 for s in sets),
    "labels": labels,
}))
"""


def run(src: str, path: Path, prompts: int, judge: str, threads: int) -> dict:
    env = {**os.environ, "PYTHONPATH": src, "HF_HUB_OFFLINE": "1", "DIVEVAL_THREADS": str(threads)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(prompts), judge],
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"{judge} at {src} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="anthropic/claude-3-5-haiku@20241022", help="org/model")
    ap.add_argument("--prompts", type=int, default=20)
    ap.add_argument("--baseline", default="a8d0331", help="git revision of the old behaviour")
    ap.add_argument("--judges", default="nli,unigram")
    ap.add_argument("--threads", type=int, default=1, help="model threads, the same for both")
    ap.add_argument("--answers", help="a scores.jsonl to read in place of --model's")
    ap.add_argument("--old-src", help="an old package's src folder in place of --baseline's")
    args = ap.parse_args()
    path = Path(args.answers) if args.answers else DATA / args.model / "scores.jsonl"
    if not path.exists():
        print(f"no answers at {path}; nothing to measure")
        return
    old_name = args.old_src or args.baseline
    print(f"{path.parent.name}, first {args.prompts} prompts; old = {old_name}, new = this tree")
    head = (
        f"{'judge':8s} {'source':6s} {'judged':>7s} {'all-pairs':>9s} {'runs':>6s} "
        f"{'seconds':>8s} {'pairs/s':>8s} {'answers/s':>9s}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        old = args.old_src or baseline_source(args.baseline, tmp)
        sources = {"old": str(Path(old).resolve()), "new": str(ROOT / "src")}
        print(head)
        for judge in args.judges.split(","):
            got = {}
            for name, src in sources.items():
                r = got[name] = run(src, path, args.prompts, judge, args.threads)
                runs = "-" if r["runs"] is None else str(r["runs"])
                print(
                    f"{judge:8s} {name:6s} {r['judged']:7d} {r['all_pairs']:9d} {runs:>6s} "
                    f"{r['seconds']:8.2f} {r['judged'] / r['seconds']:8.1f} "
                    f"{r['answers'] / r['seconds']:9.2f}",
                    flush=True,
                )
            old, new = got["old"], got["new"]
            same = "yes" if old["labels"] == new["labels"] else "NO"
            print(
                f"{judge:8s} old/new time {old['seconds'] / new['seconds']:.2f}x, judged pairs "
                f"{old['judged'] / max(new['judged'], 1):.2f}x; same classes: {same}",
                flush=True,
            )


if __name__ == "__main__":
    main()
