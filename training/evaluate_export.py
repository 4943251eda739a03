"""Held-out evaluation of an ONNX export (int8 and fp32 side by side) and the training files'
sha256, as Markdown for the model card and JSON for the record.

    python training/evaluate_export.py --export /tmp/nli_export --json training/nli_heldout.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from diveval.models import nli_data  # noqa: E402
from diveval.models.fingerprint import file_sha256  # noqa: E402
from diveval.models.nli_data import EVAL_SET_NAMES  # noqa: E402
from diveval.models.nli_eval import evaluate_nli, format_nli_report  # noqa: E402
from diveval.models.shipped_nli import ShippedNLIModel  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--export", default="/tmp/nli_export")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "nli"))
    ap.add_argument("--files", default="model.int8.onnx,model.fp32.onnx")
    ap.add_argument("--dnli-turns", default="1")
    ap.add_argument("--json", default=None)
    ap.add_argument("--limit", type=int, default=None, help="first N pairs per set (quick checks)")
    ap.add_argument("--sets", default=",".join(EVAL_SET_NAMES))
    args = ap.parse_args(argv)

    results = {}
    for f in args.files.split(","):
        model = ShippedNLIModel(args.export, model_file=f)  # default batch_size, as users get it
        results[f] = evaluate_nli(
            model,
            args.data,
            args.sets.split(","),
            limit=args.limit,
            progress=lambda s, n, f=f: print(f"  {f}: {s} ({n})", file=sys.stderr),
        )
        print(format_nli_report(results[f]))
        print()
    names = list(results)
    if len(names) == 2:
        a, b = (results[n]["sets"] for n in names)
        print(f"| set | n | {names[0]} acc | {names[1]} acc | diff (points) | majority |")
        print("|---|---:|---:|---:|---:|---:|")
        for s in a:
            print(
                f"| {s} | {a[s]['n']} | {100 * a[s]['accuracy']:.1f} | {100 * b[s]['accuracy']:.1f} | "
                f"{100 * (a[s]['accuracy'] - b[s]['accuracy']):+.1f} | {100 * a[s]['majority_accuracy']:.1f} |"
            )
    turns = [int(t) for t in args.dnli_turns.split(",") if t]
    hashes = {rel: file_sha256(Path(args.data) / rel) for rel in nli_data.training_files(turns)}
    print("\n| training file | sha256 |\n|---|---|")
    for rel, h in hashes.items():
        print(f"| `{rel}` | `{h}` |")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"results": results, "training_file_sha256": hashes}, indent=2)
        )


if __name__ == "__main__":
    main()
