"""Fixtures of the `diveval rate` tests: small study folders whose systems differ in lexical
diversity in a known order (system s_r draws its words from a pool of 3 + 6 r words)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip(
    "fastapi", reason="the rate extra is not installed: pip install 'diveval[rate]'"
)

WORDS = (
    "i don't know that sounds like a great plan let's go to the beach on sunday maybe we could "
    "see movie tonight sure why not love pizza too tired today what do you mean sorry hear about "
    "work tomorrow morning coffee"
).split()


def write_systems(folder: Path, n_systems: int, n_queries: int, seed: int = 0) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for r in range(n_systems):
        pool = WORDS[: 3 + 6 * r]
        lines = [" ".join(rng.choice(pool) for _ in range(8)) for _ in range(n_queries)]
        path = folder / f"s{r}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture
def make_study(tmp_path):
    """make_study(n_systems, subsets, size, raters) -> study folder (Path)."""
    from diveval.cli import main

    def make(n_systems=3, subsets=2, size=3, raters=3, seed=7, n_queries=20):
        paths = write_systems(tmp_path, n_systems, n_queries)
        out = tmp_path / "study"
        argv = ["rate", "init", *map(str, paths), "--subsets", str(subsets), "--size", str(size)]
        argv += ["--raters", str(raters), "--seed", str(seed), "-o", str(out)]
        assert main(argv) == 0
        return out

    return make
