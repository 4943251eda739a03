"""The one table of language-model backends: a new backend is one entry that `sample`, `generate`
and `augment` all take; a local model behind the chat interface samples what ``HFGenerator``
samples; a served model is refused where its weights are needed."""

from __future__ import annotations

import json

import pytest
from sampling.fakes import FakeChat, answer

from diveval.cli import main
from diveval.errors import InputError
from diveval.models import lm_backends
from diveval.models.lm_backends import (
    Backend,
    ChatGenerator,
    LoadOptions,
    Spec,
    choice_seed,
    load_causal_lm,
    load_chat,
    parse_spec,
)


@pytest.fixture
def fake_backend(monkeypatch):
    """A backend added as the lm_backends docstring says: one entry."""
    loaded: list[FakeChat] = []

    def chat(spec, options):
        loaded.append(FakeChat(honour_n=False, model=f"fake-{spec.name}"))
        return loaded[-1]

    entry = Backend("fake", "fake:NAME", lambda rest: Spec("fake", name=rest), chat)
    monkeypatch.setitem(lm_backends.BACKENDS, "fake", entry)
    return loaded


def test_one_entry_makes_a_backend_for_sample_and_generate(tmp_path, capsys, fake_backend):
    prompts = tmp_path / "p.txt"
    prompts.write_text("Name a colour.\n")
    out = tmp_path / "s.jsonl"
    assert main(["sample", str(prompts), "--model", "fake:m", "--k", "2", "--out", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["sampling"]["served_model"] == "fake-m" and len(rec["responses"]) == 2
    contexts = tmp_path / "c.jsonl"
    contexts.write_text(json.dumps({"id": "a", "context": ["hi", "Name a colour."]}) + "\n")
    argv = ["generate", str(contexts), "-g", "fake:m", "--n", "3", "--max-samples", "3"]
    assert main([*argv, "--seed", "4", "--out", str(tmp_path / "g.jsonl")]) == 0
    capsys.readouterr()
    got = json.loads((tmp_path / "g.jsonl").read_text())
    # the context as a dialogue, its last turn the user's; the fake ignores n, so choices 1 and
    # 2 were asked one at a time, with seeds of their own
    convo = [{"role": "assistant", "content": "hi"}, {"role": "user", "content": "Name a colour."}]
    seeds = [4, choice_seed(4, 1), choice_seed(4, 2)]
    assert got["start"] == [answer(convo, s, 0) for s in seeds]
    assert got["run"]["generator"] == "fake:m"
    assert [c["n"] for c in fake_backend[-1].calls] == [3, 1, 1]
    # augment needs weights in this process: a backend without them is refused, in one line
    with pytest.raises(InputError, match="'fake:m' is served elsewhere.*hf:NAME_OR_PATH"):
        load_causal_lm("fake:m")


def test_choice_seeds_never_meet_the_replacement_seeds():
    # threshold generation draws replacement j with seed + j
    assert all(choice_seed(s, j) != s + i for s in range(50) for j in (1, 2, 3) for i in range(20))


def test_specs_of_augment_are_hugging_face_names_unless_a_backend_claims_them():
    assert parse_spec("gpt2-medium", bare="hf") == Spec("hf", name="gpt2-medium")
    assert parse_spec("hf:gpt2", bare="hf") == Spec("hf", name="gpt2")
    assert parse_spec("default", bare="hf") == Spec("smollm2")
    with pytest.raises(InputError, match="unknown model spec 'gpt2'"):
        parse_spec("gpt2")
    with pytest.raises(InputError, match="served elsewhere"):
        load_causal_lm("openai:gpt-4o-mini")


def test_a_local_model_as_a_generator_samples_what_hf_generator_samples(tmp_path):
    pytest.importorskip("transformers")
    import tiny_lm

    from diveval.models.generators import HFGenerator

    folder = str(tiny_lm.build(tmp_path / "lm"))
    options = LoadOptions(top_p=0.9, max_tokens=6, first_line=True, device="cpu", logprobs=False)
    gen = ChatGenerator(load_chat(parse_spec(f"hf:{folder}"), options), options, f"hf:{folder}")
    direct = HFGenerator(folder, top_p=0.9, max_new_tokens=6, first_line=True)
    for context, k, seed in ((["the cat sat", "a dog ran"], 3, 0), ("hello friend", 1, 5)):
        assert gen.sample(context, k, seed) == direct.sample(context, k, seed)
    assert gen.settings == direct.settings and gen.name == direct.name
    gen.close()
