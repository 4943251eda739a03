"""Self-BLEU-4 (method1): diveval against fast-bleu and nltk on the same seeded Zipf corpora.

    python benchmarks/self_bleu.py                      # 2k, 10k, 100k, 1M sentences
    python benchmarks/self_bleu.py --sizes 2000,10000   # only the small sizes

Corpora: 30,000-word vocabulary with Zipf (1/rank) frequencies, sentence lengths uniform in
10..20 tokens, seeded. Every (size, tool) runs in its own subprocess, so the peak memory printed
is that tool's (ru_maxrss of the process; "extra" = peak minus the RSS once the corpus is built).

- diveval: every sentence against all others (``self_bleu_tokens``), token lists in, mean out.
- fast-bleu (``fast_bleu.SelfBLEU``, C++, multithreaded, O(N^2)): run up to ``--fast-bleu-max``
  sentences; beyond that its time is extrapolated quadratically from the largest run (marked ~).
- nltk (``sentence_bleu`` of one hypothesis against the N-1 others, O(N) per hypothesis): timed on
  a few sampled hypotheses, multiplied up to N hypotheses (marked ~); beyond ``--nltk-max`` the
  per-hypothesis cost is extrapolated linearly in N (marked ~~). The sampled scores are checked
  against diveval's (max |diff| column).

Times are wall-clock (best of --repeats up to 100k) on a possibly shared machine: compare
within one run; "cpu" is the user+system time of the diveval call.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

VOCAB = 30_000
SRC = Path(__file__).resolve().parents[1] / "src"


def zipf_corpus(n_sentences: int, seed: int = 0) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, VOCAB + 1)
    p /= p.sum()
    words = np.array([f"w{i}" for i in range(VOCAB)], dtype=object)
    lengths = rng.integers(10, 21, n_sentences)
    flat = words[rng.choice(VOCAB, size=int(lengths.sum()), p=p)].tolist()
    ends = np.cumsum(lengths).tolist()
    starts = [0] + ends[:-1]
    return [flat[a:b] for a, b in zip(starts, ends)]


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def worker(tool: str, size: int, seed: int, nltk_hyps: int, repeats: int = 3) -> dict:
    corpus = zipf_corpus(size, seed)
    base = _rss_mb()
    out: dict = {"tool": tool, "size": size}
    if tool == "diveval":
        from diveval.lexical.self_bleu import self_bleu_tokens

        # best of a few runs at small sizes (wall clock on a shared machine is noisy)
        times, cpus = [], []
        for _ in range(repeats if size <= 100_000 else 1):
            c, t = _cpu(), time.perf_counter()
            mean, per = self_bleu_tokens(corpus, max_n=4, smoothing="method1")
            times.append(time.perf_counter() - t)
            cpus.append(_cpu() - c)
        out["time"], out["cpu"] = min(times), min(cpus)
        out["mean"] = mean
        idx = np.random.default_rng(seed + 1).choice(size, size=min(nltk_hyps, size), replace=False)
        out["check"] = {int(i): float(per[i]) for i in idx}
        out["fb_check"] = per[:5].tolist()
    elif tool == "fast-bleu":
        from fast_bleu import SelfBLEU

        t = time.perf_counter()
        scores = SelfBLEU(corpus, {4: (0.25, 0.25, 0.25, 0.25)}, smoothing_func=1).get_score()[4]
        out["time"] = time.perf_counter() - t
        out["mean"] = float(np.mean(scores))
        out["fb_check"] = list(scores[:5])
    elif tool == "nltk":
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        idx = np.random.default_rng(seed + 1).choice(size, size=min(nltk_hyps, size), replace=False)
        sm = SmoothingFunction().method1
        t = time.perf_counter()
        vals = {}
        for i in idx:
            refs = corpus[:i] + corpus[i + 1 :]
            vals[int(i)] = sentence_bleu(refs, corpus[i], (0.25,) * 4, sm)
        per_hyp = (time.perf_counter() - t) / len(idx)
        out["per_hyp"] = per_hyp
        out["time"] = per_hyp * size
        out["check"] = vals
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["extra_mb"] = out["peak_mb"] - base
    return out


def run(tool: str, size: int, seed: int, nltk_hyps: int, repeats: int = 3) -> dict | None:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        tool,
        "--size",
        str(size),
        "--seed",
        str(seed),
        "--nltk-hyps",
        str(nltk_hyps),
        "--repeats",
        str(repeats),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        print(f"  {tool} at {size}: failed\n{res.stderr.strip()[-800:]}", file=sys.stderr)
        return None
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--sizes", default="2000,10000,100000,1000000", help="comma-separated corpus sizes"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--fast-bleu-max", type=int, default=10_000, help="largest size fast-bleu really runs"
    )
    ap.add_argument(
        "--nltk-max", type=int, default=10_000, help="largest size nltk really runs (on a sample)"
    )
    ap.add_argument("--nltk-hyps", type=int, default=10, help="hypotheses nltk scores per size")
    ap.add_argument(
        "--repeats", type=int, default=3, help="diveval runs per size up to 100k (best is kept)"
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.size, args.seed, args.nltk_hyps, args.repeats)))
        return

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    try:
        import fast_bleu  # noqa: F401

        have_fb = True
    except ImportError:
        have_fb = False
        print("fast-bleu is not installed (pip install fast-bleu): its column is left empty")

    rows = []
    fb_last = nltk_last = None  # (size, time) / (size, per-hypothesis time) of the largest real run
    for size in sizes:
        d = run("diveval", size, args.seed, args.nltk_hyps, args.repeats)
        if d is None:
            continue
        row = {"size": size, "diveval": d}
        if have_fb:
            if size <= args.fast_bleu_max:
                fb = run("fast-bleu", size, args.seed, args.nltk_hyps)
                if fb is not None:
                    fb["diff"] = float(
                        np.max(np.abs(np.array(fb["fb_check"]) - np.array(d["fb_check"])))
                    )
                    fb_last = (size, fb["time"])
                row["fast-bleu"] = fb
            elif fb_last is not None:
                row["fast-bleu"] = {"time": fb_last[1] * (size / fb_last[0]) ** 2, "est": "~"}
        if size <= args.nltk_max:
            nl = run("nltk", size, args.seed, args.nltk_hyps)
            if nl is not None:
                nl["est"] = "~"
                common = [k for k in nl["check"] if k in d["check"]]
                nl["diff"] = (
                    max(abs(nl["check"][k] - d["check"][k]) for k in common) if common else None
                )
                nltk_last = (size, nl["per_hyp"])
            row["nltk"] = nl
        elif nltk_last is not None:
            per_hyp = nltk_last[1] * size / nltk_last[0]
            row["nltk"] = {"time": per_hyp * size, "est": "~~"}
        rows.append(row)
        _print_row(row)

    print()
    print(
        "~ nltk: sampled hypotheses x N; ~~ / fast-bleu ~: extrapolated (O(N) per hypothesis, O(N^2) in all)"
    )
    for a, b in zip(rows, rows[1:]):
        growth = (b["diveval"]["time"] / a["diveval"]["time"]) / (b["size"] / a["size"])
        print(
            f"diveval per-sentence cost {a['size']:>9,} -> {b['size']:>9,} sentences: x{growth:.2f} "
            f"(1.00 = linear)"
        )


_HEADER_DONE = False


def _fmt_t(x: dict | None) -> str:
    if not x or "time" not in x:
        return "-"
    return f"{x.get('est', '')}{x['time']:.3g} s"


def _print_row(row: dict) -> None:
    global _HEADER_DONE
    if not _HEADER_DONE:
        print(
            f"{'sentences':>10} | {'diveval':>9} {'cpu':>7} {'us/sent':>8} {'peak MB':>8} {'extra MB':>8} | "
            f"{'fast-bleu':>11} {'ratio':>7} {'max|diff|':>9} | {'nltk':>11} {'ratio':>9} {'max|diff|':>9}"
        )
        _HEADER_DONE = True
    d = row["diveval"]
    fb, nl = row.get("fast-bleu"), row.get("nltk")

    def ratio(x):
        return f"{x['time'] / d['time']:.3g}x" if x and "time" in x else "-"

    def diff(x):
        return f"{x['diff']:.1e}" if x and x.get("diff") is not None else "-"

    print(
        f"{row['size']:>10,} | {d['time']:>7.3f} s {d['cpu']:>5.2f} s {1e6 * d['time'] / row['size']:>8.2f} "
        f"{d['peak_mb']:>8.0f} {d['extra_mb']:>8.0f} | {_fmt_t(fb):>11} {ratio(fb):>7} {diff(fb):>9} | "
        f"{_fmt_t(nl):>11} {ratio(nl):>9} {diff(nl):>9}",
        flush=True,
    )


if __name__ == "__main__":
    main()
