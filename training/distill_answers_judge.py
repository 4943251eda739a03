"""Distil a cross-encoder teacher into the shipped answers judge's bi-encoder (GPU recipe).

``train_answers_judge.py`` fine-tunes the 3-layer bi-encoder on the 40 training prompts' stored
classes alone, and its validation agreement stops at about 0.45-0.49 ARI: 36,000 labelled pairs
are few, and a bi-encoder cannot look at both answers at once. This recipe (the augmented-SBERT
scheme of Thakur et al., 2021) first trains a cross-encoder on the same labelled pairs, then lets
it label many more pairs of the same training prompts (answers of *different* models to one
prompt, which carry no stored class), and trains the bi-encoder on both. The cross-encoder is
only the teacher: judging a set with it costs one 256-token pass per pair, too slow for the
judge's CPU budget, while the student keeps one pass per answer.

- Teacher: the shipped NLI cross-encoder (``models/nli_minilm``: MiniLM, 6 layers), its weights
  recovered from the int8 file (``onnx_weights.py``), its 3-way head turned into one logit
  (entailment minus contradiction), fine-tuned on the training prompts' pairs, both orders.
- Student: the shipped bi-encoder (``models/answers_minilm``, 3 layers), recovered likewise,
  trained with a binary cross-entropy on ``scale * cos + bias`` against the stored classes
  (pairs of one set) and against the teacher's probabilities (pairs across models).
- Prompts are split as ``answers_judge_split.json`` says; no validation or calibration prompt is
  seen by either model. Figures on the validation prompts use the benchmark's partition algorithm
  with a threshold chosen on the calibration prompts.

Writes OUT/trained.fp16.safetensors + OUT/metrics.json + OUT/head.json (the student, in the
layout ``export_answers_judge.py`` reads; refit its head on the CPU with
``train_answers_judge.py --head-only`` after export), OUT/teacher.fp16.safetensors.partN (the
teacher's weights but its frozen word embeddings, cut in parts under 15 MB), OUT/curve.tsv and
OUT/teacher_probs.npz (the teacher's pair probabilities on calibration and validation sets).

    python training/distill_answers_judge.py --data .dev/nb.jsonl.gz --out OUT --device cuda
    # a smoke run on a CPU (a few sets and steps; the figures mean nothing):
    python training/distill_answers_judge.py --data DATA --out OUT --device cpu --smoke
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))
from onnx_weights import dequantized_state_dict  # noqa: E402
from train_answers_judge import SPLIT_FILE, agreement, partition, read_sets  # noqa: E402

MODELS = ROOT / "src" / "diveval" / "models"
MAX_LENGTH = 128  # the benchmark's truncation of each answer
CLS, SEP = 101, 102


def tokenizer():
    from tokenizers import BertWordPieceTokenizer

    tok = BertWordPieceTokenizer(str(MODELS / "answers_minilm" / "vocab.txt"), lowercase=True)
    return tok


def token_ids(tok, texts: list[str]) -> dict[str, list[int]]:
    """Each text's WordPiece ids without special tokens, cut to MAX_LENGTH - 2."""
    enc = tok.encode_batch(texts, add_special_tokens=False)
    return {t: e.ids[: MAX_LENGTH - 2] for t, e in zip(texts, enc)}


def bert_config(layers: int, labels: int = 2):
    from transformers import BertConfig

    return BertConfig(
        vocab_size=30522,
        hidden_size=384,
        num_hidden_layers=layers,
        num_attention_heads=12,
        intermediate_size=1536,
        num_labels=labels,
    )


def load_teacher(device: str):
    """The NLI cross-encoder with one logit: entailment minus contradiction."""
    import torch
    from transformers import BertForSequenceClassification

    sd = dequantized_state_dict(str(MODELS / "nli_minilm" / "model.w8.onnx"), "m.")
    model = BertForSequenceClassification(bert_config(6, 3))
    model.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    head = torch.nn.Linear(384, 1)
    with torch.no_grad():  # labels: contradiction, neutral, entailment
        head.weight.copy_(model.classifier.weight[2:3] - model.classifier.weight[0:1])
        head.bias.copy_(model.classifier.bias[2:3] - model.classifier.bias[0:1])
    model.classifier = head
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    return model.to(device)


