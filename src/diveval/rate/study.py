"""A study folder: the sampled pages (study.json) and the ratings database (ratings.sqlite3).

A page is one subset of K query indices; it shows the M systems' responses to those queries as M
sets. Sampling and the per-rater order of the sets are seeded, so a study is reproducible.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..constants import DEFAULT_SEED
from ..errors import InputError
from .store import RATER_NAME, Store

STUDY_FILE = "study.json"
DB_FILE = "ratings.sqlite3"
FORMAT = 1


@dataclass(frozen=True)
class Study:
    folder: Path
    systems: list[str]
    pages: list[list[int]]  # per page: the sampled query indices
    responses: dict[str, list[str]]  # system -> its response per query
    size: int
    raters: int
    seed: int
    open: bool = False  # anyone may register with /?rater=NAME (else: invited raters only)

    @property
    def db_path(self) -> Path:
        return self.folder / DB_FILE

    def page_sets(self, page: int) -> dict[str, list[str]]:
        """system -> the K responses of that system on the page."""
        return {s: [self.responses[s][q] for q in self.pages[page]] for s in self.systems}

    def order_for(self, rater: str, page: int) -> list[str]:
        """The shuffled order of the systems on a page for a rater (seeded; stored on first view)."""
        order = list(self.systems)
        random.Random(f"{self.seed}:{rater}:{page}").shuffle(order)
        return order


def sample_pages(n_queries: int, subsets: int, size: int, seed: int) -> list[list[int]]:
    """``subsets`` reproducible samples of ``size`` distinct query indices (each sorted)."""
    if size < 1 or subsets < 1:
        raise InputError("--subsets and --size must be at least 1")
    if size > n_queries:
        raise InputError(f"--size {size} is more than the {n_queries} queries")
    rng = random.Random(seed)
    return [sorted(rng.sample(range(n_queries), size)) for _ in range(subsets)]


def create_study(
    folder: str | Path,
    responses: Mapping[str, Sequence[str]],
    subsets: int,
    size: int,
    raters: int = 3,
    seed: int = DEFAULT_SEED,
    invited: Sequence[str] = (),
    open: bool = False,
) -> Study:
    """Write a new study folder; ``responses`` maps a system name to its response per query.
    ``seed`` (DEFAULT_SEED unless given) is written into study.json like any other, so the pages
    and the orders can be drawn again.
    ``invited`` raters get a private token each (in the ratings database); ``open`` lets anyone
    else register by name too."""
    if len(responses) < 2:
        raise InputError("a study needs at least 2 systems")
    if raters < 1:
        raise InputError("--per-page must be at least 1")
    for name in invited:
        if not RATER_NAME.match(name):
            raise InputError(
                f"rater name {name!r}: a name is 1-40 letters, digits, '.', '_' or '-'"
            )
    if len(set(invited)) != len(invited):
        raise InputError("a rater is named twice in --raters")
    if not open and not invited:
        raise InputError(
            "no rater can join: name them (--raters ann,bob,cy: one private link each) "
            "or let anyone register by name with --open"
        )
    if not open and len(invited) < raters:
        raise InputError(
            f"{raters} raters per page need at least {raters} invited raters, "
            f"--raters names {len(invited)}: name more, lower --per-page, or add --open"
        )
    counts = {name: len(r) for name, r in responses.items()}
    if len(set(counts.values())) != 1:
        shown = ", ".join(f"{n}: {c}" for n, c in counts.items())
        raise InputError(f"the systems' files are not aligned by query (lines: {shown})")
    folder = Path(folder)
    if (folder / STUDY_FILE).exists() or (folder / DB_FILE).exists():
        raise InputError("a study already exists here", str(folder))
    n_queries = next(iter(counts.values()))
    pages = sample_pages(n_queries, subsets, size, seed)
    folder.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": FORMAT,
        "seed": seed,
        "size": size,
        "raters": raters,
        "open": bool(open),
        "systems": list(responses),
        "pages": pages,
        "responses": {name: list(r) for name, r in responses.items()},
    }
    (folder / STUDY_FILE).write_text(json.dumps(doc, ensure_ascii=False, indent=1), "utf-8")
    study = load_study(folder)
    if invited:
        Store(study.db_path).invite(list(invited))
    return study


def load_study(folder: str | Path) -> Study:
    folder = Path(folder)
    path = folder / STUDY_FILE
    if not path.is_file():
        raise InputError(
            f"not a study folder (no {STUDY_FILE}; make one with `diveval rate init`)", str(folder)
        )
    try:
        doc = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", str(path), exc.lineno) from None
    if doc.get("format") != FORMAT:
        raise InputError(f"unknown study format {doc.get('format')!r}", str(path))
    return Study(
        folder=folder,
        systems=list(doc["systems"]),
        pages=[list(p) for p in doc["pages"]],
        responses={k: list(v) for k, v in doc["responses"].items()},
        size=int(doc["size"]),
        raters=int(doc["raters"]),
        seed=int(doc["seed"]),
        # a study written before invitations existed is closed too: `serve --open` reopens it
        open=bool(doc.get("open", False)),
    )
