"""Every metric option, declared once: its name, CLI flag, type, choices, default and help.

The registry checks metric rows and API calls against these names (``KNOWN_OPTIONS``), every
command builds its flags from them (:func:`diveval.commands.options.add_option_flags`), and the
generated documentation lists them, so an option cannot mean one thing in one place and another
elsewhere.

``default`` (and ``metric_defaults``, where a metric's reference code uses another value) is the
one place an option's default is written: help texts are generated from it, the registry's
wrappers read it (:meth:`diveval.registry.Metric.option_default`), and ``tests/test_defaults.py``
checks that every registered metric's functions default to the same value. A default that the lower
layers need as well (the tokenizer, BLEU's smoothing, EAD's V) is given here by its name in
:mod:`diveval.constants`, the name those functions default to. The CLI leaves an
unset flag out, so the metric's function applies that default (a command whose method needs
another, such as ``meta tevet``'s Tevet tokenizer, says so where it adds the flag).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any, Callable, Optional

from .constants import BERT_VOCAB_SIZE, DEFAULT_SMOOTHING, DEFAULT_TOKENIZER

LEXICAL, MODELS, REFERENCES = "lexical metrics", "model-backed metrics", "reference-based metrics"
PAIRS = "all-pairs metrics of a corpus"
AT_K = "numbers at a common k (sets of different sizes)"
STORED = "equivalence classes a file stores (NoveltyBench's scores.jsonl)"


def positive_int(text: str) -> int:
    """An integer of at least 1, from a command-line string. ArgumentTypeError: argparse shows
    its message (of a ValueError it shows only "invalid positive_int value", its own jargon)."""
    from argparse import ArgumentTypeError

    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


@dataclass(frozen=True)
class Option:
    """One metric option. ``flags``: its CLI spellings, where ``{name}`` is the option's name
    with dashes (by default ``--{name}``; empty: not a flag, given by the input file or the API
    only); ``group``: the kind the help lists it under (given by :func:`_kind`); ``switch``: a
    flag without a value; ``per_item``: one value per input item, sliced with the items when a
    run is split; ``run``: an option of the whole run (how it scores, e.g. at K responses per
    set), which no metric takes itself. ``metric_defaults``: (metric name pattern, default) pairs
    for the metrics whose reference uses another default than ``default``; the first pattern
    that matches wins. ``given_defaults``: (metric name pattern, other option, value pattern,
    default) rows for a default that depends on another option's value as given (unset: that
    option's own default); they come before ``metric_defaults``."""

    name: str
    help: str
    flags: tuple[str, ...] = ("--{name}",)
    type: Optional[Callable[[str], Any]] = None
    choices: Optional[tuple[str, ...]] = None
    switch: bool = False
    default: Any = None
    group: str = LEXICAL
    per_item: bool = False
    metavar: Optional[str] = None
    run: bool = False
    metric_defaults: tuple[tuple[str, Any], ...] = ()
    given_defaults: tuple[tuple[str, str, str, Any], ...] = ()

    def __post_init__(self) -> None:
        dashed = self.name.replace("_", "-")
        object.__setattr__(self, "flags", tuple(f.format(name=dashed) for f in self.flags))

    def default_for(self, metric: str, **given: Any) -> Any:
        """The default of this option for the metric named ``metric``, in a call where the other
        options are ``given`` (those ``given_defaults`` look at)."""
        for pattern, other, value_pattern, value in self.given_defaults:
            if not fnmatchcase(metric, pattern):
                continue
            chosen = given.get(other)
            if chosen is None:
                chosen = OPTION[other].default_for(metric)
            # a value that is no string (a callable judge) matches no pattern
            if isinstance(chosen, str) and fnmatchcase(chosen, value_pattern):
                return value
        for pattern, value in self.metric_defaults:
            if fnmatchcase(metric, pattern):
                return value
        return self.default

    def shown_default(self) -> Any:
        """The default as a help text shows it: the value, or each metric's where they differ."""
        if not self.metric_defaults and not self.given_defaults:
            return self.default
        shown = [
            f"{value} for {pattern} with {other} {value_pattern}"
            for pattern, other, value_pattern, value in self.given_defaults
        ]
        shown += [f"{value} for {pattern}" for pattern, value in self.metric_defaults]
        if self.default is not None:
            shown.append(f"{self.default} otherwise")
        return "; ".join(shown)


def _kind(group: str, rows: tuple[Option, ...]) -> tuple[Option, ...]:
    """The options ``rows``, listed under ``group`` (one of the kinds above)."""
    return tuple(replace(row, group=group) for row in rows)


