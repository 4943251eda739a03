"""The table of input formats: one entry is all a new format needs, every reader and writer asks
the table, and folders of Parquet files read as the files they hold."""

from __future__ import annotations

import csv
import gzip
import json

import pytest

from diveval.errors import InputError
from diveval.io import formats
from diveval.io.formats import RECORDS, Format, detect, for_ray, for_writing
from diveval.io.json_records import jsonl_records
from diveval.io.readers import read_input, read_records, read_responses
from diveval.report.item_rows import write_rows
from diveval.sampling.records import read_prompts

RECORDS_OF = [
    {"id": "a", "prompt": "Name a colour.", "responses": ["red", "blue", ""]},
    {"id": "b", "prompt": "Name a fruit.", "responses": ["pear", "apple"]},
]


def write_jsonl(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


@pytest.fixture
def gzip_format(monkeypatch):
    """gzip'd JSON lines, added as the io.formats docstring says: one entry."""
    entry = Format(
        "jsonl.gz",
        suffixes=(".jsonl.gz",),
        shape=RECORDS,
        binary=True,
        rows=lambda path, text: jsonl_records(path, gzip.open(path, "rt").read()),
    )
    monkeypatch.setitem(formats.FORMATS, entry.name, entry)
    return entry


def test_one_entry_makes_a_format_every_reader_reads(tmp_path, gzip_format):
    plain = write_jsonl(tmp_path / "r.jsonl", RECORDS_OF)
    packed = tmp_path / "r.jsonl.gz"
    with gzip.open(packed, "wt") as fh:
        fh.write(open(plain).read())
    assert detect(str(packed)) is gzip_format
    want, got = read_input(plain), read_input(str(packed))
    assert (got.setting, got.items, got.skipped) == (want.setting, want.items, want.skipped)
    assert got.records == want.records
    assert read_records(str(packed)) == read_records(plain)
    assert read_responses(str(packed)) == read_responses(plain) == ["red", "blue", "pear", "apple"]
    prompts = read_prompts(str(packed))
    assert [(p.prompt, p.line, p.fields["id"]) for p in prompts] == [
        ("Name a colour.", 1, "a"),
        ("Name a fruit.", 2, "b"),
    ]
    # it names no Ray reader and no writer: both say which endings they take
    with pytest.raises(InputError, match=r"engine='ray' reads \.jsonl.*\.parquet"):
        for_ray(str(packed))
    with pytest.raises(InputError, match=r"per-item output must end in \.jsonl.*\.tsv"):
        for_writing(str(packed), "per-item output")


def test_prompts_come_from_any_records_format(tmp_path):
    table = tmp_path / "p.csv"
    table.write_text('id,prompt\nq1,"Hello, there"\nq2,Second\n')
    got = [(p.index, p.prompt, p.line, p.fields) for p in read_prompts(str(table))]
    assert got == [
        (0, "Hello, there", 2, {"id": "q1", "prompt": "Hello, there"}),
        (1, "Second", 3, {"id": "q2", "prompt": "Second"}),
    ]
    array = tmp_path / "p.json"
    array.write_text(json.dumps([{"prompt": "one"}, {"prompt": "two"}], indent=1))
    opens = [n for n, line in enumerate(array.read_text().split("\n"), 1) if line.strip() == "{"]
    assert [(p.prompt, p.line) for p in read_prompts(str(array))] == list(
        zip(["one", "two"], opens)
    )


@pytest.mark.parametrize("ending", [".csv", ".tsv", ".jsonl"])
def test_rows_are_written_in_the_format_of_the_ending(tmp_path, ending):
    rows = [{"_line": 1, "m": 0.5, "tags": ["a", "é"]}, {"_line": 2, "m": -0.0, "x": "y"}]
    path = tmp_path / f"rows{ending}"
    write_rows(str(path), rows)
    if ending == ".jsonl":
        back = [json.loads(line) for line in open(path, encoding="utf-8")]
        assert back == [rows[0], {"_line": 2, "m": 0.0, "x": "y"}]
        return
    with open(path, newline="", encoding="utf-8") as fh:
        back = list(csv.DictReader(fh, dialect="excel-tab" if ending == ".tsv" else "excel"))
    assert back == [
        {"_line": "1", "m": "0.5", "tags": '["a", "é"]', "x": ""},
        {"_line": "2", "m": "0.0", "tags": "", "x": "y"},
    ]


def test_a_folder_of_parquet_files_reads_as_its_files_in_order(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    folder = tmp_path / "parts"
    folder.mkdir()
    pq.write_table(pa.table({"response": ["a b", "b c"]}), folder / "part-0.parquet")
    pq.write_table(pa.table({"response": ["c d"]}), folder / "part-1.parquet")
    assert detect(str(folder)).name == "parquet" and for_ray(str(folder)).name == "parquet"
    data = read_input(str(folder))
    assert data.items == ["a b", "b c", "c d"]
    assert [r["_line"] for r in data.records] == [1, 2, 3]
