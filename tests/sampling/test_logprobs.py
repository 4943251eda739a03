"""Token log-probabilities recorded by `diveval sample` with a local transformers model (the tiny
GPT-2 of ``tests/tiny_lm.py``), checked against transformers' own ``compute_transition_scores``
on the raw logits of the same seeded generation, and read by ``score``: semantic-entropy's
likelihood weights and vendi-weighted run on the sampled file end to end."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("transformers")

import tiny_lm

import diveval
from diveval.cli import main


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_lm.build(tmp_path_factory.mktemp("tiny") / "lm")


def test_scored_sampling_equals_transformers_transition_scores(tiny):
    import torch

    from diveval.models.generators import HFGenerator

    gen = HFGenerator(str(tiny), top_p=0.9, temperature=0.7, max_new_tokens=8, first_line=False)
    ids = gen.messages_ids([{"role": "user", "content": "the cat sat"}])
    texts, counts = gen.sample_ids(ids, 4, 11)
    texts2, counts2, scores = gen.sample_ids_scored(ids, 4, 11)
    assert (texts, counts) == (texts2, counts2)  # recording changes no sample
    with torch.random.fork_rng(devices=[]), torch.inference_mode():
        torch.manual_seed(11)
        out = gen.model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            do_sample=True,
            top_p=0.9,
            top_k=0,
            temperature=0.7,
            max_new_tokens=8,
            num_return_sequences=4,
            pad_token_id=gen.tokenizer.pad_token_id,
            output_logits=True,
            return_dict_in_generate=True,
        )
    ref = gen.model.compute_transition_scores(out.sequences, out.logits, normalize_logits=True)
    eos = gen.tokenizer.eos_token_id
    for row, got, new in zip(ref.tolist(), scores, out.sequences[:, ids.shape[1] :].tolist()):
        n = new.index(eos) if eos in new else len(new)  # the end-of-sequence token left out
        assert len(got) == n
        assert got == pytest.approx(row[:n], rel=1e-5, abs=1e-5)  # float32 logits
        assert all(x <= 0 for x in got)


def test_sample_writes_logprobs_that_score_reads(tiny, tmp_path, capsys):
    prompts = tmp_path / "p.txt"
    prompts.write_text("the cat\na dog\nhello friend\n")
    out = tmp_path / "s.jsonl"
    argv = ["sample", str(prompts), "-M", f"hf:{tiny}", "--k", "4", "--max-tokens", "6"]
    assert main([*argv, "--out", str(out), "--json", "--quiet"]) == 0
    capsys.readouterr()
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    for r in recs:
        assert len(r["logprobs"]) == len(r["token_logprobs"]) == len(r["responses"]) == 4
        for total, tokens in zip(r["logprobs"], r["token_logprobs"]):
            assert total == math.fsum(tokens) and all(x <= 0 for x in tokens)
        assert r["sampling"]["logprobs"] is True
    sets = [r["responses"] for r in recs]
    weights = [r["logprobs"] for r in recs]

    assert main(["score", str(out), "-m", "semantic-entropy", "--judge", "bleu", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["scores"]["semantic-entropy"]
    want = diveval.score(sets, ["semantic-entropy"], judge="bleu", logprobs=weights)
    assert got["value"] == pytest.approx(want["semantic-entropy"].value, rel=1e-12)
    assert "likelihood" in got["signature"]

    pytest.importorskip("sentence_transformers")
    assert main(["score", str(out), "-m", "vendi-weighted", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["scores"]["vendi-weighted"]
    want = diveval.score(sets, ["vendi-weighted"], logprobs=weights)["vendi-weighted"]
    assert got["value"] == pytest.approx(want.value, rel=1e-9)


def test_no_logprobs_writes_none(tiny, tmp_path, capsys):
    prompts = tmp_path / "p.txt"
    prompts.write_text("the cat\n")
    out = tmp_path / "s.jsonl"
    argv = ["sample", str(prompts), "-M", f"hf:{tiny}", "--k", "2", "--max-tokens", "4"]
    assert main([*argv, "--out", str(out), "--no-logprobs", "--quiet"]) == 0
    (rec,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert "logprobs" not in rec and "token_logprobs" not in rec
    assert "logprobs" not in rec["sampling"]


def test_a_file_without_logprobs_resumes_with_no_logprobs_only(tiny, tmp_path, capsys):
    prompts = tmp_path / "p.txt"
    prompts.write_text("the cat\na dog\n")
    out = tmp_path / "s.jsonl"
    argv = ["sample", str(prompts), "-M", f"hf:{tiny}", "--k", "2", "--max-tokens", "4"]
    assert main([*argv, "--out", str(out), "--no-logprobs", "--limit", "1", "--quiet"]) == 0
    assert main([*argv, "--out", str(out), "--quiet"]) == 2  # would mix the two kinds
    assert "other settings (logprobs)" in capsys.readouterr().err
    assert main([*argv, "--out", str(out), "--no-logprobs", "--quiet"]) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(recs) == 2 and not any("logprobs" in r for r in recs)
