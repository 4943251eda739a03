"""The sampling core with a fake backend: NoveltyBench's protocols as its code sends them, the
choice-count check, seeds, retries, bounded concurrency, in-order resumable output."""

from __future__ import annotations

import json

import pytest

from diveval.errors import InputError
from diveval.models.lm_backends import parse_spec
from diveval.sampling.protocols import IN_CONTEXT_FOLLOWUP, NOVELTY_SYSTEM_PROMPT
from diveval.sampling.records import read_prompts, request_seed, sampling_signature
from diveval.sampling.runner import RetryPolicy, SamplingError, SamplingSettings, run_sampling
from sampling.fakes import FakeChat, Fatal, Flaky, answer

FAST = RetryPolicy(retries=3, base=0.001, cap=0.002, timeout=5)


def prompts_file(tmp_path, n=6, extra=None):
    path = tmp_path / "prompts.jsonl"
    with open(path, "w") as fh:
        for i in range(n):
            rec = {"id": f"p{i}", "prompt": f"Name a colour ({i})."}
            rec.update(extra or {})
            fh.write(json.dumps(rec) + "\n")
    return str(path)


def run(tmp_path, backend, out="out.jsonl", n=6, extra=None, policy=FAST, **settings):
    path = prompts_file(tmp_path, n, extra)
    s = SamplingSettings(model="fake", **{"k": 3, **settings})
    summary = run_sampling(
        read_prompts(path),
        backend,
        s,
        str(tmp_path / out),
        source=path,
        policy=policy,
        concurrency=4,
    )
    records = [json.loads(x) for x in open(tmp_path / out)]
    return summary, records


def test_regenerate_one_request_for_k_when_n_is_honoured(tmp_path):
    fake = FakeChat(honour_n=True)
    summary, records = run(tmp_path, fake)
    assert len(fake.calls) == 6 and all(c["n"] == 3 for c in fake.calls)
    for i, rec in enumerate(records):
        user = [{"role": "user", "content": f"Name a colour ({i})."}]
        seed = request_seed(0, rec["prompt"], 0)
        assert rec["responses"] == [answer(user, seed, j) for j in range(3)]
        assert rec["id"] == f"p{i}" and rec["model"] == "fake"
        assert rec["sampling"]["protocol"] == "regenerate" and rec["sampling"]["k"] == 3
        assert rec["sampling"]["served_model"] == "fake-model"
    assert summary["n_honoured"] is True and summary["responses"] == 18


def test_regenerate_counts_choices_when_n_is_ignored(tmp_path):
    fake = FakeChat(honour_n=False)  # llama.cpp's server: one choice whatever n says
    summary, records = run(tmp_path, fake)
    assert summary["n_honoured"] is False
    assert len(fake.calls) == 6 * 3  # one n=3 request, then one per missing sample
    for rec in records:
        user = [{"role": "user", "content": rec["prompt"]}]
        want = [answer(user, request_seed(0, rec["prompt"], j), 0) for j in range(3)]
        assert rec["responses"] == want
        assert len(set(rec["responses"])) == 3
        assert rec["usage"]["requests"] == 3


def test_in_context_sends_the_earlier_answers_and_novelty_bench_follow_up(tmp_path):
    fake = FakeChat(honour_n=False)
    _, records = run(tmp_path, fake, n=1, protocol="in-context")
    # NoveltyBench: user prompt; then, per sample, its answer and "Can you generate a different
    # answer?" appended, each request seeing the whole conversation
    p = records[0]["prompt"]
    convo = [{"role": "user", "content": p}]
    want_calls = []
    for j in range(3):
        want_calls.append([dict(m) for m in convo])
        text = answer(convo, request_seed(0, p, j), 0)
        assert records[0]["responses"][j] == text
        convo += [
            {"role": "assistant", "content": text},
            {"role": "user", "content": "Can you generate a different answer?"},
        ]
    assert [c["messages"] for c in fake.calls] == want_calls
    assert all(c["n"] == 1 for c in fake.calls)
    assert records[0]["sampling"]["followup"] == IN_CONTEXT_FOLLOWUP