def load_student(device: str):
    import torch
    from transformers import BertModel

    sd = dequantized_state_dict(str(MODELS / "answers_minilm" / "model.w8.onnx"), "model.")
    model = BertModel(bert_config(3), add_pooling_layer=False)
    model.load_state_dict({k: torch.tensor(v) for k, v in sd.items()})
    model.embeddings.word_embeddings.weight.requires_grad_(False)
    return model.to(device)


def pad(rows: list[list[int]], types: list[list[int]] | None, device: str):
    import torch

    n = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), n, dtype=torch.long)
    mask = torch.zeros(len(rows), n, dtype=torch.long)
    tt = torch.zeros(len(rows), n, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(r)
        mask[i, : len(r)] = 1
        if types is not None:
            tt[i, : len(r)] = torch.tensor(types[i])
    return ids.to(device), mask.to(device), tt.to(device)


def pair_batch(ids: dict, pairs: list[tuple[str, str]], device: str):
    rows, types = [], []
    for a, b in pairs:
        x, y = ids[a], ids[b]
        rows.append([CLS, *x, SEP, *y, SEP])
        types.append([0] * (len(x) + 2) + [1] * (len(y) + 1))
    return pad(rows, types, device)


def teacher_logits(model, ids, pairs, device, batch=512):
    """Logits of ordered pairs, in the pairs' order (batched by length)."""
    import torch

    model.eval()
    order = sorted(range(len(pairs)), key=lambda i: len(ids[pairs[i][0]]) + len(ids[pairs[i][1]]))
    out = np.zeros(len(pairs), dtype=np.float32)
    with torch.no_grad(), torch.autocast(device.split(":")[0], dtype=torch.bfloat16):
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            x, m, t = pair_batch(ids, [pairs[i] for i in idx], device)
            out[idx] = (
                model(input_ids=x, attention_mask=m, token_type_ids=t)
                .logits[:, 0]
                .float()
                .cpu()
                .numpy()
            )
    return out


def set_pairs(sets):
    """Every unordered pair (i < j) of every set with different texts, with its stored label."""
    pairs, labels = [], []
    for s in sets:
        g, p = s["generations"], s["partition"]
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                if g[i] != g[j]:
                    pairs.append((g[i], g[j]))
                    labels.append(float(p[i] == p[j]))
    return pairs, labels


def prob_matrices(sets, prob_of) -> list[np.ndarray]:
    out = []
    for s in sets:
        g = s["generations"]
        m = np.ones((len(g), len(g)))
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                m[i, j] = m[j, i] = 1.0 if g[i] == g[j] else prob_of(g[i], g[j])
        out.append(m)
    return out


def judged(sets, mats, threshold):
    return {
        (s["model"], s["id"]): partition(s["generations"], lambda r, i, m=m: m[r, i] > threshold)
        for s, m in zip(sets, mats)
    }


def calibrated_figures(cal, cal_m, val, val_m) -> dict:
    """Threshold with the best calibration ARI; the validation figures under it."""
    gold_c = {(s["model"], s["id"]): s["partition"] for s in cal}
    gold_v = {(s["model"], s["id"]): s["partition"] for s in val}
    best = max(
        (agreement(judged(cal, cal_m, t), gold_c)["ari"], float(t))
        for t in np.round(np.arange(0.05, 0.951, 0.025), 3)
    )
    res = agreement(judged(val, val_m, best[1]), gold_v)
    res.update(threshold=best[1], calibration_ari=best[0])
    return res


def teacher_prob_of(model, ids, sets, device):
    """P(same) of every unordered pair of the sets: the mean of both orders' sigmoids."""
    pairs, _ = set_pairs(sets)
    ordered = pairs + [(b, a) for a, b in pairs]
    logits = teacher_logits(model, ids, ordered, device)
    p = 1 / (1 + np.exp(-logits.astype(np.float64)))
    n = len(pairs)
    table = {pair: (p[k] + p[k + n]) / 2 for k, pair in enumerate(pairs)}
    return lambda a, b: table.get((a, b), table.get((b, a), 0.0))


def embed(model, ids, texts, device, grad=False, batch=512):
    import torch

    rows = [[CLS, *ids[t], SEP] for t in texts]
    outs = []
    for s in range(0, len(rows), batch):
        x, m, _ = pad(rows[s : s + batch], None, device)
        with (
            torch.set_grad_enabled(grad),
            torch.autocast(device.split(":")[0], dtype=torch.bfloat16),
        ):
            h = model(input_ids=x, attention_mask=m).last_hidden_state.float()
        mk = m.unsqueeze(-1).float()
        e = (h * mk).sum(1) / mk.sum(1).clamp(min=1e-9)
        outs.append(torch.nn.functional.normalize(e, dim=-1))
    return torch.cat(outs)


def student_prob_of(model, ids, sets, device, scale, bias):
    import torch

    model.eval()
    texts = list(dict.fromkeys(t for s in sets for t in s["generations"]))
    with torch.no_grad():
        e = embed(model, ids, texts, device).cpu().numpy().astype(np.float64)
    where = {t: i for i, t in enumerate(texts)}

    def prob(a, b):
        c = float(e[where[a]] @ e[where[b]])
        return 1 / (1 + math.exp(-(scale * c + bias)))

    return prob


def optimise(loss, opt, sched, params) -> None:
    """One step: gradients of ``loss``, clipped to norm 1, the optimiser's and schedule's step."""
    import torch

    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    sched.step()


def train_teacher(model, ids, pairs, labels, args, log):
    import torch

    data = [(a, b, y) for (a, b), y in zip(pairs, labels)] + [
        (b, a, y) for (a, b), y in zip(pairs, labels)
    ]
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.teacher_lr, weight_decay=0.01)
    steps = max(1, int(len(data) / args.batch * args.teacher_epochs))
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm))
    )
    rng = random.Random(args.seed)
    model.train()
    start, step = time.time(), 0
    while step < steps:
        rng.shuffle(data)
        for s in range(0, len(data) - args.batch + 1, args.batch):
            chunk = data[s : s + args.batch]
            x, m, t = pair_batch(ids, [(a, b) for a, b, _ in chunk], args.device)
            y = torch.tensor([c[2] for c in chunk], device=args.device)
            with torch.autocast(args.device.split(":")[0], dtype=torch.bfloat16):
                logit = model(input_ids=x, attention_mask=m, token_type_ids=t).logits[:, 0]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit.float(), y)
            optimise(loss, opt, sched, params)
            step += 1
            if step % 100 == 0:
                log(
                    f"teacher step {step}/{steps} loss {loss.item():.4f} {time.time() - start:.0f}s"
                )
            if step >= steps or time.time() - start > args.teacher_seconds:
                return step
    return step


