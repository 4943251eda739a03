"""A CSV record's ``_line`` (in --items, in error messages) is the physical line where the record
starts, also when a quoted cell holds line breaks; blank lines are no records but still count."""

import csv

import pytest

from diveval.cli import main
from diveval.errors import InputError
from diveval.io.readers import read_input, read_records

TEXT = 'id,response\na,"one\ntwo\nthree"\nb,four\n\nc,"five\r\nsix"\nd,seven\n'


def starts(text: str) -> list[int]:
    """Independently: the line of each record's first cell, by the csv module's own count."""
    lines = text.splitlines(keepends=True)
    out, i = [], 1  # after the header
    while i < len(lines):
        if lines[i].strip() == "":
            i += 1
            continue
        # the record ends where the cells read from lines[i:] are complete
        for end in range(i + 1, len(lines) + 1):
            try:
                rows = list(csv.reader(lines[i:end], strict=True))
            except csv.Error:
                continue
            if len(rows) == 1 and len(rows[0]) == 2:
                break
        out.append(i + 1)
        i = end
    return out


def test_records_start_where_they_start(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(TEXT, encoding="utf-8", newline="")
    data = read_input(str(path))
    assert data.items == ["one\ntwo\nthree", "four", "five\r\nsix", "seven"]
    assert [r["_line"] for r in data.records] == starts(TEXT) == [2, 5, 7, 9]
    assert [r["_line"] for r in read_records(str(path))] == [2, 5, 7, 9]


def test_items_file_names_the_first_line(tmp_path, capsys):
    path, items = tmp_path / "r.csv", tmp_path / "items.csv"
    path.write_text(TEXT, encoding="utf-8", newline="")
    assert main(["score", str(path), "-m", "distinct-1", "--items", str(items)]) == 0
    capsys.readouterr()
    with open(items, newline="", encoding="utf-8") as fh:
        assert [row["_line"] for row in csv.DictReader(fh)] == ["2", "5", "7", "9"]


def test_a_record_with_too_many_cells_is_named_by_its_first_line(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text('id,response\na,"x\ny",extra\n', encoding="utf-8", newline="")
    with pytest.raises(InputError, match=r"r\.csv:2: more fields than the header"):
        read_input(str(path))


def test_short_rows_and_tsv_as_before(tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("response\tscore\nx y\n\nz\t3\n", encoding="utf-8", newline="")
    data = read_input(str(path))
    assert data.items == ["x y", "z"]
    assert [(r["_line"], r["score"]) for r in data.records] == [(2, None), (4, "3")]
