"""The old import path of SCARCE augmentation keeps working, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import sys
import warnings


def test_reference_augment_is_an_alias_of_diveval_augment():
    for name in [m for m in sys.modules if m.startswith("diveval.reference.augment")]:
        del sys.modules[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("diveval.reference.augment")
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    import diveval.augment as new
    from diveval.augment.retrieval import BM25Retriever
    from diveval.reference.augment.retrieval import BM25Retriever as OldBM25

    assert old.BM25Retriever is new.BM25Retriever is BM25Retriever is OldBM25


def test_public_names_point_at_the_new_package():
    import diveval

    assert diveval.BM25Retriever.__module__ == "diveval.augment.retrieval"
