"""A trained pair-similarity classifier (NoveltyBench's judge): P(similar) of two texts.

NoveltyBench (Zhang et al. 2025) partitions generations with a DeBERTa-v3-large sequence
classifier fine-tuned on human judgements of whether two generations are meaningfully different,
``yimingzhang/deberta-v3-large-generation-similarity``, read with ``microsoft/deberta-v3-large``'s
tokenizer. Its ``partition.py`` feeds one pair at a time as

    [CLS] a [SEP] b [SEP]        (a and b each cut to 128 tokens, no special tokens of their own)

with token types 0 for ``[CLS] a [SEP]`` and 1 for ``b [SEP]``, and reads the score as
``softmax(logits)[1]``. ``HFPairClassifier`` computes the same number for any transformers
sequence-classification checkpoint (hub name or folder), in padded batches with an attention
mask (a batch of pairs gives each pair what it gets alone, to float round-off). The token types
are passed when the model has token-type embeddings (``type_vocab_size >= 2``); DeBERTa-v3's
config has none (``type_vocab_size = 0``), so it ignores them, as it does in NoveltyBench's call.

A checkpoint folder without tokenizer files is read with NoveltyBench's tokenizer,
``microsoft/deberta-v3-large`` (from the local Hugging Face cache when the hub is offline).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from ..errors import InputError
from ..progress import track
from .devices import ModelSettings, SettingsKeywords, settings_of
from .fingerprint import state_dict_fingerprint
from .hf_nli import display_name, sequence_classifier
from .loaded import load_once
from .offline import check_model_spec, error_line, hub_offline

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

NOVELTYBENCH_CLASSIFIER = "yimingzhang/deberta-v3-large-generation-similarity"
NOVELTYBENCH_TOKENIZER = "microsoft/deberta-v3-large"
NOVELTYBENCH_THRESHOLD = 0.102  # equivalent when P(similar) > 0.102 (partition.py)
MAX_TOKENS = 128  # per text, as partition.py cuts each one
SIMILAR_COLUMN = 1  # softmax(logits)[0, 1] in partition.py


def _vocab_digest(tokenizer: Any) -> str:
    """A short hash of a tokenizer's vocabulary and special tokens (what fixes its ids)."""
    h = hashlib.blake2b(digest_size=8)
    for token, index in sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1]):
        h.update(f"{index}\t{token}\n".encode("utf-8", "surrogatepass"))
    h.update(f"cls:{tokenizer.cls_token_id}|sep:{tokenizer.sep_token_id}".encode())
    return h.hexdigest()