def test_system_prompt_protocol_uses_novelty_bench_system_prompt(tmp_path):
    fake = FakeChat()
    _, records = run(tmp_path, fake, n=1, protocol="system-prompt")
    system = (
        "You are a producer of unique answers, and you strive to tell each user a novel answer "
        "to their question."
    )
    assert fake.calls[0]["messages"] == [
        {"role": "system", "content": system},
        {"role": "user", "content": records[0]["prompt"]},
    ]
    assert NOVELTY_SYSTEM_PROMPT == system
    assert records[0]["sampling"]["system_prompt"] == system


def test_paraphrase_protocol_answers_each_paraphrase_once(tmp_path):
    fake = FakeChat()
    paras = {"prompt_paraphrases": ["A?", "B?", "C?", "D?"]}
    _, records = run(tmp_path, fake, n=2, extra=paras, protocol="paraphrase")
    asked = sorted(c["messages"][0]["content"] for c in fake.calls)
    assert asked == sorted(["A?", "B?", "C?"] * 2)
    assert records[0]["prompt_paraphrases"] == paras["prompt_paraphrases"]  # input fields kept


def test_paraphrase_protocol_refuses_short_lists_with_file_and_line(tmp_path):
    with pytest.raises(InputError, match=r"prompts\.jsonl:1: .*fewer than k = 3"):
        run(tmp_path, FakeChat(), extra={"prompt_paraphrases": ["A?"]}, protocol="paraphrase")


def test_retries_transient_faults_then_completes(tmp_path):
    fake = FakeChat(faults=[Flaky("429"), Flaky("503"), None, Flaky("reset")])
    summary, records = run(tmp_path, fake)
    assert summary["run"]["retries"] == 3 and len(records) == 6
    clean_summary, clean = run(tmp_path, FakeChat(), out="clean.jsonl")
    assert records == clean


def test_gives_up_naming_the_prompt_after_the_last_retry(tmp_path):
    fake = FakeChat(faults=[Flaky("503")] * 20)
    with pytest.raises(SamplingError, match=r"prompts\.jsonl:1: prompt 1 .*no response after 4"):
        run(tmp_path, fake, n=1)


def test_a_request_that_never_answers_is_a_timeout_error(tmp_path):
    fake = FakeChat(delay=1.0)
    policy = RetryPolicy(retries=1, base=0.001, cap=0.001, timeout=0.05)
    with pytest.raises(SamplingError, match="timed out"):
        run(tmp_path, fake, n=1, policy=policy)
    assert not (tmp_path / "out.jsonl").read_text()  # nothing short written


def test_other_errors_are_not_retried(tmp_path):
    fake = FakeChat(faults=[Fatal("401 unauthorized")])
    with pytest.raises(SamplingError, match="Fatal: 401"):
        run(tmp_path, fake, n=1)
    assert len(fake.calls) == 1


def test_concurrency_is_bounded(tmp_path):
    fake = FakeChat(honour_n=False, delay=0.01)
    items = read_prompts(prompts_file(tmp_path, 12))
    s = SamplingSettings(model="fake", k=3)
    run_sampling(items, fake, s, str(tmp_path / "o.jsonl"), policy=FAST, concurrency=3)
    assert fake.max_in_flight == 3


def test_records_in_input_order_whatever_finishes_first(tmp_path):
    _, records = run(tmp_path, FakeChat(delay=0.005), n=12)
    assert [r["id"] for r in records] == [f"p{i}" for i in range(12)]


def test_resume_skips_done_records_and_repairs_a_cut_line(tmp_path):
    _, full = run(tmp_path, FakeChat(), out="full.jsonl")
    raw = (tmp_path / "full.jsonl").read_bytes()
    lines = raw.split(b"\n")
    part = b"\n".join(lines[:2]) + b"\n" + lines[2][:17]  # two records and a cut third
    (tmp_path / "out.jsonl").write_bytes(part)
    fake = FakeChat()
    summary, _ = run(tmp_path, fake)
    assert summary["resumed"] == 2 and len(fake.calls) == 4
    assert (tmp_path / "out.jsonl").read_bytes() == raw


