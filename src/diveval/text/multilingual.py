"""Tokenizers for languages written without spaces between words, on sacrebleu's tokenizers.

- ``zh``: every Chinese character is a token, the rest as sacrebleu's 13a (sacrebleu's BLEU
  tokenizer for Chinese);
- ``ja-mecab``: Japanese morphemes from MeCab with the IPA dictionary;
- ``ko-mecab``: Korean morphemes from MeCab-ko with mecab-ko-dic (Korean is written with spaces
  between words (eojeol), so the whitespace tokenizer gives real words; morphemes are what Korean
  MT and dialogue papers count);
- ``char``: every character but white space is a token (any script: Thai, Lao, Khmer, Myanmar...);
- ``intl``: mteval-v14's international tokenizer (punctuation and symbols split off, Unicode
  aware), for space-delimited languages.

``vocab_size`` is what EAD's ``vocab="tokenizer"`` uses, and the EAD default of zh, ja-mecab
and ko-mecab (``ead_default``): the
MeCab dictionaries' entry counts (IPA 392,126; mecab-ko-dic 811,795, the sizes sacrebleu checks),
and for ``zh`` the 21,128 entries of bert-base-chinese, the character vocabulary of the Chinese
BERT models that Chinese dialogue systems build on (the EAD authors' guideline: the vocabulary
of the systems compared, or of a third-party tokenizer). ``char`` and ``intl`` have none.

The MeCab tokenizers need the ``cjk`` extra (``pip install 'diveval[cjk]'``).
"""

from __future__ import annotations

from typing import Any, Callable

from ..errors import MissingDependencyError
from .tokenizer_base import Tokenizer

#: bert-base-chinese's vocabulary size: ``zh``'s EAD V (see the module's docstring).
ZH_VOCAB_SIZE = 21128


class _Sacrebleu(Tokenizer):
    """A sacrebleu tokenizer (a string -> a string with spaces between tokens), then split."""

    _tok: Callable[[str], str]

    def tokenize(self, text: str) -> list[str]:
        return self._tok(text).split()

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt where it is unpickled (states travel to Ray workers and shard files): a MeCab
        # tagger cannot be pickled, and its caches need not travel
        return (type(self), (self.lowercase,))


class ZhTokenizer(_Sacrebleu):
    """sacrebleu's ``zh``: one token per Chinese character, 13a for the rest."""

    name = "zh"
    segments = frozenset({"Han"})
    vocab_size = ZH_VOCAB_SIZE
    ead_default = True

    def __init__(self, lowercase: bool = False):
        super().__init__(lowercase)
        from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

        self._tok = TokenizerZh()


class CharTokenizer(_Sacrebleu):
    """sacrebleu's ``char``: one token per character, white space dropped."""

    name = "char"
    segments = frozenset({"Han", "Kana", "Thai", "Lao", "Khmer", "Myanmar", "Tibetan"})

    def __init__(self, lowercase: bool = False):
        super().__init__(lowercase)
        from sacrebleu.tokenizers.tokenizer_char import TokenizerChar

        self._tok = TokenizerChar()


class IntlTokenizer(_Sacrebleu):
    """sacrebleu's ``intl`` (mteval-v14 international): punctuation and symbols split off."""

    name = "intl"

    def __init__(self, lowercase: bool = False):
        super().__init__(lowercase)
        from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International

        self._tok = TokenizerV14International()


def _mecab(module: str, cls: str, what: str) -> Any:
    """sacrebleu's MeCab tokenizer ``cls`` of ``module``; a one-line error without the extra."""
    import importlib

    try:
        tokenizer = getattr(importlib.import_module(f"sacrebleu.tokenizers.{module}"), cls)
        return tokenizer()
    except (ImportError, RuntimeError) as exc:  # sacrebleu raises RuntimeError without MeCab
        raise MissingDependencyError(what, "cjk") from exc


class _Mecab(_Sacrebleu):
    """sacrebleu's MeCab tokenizer ``_tokenizer`` (module, class); its vocabulary: the size of
    the dictionary it loaded."""

    ead_default = True
    _tokenizer: tuple[str, str]

    def __init__(self, lowercase: bool = False):
        super().__init__(lowercase)
        tok = _mecab(*self._tokenizer, f"the {self.name} tokenizer")
        self._tok = tok
        self.vocab_size = int(tok.tagger.dictionary_info().size)


class JaMecabTokenizer(_Mecab):
    """sacrebleu's ``ja-mecab``: MeCab with the IPA dictionary (ipadic)."""

    name = "ja-mecab"
    segments = frozenset({"Han", "Kana"})
    _tokenizer = ("tokenizer_ja_mecab", "TokenizerJaMecab")


class KoMecabTokenizer(_Mecab):
    """sacrebleu's ``ko-mecab``: MeCab-ko with mecab-ko-dic."""

    name = "ko-mecab"
    segments = frozenset({"Han"})
    _tokenizer = ("tokenizer_ko_mecab", "TokenizerKoMecab")


MULTILINGUAL: dict[str, Callable[..., Tokenizer]] = {
    "zh": ZhTokenizer,
    "ja-mecab": JaMecabTokenizer,
    "ko-mecab": KoMecabTokenizer,
    "char": CharTokenizer,
    "intl": IntlTokenizer,
}
