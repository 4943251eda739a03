"""Input validated, tokenized and encoded once, shared by every lexical metric of a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, TypedDict

import numpy as np

from ..constants import DEFAULT_TOKENIZER
from ..data import as_setting, flatten_sets
from ..results import SETS
from .fast_whitespace import whitespace_token_ids
from .language import sample_texts
from .ngrams import TokenIds, encode_tokens
from .tokenizers import Tokenizer, WhitespaceTokenizer, get_tokenizer


class TokenOptions(TypedDict, total=False):
    """How the lexical metrics make tokens of texts, declared once for all of them (the defaults
    are :func:`prepare`'s): ``tokenizer``, a name or a :class:`Tokenizer` ("whitespace");
    ``lowercase``, lower-case first (False)."""

    tokenizer: str | Tokenizer
    lowercase: bool


class TextOptions(TokenOptions, total=False):
    """:class:`TokenOptions` and ``setting``: "corpus", "sets", or None (the default) to read it
    from the input's shape."""

    setting: str | None


@dataclass(frozen=True, eq=False)
class Prepared:
    setting: str
    tokenizer: Tokenizer
    tids: TokenIds
    group: np.ndarray | None  # set index of each text (sets setting), else None
    n_groups: int
    sample: tuple[str, ...] = ()  # a few texts for the script check (text/language.py)

    @property
    def set_index(self) -> np.ndarray:
        """The set index of each text; only in the sets setting (metrics that need sets ask)."""
        if self.group is None:
            raise ValueError("set_index is defined in the sets setting only")
        return self.group

    @property
    def group_of_texts(self) -> np.ndarray:
        """The group of each text: its set (sets setting), or 0, the one corpus."""
        if self.group is None:
            return np.zeros(self.tids.n_texts, dtype=np.int64)
        return self.group

    def signature_keys(self) -> dict[str, str]:
        return signature_keys(self.tokenizer, self.setting)

    def token_lists(self) -> list[list[str]]:
        """Every text as a list of tokens (built on demand from the ids)."""
        vocab, ids, off = self.tids.vocab, self.tids.ids.tolist(), self.tids.offsets.tolist()
        return [[vocab[i] for i in ids[a:b]] for a, b in zip(off[:-1], off[1:])]


def signature_keys(tokenizer: Tokenizer, setting: str) -> dict[str, str]:
    """The signature keys of texts made tokens by ``tokenizer``, scored in ``setting`` (a state,
    which sees its texts in batches, names them as :meth:`Prepared.signature_keys` does)."""
    return {**tokenizer.signature, "setting": setting}


def encode_texts(texts: Sequence[str], tokenizer: Tokenizer) -> TokenIds:
    """Tokenize and map to ids; whitespace tokenization takes the vectorised path."""
    if type(tokenizer) is WhitespaceTokenizer:
        fast = whitespace_token_ids([t.lower() for t in texts] if tokenizer.lowercase else texts)
        if fast is not None:
            return fast
    return encode_tokens(tokenizer.tokenize_many(texts))


def prepare(
    data: Any,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    setting: str | None = None,
) -> Prepared:
    """Validate the input, tokenize every text once and map tokens to ids."""
    if isinstance(data, Prepared):
        return data
    found, items = as_setting(data, setting)
    tok = get_tokenizer(tokenizer, lowercase)
    if found == SETS:
        texts, group = flatten_sets(items)
        n_groups = len(items)
    else:
        texts, group, n_groups = items, None, 1
    return Prepared(found, tok, encode_texts(texts, tok), group, n_groups, sample_texts(items))