def cross_model_pairs(sets, n, rng):
    """n pairs of answers of different models to one prompt (no stored class covers them)."""
    by_prompt: dict[str, list[tuple[str, str]]] = {}
    for s in sets:
        by_prompt.setdefault(s["id"], []).extend((s["model"], g) for g in s["generations"])
    prompts = sorted(by_prompt)
    out = set()
    tries = 0
    while len(out) < n and tries < 20 * n:
        tries += 1
        answers = by_prompt[rng.choice(prompts)]
        (ma, a), (mb, b) = rng.sample(answers, 2)
        if ma != mb and a != b:
            out.add((a, b) if a < b else (b, a))
    return sorted(out)


def train_student(
    student, ids, gold_pairs, gold_labels, soft_pairs, soft_labels, args, evaluate, log
):
    import torch

    data = [(a, b, y) for (a, b), y in zip(gold_pairs, gold_labels)] + [
        (a, b, y) for (a, b), y in zip(soft_pairs, soft_labels)
    ]
    scale = torch.nn.Parameter(torch.tensor(10.0, device=args.device))
    bias = torch.nn.Parameter(torch.tensor(-5.0, device=args.device))
    params = [p for p in student.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(
        [{"params": params, "lr": args.student_lr}, {"params": [scale, bias], "lr": 1e-2}],
        weight_decay=0.01,
    )
    per_epoch = len(data) // args.batch
    steps = max(1, int(per_epoch * args.student_epochs))
    warm = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (steps - s) / max(1, steps - warm))
    )
    rng = random.Random(args.seed + 1)
    start, step, curve = time.time(), 0, []
    while step < steps:
        rng.shuffle(data)
        student.train()
        for s in range(0, len(data) - args.batch + 1, args.batch):
            chunk = data[s : s + args.batch]
            texts = list(dict.fromkeys(t for a, b, _ in chunk for t in (a, b)))
            where = {t: i for i, t in enumerate(texts)}
            e = embed(student, ids, texts, args.device, grad=True)
            ia = torch.tensor([where[a] for a, _, _ in chunk], device=args.device)
            ib = torch.tensor([where[b] for _, b, _ in chunk], device=args.device)
            cos = (e[ia] * e[ib]).sum(-1)
            y = torch.tensor([c[2] for c in chunk], device=args.device)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(scale * cos + bias, y)
            optimise(loss, opt, sched, params)
            step += 1
            if step % per_epoch == 0 or step >= steps:
                fig = evaluate(float(scale), float(bias))
                curve.append((step / per_epoch, float(loss), fig))
                log(f"student epoch {step / per_epoch:.2f} loss {loss.item():.4f} {fig}")
            if step >= steps or time.time() - start > args.student_seconds:
                if not curve or curve[-1][0] != step / per_epoch:
                    fig = evaluate(float(scale), float(bias))
                    curve.append((step / per_epoch, float(loss), fig))
                    log(f"student stopped at epoch {step / per_epoch:.2f} (time): {fig}")
                return float(scale), float(bias), step, curve
    return float(scale), float(bias), step, curve