def test_resume_refuses_other_settings(tmp_path):
    run(tmp_path, FakeChat())
    with pytest.raises(InputError, match=r"out\.jsonl:1: .*other settings \(temperature\)"):
        run(tmp_path, FakeChat(), temperature=0.7)


def test_resume_refuses_other_prompts(tmp_path):
    run(tmp_path, FakeChat())
    items = read_prompts(prompts_file(tmp_path, 6))
    other = [type(it)(it.index, it.prompt + "!", it.line, it.fields) for it in items]
    s = SamplingSettings(model="fake", k=3)
    with pytest.raises(InputError, match="answers another prompt"):
        run_sampling(other, FakeChat(), s, str(tmp_path / "out.jsonl"), policy=FAST)


def test_read_prompts_text_and_bad_lines(tmp_path):
    txt = tmp_path / "p.txt"
    txt.write_text("first\n\nsecond\n")
    assert [(p.prompt, p.line) for p in read_prompts(str(txt))] == [("first", 1), ("second", 3)]
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"prompt": "ok"}\n{"text": "no prompt"}\n')
    with pytest.raises(InputError, match=r"p\.jsonl:2: .*prompt"):
        read_prompts(str(bad))
    bad.write_text('{"prompt": "ok"}\n{oops\n')
    with pytest.raises(InputError, match=r"p\.jsonl:2: malformed JSON"):
        read_prompts(str(bad))


@pytest.mark.parametrize(
    "spec, kind, url, name",
    [
        ("openai:gpt-4o-mini", "openai", None, "gpt-4o-mini"),
        (
            "openai-compatible:http://127.0.0.1:8000/v1",
            "openai-compatible",
            "http://127.0.0.1:8000/v1",
            None,
        ),
        (
            "openai-compatible:http://127.0.0.1:8000/v1:smol:q4",
            "openai-compatible",
            "http://127.0.0.1:8000/v1",
            "smol:q4",
        ),
        ("openai-compatible:https://host:9/v1/:m", "openai-compatible", "https://host:9/v1", "m"),
        (
            "openai-compatible:http://localhost:8000:m",
            "openai-compatible",
            "http://localhost:8000",
            "m",
        ),
        ("hf:gpt2", "hf", None, "gpt2"),
        ("smollm2", "smollm2", None, None),
    ],
)
def test_parse_spec(spec, kind, url, name):
    s = parse_spec(spec)
    assert (s.kind, s.url, s.name) == (kind, url, name)


@pytest.mark.parametrize("spec", ["gpt-4o", "openai:", "openai-compatible:ftp://x", "hf:"])
def test_parse_spec_refuses(spec):
    with pytest.raises(InputError):
        parse_spec(spec)


def test_sampling_signature_names_every_setting():
    s = SamplingSettings(model="smollm2", k=5, max_tokens=16, seed=3).as_dict()
    sig = sampling_signature([{"sampling": {**s, "served_model": "SmolLM2-135M-Instruct"}}])
    assert sig == (
        "sample:regenerate,k=5,t=1,top_p=default,max_tokens=16,seed=3,"
        "model=smollm2@SmolLM2-135M-Instruct"
    )
    assert sampling_signature([{"responses": ["a"]}]) is None
    # a file sampled elsewhere: only the settings it names, none called a default
    other = sampling_signature([{"sampling": {"temperature": 0.7, "top_p": None}}])
    assert other == "sample:t=0.7,top_p=default"


