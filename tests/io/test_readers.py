"""Reading the field's formats: every one as records, never raw text; empties skipped and said."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import diveval
from diveval.cli import main
from diveval.errors import InputError
from diveval.io.csv_rows import unclosed_quote
from diveval.io.readers import read_input, read_records, read_responses

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_lines_named_json_are_records_not_text(tmp_path, capsys):
    # regression: `score X.json` scored the raw JSON lines as text
    path = tmp_path / "sets.json"
    path.write_text('{"responses": ["a b", "a c"]}\n{"responses": ["b", "b d"]}\n')
    data = read_input(str(path))
    assert data.setting == "sets" and data.items == [["a b", "a c"], ["b", "b d"]]
    code, out, _ = run(capsys, "score", path, "-m", "distinct-1", "--json")
    assert json.loads(out)["scores"]["distinct-1"]["value"] == pytest.approx((0.75 + 2 / 3) / 2)


def test_a_json_array_of_records_strings_or_lists(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('[\n {"response": "x y", "id": 1},\n {"response": "z", "id": 2}\n]\n')
    data = read_input(str(path))
    assert data.items == ["x y", "z"] and [r["_line"] for r in data.records] == [2, 3]
    path.write_text('["x y", "z"]')
    assert read_input(str(path)).items == ["x y", "z"]
    path.write_text('[["x", "y"], ["z", "w"]]')
    assert read_input(str(path)).setting == "sets"


@pytest.mark.parametrize(
    "content, message",
    [
        ('[{"response": "a"},\n {"response": ', "bad.json:2: malformed JSON"),
        ('[{"response": "a"} {"response": "b"}]', "expected , or ]"),
        ("just some text\n", "bad.json:1: malformed JSON"),
        ('[{"response": "a"}] trailing', "text after the JSON array"),
        ('{"text": "a"}\n', 'record has neither "responses"'),
    ],
)
def test_a_json_file_that_is_not_understood_is_an_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        read_input(str(path))


def test_empty_responses_are_skipped_and_reported_in_every_reader(tmp_path, capsys):
    cases = {
        "r.txt": "a b\n\n   \nc\n",
        "r.csv": "response,id\na b,1\n,2\nc,3\n",
        "r.jsonl": '{"response": "a b"}\n{"response": " "}\n{"response": "c"}\n',
        "s.csv": "resp_0,resp_1\na,\nb,c\n",
        "s.jsonl": '{"responses": ["a", ""]}\n{"responses": ["", " "]}\n{"responses": ["b", "c"]}\n',
    }
    expected_items = {
        "r.txt": ["a b", "c"],
        "r.csv": ["a b", "c"],
        "r.jsonl": ["a b", "c"],
        "s.csv": [["a"], ["b", "c"]],
        "s.jsonl": [["a"], ["b", "c"]],
    }
    for name, content in cases.items():
        path = tmp_path / name
        path.write_text(content)
        data = read_input(str(path))
        assert data.items == expected_items[name], name
        assert data.skipped, name
        code, out, err = run(capsys, "score", path, "-m", "distinct-1", "--json")
        assert code == 0 and "skipped" in err and f"{name}: skipped" in err
        assert json.loads(out)["skipped_empty"] == len(data.skipped)
    (tmp_path / "empty.txt").write_text("\n  \n")
    with pytest.raises(InputError, match="no responses in the file \\(2 empty ones skipped\\)"):
        read_input(str(tmp_path / "empty.txt"))


def test_field_and_column_choose_the_text(tmp_path):
    path = tmp_path / "dd.jsonl"
    path.write_text('{"context": ["hi"], "positive_responses": ["a", "b"], "neg": ["c", "d"]}\n')
    with pytest.raises(InputError, match="positive_responses \\(list\\).*name one with --field"):
        read_input(str(path))
    assert read_input(str(path), field="neg").items == [["c", "d"]]
    with pytest.raises(InputError, match='no field "nope"'):
        read_input(str(path), field="nope")
    csv_path = tmp_path / "t.tsv"
    csv_path.write_text("id\ttext\n1\thello there\n")
    assert read_input(str(csv_path), field="text").items == ["hello there"]
    with pytest.raises(
        InputError, match="no column 'txt' \\(did you mean 'text'\\?\\); the columns are id, text"
    ):
        read_input(str(csv_path), field="txt")
    nested = tmp_path / "dialogues.jsonl"
    nested.write_text(
        json.dumps({"id": 7, "turns": [{"responses": ["a", "b"]}, {"responses": ["c", "d"]}, {}]})
        + "\n"
    )
    data = read_input(str(nested), field="turns.responses")
    assert data.items == [["a", "b"], ["c", "d"]]
    assert [(r["id"], r["turns_index"]) for r in data.records] == [(7, 0), (7, 1)]


def test_standard_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"responses": ["a", "b"]}\n')))
    code, out, _ = run(capsys, "score", "-", "-m", "distinct-1", "--json")
    assert code == 0 and json.loads(out)["setting"] == "sets"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b\nb c\n")))
    assert read_input("-").items == ["a b", "b c"]


def test_parquet_and_a_datasets_folder(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"responses": [["a b", "a c"], ["b", "c d"]], "system": ["x", "y"]})
    pq.write_table(table, tmp_path / "sets.parquet")
    data = read_input(str(tmp_path / "sets.parquet"))
    assert data.items == [["a b", "a c"], ["b", "c d"]] and data.column("system") == ["x", "y"]
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_dict({"text": ["one two", "", "three"]}).save_to_disk(tmp_path / "ds")
    data = read_input(str(tmp_path / "ds"), field="text")
    assert data.items == ["one two", "three"] and data.skipped == (2,)
    datasets.DatasetDict({"train": datasets.Dataset.from_dict({"text": ["a"]})}).save_to_disk(
        tmp_path / "dd"
    )
    with pytest.raises(
        InputError, match="a DatasetDict folder: give one split's folder \\(train\\)"
    ):
        read_input(str(tmp_path / "dd"))


def test_per_set_errors_name_the_file_and_line(tmp_path, capsys):
    path = tmp_path / "sets.jsonl"
    path.write_text('{"responses": ["a", "b"]}\n\n{"responses": ["only one"]}\n')
    code, _, err = run(capsys, "score", path, "-m", "cos-diversity")
    assert code == 2 and "sets.jsonl:3: cos-diversity compares responses in pairs: set 1" in err


def test_numpy_pandas_and_read_in_the_api(tmp_path):
    pd = pytest.importorskip("pandas")
    want = diveval.score([["a b", "a c"], ["b", "b"]], ["distinct-1"])["distinct-1"]
    frame = pd.DataFrame({"sys": ["x", "y"], "texts": [["a b", "a c"], ["b", "b"]]})
    for data, extra in (
        (np.array([["a b", "a c"], ["b", "b"]]), {}),
        (frame, {"column": "texts"}),
        (frame["texts"], {}),
    ):
        got = diveval.score(data, ["distinct-1"], **extra)["distinct-1"]
        assert got.value == want.value and got.signature == want.signature
    assert diveval.distinct(pd.Series(["a b", "b c"]), n=1).value == 0.75
    with pytest.raises(InputError, match="name the text column with column="):
        diveval.score(frame, ["distinct-1"])
    path = tmp_path / "r.txt"
    path.write_text("a b\n\nb c\n")
    data = diveval.read(str(path))
    assert (data.items, data.skipped, data.setting) == (["a b", "b c"], (2,), "corpus")


@pytest.mark.skipif(not DATA.exists(), reason="../shared/data is absent")
def test_the_fields_formats_from_shared_data(capsys):
    ddpp = DATA / "dailydialog-plusplus" / "dev.json"
    code, _, err = run(capsys, "score", ddpp)
    assert code == 2 and "name one with --field" in err
    data = read_input(str(ddpp), field="positive_responses")
    assert data.setting == "sets" and len(data.items) == 1028
    scarce = read_input(str(DATA / "scarce" / "multiref.json"))
    assert len(scarce.items) == 500 and all(r["references"] for r in scarce.records)
    multi = read_input(str(DATA / "multirefeval" / "multireftest.json"), field="dialogue.responses")
    assert len(multi.items) == 6740  # every test turn, as the data's README says
    assert sum(map(len, multi.items)) == 5 * 6740 - len(multi.skipped)  # 5 references a turn


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_an_unterminated_csv_quote_is_an_error_at_the_line_it_opens(tmp_path, suffix):
    sep = "\t" if suffix == ".tsv" else ","
    path = tmp_path / f"q{suffix}"
    path.write_text(f'id{sep}response\n1{sep}a b\n2{sep}"b c\n3{sep}d\n4{sep}e\n')
    with pytest.raises(InputError, match=rf"q\{suffix}:3: a quote opens a field"):
        read_input(str(path))
    with pytest.raises(InputError, match=rf"q\{suffix}:3: a quote opens a field"):
        read_records(str(path))


def test_quotes_the_csv_module_reads_as_text_still_read_the_same(tmp_path):
    # a quote inside an unquoted cell, a doubled quote, a quoted cell over two lines
    path = tmp_path / "ok.csv"
    path.write_text('response,id\na 5" screen,1\n"say ""hi""",2\n"two\nlines",3\n"x"y,4\n')
    data = read_input(str(path))
    assert data.items == ['a 5" screen', 'say "hi"', "two\nlines", "xy"]
    assert [r["_line"] for r in data.records] == [2, 3, 4, 6]  # where each record starts


