"""What the script and language checks cost on the default path.

Every metric's Score is checked for text its tokenizer does not split and for an English-only
model on non-English text (``diveval.text.language``): a sample of at most 64 responses, 256
characters each. This times that check alone, first call (uncached) and again (the sample's
counts are cached, as for the second metric of a run), on a corpus of English responses, beside
the default ``distinct-1`` and ``distinct-2`` of the same corpus: the check should be a small
fraction of a percent of it.

    python benchmarks/language_check.py [--responses 1000000]
"""

from __future__ import annotations

import argparse
import random
import time

import diveval
from diveval.text import language
from diveval.text.tokenizers import get_tokenizer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--responses", type=int, default=1_000_000)
    args = ap.parse_args()
    rng = random.Random(0)
    words = "the cat sat on a mat and looked at the dog for a while before we went home".split()
    corpus = [" ".join(rng.choices(words, k=12)) for _ in range(args.responses)]
    tok = get_tokenizer("whitespace")
    signature = "sent-bert|model:all-MiniLM-L6-v2|setting:corpus"

    def check() -> None:
        language.language_warnings(language.sample_texts(corpus), signature, tok)

    rounds = 20
    start = time.perf_counter()
    for _ in range(rounds):
        language._script_shares.cache_clear()
        language.non_english.cache_clear()
        check()
    uncached = (time.perf_counter() - start) / rounds
    start = time.perf_counter()
    for _ in range(rounds):
        check()
    cached = (time.perf_counter() - start) / rounds
    start = time.perf_counter()
    diveval.score(corpus, ["distinct-1", "distinct-2"])
    scoring = time.perf_counter() - start
    print(f"{args.responses:,} responses")
    print(f"check, first metric : {uncached * 1e3:8.2f} ms")
    print(f"check, next metrics : {cached * 1e3:8.2f} ms")
    print(f"distinct-1 + -2     : {scoring * 1e3:8.0f} ms (checks included)")
    print(f"checks / scoring    : {(uncached + cached) / scoring:8.4%}")


if __name__ == "__main__":
    main()
