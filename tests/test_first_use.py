"""A new user's first session, replayed: README's examples, then every command on the
authors' data in ../shared/data. No traceback anywhere, no silent wrong reading, and the published
numbers where there are some. Each step runs the real CLI in a fresh process, as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.exists(), reason="../shared/data is absent")


def diveval(*args, ok=True):
    proc = subprocess.run(
        [sys.executable, "-m", "diveval", *map(str, args), "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    if ok:
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode == 2 and proc.stderr.count("\n") >= 1, proc.stderr
    return proc


def scores(proc):
    return {k: v["value"] for k, v in json.loads(proc.stdout)["scores"].items()}


def test_the_readme_examples():
    assert "distinct-2" in diveval("score", "examples/responses.txt").stdout
    out = scores(diveval("score", "examples/sets.jsonl", "--json"))
    assert {"distinct-1", "ead", "self-bleu"} <= set(out)
    out = scores(diveval("score", "examples/sets.jsonl", "-m", "nli-confidence", "--json"))
    assert out["nli-confidence"] < 0  # the example's sets are mostly paraphrases
    assert "distinct-1" in diveval("metrics").stdout


@needs_data
def test_dailydialog_plusplus_is_never_read_as_text():
    ddpp = DATA / "dailydialog-plusplus" / "dev.json"
    err = diveval("score", ddpp, ok=False).stderr
    assert "name one with --field" in err and "positive_responses" in err
    proc = diveval("score", ddpp, "--field", "positive_responses", "-m", "avg-distinct",
                   "--tokenizer", "tevet", "--json")  # fmt: skip
    assert json.loads(proc.stdout)["items"] == 1028
    # Stasaski & Hearst's threshold: the 90th percentile of averaged distinct-n is 0.98
    proc = diveval("thresholds", ddpp, "-m", "avg-distinct", "--json")
    assert round(json.loads(proc.stdout)["thresholds"][0]["value"], 2) == 0.98


@needs_data
def test_tevet_and_berant_published_correlations_and_oriented_accuracy():
    con = DATA / "diversity-eval" / "conTest" / "con_test_200_with_hds_resp_gen.csv"
    proc = diveval("meta", "tevet", con, "-m", "avg-distinct", "-m", "cos-diversity", "-m", "human",
                   "-m", "self-bleu", "--resamples", "200", "--json")  # fmt: skip
    rows = {r["metric"]: r for r in json.loads(proc.stdout)["tests"][str(con)]}
    # Tevet & Berant (2021): conTest Spearman distinct-n 0.35, cos-sim 0.33, absHDS 0.63
    assert round(rows["avg-distinct"]["parameter"]["spearman"]["value"], 2) == 0.35
    assert round(rows["cos-diversity"]["parameter"]["spearman"]["value"], 2) == 0.33
    assert round(rows["human"]["parameter"]["spearman"]["value"], 2) == 0.63
    acc = rows["self-bleu"]["accuracy"]
    assert acc["interval"]["low"] <= acc["value"] <= acc["interval"]["high"] and acc["value"] > 0.6


@needs_data
def test_ead_table2_correlations_from_the_command_line():
    proc = diveval("correlate", DATA / "ead-table2" / "table2.csv", "--human", "human",
                   "--by", "dataset", "-m", "distinct", "-m", "ead", "--resamples", "0",
                   "--json")  # fmt: skip
    got = json.loads(proc.stdout)["correlations"]
    # Liu et al. (2022), Table 2: EAD correlates better than Distinct with humans
    assert round(got["DailyDialog"]["ead"]["pearson"]["value"], 2) == 0.70
    assert round(got["DailyDialog"]["distinct"]["spearman"]["value"], 2) == 0.42
    assert round(got["OpenSubtitles"]["ead"]["kendall"]["value"], 2) == 0.56


@needs_data
def test_scarce_references_and_correlations(tmp_path):
    items = tmp_path / "items.csv"
    diveval("score", DATA / "scarce" / "multiref.json", "-m", "ref-bleu-4", "--smoothing", "coco",
            "--items", items)  # fmt: skip
    proc = diveval("correlate", items, "--human", "human_average_rating", "-m", "ref-bleu-4",
                   "--resamples", "0", "--json")  # fmt: skip
    got = json.loads(proc.stdout)["correlations"]["all"]
    authors = json.loads((DATA / "scarce" / "results" / "multiref.log").read_text())["Bleu_4"]
    assert got["ref-bleu-4"]["spearman"]["value"] == pytest.approx(authors["spearmanr"], abs=2e-3)


@needs_data
def test_other_formats_and_bad_input(tmp_path):
    multi = DATA / "multirefeval" / "multireftest.json"
    proc = diveval("score", multi, "--field", "dialogue.responses", "-m", "distinct-1", "--json")
    assert json.loads(proc.stdout)["items"] == 6740
    hred = DATA / "multirefeval" / "hredf.txt"
    assert json.loads(diveval("score", hred, "-m", "ead", "--json").stdout)["items"] == 6740
    lsdscc = DATA / "lsdscc" / "example"
    proc = diveval("lsdscc", lsdscc / "reference.json", lsdscc / "hypothesis.txt", "--json")
    assert json.loads(proc.stdout)["scores"]["mds"] == 1.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"responses": ["a", 3]}\n')
    assert "bad.jsonl:1:" in diveval("score", bad, ok=False).stderr
    assert "unknown device" in diveval("score", hred, "--device", "gpu", ok=False).stderr


def _lexicalrichness_of_lines(lines):
    """lexicalrichness on diveval's tokens (whitespace) of the lines joined AS GIVEN."""
    lexicalrichness = pytest.importorskip("lexicalrichness")
    tokens = " ".join(lines).split()
    return lexicalrichness.LexicalRichness(tokens, preprocessor=None, tokenizer=None)


