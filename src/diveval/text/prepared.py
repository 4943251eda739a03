"""Input validated, tokenized and encoded once, shared by every lexical metric of a run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data import as_setting, flatten_sets
from ..results import SETS
from .ngrams import TokenIds, encode_tokens
from .tokenizers import Tokenizer, get_tokenizer


@dataclass(frozen=True, eq=False)
class Prepared:
    setting: str
    tokenizer: Tokenizer
    token_lists: list[list[str]]
    tids: TokenIds
    group: np.ndarray | None  # set index of each text (sets setting), else None
    n_groups: int

    def signature_keys(self) -> dict[str, str]:
        return {**self.tokenizer.signature, "setting": self.setting}


def prepare(
    data: Any,
    tokenizer: str | Tokenizer = "whitespace",
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
    token_lists = tok.tokenize_many(texts)
    return Prepared(found, tok, token_lists, encode_tokens(token_lists), group, n_groups)
