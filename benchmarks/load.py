"""Load checks: ``diveval score`` on 1M responses for every lexical corpus metric within a stated
memory bound, NLI Diversity over many sets killed mid-run and resumed from the cache, and the
all-pairs metrics of a corpus within a memory budget.

1. A 1M-response text file (Zipf over 50k words, 2-22 words each, seed 0) is scored by
   ``diveval score FILE --metric M --json`` in a process of its own per metric; the table gives
   its whole time and peak RSS against the bound (``--bound-mib``, default 4096). Metrics that are
   quadratic in the number of responses (homogenization, Vendi) or per set only are listed as
   excluded, with the reason.
2. ``--nli-sets`` sets of 5 (ordered pairs: 20 per set) scored with ``nli-confidence --cache
   DIR``: one uninterrupted run into its own cache; then a run into a second cache killed with
   SIGKILL after ``--kill-after`` seconds and restarted to the end. The two JSON outputs must be
   byte-identical, and the restart must not recompute what the killed run stored.
3. The all-pairs metrics (homogenization-rougel, homogenization-bleu, vendi-ngram) on
   ``--pairwise-responses`` responses (default 50k; the same Zipf text) with ``--memory-budget``
   (default 2G), each in a process of its own: measured time and peak RSS beside the estimate the
   metric made before starting (``details["estimate"]``), and a ``--pairs`` sample of
   homogenization-rougel with its interval. A metric refused by the budget shows its one line and
   the seconds it took to say it.

    python benchmarks/load.py [--responses 1000000] [--nli-sets 1000] [--kill-after 30]
    python benchmarks/load.py --parts 3 [--pairwise-responses 50000] [--memory-budget 2G]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
EXCLUDED = {
    "homogenization-rougel": "all pairs: quadratic in the responses (part 3)",
    "homogenization-bleu": "all pairs: quadratic in the responses (part 3)",
    "vendi-ngram": "a kernel or feature matrix as large as the corpus or its n-gram vocabulary "
    "(part 3)",
}
PAIRWISE = [
    ("homogenization-rougel", []),
    ("homogenization-bleu", []),
    ("vendi-ngram", []),
    ("homogenization-rougel", ["--pairs", "1000000"]),
]


_WRAPPER = (
    "import json, resource, subprocess, sys; "
    "r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "print(json.dumps({'code': r.returncode, 'out': r.stdout, "
    "'peak': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))"
)


def measure(argv: list[str], env: dict) -> tuple[float, float, int, str]:
    """(seconds, peak RSS MiB, exit status, stdout) of one diveval process, measured by a fresh
    parent of its own so that the peak is that process's alone."""
    cmd = [sys.executable, "-c", _WRAPPER, sys.executable, "-m", "diveval", *argv]
    t = time.perf_counter()
    got = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env).stdout)
    return time.perf_counter() - t, got["peak"], got["code"], got["out"]


def lexical_corpus_metrics() -> list[str]:
    from diveval import catalog, registry

    catalog.load()
    names = []
    for name, m in registry.METRICS.items():
        if "corpus" not in m.settings or m.extra or set(m.options) & {"references"}:
            continue
        names.append(name)
    return names


def load_part(n: int, bound: float, env: dict) -> None:
    from _corpus import zipf_sentences

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "responses.txt"
        texts = zipf_sentences(n_tokens=16 * n, vocab=50000, seed=0)[:n]
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        tokens = sum(len(t.split()) for t in texts)
        print(
            f"\n1. {len(texts):,} responses, {tokens:,} tokens; bound {bound:,.0f} MiB per process"
        )
        print(f"{'metric':<26}{'seconds':>9}{'peak MiB':>10}  within bound  value")
        for name in lexical_corpus_metrics():
            if name in EXCLUDED:
                continue
            seconds, peak, code, out = measure(
                ["score", str(path), "-m", name, "--json", "--quiet"], env
            )
            value = json.loads(out)["scores"][name]["value"] if code == 0 else f"exit {code}"
            ok = "yes" if code == 0 and peak <= bound else "NO"
            shown = f"{value:.6g}" if isinstance(value, float) else value
            print(f"{name:<26}{seconds:>9.1f}{peak:>10.0f}  {ok:<12}  {shown}", flush=True)
        for name, why in EXCLUDED.items():
            print(f"{name:<26}  excluded: {why}")