def _score_json(*args):
    return json.loads(diveval("score", *args, "--json").stdout)["scores"]


def test_joining_metrics_score_the_lines_as_given_unless_join_sorted(tmp_path):
    from diversity_reference import generated_documents

    lines = generated_documents(120, 6, max_len=25)
    path = tmp_path / "responses.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ref = _lexicalrichness_of_lines(lines)
    given = _score_json(path, "-m", "mattr", "-m", "mtld")
    assert given["mattr"]["value"] == pytest.approx(ref.mattr(50), rel=1e-12)
    assert given["mtld"]["value"] == pytest.approx(ref.mtld(0.72), rel=1e-12)
    assert "join:given" in given["mattr"]["signature"]
    srt = _score_json(path, "-m", "mattr", "--join", "sorted")["mattr"]
    assert srt["signature"] == given["mattr"]["signature"].replace("join:given", "join:sorted")
    assert srt["value"] == pytest.approx(_lexicalrichness_of_lines(sorted(lines)).mattr(50))
    assert srt["value"] != given["mattr"]["value"]
    assert "invalid choice" in diveval("score", path, "--join", "random", ok=False).stderr


@needs_data
def test_the_first_2000_hred_responses_as_the_issue_scored_them(tmp_path):
    lines = (DATA / "multirefeval" / "hredf.txt").read_text(encoding="utf-8").splitlines()[:2000]
    path = tmp_path / "hred2000.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ref = _lexicalrichness_of_lines(lines)
    got = _score_json(path, "-m", "mattr", "-m", "mtld")
    assert got["mattr"]["value"] == pytest.approx(ref.mattr(50), rel=1e-12)  # 0.568
    assert got["mtld"]["value"] == pytest.approx(ref.mtld(0.72), rel=1e-12)  # 21.9
    srt = _score_json(path, "-m", "mattr", "--join", "sorted")["mattr"]
    assert round(srt["value"], 3) == 0.358  # sorted, duplicates side by side


# --- readings: ids are not numbers, bookkeeping columns, inputs never read silently ---


def _summary_then_correlate(tmp_path, data, human, by):
    summary = tmp_path / "systems.csv"
    diveval("score", data, "-m", "distinct-1", "-m", "distinct-2", "--by", by,
            "--summary", summary)  # fmt: skip
    header = summary.read_text().splitlines()[0].split(",")
    proc = diveval("correlate", summary, "--human", human, "--resamples", "0", "--json")
    return header, json.loads(proc.stdout)["correlations"]["all"]