def test_responses_that_is_not_a_list_is_an_error(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"responses": ["a", "b"]}\n{"responses": "not a list"}\n')
    with pytest.raises(InputError, match=r'r\.jsonl:2: "responses" must be a list of strings'):
        read_input(str(path))


def _stdin(monkeypatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


def test_a_table_on_standard_input_is_sniffed_like_a_file(monkeypatch, tmp_path):
    table = 'id,response\n1,"hello, there"\n2,a b\n'
    _stdin(monkeypatch, table)
    data = read_input("-")
    (tmp_path / "t.csv").write_text(table)
    assert data.items == read_input(str(tmp_path / "t.csv")).items == ["hello, there", "a b"]
    _stdin(monkeypatch, "resp_0\tresp_1\na b\ta c\n")
    assert read_input("-").items == [["a b", "a c"]]
    _stdin(monkeypatch, "id,text\n1,hello there\n")
    assert read_input("-", field="text").items == ["hello there"]
    _stdin(monkeypatch, "id,text\n1,hello there\n")
    with pytest.raises(InputError, match="<stdin>:1: looks like a CSV table .* --format"):
        read_input("-")
    _stdin(monkeypatch, "hello, world\nhow are you ?\n")  # text with commas stays text
    assert read_input("-").items == ["hello, world", "how are you ?"]
    _stdin(monkeypatch, "id,text\n1,hello there\n")
    assert read_input("-", "txt").items == ["id,text", "1,hello there"]


def test_format_tsv_reads_tabs_whatever_the_file_is_named(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("response\tid\na, b\t1\n")
    assert read_input(str(path), "tsv").items == ["a, b"]


def test_len_is_the_number_of_responses_or_sets(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a\n\nb\nc\n")
    assert len(diveval.read(str(corpus))) == 3
    sets = tmp_path / "s.jsonl"
    sets.write_text('{"responses": ["a", "b"]}\n{"responses": ["c", "d", "e"]}\n')
    assert len(diveval.read(str(sets))) == 2


@settings(max_examples=400, deadline=None)
@given(hst.text(alphabet='a,"\n\t', max_size=14), hst.booleans())
def test_the_unclosed_quote_check_agrees_with_the_csv_module(text, tab):
    # the csv module is the oracle: a quote left open swallows a sentinel row appended after it
    delimiter = "\t" if tab else ","
    rows = list(csv.reader(io.StringIO(text + "\nZ" + delimiter + "Z\n", newline=""),
                           delimiter=delimiter))  # fmt: skip
    assert (unclosed_quote(text, delimiter) is None) == (rows[-1] == ["Z", "Z"])


#: a record of NoveltyBench's scores.jsonl as the benchmark writes it (NB-Curated, its keys in its
#: order), the answers shortened; its generations.jsonl holds the first four keys
NOVELTY_RECORD = {
    "id": "curated-4",
    "prompt": "Name a color.",
    "model": "meta-llama/Llama-3.1-8B-Instruct",
    "generations": ["Blue.", "Blue.", "Red.", "Blue is a calm color.", "Green."],
    "partition": [0, 0, 1, 0, 2],
    "distinct": 2,
    "generation_scores": [7, 0, 5, 0, 4],
    "partition_scores": [7, 5, 4],
    "utility": 3.4,
}


def test_novelty_bench_generations_are_the_set_without_a_flag(tmp_path, capsys):
    path = tmp_path / "scores.jsonl"
    second = dict(NOVELTY_RECORD, id="curated-5", generations=["a b", "", "a c", "b", "d"])
    path.write_text(json.dumps(NOVELTY_RECORD) + "\n" + json.dumps(second) + "\n")
    data = read_input(str(path))
    assert data.setting == "sets"
    assert data.items == [NOVELTY_RECORD["generations"], ["a b", "a c", "b", "d"]]
    assert data.skipped == (2,)
    # the fields that hold one entry per answer stay aligned when an empty answer is skipped
    aligned = read_input(str(path), per_response=("partition", "generation_scores"))
    assert aligned.column("partition") == [[0, 0, 1, 0, 2], [0, 1, 0, 2]]
    assert aligned.column("generation_scores")[1] == [7, 5, 0, 4]
    code, out, _ = run(capsys, "score", path, "-m", "distinct-1", "--json")
    assert code == 0 and json.loads(out)["items"] == 2
    # "responses" first when a record holds both; a string is no set of generations
    both = tmp_path / "both.jsonl"
    both.write_text(json.dumps(dict(NOVELTY_RECORD, responses=["x", "y"])) + "\n")
    assert read_input(str(both)).items == [["x", "y"]]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(dict(NOVELTY_RECORD, generations="Blue.")) + "\n")
    with pytest.raises(InputError, match=r'bad\.jsonl:1: "generations" must be a list of strings'):
        read_input(str(bad))
    assert read_responses(str(path)) == [
        *NOVELTY_RECORD["generations"],
        "a b",
        "a c",
        "b",
        "d",
    ]


def test_fields_of_one_entry_per_response_must_line_up(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(dict(NOVELTY_RECORD, partition=[0, 0, 1])) + "\n")
    with pytest.raises(InputError, match=r's\.jsonl:1: "partition" has 3 entries for 5 responses'):
        read_input(str(path), per_response=("partition",))
    with pytest.raises(InputError, match=r's\.jsonl:1: record has no field "partiton"'):
        read_input(str(path), per_response=("partiton",))


def test_novelty_bench_files_from_shared_data():
    files = sorted((DATA / "novelty-bench" / "curated").glob("*/*/scores.jsonl"))
    if not files:
        pytest.skip("the shared NoveltyBench data is not here")
    data = read_input(str(files[0]))
    assert len(data.items) == 70 and all(len(s) == 10 for s in data.items)
    assert data.items[0] == json.loads(files[0].read_text().splitlines()[0])["generations"]
