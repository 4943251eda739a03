"""Short fingerprints of model weights: what a model-backed score's signature records."""

from __future__ import annotations

import hashlib
import os
from typing import Any, Union


def file_sha256(path: Union[str, os.PathLike[str]]) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def state_dict_fingerprint(module: Any, *extra: str, length: int = 12) -> str:
    """blake2b of every tensor of a torch module's state dict (names, dtypes, shapes, bytes) in
    name order, plus ``extra`` strings (e.g. the label order); the first ``length`` hex digits.

    Hashing the loaded tensors, not the files, gives the same fingerprint for the same weights
    whatever the file format (safetensors, .bin, shards) or where they came from.
    """
    import torch

    h = hashlib.blake2b(digest_size=16)
    for name, tensor in sorted(module.state_dict().items()):
        t = tensor.detach().to("cpu").contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}\n".encode())
        if t.dtype == torch.bfloat16:  # numpy has no bfloat16: hash the raw 16-bit words
            t = t.view(torch.int16)
        h.update(t.numpy().tobytes())
    for e in extra:
        h.update(f"\n{e}".encode())
    return h.hexdigest()[:length]
