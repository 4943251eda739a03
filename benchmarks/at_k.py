"""What scoring at a common k costs: `score` against `score --at-k K`, and `rarefy`.

    python benchmarks/at_k.py [--sets 1000] [--k 10] [--at 5] [--repeats 3]

Seeded Zipf sentences in sets of k responses. Rows: the lexical defaults plain and at K (Distinct-n
and avg-distinct exact; the others, e.g. Self-BLEU, by --draws seeded draws), distinct-2 alone
plain and exact at K, and the rarefaction of 2-grams (curve of about 40 sizes with 200 bootstrap
resamples). Each row is the best of ``--repeats`` runs; the ratio is against the plain run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "benchmarks")]


def best_of(repeats: int, fn) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--k", type=int, default=10, help="responses per set")
    ap.add_argument("--at", type=int, default=5, help="K of --at-k")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    from _corpus import zipf_sentences

    import diveval

    texts = zipf_sentences(n_sentences=args.sets * args.k, min_len=8, max_len=16, seed=0)
    sets = [texts[i * args.k : (i + 1) * args.k] for i in range(args.sets)]
    at = {"at_k": args.at, "at_k_draws": args.draws}
    rows = [
        ("lexical defaults", lambda: diveval.score(sets)),
        (f"lexical defaults --at-k {args.at}", lambda: diveval.score(sets, **at)),
        ("distinct-2", lambda: diveval.score(sets, ["distinct-2"])),
        (f"distinct-2 --at-k {args.at} (exact)", lambda: diveval.score(sets, ["distinct-2"], **at)),
        ("rarefy 2-grams (40 sizes, 200 resamples)", lambda: diveval.rarefy(sets, "2-grams")),
    ]
    print(f"{args.sets} sets x {args.k} responses, K = {args.at}, draws = {args.draws}")
    base: dict[str, float] = {}
    for name, fn in rows:
        t = best_of(args.repeats, fn)
        plain = name.split(" --at-k")[0]
        base.setdefault(plain, t)
        ratio = t / base[plain] if plain in base and plain != name else 1.0
        print(f"{name:44s} {t:8.3f} s   x{ratio:.2f} of {plain}")


if __name__ == "__main__":
    main()