class HFPairClassifier:
    """A ``PairScorer``: ``score_pairs(firsts, seconds)`` -> P(similar) of each (a, b), float64.

    name_or_path: a transformers sequence-classification checkpoint (hub name or folder);
    tokenizer: a tokenizer name or folder (None: the checkpoint's own, else NoveltyBench's);
    max_length: tokens kept of each text (128); column: the output read as "similar" (1).
    """

    def __init__(
        self,
        name_or_path: str = NOVELTYBENCH_CLASSIFIER,
        *,
        settings: Optional[ModelSettings] = None,
        tokenizer: Optional[str] = None,
        max_length: int = MAX_TOKENS,
        column: int = SIMILAR_COLUMN,
        progress: Optional[bool] = None,
        **keywords: Unpack[SettingsKeywords],
    ):
        # the run's settings (checked where the run started), or this call's keywords, checked here
        settings = settings_of(settings, **keywords)
        spec = str(name_or_path)
        self.model, _ = sequence_classifier(
            spec, "similarity classifier", "the trained similarity judge"
        )
        with hub_offline():  # the tokenizer too: its fall-back is on the hub
            from transformers import AutoTokenizer

            self.tokenizer_name = tokenizer or spec
            try:
                self.tokenizer = AutoTokenizer.from_pretrained(self.tokenizer_name)
                if not _has_vocabulary(self.tokenizer):
                    # transformers builds a tokenizer of special tokens alone for a folder
                    # without tokenizer files: every word would be [UNK]
                    raise OSError(f"{self.tokenizer_name!r} holds no tokenizer vocabulary")
            except (OSError, ValueError, TypeError) as err:
                if tokenizer is not None:
                    raise InputError(
                        f"cannot load the tokenizer {tokenizer!r}: {error_line(err)}"
                    ) from err
                self.tokenizer_name = NOVELTYBENCH_TOKENIZER  # partition.py's tokenizer
                try:
                    self.tokenizer = AutoTokenizer.from_pretrained(NOVELTYBENCH_TOKENIZER)
                except (OSError, ValueError, TypeError) as err2:
                    raise InputError(
                        f"the similarity classifier {spec!r} has no tokenizer files and "
                        f"NoveltyBench's tokenizer {NOVELTYBENCH_TOKENIZER!r} is not available "
                        f"({error_line(err2)}); copy a tokenizer into the checkpoint's folder"
                    ) from None
        if self.tokenizer.cls_token_id is None or self.tokenizer.sep_token_id is None:
            raise InputError(
                f"the tokenizer {self.tokenizer_name!r} has no [CLS] / [SEP] tokens: the judge "
                "feeds [CLS] a [SEP] b [SEP]"
            )
        n_labels = int(self.model.config.num_labels)
        if not 0 <= column < n_labels:
            raise InputError(f"{spec!r} has {n_labels} outputs; output {column} is not one")
        self.device, self.precision, self.batch_size = settings.place(self.model, 32)
        self.max_length = int(max_length)
        self.column = int(column)
        self.token_types = int(getattr(self.model.config, "type_vocab_size", 0) or 0) >= 2
        self.progress = progress
        self.name = display_name(spec)
        self.fingerprint = state_dict_fingerprint(
            self.model,
            f"tokenizer:{_vocab_digest(self.tokenizer)}",
            f"max_length:{self.max_length}",
            f"column:{self.column}",
            f"token_types:{self.token_types}",
        )

    def __repr__(self) -> str:
        return (
            f"HFPairClassifier(name={self.name!r}, fingerprint={self.fingerprint!r}, "
            f"device={self.device!r})"
        )

    def pair_ids(self, a_ids: list[int], b_ids: list[int]) -> tuple[list[int], list[int]]:
        """(input ids, token types) of ``[CLS] a [SEP] b [SEP]``."""
        cls, sep = self.tokenizer.cls_token_id, self.tokenizer.sep_token_id
        ids = [cls, *a_ids, sep, *b_ids, sep]
        first = len(a_ids) + 2
        return ids, [0] * first + [1] * (len(ids) - first)

    def score_pairs(self, firsts: Sequence[str], seconds: Sequence[str]) -> np.ndarray:
        """P(similar) of each (firsts[i], seconds[i]), float64 [n]."""
        import torch

        if len(firsts) != len(seconds):
            raise ValueError(f"{len(firsts)} first texts but {len(seconds)} second texts")
        out = np.zeros(len(firsts), dtype=np.float64)
        if not len(firsts):
            return out
        texts = list(dict.fromkeys([*firsts, *seconds]))
        enc = self.tokenizer(
            texts, add_special_tokens=False, truncation=True, max_length=self.max_length
        )["input_ids"]
        tokens = dict(zip(texts, enc))
        rows = [self.pair_ids(tokens[a], tokens[b]) for a, b in zip(firsts, seconds)]
        order = np.argsort([-len(r[0]) for r in rows], kind="stable")
        starts = range(0, len(order), self.batch_size)
        show = self.progress
        if show is None:
            import sys

            show = sys.stderr.isatty() and len(starts) > 4
        pad = self.tokenizer.pad_token_id or 0
        with torch.inference_mode():
            for s in track(starts, f"judge {self.name}", total=len(starts), enabled=bool(show)):
                b = order[s : s + self.batch_size]
                width = max(len(rows[i][0]) for i in b)
                ids = np.full((len(b), width), pad, dtype=np.int64)
                types = np.zeros((len(b), width), dtype=np.int64)
                mask = np.zeros((len(b), width), dtype=np.int64)
                for r, i in enumerate(b):
                    n = len(rows[i][0])
                    ids[r, :n], types[r, :n], mask[r, :n] = rows[i][0], rows[i][1], 1
                feeds = {
                    "input_ids": torch.from_numpy(ids).to(self.device),
                    "attention_mask": torch.from_numpy(mask).to(self.device),
                }
                if self.token_types:
                    feeds["token_type_ids"] = torch.from_numpy(types).to(self.device)
                logits = self.model(**feeds).logits
                probs = torch.softmax(logits.float(), dim=-1)[:, self.column]
                out[b] = probs.double().cpu().numpy()
        return out


def _has_vocabulary(tokenizer: Any) -> bool:
    """Whether the tokenizer knows any token besides its special ones."""
    return bool(set(tokenizer.get_vocab()) - set(tokenizer.all_special_tokens))


def load_pair_classifier(
    spec: str,
    settings: Optional[ModelSettings] = None,
    **keywords: Unpack[SettingsKeywords],
) -> HFPairClassifier:
    """The classifier ``spec`` (hub name or folder), loaded once per process and settings (the
    run's, or those of a direct call's keywords)."""
    settings = settings_of(settings, **keywords)
    check_model_spec(spec, "similarity classifier")
    loading = settings.for_loading()
    return load_once(
        ("pair-classifier", spec, loading), lambda: HFPairClassifier(spec, settings=loading)
    )
