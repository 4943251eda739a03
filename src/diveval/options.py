"""Every metric option, declared once: its name, CLI flag, type, choices, default and help.

The registry checks metric rows and API calls against these names (``KNOWN_OPTIONS``), every
command builds its flags from them (:func:`diveval.commands.options.add_option_flags`), and the
generated documentation lists them, so an option cannot mean one thing in one place and another
elsewhere.

``default`` (and ``metric_defaults``, where a metric's reference code uses another value) is the
one place an option's default is written: help texts are generated from it, the registry's
wrappers read it (:meth:`diveval.registry.Metric.option_default`), and ``tests/test_defaults.py``
checks that every registered metric's functions default to the same value. The CLI leaves an
unset flag out, so the metric's function applies that default (a command whose method needs
another, such as ``meta tevet``'s Tevet tokenizer, says so where it adds the flag).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, Callable, Optional

LEXICAL, MODELS, REFERENCES = "lexical metrics", "model-backed metrics", "reference-based metrics"
PAIRS = "all-pairs metrics of a corpus"
AT_K = "numbers at a common k (sets of different sizes)"


def positive_int(text: str) -> int:
    """An integer of at least 1, from a command-line string (argparse reports the ValueError)."""
    value = int(text)
    if value < 1:
        raise ValueError(f"a positive integer, got {text!r}")
    return value


@dataclass(frozen=True)
class Option:
    """One metric option. ``flags``: its CLI spellings (empty: not a flag, given by the input file
    or the API only); ``switch``: a flag without a value; ``per_item``: one value per input item,
    sliced with the items when a run is split; ``run``: an option of the whole run (how it scores,
    e.g. at K responses per set), which no metric takes itself. ``metric_defaults``: (metric name
    pattern, default) pairs for the metrics whose reference uses another default than
    ``default``; the first pattern that matches wins."""

    name: str
    help: str
    flags: tuple[str, ...] = ()
    type: Optional[Callable[[str], Any]] = None
    choices: Optional[tuple[str, ...]] = None
    switch: bool = False
    default: Any = None
    group: str = LEXICAL
    per_item: bool = False
    metavar: Optional[str] = None
    run: bool = False
    metric_defaults: tuple[tuple[str, Any], ...] = ()

    def default_for(self, metric: str) -> Any:
        """The default of this option for the metric named ``metric``."""
        for pattern, value in self.metric_defaults:
            if fnmatchcase(metric, pattern):
                return value
        return self.default

    def shown_default(self) -> Any:
        """The default as a help text shows it: the value, or each metric's where they differ."""
        if not self.metric_defaults:
            return self.default
        shown = [f"{value} for {pattern}" for pattern, value in self.metric_defaults]
        if self.default is not None:
            shown.append(f"{self.default} otherwise")
        return "; ".join(shown)