def test_ids_are_never_averaged_nor_correlated_and_summary_feeds_correlate(tmp_path):
    # SCARCE's shape: context_id "73_4" reads as 734 with Python's float()
    data = tmp_path / "rated.jsonl"
    rows = []
    for k, model in enumerate(["human", "hred", "seq2seq", "cvae"]):
        for c in range(3):
            sents = [" ".join(f"w{(k * 7 + c * j + i) % (3 + 2 * k)}" for j in range(6))
                     for i in range(2)]  # fmt: skip
            rows.append({"model": model, "context_id": f"{70 + c}_{k}", "turn_idx": c,
                         "human": str(1 + k + c / 10), "responses": sents})  # fmt: skip
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    header, got = _summary_then_correlate(tmp_path, data, "human", "model")
    assert header == ["model", "_n", "human", "distinct-1", "distinct-2"]
    assert set(got) == {"distinct-1", "distinct-2"}
    items = tmp_path / "items.csv"
    diveval("score", data, "-m", "distinct-1", "--items", items)
    proc = diveval("correlate", items, "--human", "human", "--resamples", "0", "--json")
    assert set(json.loads(proc.stdout)["correlations"]["all"]) == {"distinct-1"}


@needs_data
def test_the_readme_summary_flow_on_scarce(tmp_path):
    header, got = _summary_then_correlate(
        tmp_path, DATA / "scarce" / "multiref.json", "human_average_rating", "model"
    )
    assert "context_id" not in header and "_n" in header and "human_average_rating" in header
    assert set(got) == {"distinct-1", "distinct-2"}
    # the README's SCARCE example: per-item rows, every metric column by default, no context_id
    items = tmp_path / "items.csv"
    diveval("score", DATA / "scarce" / "multiref.json", "-m", "ref-bleu-4", "--items", items)
    proc = diveval("correlate", items, "--human", "human_average_rating", "--resamples", "0",
                   "--json")  # fmt: skip
    assert set(json.loads(proc.stdout)["correlations"]["all"]) == {"ref-bleu-4"}


def test_inputs_that_used_to_be_read_silently_are_errors_naming_file_and_line(tmp_path):
    quote = tmp_path / "q.csv"
    quote.write_text('id,response\n1,fine\n2,"never closed\n3,more\n4,and more\n')
    assert "q.csv:3: a quote opens a field" in diveval("score", quote, ok=False).stderr
    records = tmp_path / "r.jsonl"
    records.write_text('{"responses": "not a list"}\n')
    err = diveval("score", records, ok=False).stderr
    assert "r.jsonl:1:" in err and '"responses" must be a list of strings' in err