def save_parts(tensors: dict, path: Path, part_bytes: int = 15_000_000) -> list[str]:
    """Safetensors bytes cut in parts (the device's file limit); cat them in order to rejoin."""
    from safetensors.torch import save

    blob = save(tensors)
    names = []
    for k in range(0, len(blob), part_bytes):
        name = f"{path.name}.part{k // part_bytes}"
        (path.parent / name).write_bytes(blob[k : k + part_bytes])
        names.append(name)
    return names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--teacher-epochs", type=float, default=3.0)
    ap.add_argument("--teacher-lr", type=float, default=3e-5)
    ap.add_argument("--teacher-seconds", type=float, default=150.0)
    ap.add_argument("--distill-pairs", type=int, default=200_000)
    ap.add_argument("--student-epochs", type=float, default=3.0)
    ap.add_argument("--student-lr", type=float, default=5e-5)
    ap.add_argument("--student-seconds", type=float, default=150.0)
    ap.add_argument("--smoke", action="store_true", help="a few sets and steps (a CPU check)")
    args = ap.parse_args(argv)
    import torch

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    logf = open(out / "log.txt", "w")
    t0 = time.time()

    def log(msg):
        line = f"[{time.time() - t0:6.1f}s] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    sets = read_sets(Path(args.data))
    split = json.loads(SPLIT_FILE.read_text())
    part = {k: [s for s in sets if s["id"] in set(v)] for k, v in split.items()}
    if args.smoke:
        part = {k: v[:: max(1, len(v) // 6)][:6] for k, v in part.items()}
        args.distill_pairs, args.teacher_epochs, args.student_epochs = 200, 0.2, 0.5
    tok = tokenizer()
    ids = token_ids(tok, list(dict.fromkeys(t for s in sets for t in s["generations"])))
    log(f"device {args.device}; sets {[(k, len(v)) for k, v in part.items()]}")

    teacher = load_teacher(args.device)
    gold_pairs, gold_labels = set_pairs(part["train"])
    t_steps = train_teacher(teacher, ids, gold_pairs, gold_labels, args, log)
    cal_p = teacher_prob_of(teacher, ids, part["calibration"], args.device)
    val_p = teacher_prob_of(teacher, ids, part["validation"], args.device)
    cal_m = prob_matrices(part["calibration"], cal_p)
    val_m = prob_matrices(part["validation"], val_p)
    teacher_fig = calibrated_figures(part["calibration"], cal_m, part["validation"], val_m)
    log(f"teacher after {t_steps} steps: {teacher_fig}")
    np.savez_compressed(
        out / "teacher_probs.npz",
        calibration=np.stack(cal_m),
        validation=np.stack(val_m),
    )
    moved = {
        k: v.detach().half().cpu().contiguous()
        for k, v in teacher.state_dict().items()
        if k != "bert.embeddings.word_embeddings.weight"
    }
    parts = save_parts(moved, out / "teacher.fp16.safetensors")
    log(f"teacher saved in {parts}")

    rng = random.Random(args.seed)
    soft_pairs = cross_model_pairs(part["train"], args.distill_pairs, rng)
    ordered = soft_pairs + [(b, a) for a, b in soft_pairs]
    lg = teacher_logits(teacher, ids, ordered, args.device)
    p = 1 / (1 + np.exp(-lg.astype(np.float64)))
    soft_labels = [(p[k] + p[k + len(soft_pairs)]) / 2 for k in range(len(soft_pairs))]
    log(
        f"teacher labelled {len(soft_pairs)} cross-model pairs; mean P(same) {np.mean(soft_labels or [0]):.3f}"
    )
    del teacher
    torch.cuda.empty_cache() if args.device.startswith("cuda") else None

    student = load_student(args.device)

    def evaluate(scale, bias):
        cp = student_prob_of(student, ids, part["calibration"], args.device, scale, bias)
        vp = student_prob_of(student, ids, part["validation"], args.device, scale, bias)
        return calibrated_figures(
            part["calibration"],
            prob_matrices(part["calibration"], cp),
            part["validation"],
            prob_matrices(part["validation"], vp),
        )

    base_fig = evaluate(10.0, -5.0)
    log(f"student before: {base_fig}")
    scale, bias, s_steps, curve = train_student(
        student, ids, gold_pairs, gold_labels, soft_pairs, soft_labels, args, evaluate, log
    )
    from safetensors.torch import save_file

    save_file(
        {
            k: v.detach().half().cpu().contiguous()
            for k, v in student.state_dict().items()
            if k != "embeddings.word_embeddings.weight"
        },
        str(out / "trained.fp16.safetensors"),
    )
    final = curve[-1][2]
    (out / "head.json").write_text(
        json.dumps(
            {
                "features": ["cosine"],
                "weights": [scale],
                "bias": bias,
                "threshold": final["threshold"],
            }
        )
        + "\n"
    )
    with open(out / "curve.tsv", "w") as f:
        f.write("epoch\tloss\tari\tset_spearman\tsystem_spearman\n")
        for ep, loss, fig in curve:
            f.write(
                f"{ep:.2f}\t{loss:.4f}\t{fig['ari']:.4f}\t{fig['set_spearman']:.4f}\t"
                f"{fig['system_spearman']:.4f}\n"
            )
    metrics = {
        "validation": final,
        "teacher_validation": teacher_fig,
        "student_before": base_fig,
        "epochs": curve[-1][0],
        "steps": s_steps,
        "teacher_steps": t_steps,
        "distill_pairs": len(soft_pairs),
        "device": args.device,
        "seconds": time.time() - t0,
        "args": {**vars(args), "layers": 3, "max_length": MAX_LENGTH},
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1, default=str) + "\n")
    log(f"done: student {final}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