OPTIONS: tuple[Option, ...] = (
    Option(
        "tokenizer",
        "how responses are split into tokens: whitespace, 13a, bert, tevet, space (single "
        "spaces, empty tokens kept, as the diversity package); for languages written without "
        "spaces zh (one token per Chinese character), ja-mecab and ko-mecab (morphemes; the cjk "
        "extra), char (every character), and intl (mteval-v14 international)",
        ("--tokenizer",),
        default="whitespace",
    ),
    Option(
        "lowercase", "lower-case before tokenizing", ("--lowercase",), switch=True, default=False
    ),
    Option(
        "vocab",
        "EAD's vocabulary size V: an integer, 'tokenizer' (the tokenizer's vocabulary), or a text "
        "file whose distinct tokens are counted; unless given, the zh, ja-mecab and ko-mecab "
        "tokenizers use their own vocabulary (21128, 392126, 811795 entries)",
        ("--vocab",),
        default=30522,
    ),
    Option(
        "join",
        "metrics that join the responses into one text (compression ratios, ngram-diversity, "
        "mattr, mtld, POS templates): in the order given (the published definitions) or sorted "
        "(code-point order: the score no longer depends on the order of the responses); recorded "
        "in their signatures as join:given / join:sorted",
        ("--join",),
        choices=("given", "sorted"),
        default="given",
    ),
    Option(
        "nli_model",
        "NLI model name or path (default: the shipped one)",
        ("--nli-model",),
        group=MODELS,
    ),
    Option(
        "embedding_model",
        "sentence-transformers model name or path, or mpnet (the offline all-mpnet-base-v2 of the "
        "mpnet extra; default: the offline all-MiniLM-L6-v2)",
        ("--embedding-model", "--embedder"),
        group=MODELS,
    ),
    Option(
        "device",
        "cpu, cuda, cuda:1 ... (default: cuda when present)",
        ("--device",),
        group=MODELS,
    ),
    Option(
        "precision",
        "Hugging Face models' precision (auto: bf16 or fp16 on a GPU, fp32 on the CPU); recorded "
        "in signatures",
        ("--precision",),
        choices=("fp32", "fp16", "bf16", "auto"),
        default="fp32",
        group=MODELS,
    ),
    Option(
        "threads",
        "CPU threads of the model backends (torch's two pools, onnxruntime); default: "
        "$DIVEVAL_THREADS, else the usable cores less those other processes keep busy; changes "
        "the time only, never a score",
        ("--threads",),
        type=positive_int,
        group=MODELS,
        metavar="N",
        run=True,  # the CLI and diveval.score apply it to the whole process, no metric takes it
    ),
    Option(
        "batch_size",
        "model batch size (default: the backend's, by device)",
        ("--batch-size",),
        type=int,
        group=MODELS,
    ),
    Option(
        "cache_dir",
        "folder of an on-disk score cache",
        ("--cache",),
        group=MODELS,
        metavar="DIR",
    ),
    Option(
        "judge",
        "equivalence-classes and semantic-entropy judge: nli (bidirectional entailment), "
        "nli-relaxed (no contradiction either way, not both neutral: the semantic-entropy "
        "reference code's strict_entailment=False), embedding[:THRESHOLD] (0.8), bleu[:THRESHOLD] "
        "(0.3), unigram[:THRESHOLD] (NoveltyBench's ROUGE-1 F1 > 0.458), bertscore[:THRESHOLD] "
        "(NoveltyBench's BERTScore F1 > 0.719, microsoft/deberta-large layer 16 unless "
        "--embedding-model names another), hf:PATH[:THRESHOLD] (NoveltyBench's trained similarity "
        "classifier, 0.102, with its rule for responses of at most 5 words)",
        ("--judge",),
        default="nli",
        group=MODELS,
    ),
    Option(
        "similarity",
        "pairwise similarity of the spectral-* metrics and of similarity-hill: nli-entailment, "
        "nli-contradiction (1 - P(contradiction)), cosine (sentence embeddings, negatives clipped "
        "to 0), jaccard (word sets), ngram (cosine of 1-2-gram counts); `score --across` also "
        "takes exact (1 for the same text, else 0)",
        ("--similarity",),
        choices=("nli-entailment", "nli-contradiction", "cosine", "jaccard", "ngram", "exact"),
        group=MODELS,
        metric_defaults=(
            ("spectral-*", "nli-entailment"),
            ("similarity-hill", "cosine"),
            ("score --across", "cosine"),
        ),
    ),
    Option(
        "identical",
        "how two responses with the same text compare in the similarity and equivalence metrics: "
        "one (similarity 1, one class, the model is not asked) or model (the model's or judge's "
        "own score, as any other pair); unless given, each metric follows its reference; recorded as "
        "ident:one / ident:model",
        ("--identical",),
        choices=("one", "model"),
        default="one",
        group=MODELS,
        metric_defaults=(("equivalence-classes", "model"), ("homogenization-*", "model")),
    ),
    Option(
        "logprobs",
        "per set, one sequence log-probability per response (the input's `logprobs` field): "
        "semantic-entropy weights its classes by probability",
        per_item=True,
        group=MODELS,
    ),
    Option(
        "aligner",
        "LSDSCC aligner: bleu (the authors' add-one BLEU-4 without brevity penalty), nltk-bleu, "
        "nist, embedding (needs the models extra)",
        ("--aligner",),
        choices=("bleu", "nltk-bleu", "nist", "embedding"),
        default="bleu",
        group=REFERENCES,
    ),
    Option(
        "reduction",
        "ref-* metrics: how a response's scores against its references combine: max, mean, or "
        "multi (ref-bleu only)",
        ("--reduction",),
        default="max",
        group=REFERENCES,
        metric_defaults=(("ref-bleu-*", "multi"),),
    ),
    Option(
        "smoothing",
        "BLEU smoothing of ref-bleu-N: method0..method7 (nltk), or coco (pycocoevalcap / nlg-eval, "
        "as the SCARCE authors)",
        ("--smoothing",),
        default="method1",
        group=REFERENCES,
    ),
    Option(
        "variant",
        "ref-rouge-l: Google's rouge-score or nlg-eval's (the SCARCE authors')",
        ("--variant",),
        choices=("rouge-score", "nlg-eval"),
        default="rouge-score",
        group=REFERENCES,
    ),
    Option(
        "references",
        "one list of reference strings per response (the input's `references` field)",
        per_item=True,
        group=REFERENCES,
    ),
    Option(
        "reference_groups",
        "per set, its groups of references (the input's `reference_groups` field)",
        per_item=True,
        group=REFERENCES,
    ),
    Option(
        "memory_budget",
        "memory for the all-pairs metrics of a corpus (homogenization-*, vendi-ngram), e.g. 2G; "
        "default: 1/4 of the available memory. Past it they stop before starting and say what "
        "they would need",
        ("--memory-budget",),
        group=PAIRS,
        metavar="SIZE",
    ),
    Option(
        "pairs",
        "homogenization-* of a corpus from N seeded random pairs instead of all of them: the value "
        "then carries a 95%% interval, and pairs:N in its signature",
        ("--pairs",),
        type=positive_int,
        group=PAIRS,
        metavar="N",
    ),
    Option(
        "pairs_seed",
        "seed of the --pairs sample (recorded in the signature as seed:S)",
        ("--pairs-seed",),
        type=int,
        default=0,
        group=PAIRS,
        metavar="S",
    ),
    Option(
        "at_k",
        "score every set-level metric at K responses per set: the exact expectation over all "
        "K-subsets where a closed form exists (Distinct-n: expected counts, reported as the ratio "
        "of expectations), else the mean of seeded draws of K responses; a set with fewer than K "
        "responses is an error (rarefaction measures extrapolate past it instead). Recorded as "
        "at-k:K in signatures",
        ("--at-k",),
        type=positive_int,
        group=AT_K,
        run=True,
        metavar="K",
    ),
    Option(
        "at_k_draws",
        "--at-k: seeded draws of K responses per set averaged for the metrics without a closed "
        "form (recorded as draws:D)",
        ("--at-k-draws",),
        type=positive_int,
        default=10,
        group=AT_K,
        run=True,
        metavar="D",
    ),
    Option(
        "at_k_seed",
        "--at-k: seed of those draws (recorded as seed:S)",
        ("--at-k-seed",),
        type=int,
        default=0,
        group=AT_K,
        run=True,
        metavar="S",
    ),
    Option(
        "rarefy_resamples",
        "--rarefy: bootstrap resamples of the rarefaction / extrapolation intervals (Chao et al. "
        "2014's bootstrap, as copia computes it; recorded as resamples:B)",
        ("--rarefy-resamples",),
        type=positive_int,
        default=200,
        group=AT_K,
        run=True,
        metavar="B",
    ),
    Option(
        "rarefy_seed",
        "--rarefy: seed of that bootstrap (numpy RandomState, as copia; recorded as seed:S)",
        ("--rarefy-seed",),
        type=int,
        default=0,
        group=AT_K,
        run=True,
        metavar="S",
    ),
    Option("progress", "show progress bars on a terminal (the CLI sets it)", default=False),
)

OPTION = {o.name: o for o in OPTIONS}

#: Options a metric may accept; the registry refuses any other name.
KNOWN_OPTIONS = tuple(OPTION)

#: The options of an at-K run (:mod:`diveval.meta.at_k`): K and its seeded draws.
AT_K_OPTIONS = ("at_k", "at_k_draws", "at_k_seed")

#: Options of a whole run, which the engines act on and no metric takes.
RUN_OPTIONS = tuple(o.name for o in OPTIONS if o.run)

#: Options that hold one value per input item (sliced with the items when a run is split).
PER_ITEM_OPTIONS = tuple(o.name for o in OPTIONS if o.per_item)