def _stdin(text, *args):
    return subprocess.run(
        [sys.executable, "-m", "diveval", "score", "-", *args, "--quiet"],
        input=text, capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip


def test_a_csv_piped_to_standard_input_is_read_as_csv(tmp_path):
    table = 'id,response\n1,"the cat, the dog"\n2,a bird\n'
    (tmp_path / "t.csv").write_text(table)
    from_file = scores(diveval("score", tmp_path / "t.csv", "-m", "distinct-1", "--json"))
    proc = _stdin(table, "-m", "distinct-1", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["items"] == 2
    assert scores(proc) == from_file
    proc = _stdin("id,text\n1,a b\n2,c d\n", "-m", "distinct-1")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "<stdin>:1:" in proc.stderr and "--format" in proc.stderr


def _run(*args, cwd=ROOT, env=None):
    """The CLI in a fresh process, from ``cwd``, with ``env`` (default: the test's own)."""
    proc = subprocess.run(
        [sys.executable, "-m", "diveval", *map(str, args), "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env=env,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def _one_line_error(proc):
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    return proc.stderr


@pytest.mark.parametrize(
    "flags",
    [
        ["-m", "nli-confidence", "--nli-model", "made-up-org/no-such-nli-model"],
        ["-m", "sent-bert", "--embedder", "made-up-org/no-such-embedder"],
    ],
)
def test_a_model_not_in_the_cache_fails_at_once_without_hf_hub_offline(tmp_path, flags):
    # A user's shell has no HF_HUB_OFFLINE: diveval itself keeps the hub offline (the hub's
    # retries took 75 s here); the suite's network guard still watches the child process.
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env.pop("DIVEVAL_ONLINE", None)
    env["HF_HOME"] = str(tmp_path / "hf")  # an empty cache
    start = time.monotonic()
    err = _one_line_error(_run("score", "examples/sets.jsonl", *flags, env=env))
    assert time.monotonic() - start < 15, "no hub retries"
    assert f"{flags[-1]!r} is not in the local Hugging Face cache" in err
    assert "--online" in err and "local folder" in err


def test_a_bad_tokenizer_is_named_once_and_metric_names_get_a_suggestion():
    err = _one_line_error(_run("score", "examples/responses.txt", "--tokenizer", "foo"))
    assert err.count("unknown tokenizer 'foo'") == 1
    err = _one_line_error(_run("score", "examples/responses.txt", "--tokenizer", "tevett"))
    assert "did you mean 'tevet'?" in err
    err = _one_line_error(_run("score", "examples/responses.txt", "-m", "sefl-bleu"))
    assert "unknown metric 'sefl-bleu' (did you mean 'self-bleu'?)" in err


def test_a_mistyped_field_names_the_nearest_and_lists_the_fields(tmp_path):
    ddpp = tmp_path / "ddpp.jsonl"
    record = {"context": ["hi"], "positive_responses": ["a b", "c d"], "id": 1}
    ddpp.write_text(json.dumps(record) + "\n")
    err = _one_line_error(_run("score", ddpp, "--field", "positive_respones"))
    assert "no field \"positive_respones\" (did you mean 'positive_responses'?)" in err
    assert "context, positive_responses, id" in err


def test_merge_refuses_a_file_that_is_not_a_state_in_one_line(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    err = _one_line_error(_run("merge", junk))
    assert f"{junk}: not a diveval shard file (not an .npz archive" in err
    assert "pickle" not in err


def test_counts_of_one_are_singular(tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("just one response\n")
    out = _run("score", one, "-m", "distinct-1").stdout
    assert f"{one}: 1 response\n" in out
    sets = tmp_path / "one.jsonl"
    sets.write_text(json.dumps({"responses": ["a b", "c d"]}) + "\n")
    out = _run("score", sets, "-m", "distinct-1").stdout
    assert f"{sets}: 1 set\n" in out


@pytest.mark.parametrize("name", ["items.csv", "items.jsonl"])
def test_item_files_keep_utf8_text_as_is(tmp_path, name):
    sets = tmp_path / "sets.jsonl"
    rec = {"context": ["it\u2019s late", "caf\u00e9"], "responses": ["it\u2019s a b", "c d"]}
    sets.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    _run("score", sets, "-m", "distinct-1", "--items", tmp_path / name)
    text = (tmp_path / name).read_text(encoding="utf-8")
    assert "it\u2019s late" in text and "caf\u00e9" in text and "\\u" not in text


def test_nli_eval_says_what_is_missing_in_one_line(tmp_path):
    err = _one_line_error(_run("nli-eval", "--data", tmp_path / "nowhere", "--limit", "1"))
    assert "nowhere" in err and "no such folder" in err
    err = _one_line_error(_run("nli-eval", "--data", tmp_path, "--limit", "1"))
    assert "not the labelled NLI data folder" in err


@needs_data
def test_nli_eval_finds_its_data_from_any_directory(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DIVEVAL_NLI_DATA"}
    proc = _run("nli-eval", "--limit", "2", "--json", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["limit"] == 2


def test_generate_help_shows_the_defaults_and_the_examples():
    out = _run("generate", "--help").stdout
    assert "(default: pool)" in out and "(default: avg-distinct)" in out
    assert "(default: 0.9)" in out  # --top-p
    assert "examples:" in out and "diveval generate dev.json" in out


def test_correlate_on_three_rows_prints_the_exact_p_never_zero(tmp_path):
    # scipy's Spearman and Pearson p-values of a perfect ordering of 3 rows are 0; 2 of the 6
    # orderings are perfect, so the exact p is 1/3
    rows = tmp_path / "three.csv"
    rows.write_text("human,metric\n1,10\n2,20\n3,40\n")
    out = diveval("correlate", rows, "--human", "human", "--resamples", "0").stdout
    assert out.count("p=0.33 exact") == 3 and "p=0 " not in out and "p=0)" not in out
    got = json.loads(diveval("correlate", rows, "--human", "human", "--resamples", "0",
                             "--json").stdout)["correlations"]  # fmt: skip
    spearman = next(iter(got.values()))["metric"]["spearman"]
    assert spearman["p_value"] == pytest.approx(1 / 3) and spearman["p_method"] == "exact"


def test_generate_does_not_call_a_set_at_the_threshold_reached(tmp_path):
    # five candidates whose averaged distinct-n is exactly 0.98 (distinct-1 27/30, the rest 1),
    # computed as 0.9800000000000001: at the paper's threshold, not above it
    words = [f"w{i}" for i in range(27)] + ["w0", "w5", "w10"]
    cands = [" ".join(words[6 * i : 6 * i + 6]) for i in range(5)]
    src = tmp_path / "contexts.jsonl"
    src.write_text(json.dumps({"id": "c0", "context": ["hi"], "candidates": cands}) + "\n")
    out = tmp_path / "out.jsonl"
    table = diveval("generate", src, "--generator", "pool", "--metric", "avg-distinct",
                    "--out", out).stdout  # fmt: skip
    record = json.loads(out.read_text().splitlines()[0])
    assert record["reached"] is False and record["stop"] == "exhausted"
    assert record["end_diversity"] == record["threshold"] == 0.98  # stored as compared
    assert "0.9800 " in table and "0.0%" in table and "0.9800000000000001" not in table


def test_ead_above_one_on_a_tiny_set_is_explained_on_the_command_line(tmp_path):
    sets = tmp_path / "tiny.jsonl"
    sets.write_text(json.dumps({"responses": ["hello there", "good morning"]}) + "\n")
    proc = diveval("score", sets, "-m", "ead", "--json")
    assert scores(proc)["ead"] > 1
    assert "diveval: warning: ead: EAD is above 1 on 1 of 1 sets" in proc.stderr
    assert "below C for any C >= 2" in proc.stderr


def test_distinct_at_10_on_sets_of_three_says_it_is_plain_distinct(tmp_path):
    sets = tmp_path / "three.jsonl"
    sets.write_text("".join(json.dumps({"responses": r}) + "\n"
                            for r in (["a b", "c d", "a c"], ["x y", "x z", "y z"])))  # fmt: skip
    proc = diveval("score", sets, "-m", "distinct-1-at-10", "-m", "distinct-1", "--json")
    got = scores(proc)
    assert got["distinct-1-at-10"] == pytest.approx(got["distinct-1"])
    assert "warning: distinct-1-at-10: 2 of 2 sets have fewer than k = 10" in proc.stderr


def has_ray():
    import importlib.util

    return importlib.util.find_spec("ray") is not None


def ray_log_lines(stderr):
    """Lines on stderr that are not diveval's own (Ray's Python and C++ log lines)."""
    return [line for line in stderr.splitlines() if not line.startswith("diveval: ")]


def test_every_engine_prints_and_records_the_warnings_of_a_plain_run(tmp_path):
    # merge and --stream-memory printed no warning where a plain run on the same file did, and joined
    # shards of sets carried one warning per shard, each with the shard's own figures
    words = [" ".join(f"w{i}x{j}" for j in range(i % 7 + 3)) for i in range(60)]
    corpus = tmp_path / "fresh.txt"
    corpus.write_text("\n".join(words) + "\n")
    sets = tmp_path / "fresh.jsonl"
    sets.write_text(
        "".join(json.dumps({"responses": words[i : i + 4]}) + "\n" for i in range(0, 60, 4))
    )
    ead = ["-m", "ead", "--vocab", "40", "--json"]

    def warnings_of(proc):
        printed = [w for w in proc.stderr.splitlines() if w.startswith("diveval: warning: ead: ")]
        recorded = json.loads(proc.stdout)["scores"]["ead"]["details"].get("warnings", [])
        assert [w.removeprefix("diveval: warning: ead: ") for w in printed] == recorded
        return recorded

    for path, streamed in ((corpus, True), (sets, False)):
        want = warnings_of(diveval("score", path, *ead))
        assert len(want) == 1 and "of the vocabulary size V = 40" in want[0]
        for i in range(3):
            state = tmp_path / f"{path.stem}.{i}.state"
            diveval("score", path, *ead[:-1], "--shard", f"{i}/3", "--state", state)
        states = [tmp_path / f"{path.stem}.{i}.state" for i in range(3)]
        assert warnings_of(diveval("merge", *states, "--json")) == want, path.name
        if streamed:
            assert warnings_of(diveval("score", path, *ead, "--stream-memory", "1G")) == want
        if has_ray():
            proc = diveval("score", path, *ead, "--engine", "ray")
            assert warnings_of(proc) == want and not ray_log_lines(proc.stderr), proc.stderr


def test_merge_names_the_shards_missing_and_given_twice(tmp_path):
    states = []
    for i in range(3):
        states.append(tmp_path / f"out.{i}.state")
        diveval("score", "examples/sets.jsonl", "-m", "distinct-1", "--shard", f"{i}/3",
                "--state", states[-1])  # fmt: skip
    err = diveval("merge", states[0], states[1], ok=False).stderr
    assert "need each of the 3 shards once: missing 2/3\n" in err
    err = diveval("merge", states[0], states[0], states[1], ok=False).stderr
    assert "need each of the 3 shards once: missing 2/3; shard 0/3 given twice\n" in err
    err = diveval("merge", *states, states[2], ok=False).stderr
    assert err.endswith("need each of the 3 shards once: shard 2/3 given twice\n")


@pytest.mark.skipif(not has_ray(), reason="the ray extra is not installed")
def test_ray_prints_what_a_plain_run_prints_and_its_own_logs_only_if_verbose(tmp_path):
    # a small run printed a dozen Ray INFO lines (start-up, each Ray Data execution) and, with a
    # model metric, an error line from Ray's actor pool; a worker's Python warnings (here: a
    # damaged score cache) reached no terminal
    cache = tmp_path / "cache"
    cache.mkdir()

    def run(*extra):
        (cache / "diveval-cache.sqlite").write_bytes(b"not a database" * 100)
        sets = "examples/sets.jsonl"
        return diveval(
            "score", sets, "-m", "distinct-1", "-m", "nli-baseline", "--cache", cache, *extra
        )

    plain = run()
    assert "CacheWarning: the score cache" in plain.stderr
    on_ray = run("--engine", "ray")
    assert "nli-baseline" in on_ray.stdout and on_ray.stderr == plain.stderr
    proc = diveval(
        "score", "examples/sets.jsonl", "-m", "distinct-1", "--engine", "ray", "--verbose"
    )
    assert "INFO" in proc.stderr  # what the user asked to see
    err = diveval("score", "examples/sets.jsonl", "--verbose", ok=False).stderr
    assert "--verbose go with --engine ray" in err


def test_all_pairs_past_the_memory_budget_stop_at_once_in_one_line(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("".join(f"reply {i} about topic {i % 101} and more\n" for i in range(20_000)))
    proc = diveval("score", big, "-m", "homogenization-rougel", "--memory-budget", "1M", ok=False)
    assert proc.stderr.count("\n") == 1 and not proc.stdout
    assert "199,990,000 pairs" in proc.stderr and "--pairs N" in proc.stderr
    proc = diveval("score", big, "-m", "vendi-ngram", "--memory-budget", "100M", ok=False)
    assert proc.stderr.count("\n") == 1 and "20,000 x 20,000 matrix" in proc.stderr
    assert "--memory-budget" in diveval("score", big, "--memory-budget", "lots", ok=False).stderr
    proc = diveval("score", big, "-m", "homogenization-rougel", "--pairs", "2000", "--json")
    got = json.loads(proc.stdout)["scores"]["homogenization-rougel"]
    assert "pairs:2000|seed:0" in got["signature"] and "interval" in got["details"]
