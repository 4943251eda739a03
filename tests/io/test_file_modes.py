"""Files diveval writes through its atomic writer get the mode a plain open() gives them: 0666
less the umask for a new file, an existing file's own mode when it is replaced (mkstemp alone
would leave every one 0600)."""

from __future__ import annotations

import os
import stat

import pytest

from diveval.cli import main
from diveval.io.writers import write_atomic

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")


@pytest.fixture
def umask():
    saved = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(saved)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_a_new_file_follows_the_umask(tmp_path, umask, mask):
    umask(mask)
    plain, atomic = tmp_path / "plain.txt", tmp_path / "atomic.txt"
    plain.write_text("x")
    write_atomic(str(atomic), "x")
    assert mode(atomic) == mode(plain) == 0o666 & ~mask


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    umask(0o022)
    path = tmp_path / "kept.txt"
    path.write_text("old")
    os.chmod(path, 0o640)
    write_atomic(str(path), "new")
    assert path.read_text() == "new" and mode(path) == 0o640


def test_items_summary_and_report_files(tmp_path, umask, capsys):
    umask(0o022)
    data = tmp_path / "runs.jsonl"
    data.write_text(
        '{"system": "a", "responses": ["a cat", "a dog"]}\n'
        '{"system": "b", "responses": ["the sun", "the sun"]}\n',
        encoding="utf-8",
    )
    out = {name: tmp_path / name for name in ("items.csv", "summary.jsonl", "report.html")}
    code = main(
        [
            "score",
            str(data),
            "-m",
            "distinct-1",
            "--by",
            "system",
            "--items",
            str(out["items.csv"]),
            "--summary",
            str(out["summary.jsonl"]),
            "--report",
            str(out["report.html"]),
            "--json",
        ]
    )
    capsys.readouterr()
    assert code == 0
    assert {name: mode(path) for name, path in out.items()} == dict.fromkeys(out, 0o644)
