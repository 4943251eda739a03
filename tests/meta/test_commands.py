"""The meta-evaluation commands: --help with an example, --json, tables, one-line errors."""

import json

import pytest
import scipy.stats as st
from conftest import shared_path

from diveval.cli import main


@pytest.mark.parametrize(
    "argv", [["correlate", "--help"], ["meta", "tevet", "--help"], ["length-bias", "--help"]]
)
def test_help_has_an_example(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0
    assert "example" in capsys.readouterr().out


def _table(tmp_path):
    rows = [
        ("A", "s1", 0.1, 0.5, 2.0),
        ("A", "s2", 0.3, 0.4, 2.5),
        ("A", "s3", 0.2, 0.9, 3.1),
        ("A", "s4", 0.5, 0.8, 3.0),
        ("B", "s1", 0.6, 0.1, 1.0),
        ("B", "s2", 0.2, 0.3, 1.5),
        ("B", "s3", 0.9, 0.2, 2.2),
        ("B", "s4", 0.7, 0.6, 2.1),
    ]
    p = tmp_path / "t.csv"
    p.write_text(
        "dataset,method,m1,m2,human\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n"
    )
    return p, rows


def test_correlate_json_equals_scipy(tmp_path, capsys):
    p, rows = _table(tmp_path)
    assert (
        main(
            [
                "correlate",
                str(p),
                "--human",
                "human",
                "--by",
                "dataset",
                "--json",
                "--resamples",
                "50",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    a = [r for r in rows if r[0] == "A"]
    ref = st.spearmanr([r[3] for r in a], [r[4] for r in a])[0]
    assert out["correlations"]["A"]["m2"]["spearman"]["value"] == pytest.approx(ref)
    assert set(out["correlations"]["B"]) == {"m1", "m2"}  # method column is not numeric


def test_correlate_table_and_errors(tmp_path, capsys):
    p, _ = _table(tmp_path)
    assert (
        main(["correlate", str(p), "--human", "human", "--metric", "m1", "--resamples", "0"]) == 0
    )
    out = capsys.readouterr().out
    assert "m1" in out and "Kendall" in out and "m2" not in out
    assert main(["correlate", str(p), "--human", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope" in err and str(p) in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"m": 1, "h": 2}\n{oops\n')
    assert main(["correlate", str(bad), "--human", "h"]) == 2
    assert "bad.jsonl:2" in capsys.readouterr().err


def test_meta_tevet_json(capsys):
    path = shared_path("diversity-eval", "conTest", "con_test_200_with_hds_resp_gen.csv")
    assert (
        main(
            [
                "meta",
                "tevet",
                str(path),
                "-m",
                "avg-distinct",
                "-m",
                "human",
                "--resamples",
                "50",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    rows = {r["metric"]: r for r in out["tests"][str(path)]}
    assert round(rows["avg-distinct"]["parameter"]["spearman"]["value"], 2) == 0.35
    assert round(rows["human"]["parameter"]["spearman"]["value"], 2) == 0.63
    assert "accuracy" in rows["avg-distinct"]
    assert main(["meta", "tevet", str(path), "-m", "avg-distinct", "--resamples", "20"]) == 0
    assert "Spearman ρ (param)" in capsys.readouterr().out


def test_length_bias_json_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(["a b c", "d e f", "g h", "i j", "k l m n"] * 3) + "\n")
    png = tmp_path / "lb.png"
    assert (
        main(
            [
                "length-bias",
                "--corpus",
                str(corpus),
                "--lengths",
                "2:4",
                "--sets",
                "2",
                "--responses",
                "20",
                "--min-pool",
                "1",
                "--plot",
                str(png),
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    sources = [r["source"] for r in out["runs"]]
    assert sources == ["designated", "natural:c.txt"]
    assert out["runs"][1]["lengths"] == [2, 3, 4] and png.read_bytes()[:4] == b"\x89PNG"
    assert main(["length-bias", "--lengths", "3,6", "--sets", "1", "--responses", "10"]) == 0
    assert "slope per token" in capsys.readouterr().out
    assert main(["length-bias", "--lengths", "x"]) == 2
