"""A tiny causal LM that the augmentation tests build and save (no hub, no download)."""

from __future__ import annotations

import pytest

WORDS = (
    "hello hi how are you i am fine thanks good day yes no maybe ok the weather is nice "
    "what do like to eat pizza want go home feel happy sad will have a party . ! ? , "
    "answer question relation paraphrase say it in other words"
).split()


@pytest.fixture(scope="session")
def tiny_causal_lm(tmp_path_factory):
    """Folder of a randomly initialised 2-layer GPT-2 with a word-level tokenizer (and a chat
    template, as SmolLM2 has)."""
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {w: i for i, w in enumerate(["<unk>", "<pad>", "<eos>", "\n", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(
        vocab_size=len(vocab),
        n_positions=128,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=2,
        eos_token_id=2,
        pad_token_id=1,
    )
    model = transformers.GPT2LMHeadModel(cfg)
    folder = tmp_path_factory.mktemp("tiny-causal-lm")
    model.save_pretrained(folder)
    fast.save_pretrained(folder)
    return str(folder)
