"""DiversityCallback in a real (tiny) training run: the diversity of sampled answers, logged.

Runs offline on a CPU in seconds: it builds a tiny chat model itself (a word-level tokenizer
with a chat template and a one-layer GPT-2 of random weights), trains it for a few steps, and
every 3 steps samples 4 answers to each prompt, through the chat template, and logs their
diversity beside the loss. Swap in your own model and tokenizer (an instruct model's tokenizer
carries its chat template) and your own training data:

    python examples/trainer_callback.py
"""

from __future__ import annotations

import tempfile

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import (
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedTokenizerFast,
    Trainer,
    TrainingArguments,
)

from diveval.integrations.transformers import DiversityCallback

WORDS = "the a cat dog sat ran on under mat tree red blue sun sea story cook tonight".split()
TURNS = ["<user>", "<assistant>"]


def tiny_chat_model():
    """(model, tokenizer): a tokenizer whose chat template marks the turns, a random GPT-2."""
    vocab = {w: i for i, w in enumerate(["<unk>", "<pad>", "<eos>", *TURNS, *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # words joined by spaces
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    tokenizer.chat_template = (
        "{% for m in messages %}<{{ m['role'] }}> {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}<assistant> {% endif %}"
    )
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(vocab),
        n_positions=64,
        n_embd=16,
        n_layer=1,
        n_head=2,
        bos_token_id=vocab["<eos>"],
        eos_token_id=vocab["<eos>"],
        pad_token_id=vocab["<pad>"],
    )
    return GPT2LMHeadModel(config), tokenizer


def main() -> list[dict]:
    model, tokenizer = tiny_chat_model()
    generator = torch.Generator().manual_seed(0)
    rows = []
    for _ in range(24):  # training texts of one length, so the default collator stacks them
        words = [WORDS[i] for i in torch.randint(len(WORDS), (8,), generator=generator)]
        ids = tokenizer(" ".join(words))["input_ids"]
        rows.append({"input_ids": ids, "labels": ids})
    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            max_steps=6,
            per_device_train_batch_size=4,
            learning_rate=0.1,
            logging_steps=3,
            save_strategy="no",
            report_to=[],  # or "tensorboard", "wandb": the callback logs through them too
            use_cpu=True,
            seed=0,
            disable_tqdm=True,
        )
        trainer = Trainer(model=model, args=args, train_dataset=rows, processing_class=tokenizer)
        callback = DiversityCallback(
            trainer,
            ["tell a story", "cook tonight"],  # prompts: each one's answers are one set
            k=4,  # answers per prompt
            every=3,  # training steps
            metrics=["distinct-2", "self-bleu"],
            seed=0,
            max_new_tokens=8,  # model.generate's keywords
            top_p=0.9,
        )
        trainer.add_callback(callback)
        trainer.train()
    logged = [row for row in trainer.state.log_history if "diversity/distinct-2" in row]
    for row in logged:
        print(
            f"step {row['step']}: distinct-2 {row['diversity/distinct-2']:.3f}, "
            f"self-bleu {row['diversity/self-bleu']:.3f}, "
            f"empty answers {row['diversity/empty-responses']:.0%}"
        )
    last = max(callback.samples)
    print(f"answers to {callback.prompts[0]!r} at step {last}: {callback.samples[last][0]}")
    return logged


if __name__ == "__main__":
    main()
