"""`diveval sample` against a real OpenAI-compatible server: llama-cpp-python's server with the
offline SmolLM2-135M GGUF on loopback, driven through the official ``openai`` client. That server
ignores ``n`` (one choice per request), the case the choice-count check is for. Faults: the
server killed and restarted mid-run, a 429 and a slow answer from a proxy in front of it, the
sampling process killed with SIGKILL at random points and resumed.

The server runs with ``--n_batch 1``: llama.cpp reuses the KV cache of the previous request's
common prefix, and logits computed in a batch differ in the last bits from logits computed a
token at a time, so a seeded answer would depend on which request came before. One token at a
time, a seeded request's answer is a function of the request alone.

Skipped, with the reason, where llama_cpp or the GGUF is missing (``make install-test`` installs
both).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import diveval
from diveval.cli import main
from sampling.servers import FaultProxy, LlamaServer, missing

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("DIVEVAL_KILLS", 10))
# few tokens per response keep the runs short; temperature 1 and a fixed seed: real sampling that
# a seeded request repeats exactly
FEW = ["--max-tokens", "8", "--temperature", "1.0", "--seed", "7"]


@pytest.fixture(scope="module")
def server():
    srv = LlamaServer().start()
    yield srv
    srv.stop()


def write_prompts(path: Path, n: int) -> str:
    things = ["a kitchen", "a forest", "a library", "the sea", "a city", "a garden", "space"]
    with open(path, "w") as fh:
        for i in range(n):
            rec = {"id": f"q{i}", "prompt": f"Name one thing found in {things[i % 7]} (#{i})."}
            fh.write(json.dumps(rec) + "\n")
    return str(path)


def spec(url: str) -> str:
    return f"openai-compatible:{url}:smollm2-gguf"


def env() -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [e.get("PYTHONPATH")])])
    return e


def sample_cli(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "diveval", "sample", *argv, "--quiet", "--json"]
    return subprocess.run(cmd, env=env(), capture_output=True, text=True, timeout=timeout)


def records(path) -> list[dict]:
    return [json.loads(line) for line in open(path)]


def test_twenty_prompts_k5_complete_and_score_reads_them(server, tmp_path, capsys):
    prompts = write_prompts(tmp_path / "p.jsonl", 20)
    out = tmp_path / "s.jsonl"
    argv = ["sample", prompts, "--model", spec(server.url), "--k", "5", "--out", str(out)]
    assert main([*argv, "--max-tokens", "16", "--seed", "1", "--concurrency", "4", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    recs = records(out)
    assert [r["id"] for r in recs] == [f"q{i}" for i in range(20)]
    for r in recs:
        assert len(r["responses"]) == 5 and all(isinstance(t, str) for t in r["responses"])
        assert r["sampling"]["served_model"] == "smollm2-gguf"
        assert r["usage"]["requests"] == 5  # n ignored: one request per sample
    # the server ignores n: every request came back with one choice and was counted as such
    assert summary["n_honoured"] is False and summary["responses"] == 100
    assert summary["completion_tokens"] > 0 and summary["cost_usd"] is None
    assert sum(len(set(r["responses"])) for r in recs) > 80  # samples, not one answer repeated
    for level in ("per-input", "across-input"):
        assert main(["score", str(out), "--level", level, "-m", "distinct-2", "--json"]) == 0
        sig = json.loads(capsys.readouterr().out)["scores"]["distinct-2"]["signature"]
        assert "|sample:regenerate,k=5,t=1,top_p=default,max_tokens=16,seed=1," in sig
        assert "model=openai-compatible:" in sig and "@smollm2-gguf|" in sig


def test_cross_model_level_reads_two_runs(server, tmp_path, capsys):
    prompts = write_prompts(tmp_path / "p.jsonl", 3)
    both = tmp_path / "both.jsonl"
    for temperature in ("0.7", "1.3"):  # two "models": the same weights at two temperatures
        out = tmp_path / f"t{temperature}.jsonl"
        name = f"openai-compatible:{server.url}:smol-t{temperature}"
        argv = ["sample", prompts, "-M", name, "--k", "2", "--out", str(out), "--quiet"]
        assert main([*argv, *FEW[:2], "--temperature", temperature]) == 0
        with open(both, "a") as fh:
            fh.write(out.read_text())
    capsys.readouterr()
    assert main(["score", str(both), "--level", "cross-model", "-m", "distinct-1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["scores"]["distinct-1"]
    assert got["details"]["inputs"] == 3
    assert ",t=0.7," in got["signature"] and ",t=1.3," in got["signature"]


def test_sigkill_at_random_points_resumes_to_the_uninterrupted_output(server, tmp_path):
    from crash.kill_loop import kill_loop

    prompts = write_prompts(tmp_path / "p.jsonl", 12)

    def argv(out: Path) -> list[str]:
        return ["sample", prompts, "-M", spec(server.url), "--k", "3", "--concurrency", "4",
                "--out", str(out), *FEW]  # fmt: skip

    report = kill_loop(argv, tmp_path / "out.jsonl", kills=KILLS, seed=3)
    assert report.kills >= KILLS
    assert report.mismatches == [] and report.lines_lost == 0 and report.duplicates == 0, report
    assert len(records(tmp_path / "out.jsonl")) == 12


def test_server_killed_mid_run_and_restarted(tmp_path):
    srv = LlamaServer().start()
    try:
        prompts = write_prompts(tmp_path / "p.jsonl", 8)
        out, ref = tmp_path / "out.jsonl", tmp_path / "ref.jsonl"
        argv = [prompts, "-M", spec(srv.url), "--k", "3", "--concurrency", "4", *FEW]
        cmd = [sys.executable, "-m", "diveval", "sample", *argv, "--out", str(out), "--quiet"]
        proc = subprocess.Popen(
            [*cmd, "--json"], env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out.exists() and out.stat().st_size):
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before the server could be killed"
        srv.kill()  # mid-run: requests in flight lose their connection, new ones are refused
        time.sleep(1.5)
        srv.start()
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr.decode()[-2000:]
        summary = json.loads(stdout)["summary"]
        assert summary["run"]["retries"] >= 1 and summary["prompts"] == 8
        done = sample_cli(*argv, "--out", str(ref))
        assert done.returncode == 0, done.stderr
        assert out.read_bytes() == ref.read_bytes()  # nothing lost, nothing twice, same samples
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def direct(server, tmp_path_factory):
    """Four prompts sampled straight from the server: what the runs through the proxy must get."""
    folder = tmp_path_factory.mktemp("direct")
    prompts = write_prompts(folder / "p.jsonl", 4)
    done = sample_cli(prompts, "-M", spec(server.url), "--k", "2", "--out", str(folder / "d.jsonl"),
                      *FEW)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return prompts, [r["responses"] for r in records(folder / "d.jsonl")]


def test_429s_are_retried_with_backoff(server, direct, tmp_path):
    prompts, want = direct
    proxy = FaultProxy(server.port)
    try:
        proxy.fail(5, 429)
        out = tmp_path / "out.jsonl"
        done = sample_cli(prompts, "-M", spec(proxy.url), "--k", "2", "--out", str(out), *FEW)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["summary"]["run"]["retries"] >= 5
        assert proxy.injected == 5
        assert [r["responses"] for r in records(out)] == want
    finally:
        proxy.close()


def test_a_slow_answer_times_out_and_is_asked_again(server, direct, tmp_path):
    prompts, want = direct
    proxy = FaultProxy(server.port)
    try:
        proxy.delay(1, 6.0)
        out = tmp_path / "out.jsonl"
        argv = [prompts, "-M", spec(proxy.url), "--k", "2", "--out", str(out), *FEW]
        done = sample_cli(*argv, "--timeout", "2", "--concurrency", "1")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["summary"]["run"]["retries"] >= 1
        assert [r["responses"] for r in records(out)] == want
    finally:
        proxy.close()


def test_an_answer_that_never_comes_is_an_error_naming_the_prompt(server, tmp_path):
    proxy = FaultProxy(server.port)
    try:
        prompts = write_prompts(tmp_path / "p.jsonl", 2)
        proxy.delay(100, 3.0)
        out = tmp_path / "out.jsonl"
        argv = [prompts, "-M", spec(proxy.url), "--k", "2", "--out", str(out), *FEW]
        done = sample_cli(*argv, "--timeout", "0.5", "--retries", "1", "--concurrency", "1")
        assert done.returncode == 2
        assert "p.jsonl:1: prompt 1 ('Name one thing found in a kitchen" in done.stderr
        assert "no response after 2 tries (last: timed out)" in done.stderr
        assert not out.exists() or out.read_text() == ""  # never a short set
    finally:
        proxy.close()


def test_a_client_error_is_not_retried(server, tmp_path):
    proxy = FaultProxy(server.port)
    try:
        prompts = write_prompts(tmp_path / "p.jsonl", 1)
        proxy.fail(1, 400)
        out = tmp_path / "out.jsonl"
        done = sample_cli(prompts, "-M", spec(proxy.url), "--k", "2", "--out", str(out), *FEW)
        assert done.returncode == 2 and proxy.posts == 1
        assert "p.jsonl:1: prompt 1 (" in done.stderr and "BadRequestError" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    finally:
        proxy.close()


def test_token_logprobs_from_the_server_are_recorded_and_scored(server, tmp_path, capsys):
    prompts = write_prompts(tmp_path / "p.jsonl", 3)
    outs = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.jsonl"
        argv = ["sample", prompts, "--model", spec(server.url), "--k", "3", "--out", str(out)]
        assert main([*argv, *FEW, "--quiet"]) == 0
        outs.append(records(out))
    recs = outs[0]
    for r in recs:
        assert len(r["logprobs"]) == len(r["token_logprobs"]) == 3
        for total, tokens in zip(r["logprobs"], r["token_logprobs"]):
            assert 0 < len(tokens) <= 8  # --max-tokens 8
            assert all(x <= 0 for x in tokens) and total == math.fsum(tokens)
    # seeded requests: the same tokens, hence the same log-probabilities
    assert [r["logprobs"] for r in recs] == [r["logprobs"] for r in outs[1]]
    capsys.readouterr()
    out = str(tmp_path / "a.jsonl")
    assert main(["score", out, "-m", "semantic-entropy", "--judge", "bleu", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["scores"]["semantic-entropy"]
    assert "likelihood" in got["signature"]
    pytest.importorskip("sentence_transformers")
    assert main(["score", out, "-m", "vendi-weighted", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["scores"]["vendi-weighted"]
    sets = [r["responses"] for r in recs]
    want = diveval.score(sets, ["vendi-weighted"], logprobs=[r["logprobs"] for r in recs])
    assert got["value"] == pytest.approx(want["vendi-weighted"].value, rel=1e-9)


def test_generate_draws_from_a_server_through_the_backend_table(server, tmp_path, capsys):
    """`diveval generate` takes any backend of the one table of language models: here the
    llama.cpp server. Its first response is the server's own answer to the same request sent
    with the official client; the server ignores n, so the other choices are asked one by one;
    a second run gives the same file."""
    import openai

    from diveval.models.chat import first_line

    ctx = tmp_path / "ctx.jsonl"
    ctx.write_text(json.dumps({"id": "a", "context": ["Name a colour."]}) + "\n")
    argv = ["generate", str(ctx), "--generator", spec(server.url), "--metric", "avg-distinct"]
    argv += ["--n", "3", "--max-samples", "5", "--max-new-tokens", "8", "--seed", "3"]
    for name in ("one.jsonl", "two.jsonl"):
        assert main([*argv, "--out", str(tmp_path / name), "--json"]) == 0
    capsys.readouterr()
    one, two = records(tmp_path / "one.jsonl"), records(tmp_path / "two.jsonl")
    assert one == two
    rec = one[0]
    assert rec["run"]["generator"] == spec(server.url) and len(rec["start"]) == 3
    assert len(set(rec["start"])) > 1  # the choices asked one by one were seeded apart
    client = openai.OpenAI(api_key="EMPTY", base_url=server.url, max_retries=0)
    direct = client.chat.completions.create(
        model="smollm2-gguf",
        messages=[{"role": "user", "content": "Name a colour."}],
        n=3,
        seed=3,
        temperature=1.0,
        top_p=0.9,
        max_tokens=8,
    )
    assert rec["start"][0] == first_line(direct.choices[0].message.content or "")