_LEXICAL_ROWS = (
    Option(
        "tokenizer",
        "how responses are split into tokens: whitespace, 13a, bert, tevet, space (single "
        "spaces, empty tokens kept, as the diversity package); for languages written without "
        "spaces zh (one token per Chinese character), ja-mecab and ko-mecab (morphemes; the cjk "
        "extra), char (every character), and intl (mteval-v14 international)",
        default=DEFAULT_TOKENIZER,
    ),
    Option("lowercase", "lower-case before tokenizing", switch=True, default=False),
    Option(
        "vocab",
        "EAD's vocabulary size V: an integer, 'tokenizer' (the tokenizer's vocabulary), or a text "
        "file whose distinct tokens are counted; unless given, the zh, ja-mecab and ko-mecab "
        "tokenizers use their own vocabulary (21128, 392126, 811795 entries)",
        default=BERT_VOCAB_SIZE,
    ),
    Option(
        "join",
        "metrics that join the responses into one text (compression ratios, ngram-diversity, "
        "mattr, mtld, POS templates): in the order given (the published definitions) or sorted "
        "(code-point order: the score no longer depends on the order of the responses); recorded "
        "in their signatures as join:given / join:sorted",
        choices=("given", "sorted"),
        default="given",
    ),
)
_MODEL_ROWS = (
    Option(
        "nli_model",
        "NLI model name or path (default: the shipped one)",
    ),
    Option(
        "embedding_model",
        "sentence-transformers model name or path, or mpnet (the offline all-mpnet-base-v2 of the "
        "mpnet extra; default: the offline all-MiniLM-L6-v2)",
        ("--embedding-model", "--embedder"),
    ),
    Option(
        "device",
        "cpu, cuda, cuda:1 ... (default: cuda when present)",
    ),
    Option(
        "precision",
        "Hugging Face models' precision (auto: bf16 or fp16 on a GPU, fp32 on the CPU); recorded "
        "in signatures",
        choices=("fp32", "fp16", "bf16", "auto"),
        default="fp32",
    ),
    Option(
        "threads",
        "CPU threads of the model backends (torch's two pools, onnxruntime); default: "
        "$DIVEVAL_THREADS, else the usable cores less those other processes keep busy; changes "
        "the time only, never a score",
        type=positive_int,
        metavar="N",
        run=True,  # the CLI and diveval.score apply it to the whole process, no metric takes it
    ),
    Option(
        "batch_size",
        "model batch size (default: the backend's, by device)",
        type=int,
    ),
    Option(
        "cache_dir",
        "folder of an on-disk score cache",
        ("--cache",),
        metavar="DIR",
    ),
    Option(
        "judge",
        "the same-meaning judge of equivalence-classes and semantic-entropy: answers[:T] "
        "(diveval's shipped answer-equivalence model), nli, nli-relaxed, embedding[:T], "
        "bleu[:T], unigram[:T], bertscore[:T] or hf:PATH[:T] (NoveltyBench's classifier), T a "
        "threshold; each is described on equivalence-classes' page of the documentation",
        default="nli",
        # the judge that agrees best with NoveltyBench's classes offline (benchmarks/answers_judge.py);
        # semantic entropy keeps its papers' bidirectional entailment
        metric_defaults=(("equivalence-classes", "answers"),),
    ),
    Option(
        "similarity",
        "pairwise similarity of spectral-* and similarity-hill: nli-entailment, "
        "nli-contradiction, cosine (sentence embeddings), jaccard (word sets), ngram (1-2-gram "
        "counts), answers (the answers judge's P(same)); score --across also takes exact",
        choices=(
            "nli-entailment",
            "nli-contradiction",
            "cosine",
            "jaccard",
            "ngram",
            "answers",
            "exact",
        ),
        metric_defaults=(
            ("spectral-*", "nli-entailment"),
            ("similarity-hill", "cosine"),
            ("score --across", "cosine"),
        ),
    ),
    Option(
        "identical",
        "two responses with the same text: one (similarity 1, one class, no model asked) or "
        "model (scored as any other pair); unless given, each metric follows its reference "
        "(below); recorded as ident:one / ident:model",
        choices=("one", "model"),
        default="one",
        metric_defaults=(("homogenization-*", "model"),),
        given_defaults=(("equivalence-classes", "judge", "hf:*", "model"),),
    ),
    Option(
        "logprobs",
        "per set, one sequence log-probability per response (the input's `logprobs` field): "
        "semantic-entropy weights its classes by probability",
        per_item=True,
        flags=(),
    ),
)
_STORED_ROWS = (
    Option(
        "classes",
        "equivalence-classes from stored classes instead of a judge: the record field holding "
        "one class label per response (e.g. partition in NoveltyBench's scores.jsonl); in the "
        "API, one list of labels per set. A record's distinct (NoveltyBench's classes - 1) that "
        "disagrees with them is reported",
        per_item=True,
        metavar="FIELD",
    ),
    Option(
        "quality",
        "equivalence-classes' utility: the record field holding one quality score per response "
        "(e.g. generation_scores in NoveltyBench's scores.jsonl; unset: 1 for every response); "
        "in the API, one list of numbers per set, or a function of a response",
        per_item=True,
        metavar="FIELD",
    ),
)
_REFERENCE_ROWS = (
    Option(
        "aligner",
        "LSDSCC aligner: bleu (the authors' add-one BLEU-4 without brevity penalty), nltk-bleu, "
        "nist, embedding (needs the models extra)",
        choices=("bleu", "nltk-bleu", "nist", "embedding"),
        default="bleu",
    ),
    Option(
        "reduction",
        "ref-* metrics: how a response's scores against its references combine: max, mean, or "
        "multi (ref-bleu only)",
        default="max",
        metric_defaults=(("ref-bleu-*", "multi"),),
    ),
    Option(
        "smoothing",
        "BLEU smoothing of ref-bleu-N: method0..method7 (nltk), or coco (pycocoevalcap / nlg-eval, "
        "as the SCARCE authors)",
        default=DEFAULT_SMOOTHING,
    ),
    Option(
        "variant",
        "ref-rouge-l: Google's rouge-score or nlg-eval's (the SCARCE authors')",
        choices=("rouge-score", "nlg-eval"),
        default="rouge-score",
    ),
    Option(
        "references",
        "one list of reference strings per response (the input's `references` field)",
        per_item=True,
        flags=(),
    ),
    Option(
        "reference_groups",
        "per set, its groups of references (the input's `reference_groups` field)",
        per_item=True,
        flags=(),
    ),
)
_PAIR_ROWS = (
    Option(
        "memory_budget",
        "memory for the all-pairs metrics of a corpus (homogenization-*, vendi-ngram), e.g. 2G; "
        "default: 1/4 of the available memory. Past it they stop before starting and say what "
        "they would need",
        metavar="SIZE",
    ),
    Option(
        "pairs",
        "homogenization-* of a corpus from N seeded random pairs instead of all of them: the value "
        "then carries a 95%% interval, and pairs:N in its signature",
        type=positive_int,
        metavar="N",
    ),
    Option(
        "pairs_seed",
        "seed of the --pairs sample (recorded in the signature as seed:S)",
        type=int,
        default=0,
        metavar="S",
    ),
)
_AT_K_ROWS = (
    Option(
        "at_k",
        "score every set-level metric at K responses per set: the exact expectation over all "
        "K-subsets where a closed form exists (Distinct-n: expected counts, reported as the ratio "
        "of expectations), else the mean of seeded draws of K responses; a set with fewer than K "
        "responses is an error (rarefaction measures extrapolate past it instead). Recorded as "
        "at-k:K in signatures",
        type=positive_int,
        run=True,
        metavar="K",
    ),
    Option(
        "at_k_draws",
        "--at-k: seeded draws of K responses per set averaged for the metrics without a closed "
        "form (recorded as draws:D)",
        type=positive_int,
        default=10,
        run=True,
        metavar="D",
    ),
    Option(
        "at_k_seed",
        "--at-k: seed of those draws (recorded as seed:S)",
        type=int,
        default=0,
        run=True,
        metavar="S",
    ),
    Option(
        "rarefy_resamples",
        "--rarefy: bootstrap resamples of the rarefaction / extrapolation intervals (Chao et al. "
        "2014's bootstrap, as copia computes it; recorded as resamples:B)",
        type=positive_int,
        default=200,
        run=True,
        metavar="B",
    ),
    Option(
        "rarefy_seed",
        "--rarefy: seed of that bootstrap (numpy RandomState, as copia; recorded as seed:S)",
        type=int,
        default=0,
        run=True,
        metavar="S",
    ),
)

