"""Every score in SQLite (WAL mode), written and committed the moment it is entered.

One short connection per operation, so a killed server loses nothing that was answered, and
writes take the database lock up front (BEGIN IMMEDIATE) so two raters never interleave a
read-modify-write. Rows are keyed by rater, so raters of the same page cannot overwrite each other.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS raters (
    name TEXT PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS assignments (
    rater TEXT NOT NULL REFERENCES raters(name),
    page INTEGER NOT NULL,
    sys_order TEXT NOT NULL,          -- JSON list: system shown as Set 1, Set 2, ...
    started REAL NOT NULL,
    submitted REAL,                   -- NULL while the page is open
    PRIMARY KEY (rater, page)
);
CREATE TABLE IF NOT EXISTS scores (
    rater TEXT NOT NULL,
    page INTEGER NOT NULL,
    system TEXT NOT NULL,
    score INTEGER NOT NULL CHECK (score BETWEEN 1 AND 50),
    updated REAL NOT NULL,
    PRIMARY KEY (rater, page, system)
);
"""

RATER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
MIN_SCORE, MAX_SCORE = 1, 50


class Conflict(Exception):
    """The request contradicts what is stored (a replayed submit, a page not open...)."""


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=FULL")  # a committed score survives a killed process
            yield db
        finally:
            db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # raters
    def add_rater(self, name: str) -> str:
        """Register a rater; returns their secret token. Conflict if the name is taken."""
        if not RATER_NAME.match(name):
            raise ValueError("a rater name is 1-40 letters, digits, '.', '_' or '-'")
        token = secrets.token_urlsafe(16)
        with self._write() as db:
            if db.execute("SELECT 1 FROM raters WHERE name=?", (name,)).fetchone():
                raise Conflict(f"the rater name {name!r} is taken; open your own link")
            db.execute("INSERT INTO raters VALUES (?, ?, ?)", (name, token, time.time()))
        return token

    def invite(self, names: list[str]) -> dict[str, str]:
        """Register the named raters in one transaction; returns name -> private token."""
        for name in names:
            if not RATER_NAME.match(name):
                raise ValueError(
                    f"rater name {name!r}: a name is 1-40 letters, digits, '.', '_' or '-'"
                )
        tokens = {name: secrets.token_urlsafe(16) for name in names}
        with self._write() as db:
            for name, token in tokens.items():
                if db.execute("SELECT 1 FROM raters WHERE name=?", (name,)).fetchone():
                    raise Conflict(f"the rater name {name!r} is taken")
                db.execute("INSERT INTO raters VALUES (?, ?, ?)", (name, token, time.time()))
        return tokens

    def rater_for(self, token: str) -> str | None:
        """The rater holding this token. Every stored token is compared in constant time and
        the loop never stops early, so the answer's timing says nothing about how close a guess
        came (an SQL ``WHERE token=?`` compares byte by byte)."""
        given = token.encode("utf-8", "replace")
        found = None
        for name, stored in self.raters():
            if hmac.compare_digest(stored.encode(), given):
                found = name
        return found

    def raters(self) -> list[tuple[str, str]]:
        with self._connect() as db:
            return list(db.execute("SELECT name, token FROM raters ORDER BY created"))

    # pages
    def open_page(self, rater: str, n_pages: int, order_for) -> int | None:
        """The rater's open page, else assign the page with the fewest raters that they have not
        rated (lowest id on ties); None when they rated every page."""
        with self._write() as db:
            row = db.execute(
                "SELECT page FROM assignments WHERE rater=? AND submitted IS NULL "
                "ORDER BY page LIMIT 1",
                (rater,),
            ).fetchone()
            if row:
                return int(row[0])
            taken = {
                p for (p,) in db.execute("SELECT page FROM assignments WHERE rater=?", (rater,))
            }
            load = dict(
                db.execute("SELECT page, COUNT(*) FROM assignments GROUP BY page").fetchall()
            )
            free = [p for p in range(n_pages) if p not in taken]
            if not free:
                return None
            page = min(free, key=lambda p: (load.get(p, 0), p))
            db.execute(
                "INSERT INTO assignments VALUES (?, ?, ?, ?, NULL)",
                (rater, page, json.dumps(order_for(rater, page)), time.time()),
            )
            return page

    def assignment(self, rater: str, page: int) -> tuple[list[str], bool] | None:
        """(system order, submitted?) of the rater's page, or None if it is not theirs."""
        with self._connect() as db:
            row = db.execute(
                "SELECT sys_order, submitted FROM assignments WHERE rater=? AND page=?",
                (rater, page),
            ).fetchone()
        return (json.loads(row[0]), row[1] is not None) if row else None

    def progress(self, rater: str) -> int:
        with self._connect() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM assignments WHERE rater=? AND submitted IS NOT NULL",
                (rater,),
            ).fetchone()
        return int(row[0])

    # scores
    def scores(self, rater: str, page: int) -> dict[str, int]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT system, score FROM scores WHERE rater=? AND page=?", (rater, page)
            )
            return {s: int(v) for s, v in rows}

    def put_score(self, rater: str, page: int, system: str, score: int | None) -> None:
        """Store a draft score; None removes it (the field was emptied or holds no valid score,
        so an earlier value must not stand in for what the rater now sees)."""
        with self._write() as db:
            self._require_open(db, rater, page)
            if score is None:
                db.execute(
                    "DELETE FROM scores WHERE rater=? AND page=? AND system=?",
                    (rater, page, system),
                )
            else:
                self._put(db, rater, page, system, score)

    def submit(self, rater: str, page: int, scores: dict[str, int]) -> None:
        """Store the page's final scores and close it, in one transaction."""
        with self._write() as db:
            order = self._require_open(db, rater, page)
            if set(scores) != set(order):
                raise ValueError("every set of the page needs a score")
            for system, score in scores.items():
                self._put(db, rater, page, system, score)
            db.execute(
                "UPDATE assignments SET submitted=? WHERE rater=? AND page=?",
                (time.time(), rater, page),
            )

    def submitted_ratings(self) -> dict[str, dict[str, dict[str, float]]]:
        """page -> rater -> system -> score, submitted pages only (for the aggregation)."""
        out: dict[str, dict[str, dict[str, float]]] = {}
        with self._connect() as db:
            rows = db.execute(
                "SELECT s.page, s.rater, s.system, s.score FROM scores s JOIN assignments a "
                "ON a.rater = s.rater AND a.page = s.page WHERE a.submitted IS NOT NULL"
            )
            for page, rater, system, score in rows:
                out.setdefault(str(page), {}).setdefault(rater, {})[system] = float(score)
        return out

    def page_counts(self) -> dict[int, tuple[int, int]]:
        """page -> (submitted ratings, open assignments)."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT page, SUM(submitted IS NOT NULL), SUM(submitted IS NULL) "
                "FROM assignments GROUP BY page"
            )
            return {int(p): (int(s), int(o)) for p, s, o in rows}

    @staticmethod
    def _require_open(db: sqlite3.Connection, rater: str, page: int) -> list[str]:
        row = db.execute(
            "SELECT sys_order, submitted FROM assignments WHERE rater=? AND page=?", (rater, page)
        ).fetchone()
        if row is None:
            raise Conflict(f"page {page} is not assigned to you")
        if row[1] is not None:
            raise Conflict(f"page {page} was already submitted")
        order: list[str] = json.loads(row[0])
        return order

    @staticmethod
    def _put(db: sqlite3.Connection, rater: str, page: int, system: str, score: int) -> None:
        if isinstance(score, bool) or not isinstance(score, int):
            raise ValueError("a score is a whole number")
        if not MIN_SCORE <= score <= MAX_SCORE:
            raise ValueError(f"a score is between {MIN_SCORE} and {MAX_SCORE}")
        db.execute(
            "INSERT INTO scores VALUES (?, ?, ?, ?, ?) ON CONFLICT (rater, page, system) "
            "DO UPDATE SET score=excluded.score, updated=excluded.updated",
            (rater, page, system, score, time.time()),
        )
