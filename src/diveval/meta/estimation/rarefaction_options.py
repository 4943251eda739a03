"""The options each ``rarefy`` measure takes, apart from its machinery: the command line's
parser reads them, and must not import the partition, its judges and their models to do so.

``JUDGE_OPTIONS`` is what the partition into classes declares (its keyword options and the
judge's models and settings, ``JudgeOptions``);
``meta.estimation.rarefaction_curves.declared_judge_options`` reads it from those declarations
and the tests hold the two equal, so an option added there reaches rarefy too.
"""

JUDGE_OPTIONS = (
    "judge",
    "identical",
    "batch_size",
    "cache_dir",
    "device",
    "embedding_model",
    "nli_model",
    "precision",
    "settings",
)
#: What the n-gram measures take: the tokenization of :func:`diveval.text.prepared.prepare`.
NGRAM_OPTIONS = ("tokenizer", "lowercase")
