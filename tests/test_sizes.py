"""The one reader of memory sizes, on the spellings the docs and the options' help give
(``--stream-memory 2G``, ``--memory-budget 2G``, ``500M``, ``64K``, bytes); the expected byte counts are
the IEC binary prefixes (Ki = 2**10, Mi = 2**20, Gi = 2**30, Ti = 2**40) written out."""

from __future__ import annotations

import numpy as np
import pytest

from diveval.errors import InputError
from diveval.pairs import resolve_budget
from diveval.scale.streaming import parse_memory
from diveval.sizes import parse_size, size_text

DOCUMENTED = [
    ("2G", 2_147_483_648),
    ("500M", 524_288_000),
    ("64K", 65_536),
    ("64k", 65_536),
    ("1048576", 1_048_576),
    ("2GiB", 2_147_483_648),
    ("2gb", 2_147_483_648),
    (" 1.5 G ", 1_610_612_736),
    ("1T", 1_099_511_627_776),
]


@pytest.mark.parametrize("text, want", DOCUMENTED)
def test_documented_sizes(text, want):
    assert parse_size(text) == want


@pytest.mark.parametrize("text", ["lots", "-1G", "0", "2X", "1e9", True])
def test_bad_sizes_name_the_option(text):
    with pytest.raises(InputError, match="--memory-budget"):
        parse_size(text)
    with pytest.raises(InputError, match="--stream-memory "):
        parse_size(text, "--stream-memory")


def test_both_memory_options_read_sizes_alike():
    for text, want in DOCUMENTED:
        assert resolve_budget(text)[0] == want
        if want >= 64 * 2**20:  # --stream-memory's floor, its own rule
            assert parse_memory(text) == want
    with pytest.raises(InputError, match="--stream-memory must be at least 64M"):
        parse_memory("64K")
    assert parse_size(np.int64(4096)) == parse_memory(np.int64(2**30)) // 2**18 == 4096


def test_sizes_read_back():
    assert [size_text(n) for n in (512, 65_536, 524_288_000, 1_610_612_736)] == [
        "512 B",
        "64.0 KiB",
        "500.0 MiB",
        "1.5 GiB",
    ]
