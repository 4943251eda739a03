"""SCARCE reference augmentation (Gangal et al., Findings of ACL 2021).

- ``corpus``: dialogue corpora (JSON lines, multirefeval, DailyDialog++, chitchat-dataset);
- ``retrieval``: three-field BM25 retrieval (past, response, future) with bm25s;
- ``commonsense``: the ``KnowledgeSource`` protocol, precomputed COMET-style records, templates;
- ``adapters``: the ``ContextAdapter`` protocol (identity by default);
- ``pipeline``: ``augment(items, retriever, k, knowledge, adapter)``.
"""

from .adapters import ContextAdapter, IdentityAdapter
from .commonsense import TEMPLATES, Inference, KnowledgeSource, PrecomputedKnowledge, to_sentence
from .corpus import (
    Dialogue,
    DialogueCorpus,
    load_chitchat,
    read_corpus,
    read_dailydialog_plusplus,
    read_dialogues_jsonl,
    read_multirefeval,
)
from .pipeline import augment
from .retrieval import BM25Retriever, Query, Retrieved

__all__ = [
    "ContextAdapter",
    "IdentityAdapter",
    "TEMPLATES",
    "Inference",
    "KnowledgeSource",
    "PrecomputedKnowledge",
    "to_sentence",
    "Dialogue",
    "DialogueCorpus",
    "load_chitchat",
    "read_corpus",
    "read_dailydialog_plusplus",
    "read_dialogues_jsonl",
    "read_multirefeval",
    "augment",
    "BM25Retriever",
    "Query",
    "Retrieved",
]
