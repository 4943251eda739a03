"""The offline all-mpnet-base-v2: parts joined, verified against recorded sha256s, unpacked once
into the cache in one rename; then usable by name ("mpnet") wherever an embedder is taken."""

from __future__ import annotations

import hashlib
import io
import zipfile

import numpy as np
import pytest

import diveval
from diveval.errors import InputError, MissingDependencyError
from diveval.models import mpnet


def fake_parts(tmp_path, weights=b"weights", corrupt=False):
    """A tiny sentence-transformers-looking zip split in three parts, and its two sha256s."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("all-mpnet-base-v2/modules.json", "[]")
        zf.writestr("all-mpnet-base-v2/model.safetensors", weights)
    data = buf.getvalue()
    parts = []
    for i, start in enumerate(range(0, len(data), len(data) // 3 + 1)):
        p = tmp_path / f"zip.{i:03d}"
        chunk = data[start : start + len(data) // 3 + 1]
        if corrupt and i == 1:
            chunk = bytes([chunk[0] ^ 1]) + chunk[1:]
        p.write_bytes(chunk)
        parts.append(p)
    return parts, hashlib.sha256(data).hexdigest(), hashlib.sha256(b"weights").hexdigest()


def test_parts_are_joined_verified_and_unpacked_once(tmp_path):
    parts, zip_sha, weights_sha = fake_parts(tmp_path)
    cache = tmp_path / "cache"
    folder = mpnet.mpnet_folder(cache, parts, zip_sha, weights_sha)
    assert (folder / "modules.json").read_text() == "[]"
    assert folder.name == f"all-mpnet-base-v2-{zip_sha[:12]}"
    assert [p.name for p in cache.iterdir()] == [folder.name]  # no temporary folder left
    for p in parts:
        p.unlink()  # a second call never reads the parts again
    assert mpnet.mpnet_folder(cache, parts, zip_sha, weights_sha) == folder


def test_a_corrupted_part_or_wrong_weights_are_refused_and_leave_nothing(tmp_path):
    parts, zip_sha, weights_sha = fake_parts(tmp_path, corrupt=True)
    cache = tmp_path / "cache"
    with pytest.raises(InputError, match="not the recorded"):
        mpnet.mpnet_folder(cache, parts, zip_sha, weights_sha)
    assert list(cache.iterdir()) == []
    parts, zip_sha, _ = fake_parts(tmp_path, weights=b"other weights")
    with pytest.raises(InputError, match="weights .* do not match"):
        mpnet.mpnet_folder(cache, parts, zip_sha, weights_sha)
    assert list(cache.iterdir()) == []


def test_missing_extra_names_the_install(monkeypatch):
    import importlib.metadata as md

    def missing(name):
        raise md.PackageNotFoundError(name)

    monkeypatch.setattr(md, "distribution", missing)
    with pytest.raises(MissingDependencyError, match="mpnet"):
        mpnet.part_files()


@pytest.fixture(scope="module")
def installed_mpnet():
    try:
        mpnet.part_files()
    except MissingDependencyError:
        pytest.skip("the mpnet extra is not installed")
    return mpnet.mpnet_folder()


def test_the_real_parts_verify_and_mpnet_embeds(installed_mpnet):
    sets = [["a cat sat on the mat", "the dog ran off", "hello there"], ["yes", "no", "maybe"]]
    got = diveval.score(sets, ["sent-bert"], embedding_model="mpnet")["sent-bert"]
    assert "model:all-mpnet-base-v2" in got.signature
    from sentence_transformers import SentenceTransformer

    x = SentenceTransformer(str(installed_mpnet), device="cpu").encode(sets[0])
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    sims = x @ x.T
    want = -np.mean(sims[np.triu_indices(3, 1)])
    assert got.items[0] == pytest.approx(want, abs=1e-5)
