"""The ``diversity`` package (Shaib et al., PyPI 0.3.1) as a test reference, without its
``__init__``: that imports ``openai`` and ``evaluate`` and its pattern code wants NLTK data it
cannot download here. Each module is loaded on its own under a bare package object, so only the
module a test needs (and what that module imports) has to work. Tests skip when it is absent.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
import types

import pytest


def diversity_module(name: str):
    """``diversity.<name>`` loaded without the package's ``__init__``, or skip."""
    if not getattr(sys.modules.get("diversity"), "_bare", False):
        spec = importlib.util.find_spec("diversity")
        if spec is None or not spec.submodule_search_locations:
            pytest.skip("the diversity package is not installed (test extra)")
        pkg = types.ModuleType("diversity")
        pkg.__path__ = list(spec.submodule_search_locations)
        pkg._bare = True  # type: ignore[attr-defined]
        sys.modules["diversity"] = pkg
    if "evaluate" not in sys.modules and importlib.util.find_spec("evaluate") is None:
        # homogenization imports evaluate.load at the top, for BERTScore and BLEU only; its
        # ROUGE-L path never calls it. A test that needs those paths passes its own ``load``.
        stub = types.ModuleType("evaluate")
        stub.load = _no_evaluate  # type: ignore[attr-defined]
        sys.modules.setdefault("evaluate", stub)
    try:
        return importlib.import_module(f"diversity.{name}")
    except ImportError as exc:
        pytest.skip(f"diversity.{name} cannot be imported here: {exc}")


def _no_evaluate(*args, **kwargs):
    raise RuntimeError("evaluate is not installed (stubbed for the diversity package's import)")


WORDS = (
    "the a cat dog sat ran on in mat park house tree big small red blue quickly slowly and but "
    "is was it they we you he she saw found took gave very really time day night"
).split()


def generated_documents(n_docs: int, seed: int, min_len: int = 1, max_len: int = 40) -> list[str]:
    """Reproducible documents from a small vocabulary (many shared n-grams), single spaces, with
    some exact duplicates and some punctuation."""
    rng = random.Random(seed)
    docs = []
    for _ in range(n_docs):
        if docs and rng.random() < 0.1:
            docs.append(rng.choice(docs))
            continue
        words = [rng.choice(WORDS) for _ in range(rng.randint(min_len, max_len))]
        if rng.random() < 0.3:
            words[-1] += rng.choice([".", "!", "?", ","])
        if rng.random() < 0.2:
            words[0] = words[0].capitalize()
        docs.append(" ".join(words))
    return docs
