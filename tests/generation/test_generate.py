"""`diveval generate`: records, resume after an interruption, the summary tables, and the pool run
on DailyDialog++ dev."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import shared_path

from diveval.cli import main
from diveval.generation.runner import read_finished, run_threshold_generation, summarize
from diveval.io.contexts import read_contexts
from diveval.models.generators import PoolGenerator

WORDS = "apple river stone cloud music paper light green table window happy slow".split()


def _input(tmp_path, n=6):
    rng = np.random.default_rng(0)
    lines = []
    for i in range(n):
        cands = [" ".join(rng.choice(WORDS, size=rng.integers(2, 6))) for _ in range(12)]
        refs = [" ".join(rng.choice(WORDS, size=4)) for _ in range(3)]
        lines.append(
            json.dumps(
                {
                    "id": f"c{i}",
                    "context": [f"turn {i}", "and another"],
                    "candidates": cands,
                    "references": refs,
                }
            )
        )
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(lines) + "\n")
    return f


def _records(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


ARGS = ["--generator", "pool", "--metric", "avg-distinct", "--threshold", "0.9"]


def test_records_and_summary(tmp_path, capsys):
    f = _input(tmp_path)
    out = tmp_path / "out.jsonl"
    assert main(["generate", str(f), *ARGS, "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Table 4" in text and "Table 5" in text
    recs = _records(out)
    assert [r["id"] for r in recs] == [f"c{i}" for i in range(6)]
    items = {it.id: it for it in read_contexts(str(f))}
    for r in recs:
        cands = items[r["id"]].candidates
        assert set(r["start"]) <= set(cands) and set(r["end"]) <= set(cands)
        assert 5 <= r["samples"] <= 12 and r["reached"] == (r["end_diversity"] > 0.9)
        assert r["overlap"] == len([x for x in r["start"] if x in r["end"]]) or len(set(cands)) < 12
        assert r["run"]["threshold"] == 0.9 and r["stop"] in ("reached", "budget", "exhausted")
    # relevance: mean over the set of nltk's sentence BLEU-4 (method1) against the references
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    r = recs[0]
    refs = [x.lower().split() for x in items["c0"].references]
    want = np.mean(
        [
            sentence_bleu(refs, h.lower().split(), smoothing_function=SmoothingFunction().method1)
            for h in r["end"]
        ]
    )
    assert r["relevance"]["bleu"]["end"] == pytest.approx(want, abs=1e-9)
    assert main(["generate", str(f), *ARGS, "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["contexts"] == 6
    assert summary["start_diversity"] == pytest.approx(
        np.mean([r["start_diversity"] for r in recs])
    )
    assert summary["mean_samples"] == pytest.approx(np.mean([r["samples"] for r in recs]))


def test_resume_after_a_cut_line_redoes_nothing(tmp_path, capsys):
    f = _input(tmp_path)
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    assert main(["generate", str(f), *ARGS, "--out", str(full)]) == 0
    lines = full.read_text().splitlines(keepends=True)
    part.write_text("".join(lines[:2]) + lines[2][: len(lines[2]) // 2])  # killed mid-write
    before = _records(tmp_path / "full.jsonl")[:2]
    capsys.readouterr()
    assert main(["generate", str(f), *ARGS, "--out", str(part)]) == 0
    assert "diveval: resuming after 2 contexts already in" in capsys.readouterr().err
    assert part.read_text() == full.read_text()
    assert _records(part)[:2] == before


def test_resume_after_an_interruption_skips_finished_contexts(tmp_path):
    f = _input(tmp_path)
    items = read_contexts(str(f))
    out = tmp_path / "o.jsonl"
    run = {"test": 1}
    calls = []

    def gen_for(it, stop_at=None):
        calls.append(it.id)
        if it.id == stop_at:
            raise KeyboardInterrupt
        return PoolGenerator({"\n".join(it.context): it.candidates})

    with pytest.raises(KeyboardInterrupt):
        run_threshold_generation(
            items, lambda it: gen_for(it, "c3"), "avg-distinct", str(out), run, threshold=0.9
        )
    assert [r["id"] for r in _records(out)] == ["c0", "c1", "c2"]
    calls.clear()
    recs = run_threshold_generation(items, gen_for, "avg-distinct", str(out), run, threshold=0.9)
    assert calls == ["c3", "c4", "c5"]  # finished contexts are not generated again
    assert [r["id"] for r in recs] == [f"c{i}" for i in range(6)]
    assert [r["id"] for r in _records(out)] == [f"c{i}" for i in range(6)]
    with pytest.raises(Exception, match="other settings"):
        read_finished(str(out), {"test": 2})


def test_other_settings_refuse_to_append(tmp_path, capsys):
    f = _input(tmp_path)
    out = tmp_path / "out.jsonl"
    assert main(["generate", str(f), *ARGS, "--out", str(out), "--limit", "2"]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "generate",
                str(f),
                "--generator",
                "pool",
                "--metric",
                "avg-distinct",
                "--threshold",
                "0.5",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    assert "other settings" in capsys.readouterr().err
    assert len(_records(out)) == 2


def test_bad_inputs(tmp_path, capsys):
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps({"context": "hi"}) + "\n")
    assert main(["generate", str(f), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "no candidates" in capsys.readouterr().err
    f.write_text(json.dumps({"id": 1, "candidates": ["a"]}) + "\n")
    assert main(["generate", str(f), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "context" in capsys.readouterr().err
    out = tmp_path / "garbage.jsonl"
    out.write_text("not json\n{}\n")
    f.write_text(json.dumps({"context": "hi", "candidates": list("abcdefg")}) + "\n")
    assert main(["generate", str(f), "--out", str(out), "--threshold", "0.1"]) == 2


def test_dailydialog_dev_pool_run_raises_diversity(capsys):
    """The pool generator (positive + random-negative responses, shuffled with a fixed seed) and
    the averaged distinct-n preset on DailyDialog++ dev (the first 200 contexts, for time; the
    whole run is `diveval generate dev.json --generator pool --metric avg-distinct`)."""
    path = shared_path("dailydialog-plusplus", "dev.json")
    items = read_contexts(str(path))
    assert len(items) == 1028 and all(len(it.candidates) == 10 for it in items)
    items = items[:200]
    out = {}
    for keep in ("last", "best"):
        recs = []
        for it in items:
            from diveval.generation.threshold import threshold_generate

            res = threshold_generate(
                it.context,
                PoolGenerator({"\n".join(it.context): it.candidates}),
                "avg-distinct",
                keep=keep,
            )
            recs.append({"id": it.id, **res.to_dict()})
        out[keep] = summarize(recs), recs
    from diveval.report.run_summaries import generation_summary

    for keep, (s, recs) in out.items():
        print("\n" + generation_summary(s, f"DailyDialog++ dev[:200], pool, keep={keep}"))
        assert s["end_diversity"] > s["start_diversity"]
        assert all(r["samples"] <= 10 for r in recs)
    last, best = out["last"][1], out["best"][1]
    assert all(b["end_diversity"] >= b["start_diversity"] for b in best)
    assert all(
        a["samples"] == b["samples"] and a["start"] == b["start"] for a, b in zip(last, best)
    )
    # reached sets are identical under both rules (the loop stops at the first set above)
    assert all(a["end"] == b["end"] for a, b in zip(last, best) if a["reached"])
