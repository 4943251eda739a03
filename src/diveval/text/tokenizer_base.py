"""What a tokenizer is: text in, a list of string tokens out, with the choices a signature names.

Apart from the registry (``tokenizers.py``) so that the tokenizers of other languages
(``multilingual.py``) can subclass it and the registry can import them at its top.
"""

from __future__ import annotations

from typing import Iterable


class Tokenizer:
    """Base class of the registered tokenizers (``tokenizers.py``, ``multilingual.py``)."""

    name: str = "?"
    vocab_size: int | None = None
    #: True when the tokenizer itself lower-cases (so ``lc`` in signatures is forced to yes).
    uncased: bool = False
    #: The scripts written without spaces between words that it segments (see ``scripts.py``);
    #: text in any other such script comes out as one token per run, so a Score warns.
    segments: frozenset[str] = frozenset()
    #: True when EAD's default V is this tokenizer's ``vocab_size`` (see ``lexical/ead.py``).
    ead_default: bool = False

    def __init__(self, lowercase: bool = False):
        self.lowercase = lowercase or self.uncased

    def tokenize(self, text: str) -> list[str]:
        raise NotImplementedError

    def __call__(self, text: str) -> list[str]:
        return self.tokenize(text.lower() if self.lowercase else text)

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        return [self(t) for t in texts]

    @property
    def signature(self) -> dict[str, str]:
        return {"tok": self.name, "lc": "yes" if self.lowercase else "no"}