def nli_part(n_sets: int, kill_after: float, env: dict) -> None:
    from _corpus import zipf_sentences

    texts = zipf_sentences(n_tokens=16 * 5 * n_sets, vocab=5000, seed=1)[: 5 * n_sets]
    with tempfile.TemporaryDirectory() as tmp:
        sets = Path(tmp) / "sets.jsonl"
        sets.write_text(
            "".join(
                json.dumps({"responses": texts[i : i + 5]}) + "\n" for i in range(0, len(texts), 5)
            )
        )
        argv = ["score", str(sets), "-m", "nli-confidence", "--json", "--quiet", "--cache"]
        t = time.perf_counter()
        whole = subprocess.run(
            [sys.executable, "-m", "diveval", *argv, f"{tmp}/cache-a"], capture_output=True, env=env
        )
        uninterrupted = time.perf_counter() - t
        proc = subprocess.Popen(
            [sys.executable, "-m", "diveval", *argv, f"{tmp}/cache-b"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        time.sleep(kill_after)
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
        proc.wait()
        t = time.perf_counter()
        resumed = subprocess.run(
            [sys.executable, "-m", "diveval", *argv, f"{tmp}/cache-b"], capture_output=True, env=env
        )
        restart = time.perf_counter() - t
        same = whole.returncode == 0 and whole.stdout == resumed.stdout
        pairs = 20 * n_sets
        print(
            f"\n2. nli-confidence, {n_sets:,} sets ({pairs:,} pairs) with --cache: uninterrupted "
            f"{uninterrupted:.0f} s; killed (SIGKILL) after {kill_after:.0f} s: {killed}; the "
            f"restart took {restart:.0f} s ({100 * restart / uninterrupted:.0f} % of a whole run); "
            f"outputs byte-identical: {same}"
        )


def pairwise_part(n: int, budget: str, env: dict) -> None:
    from _corpus import zipf_sentences

    from diveval.sizes import parse_size

    bound = parse_size(budget) / (1 << 20)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "responses.txt"
        texts = zipf_sentences(n_tokens=16 * n, vocab=50000, seed=0)[:n]
        path.write_text("\n".join(texts) + "\n", encoding="utf-8")
        print(f"\n3. all pairs of {len(texts):,} responses, --memory-budget {budget}")
        print(
            f"{'metric':<34}{'seconds':>9}{'estimate':>10}{'peak MiB':>10}{'estimate':>10}"
            "  within budget  value"
        )
        for name, extra in PAIRWISE:
            argv = ["score", str(path), "-m", name, "--json", "--quiet", "--memory-budget", budget]
            seconds, peak, code, out = measure([*argv, *extra], env)
            label = f"{name} {' '.join(extra)}".strip()
            if code != 0:
                err = subprocess.run(
                    [sys.executable, "-m", "diveval", *argv, *extra],
                    capture_output=True,
                    text=True,
                    env=env,
                ).stderr.strip()
                print(f"{label:<34}{seconds:>9.1f}{'':>10}{peak:>10.0f}{'':>10}  refused: {err}")
                continue
            got = json.loads(out)["scores"][name]
            est = got.get("details", {}).get("estimate", {})
            est_s = est.get("estimated_seconds", float("nan"))
            est_mib = est.get("estimated_peak_bytes", float("nan")) / (1 << 20)
            shown = f"{got['value']:.6g}"
            iv = got.get("details", {}).get("interval")
            if iv:
                shown += f" [{iv['low']:.6g}, {iv['high']:.6g}]"
            ok = "yes" if peak <= bound else "NO"
            print(
                f"{label:<34}{seconds:>9.1f}{est_s:>10.1f}{peak:>10.0f}{est_mib:>10.0f}"
                f"  {ok:<13}  {shown}",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--responses", type=int, default=1_000_000)
    ap.add_argument("--bound-mib", type=float, default=4096)
    ap.add_argument("--nli-sets", type=int, default=1000)
    ap.add_argument("--kill-after", type=float, default=30)
    ap.add_argument("--pairwise-responses", type=int, default=50_000)
    ap.add_argument("--memory-budget", default="2G")
    ap.add_argument("--parts", default="1,2,3")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), HF_HUB_OFFLINE="1")
    if "1" in args.parts:
        load_part(args.responses, args.bound_mib, env)
    if "2" in args.parts:
        nli_part(args.nli_sets, args.kill_after, env)
    if "3" in args.parts:
        pairwise_part(args.pairwise_responses, args.memory_budget, env)


if __name__ == "__main__":
    main()
