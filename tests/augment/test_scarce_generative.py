"""SCARCE's generative parts: the LM commonsense stand-in, COMET by path, the paraphrase baseline,
the CLI flags, and resuming an interrupted `diveval augment` (tiny models the tests build)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from diveval.augment import load_causal_lm  # noqa: E402
from diveval.augment.generative import (  # noqa: E402
    CometKnowledge,
    LMKnowledge,
    LMParaphraser,
    _short_answer,
    parse_lm_spec,
)
from diveval.augment.pipeline import augment_to_file  # noqa: E402
from diveval.cli import main  # noqa: E402
from diveval.errors import InputError  # noqa: E402

ITEMS = [
    {"id": "a", "context": ["hello how are you"], "reference": "i am fine thanks"},
    {"id": "b", "context": ["what do you like to eat"], "reference": "i like pizza"},
    {"id": "c", "context": ["the weather is nice"], "reference": "yes it is a good day"},
]


@pytest.fixture(scope="module")
def lm(tiny_causal_lm):
    return load_causal_lm(tiny_causal_lm, device="cpu")


def test_stand_in_is_labelled_and_keeps_relations(lm):
    k = LMKnowledge(lm)
    assert k.name.startswith("lm-standin:") and "comet" not in k.name.lower()
    assert k.signature.startswith("lm-standin|")
    infs = k.infer(["hello how are you"])
    assert {i.relation for i in infs} <= {"oEffect", "oReact", "oWant"}
    assert k.infer([]) == []
    with pytest.raises(InputError):
        LMKnowledge(lm, relations=["xIntent"])


def test_short_answer_fits_the_templates():
    assert _short_answer("I feel happy.\nmore", "oEffect") == "happy"
    assert _short_answer('"I will call my mom." Then', "oReact") == "call my mom"
    assert _short_answer("I want to go home!", "oWant") == "to go home"


def test_paraphraser_is_deterministic(lm):
    p = LMParaphraser(lm)
    assert p.paraphrase("i like pizza") == p.paraphrase("i like pizza")
    assert p.signature.startswith("paraphrase|lm:")


def test_lm_spec():
    assert parse_lm_spec("lm") is None
    assert parse_lm_spec("lm:gpt2-medium") == "gpt2-medium"
    with pytest.raises(InputError):
        parse_lm_spec("gpt2")


@pytest.fixture(scope="module")
def tiny_comet(tmp_path_factory):
    """A randomly initialised tiny BART with a word-level tokenizer, saved as a 'COMET'."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = "hello how are you oEffect oReact oWant [GEN] happy to go home feel".split()
    vocab = {w: i for i, w in enumerate(["<s>", "<pad>", "</s>", "<unk>", *words])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="<unk>",
        pad_token="<pad>",
        eos_token="</s>",
        bos_token="<s>",
    )
    torch.manual_seed(0)
    cfg = transformers.BartConfig(
        vocab_size=len(vocab),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=64,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        forced_bos_token_id=None,
    )
    folder = tmp_path_factory.mktemp("tiny-comet")
    transformers.BartForConditionalGeneration(cfg).save_pretrained(folder)
    fast.save_pretrained(folder)
    return str(folder)


def test_comet_by_path_gives_up_to_five_per_relation(tiny_comet):
    k = CometKnowledge(tiny_comet, device="cpu", max_new_tokens=4)
    assert k.name.startswith("comet:")
    assert k.prompt("hello", "oWant") == "hello oWant [GEN]"
    infs = k.infer(["hi", "hello how are you"])
    for rel in ("oEffect", "oReact", "oWant"):
        assert len([i for i in infs if i.relation == rel]) <= 5
    assert all(i.relation in ("oEffect", "oReact", "oWant") for i in infs)


def _cli(tmp_path, lm_path, out, extra=()):
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in ITEMS))
    argv = ["augment", str(items), "--out", str(out), "--commonsense", f"lm:{lm_path}"]
    argv += ["--adapter", "delorean", "--lm", lm_path, "--iterations", "1"]
    argv += ["--paraphrase", f"lm:{lm_path}", "--json", *extra]
    return main(argv)


def test_cli_full_pipeline_and_resume_after_a_cut(tmp_path, tiny_causal_lm, capsys):
    whole = tmp_path / "whole.jsonl"
    assert _cli(tmp_path, tiny_causal_lm, whole) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["adapter"].startswith("delorean|")
    recs = [json.loads(line) for line in whole.read_text().splitlines()]
    assert [r["id"] for r in recs] == ["a", "b", "c"]
    sources = {a["source"] for r in recs for a in r["added_references"]}
    assert "paraphrase" in sources
    for r in recs:
        for a in r["added_references"]:
            if a["source"] == "commonsense":
                assert a["knowledge"].startswith("lm-standin:") and a["relation"]
    # killed in the middle of the second line: the restart ends with the same file
    text = whole.read_text()
    first_end = text.index("\n") + 1
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: first_end + 25])
    assert _cli(tmp_path, tiny_causal_lm, cut) == 0
    assert cut.read_text() == text
    # other settings never extend the file
    assert _cli(tmp_path, tiny_causal_lm, cut, ["--seed", "3"]) == 2


def test_interrupted_run_resumes_without_loss(tmp_path):
    class Flaky:
        """An adapter that dies on the second item (a kill mid-run), then works."""

        name = "upper"
        calls = 0
        die = True

        def adapt(self, reference, source_context, target_context):
            if target_context[-1].startswith("what") and self.die:
                raise KeyboardInterrupt
            return reference.upper()

    knowledge_file = tmp_path / "k.jsonl"
    knowledge_file.write_text(
        "".join(
            json.dumps({"id": r["id"], "relation": "oEffect", "text": "happy"}) + "\n"
            for r in ITEMS
        )
    )
    from diveval.augment.commonsense import PrecomputedKnowledge

    opts = {"knowledge": PrecomputedKnowledge(str(knowledge_file))}
    run = {"adapter": "upper"}
    out = tmp_path / "out.jsonl"
    adapter = Flaky()
    with pytest.raises(KeyboardInterrupt):
        augment_to_file(ITEMS, str(out), run, adapter=adapter, **opts)
    assert len(out.read_text().splitlines()) == 1
    adapter.die = False
    resumed = augment_to_file(ITEMS, str(out), run, adapter=adapter, **opts)
    ref = tmp_path / "ref.jsonl"
    whole = augment_to_file(ITEMS, str(ref), run, adapter=adapter, **opts)
    assert out.read_text() == ref.read_text()
    assert resumed == whole
    assert whole[1]["added_references"][0] == {
        "text": "I FEEL HAPPY.",
        "source": "commonsense",
        "relation": "oEffect",
        "inference": "happy",
        "knowledge": "precomputed:k.jsonl",
        "original": "I feel happy.",
    }
