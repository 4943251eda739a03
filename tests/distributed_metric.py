"""A DiversityMetric run split over processes (torch.distributed, gloo on CPU): the worker
``torch.multiprocessing.spawn`` starts, importable by name from the children (the test modules
themselves are imported by path, not by name)."""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path


def split_worker(rank: int, world: int, store: str, out: str, parts: dict, options: dict) -> None:
    """Rank ``rank`` of ``world``: for each metric, update a DiversityMetric with this rank's
    batches (``parts[metric][rank]``: a list of batches, possibly none) and write what
    ``compute()`` gives after the sync to ``out/<rank>.json``."""
    import torch.distributed as dist

    from diveval.integrations.torchmetrics import DiversityMetric

    # the ranks talk over loopback only (not the address the host name resolves to)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo0" if sys.platform == "darwin" else "lo")
    # a rank given no batch computes before any update, on purpose: torchmetrics warns
    warnings.filterwarnings("ignore", message=".*was called before the ``update`` method")
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        values = {}
        for key, batches in parts.items():
            metric = DiversityMetric(key.split("|")[0], **options.get(key, {}))
            for batch in batches[rank]:
                metric.update(batch)
            values[key] = metric.compute()
        Path(out, f"{rank}.json").write_text(json.dumps(values))
    finally:
        dist.destroy_process_group()
