"""What all pairwise tests of a ranked list of systems say about the list as a whole: the groups
the tests cannot tell apart, as a compact letter display (Piepho 2004), and the range of ranks
each system can take.

Both read one relation, ``separated[i][j]``: the test (after its multiplicity adjustment) finds
systems i and j different. The systems are given in ranked order (best first), so a separated
pair's better system is the one listed first.

- Letters: systems that share a letter are not separated, and every pair that is not separated
  shares a letter. Non-separation is not transitive (A ~ B and B ~ C while A and C are
  separated), so a system may carry several letters. Built by Piepho's insert-and-absorb: start
  with one letter for all systems; for each separated pair, every letter holding both is
  split in two, one without each; a letter whose systems all hold another letter too is
  absorbed. A final sweep drops a system from a letter where every pair that letter gives it is
  given by another letter, so that no letter is redundant (Piepho's "sweeping").
- Rank ranges (1 = best): the ranks a system takes over every order of the systems that keeps
  each separated pair's order: from one plus the systems above it through a chain of separated
  pairs to the number of systems less those below it through one.
"""

from __future__ import annotations

import string
from typing import Sequence

Relation = Sequence[Sequence[bool]]

_LABELS = string.ascii_lowercase + string.ascii_uppercase


def _check(separated: Relation) -> int:
    n = len(separated)
    for i in range(n):
        if len(separated[i]) != n:
            raise ValueError(f"separated must be square: row {i} has {len(separated[i])} of {n}")
        if separated[i][i]:
            raise ValueError(f"system {i} is separated from itself")
        for j in range(i):
            if bool(separated[i][j]) != bool(separated[j][i]):
                raise ValueError(f"separated is not symmetric at ({i}, {j})")
    return n


def label(k: int) -> str:
    """The k-th letter: a..z, A..Z, then a2..Z2, a3, ... (a letter stays one token per group)."""
    round_, pos = divmod(k, len(_LABELS))
    return _LABELS[pos] + (str(round_ + 1) if round_ else "")


def letter_groups(separated: Relation) -> list[frozenset[int]]:
    """The groups of a compact letter display of systems 0..n-1 (in ranked order), as sets of
    system indices, ordered by their best-ranked member (the first group takes letter a)."""
    n = _check(separated)
    if n == 0:
        return []
    columns: list[set[int]] = [set(range(n))]
    for i in range(n):
        for j in range(i + 1, n):
            if not separated[i][j]:
                continue
            split: list[set[int]] = []
            for c in columns:
                if i in c and j in c:
                    split += [c - {i}, c - {j}]
                else:
                    split.append(c)
            columns = _absorbed(split)
    columns = _absorbed(_swept(columns))
    return [frozenset(c) for c in sorted(columns, key=lambda c: sorted(c))]


def _absorbed(columns: list[set[int]]) -> list[set[int]]:
    """Without empty columns, duplicates, and columns contained in another."""
    out: list[set[int]] = []
    for c in sorted(columns, key=len, reverse=True):
        if c and not any(c <= kept for kept in out):
            out.append(c)
    return out


def _swept(columns: list[set[int]]) -> list[set[int]]:
    """Each system dropped from each column where every pair that column gives it (and its
    membership of some column) is also given by another column."""
    columns = [set(c) for c in columns]
    for c in columns:
        for i in sorted(c):
            others = [d for d in columns if d is not c and i in d]
            if others and all(any(j in d for d in others) for j in c if j != i):
                c.discard(i)
    return columns


def letters(separated: Relation) -> list[str]:
    """Each system's letters (systems in ranked order, best first).

    >>> letters([[False, False, True], [False, False, False], [True, False, False]])
    ['a', 'ab', 'b']
    """
    groups = letter_groups(separated)
    return [
        "".join(label(k) for k, g in enumerate(groups) if i in g) for i in range(len(separated))
    ]


def rank_ranges(separated: Relation) -> list[tuple[int, int]]:
    """(best, worst) rank each system can take (systems in ranked order; 1 is the best rank): the
    ranks it holds in some order of the systems that keeps every separated pair in its order.
    Those are 1 + the systems above it through a chain of separated pairs, to n - the systems
    below it through one (a paired test need not be transitive: A ahead of B and B ahead of C
    put A ahead of C even where the test of A against C alone does not).

    >>> rank_ranges([[False, False, True], [False, False, False], [True, False, False]])
    [(1, 2), (1, 3), (2, 3)]
    """
    n = _check(separated)
    below: list[set[int]] = [set() for _ in range(n)]
    for i in reversed(range(n)):  # a separated pair points down the ranking: no cycles
        for j in range(i + 1, n):
            if separated[i][j]:
                below[i] |= {j} | below[j]
    above = [sum(i in below[j] for j in range(n)) for i in range(n)]
    return [(1 + above[i], n - len(below[i])) for i in range(n)]