#: k, the responses sampled per prompt, where diveval samples them: ``diveval sample --k``,
#: :class:`diveval.sampling.runner.SamplingSettings`, the Trainer callback
#: (:class:`diveval.integrations.transformers.DiversityCallback`) and Inspect's ``k_samples``. Not a
#: metric option (no metric takes it): a sampling choice, declared here so the three cannot drift
#: apart again. 10 is NoveltyBench's (Zhang et al. 2025: 10 generations per prompt, distinct_k and
#: utility_k at k = 10): diversity grows with k (``compare`` refuses inputs whose k differ), so
#: samples drawn with the defaults compare with the benchmark's numbers and with each other.
RESPONSES_PER_PROMPT = Option(
    "k",
    "responses per prompt (NoveltyBench's 10, so the numbers compare with its tables)",
    type=int,
    default=10,
    metavar="K",
)

OPTIONS: tuple[Option, ...] = (
    *_kind(LEXICAL, _LEXICAL_ROWS),
    *_kind(MODELS, _MODEL_ROWS),
    *_kind(REFERENCES, _REFERENCE_ROWS),
    *_kind(PAIRS, _PAIR_ROWS),
    *_kind(AT_K, _AT_K_ROWS),
    *_kind(STORED, _STORED_ROWS),
    Option(
        "progress", "show progress bars on a terminal (the CLI sets it)", default=False, flags=()
    ),
)

OPTION = {o.name: o for o in OPTIONS}

#: Options a metric may accept; the registry refuses any other name.
KNOWN_OPTIONS = tuple(OPTION)

#: The options of an at-K run (:mod:`diveval.meta.estimation.at_k`): K and its seeded draws.
AT_K_OPTIONS = ("at_k", "at_k_draws", "at_k_seed")

#: Options of a whole run, which the engines act on and no metric takes.
RUN_OPTIONS = tuple(o.name for o in OPTIONS if o.run)

#: Options that hold one value per input item (sliced with the items when a run is split).
PER_ITEM_OPTIONS = tuple(o.name for o in OPTIONS if o.per_item)
