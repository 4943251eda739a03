"""The text layer: named tokenizers and the numpy n-gram engine."""

from .ngrams import NgramCounts, TokenIds, encode_tokens, factorize, ngram_codes, unique_counts
from .tokenizers import TOKENIZERS, Tokenizer, get_tokenizer

__all__ = [
    "TOKENIZERS",
    "Tokenizer",
    "get_tokenizer",
    "TokenIds",
    "encode_tokens",
    "ngram_codes",
    "NgramCounts",
    "factorize",
    "unique_counts",
]
