"""Compact letter display and rank ranges (diveval.meta.statistics.groups): cases checked by hand,
and the display's defining property on random relations."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.meta.statistics.groups import label, letter_groups, letters, rank_ranges


def _relation(n, pairs):
    sep = [[False] * n for _ in range(n)]
    for i, j in pairs:
        sep[i][j] = sep[j][i] = True
    return sep


def test_a_b_c_where_only_a_and_c_differ():
    # A > B > C; A ~ B and B ~ C, A and C separated: B belongs to both groups
    sep = _relation(3, [(0, 2)])
    assert letters(sep) == ["a", "ab", "b"]
    assert rank_ranges(sep) == [(1, 2), (1, 3), (2, 3)]


def test_nothing_separated_is_one_group_and_every_rank():
    sep = _relation(4, [])
    assert letters(sep) == ["a"] * 4
    assert rank_ranges(sep) == [(1, 4)] * 4


def test_everything_separated_is_a_strict_order():
    sep = _relation(4, itertools.combinations(range(4), 2))
    assert letters(sep) == ["a", "b", "c", "d"]
    assert rank_ranges(sep) == [(1, 1), (2, 2), (3, 3), (4, 4)]


def test_two_clear_tiers():
    # {0, 1} ahead of {2, 3, 4}: each tier one letter, each rank range its tier's ranks
    sep = _relation(5, [(i, j) for i in (0, 1) for j in (2, 3, 4)])
    assert letters(sep) == ["a", "a", "b", "b", "b"]
    assert rank_ranges(sep) == [(1, 2), (1, 2), (3, 5), (3, 5), (3, 5)]


def test_overlapping_chain_of_four():
    # 0 ~ 1 ~ 2 ~ 3 only between neighbours: three letters, each spanning a neighbour pair
    sep = _relation(4, [(0, 2), (0, 3), (1, 3)])
    assert letters(sep) == ["a", "ab", "bc", "c"]
    assert rank_ranges(sep) == [(1, 2), (1, 3), (2, 4), (3, 4)]


def test_labels_stay_one_token_past_52_groups():
    assert [label(k) for k in (0, 25, 26, 51, 52, 53)] == ["a", "z", "A", "Z", "a2", "b2"]


def test_a_relation_that_is_not_square_or_not_symmetric_is_refused():
    with pytest.raises(ValueError, match="square"):
        letters([[False, False], [False]])
    with pytest.raises(ValueError, match="symmetric"):
        letters([[False, True], [False, False]])


@st.composite
def relations(draw):
    n = draw(st.integers(1, 9))
    pairs = [p for p in itertools.combinations(range(n), 2) if draw(st.booleans())]
    return n, _relation(n, pairs)


@settings(max_examples=300, deadline=None)
@given(relations())
def test_letters_share_exactly_where_the_test_does_not_separate(case):
    n, sep = case
    groups = letter_groups(sep)
    tags = letters(sep)
    assert all(tags)  # every system has a letter
    for i, j in itertools.combinations(range(n), 2):
        share = any(i in g and j in g for g in groups)
        assert share == (not sep[i][j]), (i, j)
        assert share == bool(set(tags[i]) & set(tags[j]))
    # no letter is redundant: none is contained in another
    assert not any(a < b for a in groups for b in groups)


def test_a_chain_of_separations_orders_the_ends_of_the_chain():
    # 0 ahead of 1 and 1 ahead of 2, while 0 against 2 alone is not separated: 2 is still last
    sep = _relation(3, [(0, 1), (1, 2)])
    assert rank_ranges(sep) == [(1, 1), (2, 2), (3, 3)]
    # the letters read each pair's test alone: 0 and 2 share one
    assert letters(sep) == ["a", "b", "a"]


@settings(max_examples=200, deadline=None)
@given(relations().filter(lambda case: case[0] <= 7))
def test_rank_ranges_are_the_ranks_of_the_orders_that_keep_every_separation(case):
    n, sep = case
    seen: list[set[int]] = [set() for _ in range(n)]
    for order in itertools.permutations(range(n)):
        pos = {s: r for r, s in enumerate(order)}
        if all(pos[i] < pos[j] for i, j in itertools.combinations(range(n), 2) if sep[i][j]):
            for s in range(n):
                seen[s].add(pos[s] + 1)
    for s, (best, worst) in enumerate(rank_ranges(sep)):
        assert seen[s] == set(range(best, worst + 1))
