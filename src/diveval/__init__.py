"""diveval: diversity metrics for generated text, dialogue responses first.

Two settings (Tevet & Berant 2021): a *corpus* is a list of strings (one response per context);
*sets* are a list of lists of strings (several responses per context, scored per set then
averaged). Every result is a frozen :class:`Score` with ``.value``, ``.items`` and ``.signature``.

Heavy libraries are imported only when a function that needs them is first used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ._version import __version__

# public name -> "module:attribute", resolved on first access (PEP 562) to keep import cheap.
_LAZY = {
    "Score": "diveval.results:Score",
    "score": "diveval.api:score",
    "metrics": "diveval.api:metrics",
    "read": "diveval.io.readers:read",
    "distinct": "diveval.lexical.distinct:distinct",
    "avg_distinct": "diveval.lexical.distinct:avg_distinct",
    "ead": "diveval.lexical.ead:ead",
    "cosine_diversity": "diveval.lexical.cosine:cosine_diversity",
    "self_bleu": "diveval.lexical.self_bleu:self_bleu",
    "get_tokenizer": "diveval.text.tokenizers:get_tokenizer",
    "InputError": "diveval.errors:InputError",
    "nli_diversity": "diveval.semantic.nli_diversity:nli_diversity",
    "embedding_diversity": "diveval.semantic.embedding_diversity:embedding_diversity",
    "vendi": "diveval.semantic.vendi:vendi",
    "lsdscc": "diveval.reference.lsdscc:lsdscc",
    "lsdscc_corpus": "diveval.reference.lsdscc:lsdscc_corpus",
    "ref_bleu": "diveval.reference.multiref:bleu",
    "ref_rouge_l": "diveval.reference.multiref:rouge_l",
    "ref_meteor": "diveval.reference.multiref:meteor",
    "ref_embedding_average": "diveval.reference.multiref:embedding_average",
    "ref_bertscore": "diveval.reference.multiref:bertscore",
    "reference_self_bleu": "diveval.reference.multiref:reference_self_bleu",
    "mauve": "diveval.reference.mauve:mauve",
    "augment_references": "diveval.augment.pipeline:augment",
    "BM25Retriever": "diveval.augment.retrieval:BM25Retriever",
    "correlate": "diveval.meta.studies.correlate:correlate",
    "correlate_columns": "diveval.meta.studies.correlate:correlate_columns",
    "bootstrap": "diveval.meta.statistics.bootstrap:bootstrap",
    "tevet_test": "diveval.meta.studies.tevet:tevet_test",
    "length_bias": "diveval.meta.studies.length_bias:length_bias",
    "threshold_generate": "diveval.generation.threshold:threshold_generate",
    "percentile_threshold": "diveval.generation.thresholds:percentile_threshold",
    "PoolGenerator": "diveval.models.generators:PoolGenerator",
    "HFGenerator": "diveval.models.generators:HFGenerator",
    "smollm2_generator": "diveval.models.generators:smollm2_generator",
    "EngineOptions": "diveval.scale.engine:EngineOptions",
    "compression_ratio": "diveval.lexical.compression:compression_ratio",
    "pos_compression_ratio": "diveval.lexical.compression:pos_compression_ratio",
    "self_repetition": "diveval.lexical.repetition:self_repetition",
    "ngram_diversity": "diveval.lexical.repetition:ngram_diversity",
    "template_rate": "diveval.lexical.pos_templates:template_rate",
    "templates_per_token": "diveval.lexical.pos_templates:templates_per_token",
    "mattr": "diveval.lexical.richness:mattr",
    "mtld": "diveval.lexical.richness:mtld",
    "hdd": "diveval.lexical.richness:hdd",
    "distinct_at_k": "diveval.lexical.richness:distinct_at_k",
    "homogenization_rouge_l": "diveval.semantic.homogenization:homogenization_rouge_l",
    "homogenization_bertscore": "diveval.semantic.homogenization:homogenization_bertscore",
    "homogenization_bleu": "diveval.semantic.homogenization:homogenization_bleu",
    "equivalence_classes": "diveval.semantic.equivalence:equivalence_classes",
    "score_level": "diveval.meta.estimation.levels:score_level",
    "rarefy": "diveval.meta.estimation.rarefaction_curves:rarefy",
    "compare": "diveval.meta.statistics.compare:compare",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'diveval' has no attribute {name!r}")
    module, attr = target.split(":")
    value = getattr(import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
