"""SCARCE reference augmentation (Gangal et al., Findings of ACL 2021).

- ``corpus``: dialogue corpora (JSON lines, multirefeval, DailyDialog++, chitchat-dataset);
- ``retrieval``: three-field BM25 retrieval (past, response, future) with bm25s;
- ``commonsense``: the ``KnowledgeSource`` protocol, precomputed COMET-style records, templates;
- ``adapters``: the ``ContextAdapter`` protocol (identity by default);
- ``delorean``: DELOREAN context adaptation over a causal LM (loaded by
  ``models.lm_backends.load_causal_lm``, the one table of language models);
- ``generative``: COMET by path, the LM commonsense stand-in, the LM paraphrase baseline;
- ``pipeline``: ``augment(items, retriever, k, knowledge, adapter, paraphraser=...)`` and
  ``augment_to_file`` (item by item, resumable).
"""

from ..models.lm_backends import load_causal_lm
from ..models.local_lm import CausalLM
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
from .delorean import DeloreanAdapter, DeloreanSettings
from .generative import CometKnowledge, LMKnowledge, LMParaphraser
from .pipeline import augment, augment_to_file
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
    "augment_to_file",
    "DeloreanAdapter",
    "DeloreanSettings",
    "CometKnowledge",
    "LMKnowledge",
    "LMParaphraser",
    "CausalLM",
    "load_causal_lm",
    "BM25Retriever",
    "Query",
    "Retrieved",
]