def test_once_n_is_seen_ignored_k_single_requests_go_out_with_the_same_samples(tmp_path):
    items = read_prompts(prompts_file(tmp_path, 10))
    s = SamplingSettings(model="fake", k=3)
    fake = FakeChat(honour_n=False)
    run_sampling(items, fake, s, str(tmp_path / "a.jsonl"), policy=FAST, concurrency=1)
    # the first prompts (started before any answer came back) asked for n = 3; the last ones,
    # started after, send three n = 1 requests
    last = [c for c in fake.calls if c["messages"][0]["content"] == items[-1].prompt]
    assert [c["n"] for c in last] == [1, 1, 1]
    assert fake.calls[0]["n"] == 3
    # and the samples are those of a server asked n = 3 for every prompt
    for rec in (json.loads(x) for x in open(tmp_path / "a.jsonl")):
        user = [{"role": "user", "content": rec["prompt"]}]
        assert rec["responses"] == [
            answer(user, request_seed(0, rec["prompt"], j), 0) for j in range(3)
        ]


def test_import_diveval_and_the_sampling_core_stay_light():
    import subprocess
    import sys

    code = (
        "import sys, diveval; from diveval.cli import build_parser; build_parser(); "
        "import diveval.sampling.runner, diveval.models.lm_backends, diveval.sampling.records; "
        "print(sorted(m for m in ('openai', 'httpx', 'llama_cpp', 'torch') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_finished_output_is_not_sampled_again(tmp_path):
    run(tmp_path, FakeChat())
    before = (tmp_path / "out.jsonl").read_bytes()
    fake = FakeChat()
    summary, _ = run(tmp_path, fake)
    assert fake.calls == [] and summary["resumed"] == 6 and summary["responses"] == 18
    assert (tmp_path / "out.jsonl").read_bytes() == before


def test_cost_at_list_prices_for_known_models_only():
    from diveval.sampling.records import cost

    # gpt-4o-mini: $0.15 in, $0.60 out per million tokens
    assert cost("openai:gpt-4o-mini", 2_000_000, 1_000_000) == pytest.approx(0.3 + 0.6)
    assert cost("gpt-4o-2024-08-06", 1_000_000, 0) == pytest.approx(2.5)  # a dated snapshot
    assert cost("gpt-4o-mini-2024-07-18", 0, 1_000_000) == pytest.approx(0.6)  # not gpt-4o's
    assert cost("smollm2-gguf", 10, 10) is None


def test_retry_after_of_a_429_is_honoured_within_the_cap(tmp_path):
    import time

    class Polite(FakeChat):
        def retry_after(self, exc):
            return 0.3

    fake = Polite(faults=[Flaky("429")])
    start = time.perf_counter()
    run(tmp_path, fake, n=1, policy=RetryPolicy(retries=2, base=0.001, cap=1.0, timeout=5))
    assert time.perf_counter() - start >= 0.3


def test_every_score_of_a_sampled_file_names_its_sampling(tmp_path, capsys):
    from diveval.cli import main

    path = tmp_path / "s.jsonl"
    run(tmp_path, FakeChat(), out="s.jsonl")  # 6 records of k = 3 by the fake backend
    part = "|sample:regenerate,k=3,t=1,top_p=default,max_tokens=512,seed=0,model=fake@fake-model|"
    assert main(["score", str(path), "-m", "distinct-1", "--json"]) == 0
    assert part in json.loads(capsys.readouterr().out)["scores"]["distinct-1"]["signature"]
    assert main(["score", str(path), "-m", "distinct-1", "--by", "id", "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    assert all(part in g["scores"]["distinct-1"]["signature"] for g in groups.values())
    assert main(["score", str(path), "--level", "per-input", "-m", "distinct-1", "--json"]) == 0
    assert part in json.loads(capsys.readouterr().out)["scores"]["distinct-1"]["signature"]
    # shards and their merge: the same signature as the one-process run
    assert main(["score", str(path), "-m", "distinct-1", "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)["scores"]["distinct-1"]
    states = [str(tmp_path / f"s{i}.state") for i in range(2)]
    for i, state in enumerate(states):
        assert (
            main(["score", str(path), "-m", "distinct-1", "--shard", f"{i}/2"] + ["--state", state])
            == 0
        )
    capsys.readouterr()
    assert main(["merge", *states, "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)["scores"]["distinct-1"]
    assert merged["signature"] == whole["signature"] and merged["value"] == whole["value"]
