"""From parsed CLI arguments to metric options: the one mapping every command uses; and the
groups of flags several commands share, each declared once here (a command calls the group's
``add_*`` function; the defaults come from one constant each, below).

A flag's ``dest`` is the option's canonical name (``--nli-model`` -> ``nli_model``, ``--cache`` ->
``cache_dir``). An unset flag (None, or False for a switch) is left out, so the metric's own
default applies: one rule for every command.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..constants import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from ..errors import InputError
from ..io.formats import FORMATS
from ..models.devices import SETTINGS_OPTIONS
from ..options import AT_K_OPTIONS, KNOWN_OPTIONS, OPTION
from . import SHOWN_DEFAULT, add_online_flag

#: The defaults of the flag groups below, one constant each.
ENGINES = ("local", "ray")  # the first is the default
TEMPERATURE = 1.0  # the model's own distribution
TOP_K = 0  # off
DTG_TOP_P = 0.9  # Diversity Threshold Generation's nucleus sampling (Stasaski & Hearst 2022)


def metric_options(args: Any, *names: str) -> dict[str, Any]:
    """``{option: value}`` of the options in ``names`` (default: every known option) that the
    command parsed and the user set; ``vocab`` is parsed as :func:`parse_vocab` does."""
    out: dict[str, Any] = {}
    for name in names or KNOWN_OPTIONS:
        if name not in KNOWN_OPTIONS:
            raise ValueError(f"{name!r} is not a metric option")  # a developer's slip
        value = getattr(args, name, None)
        if value is None or value is False:
            continue
        out[name] = parse_vocab(value) if name == "vocab" else value
    return out


def add_option_flags(p: Any, *names: str, defaults: dict[str, Any] | None = None) -> None:
    """Add the flags of the metric options ``names`` to parser ``p``, as :mod:`diveval.options`
    declares them, each in the argument group of its kind. ``defaults``: a command's own default
    for an option, where its method needs one (``meta tevet``: the Tevet tokenizer); otherwise the
    flag is unset by default and the metric's own default applies."""
    defaults = defaults or {}
    groups: dict[str, Any] = {}
    for name in names:
        option = OPTION[name]
        if not option.flags:
            raise ValueError(f"{name!r} is not a command-line option")  # a developer's slip
        group = groups.get(option.group) or groups.setdefault(
            option.group, p.add_argument_group(option.group)
        )
        kwargs: dict[str, Any] = {"dest": name, "help": option.help}
        if option.switch:
            kwargs["action"] = "store_true"
        else:
            kwargs["default"] = defaults.get(name)
            for key in ("type", "choices", "metavar"):
                if getattr(option, key) is not None:
                    kwargs[key] = getattr(option, key)
        action = group.add_argument(*option.flags, **kwargs)
        if kwargs.get("default") is None and option.shown_default() is not None:
            # the help formatter shows it (the one place that adds defaults to help texts)
            setattr(action, SHOWN_DEFAULT, option.shown_default())


#: The flags of the model-backed metrics, shared by score, generate, thresholds and meta: which
#: model, how it judges, and the model settings (``models.devices``; threads is process-wide).
MODEL_FLAGS = (
    "nli_model",
    "embedding_model",
    *SETTINGS_OPTIONS,
    "judge",
    "similarity",
    "identical",
    "threads",
)


def add_model_options(p: Any) -> None:
    """The flags of the model-backed metrics, and ``--online``."""
    add_option_flags(p, *MODEL_FLAGS)
    add_online_flag(p)


def parse_vocab(value: Any) -> Any:
    """--vocab: an integer V >= 1, 'tokenizer', or a text file whose distinct tokens give V."""
    from ..io.readers import read_input  # the reader only when a file is given (numpy)

    if value is None or value == "tokenizer" or isinstance(value, int):
        return value
    if value.lstrip("+-").isdigit():
        if int(value) < 1:
            raise InputError(
                f"--vocab must be a positive integer, 'tokenizer' or a file, got {value}"
            )
        return int(value)
    return read_input(value, "txt").items


def resampling_arguments(args: Any) -> dict[str, Any]:
    """The keyword arguments of the flags of :func:`add_resampling_flags`."""
    return {"n_resamples": args.resamples, "confidence": args.confidence, "seed": args.seed}


def bootstrap_arguments(args: Any) -> dict[str, Any]:
    """The keyword arguments of the bootstrap flags of :func:`add_bootstrap_options`."""
    return {
        **resampling_arguments(args),
        "n_resamples": args.resamples or None,
        "fraction": args.fraction,
        "replace": not args.no_replace,
    }


def add_input_flags(p: Any, field_help: str) -> None:
    """--format and --field/--column of a command that reads responses (``diveval.io.readers``)."""
    p.add_argument("--format", choices=list(FORMATS), help="override the file ending")
    p.add_argument("--field", "--column", dest="field", metavar="NAME", help=field_help)


def add_resampling_flags(
    g: Any,
    *,
    resamples_help: str = "bootstrap resamples",
    seed_help: str = "bootstrap seed",
    resamples: int | None = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
    seed_flag: str = "--seed",
) -> None:
    """--resamples, --confidence and --seed of a resampled interval, into group ``g``; the
    defaults are the bootstrap's (a method with its own, as ``compare``, passes its constants;
    ``resamples=None`` leaves the number to the method, as ``leaderboard``'s grows with pairs).
    ``seed_flag``: the seed's flag where a command has several seeds (its value is ``seed``)."""
    g.add_argument("--resamples", type=int, default=resamples, help=resamples_help)
    g.add_argument("--confidence", type=float, default=confidence, help="interval confidence")
    g.add_argument(seed_flag, dest="seed", type=int, default=seed, metavar="SEED", help=seed_help)


def add_hidden_alias(g: Any, flag: str, dest: str, kind: Any = None) -> None:
    """An older spelling of a renamed flag: accepted, not listed in the help, and without a
    default of its own (the listed flag's stands)."""
    g.add_argument(flag, dest=dest, type=kind, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def add_bootstrap_options(p: Any, fraction: float) -> None:
    """The bootstrap group of ``correlate`` and ``meta``: :func:`add_resampling_flags`, the share
    of rows in each resample (``fraction``: the command's method) and --no-replace."""
    g = p.add_argument_group("bootstrap")
    add_resampling_flags(g, resamples_help="bootstrap resamples (0: none)")
    g.add_argument(
        "--fraction", type=float, default=fraction, help="share of rows in each resample"
    )
    g.add_argument(
        "--no-replace", action="store_true", help="draw each resample without replacement"
    )


def add_engine_options(p: Any) -> None:
    """Where a run computes, past one process: the engine, shards, streaming in bounded memory,
    and the all-pairs metrics' memory and pair sample."""
    g = p.add_argument_group("past one process (see docs/guides/scaling.md)")
    g.add_argument("--engine", choices=ENGINES, default=ENGINES[0], help="where to compute")
    g.add_argument("--address", default=None, help="--engine ray: a cluster (auto, ray://...)")
    g.add_argument(
        "--concurrency", type=int, default=None, help="--engine ray: actors for model metrics"
    )
    g.add_argument("--num-gpus", type=float, default=0, help="--engine ray: GPUs per actor")
    g.add_argument(
        "--verbose",
        action="store_true",
        help="--engine ray: show Ray's own logs and its workers' output (quiet by default)",
    )
    g.add_argument("--shard", default=None, metavar="I/N", help="score shard I of N only")
    g.add_argument("--state", default=None, metavar="FILE", help="with --shard: the shard file")
    # --stream-memory, not --memory: the all-pairs metrics' --memory-budget is another thing
    g.add_argument(
        "--stream-memory",
        dest="memory",
        default=None,
        metavar="SIZE",
        help="stream a .txt corpus in bounded memory (e.g. 2G): Distinct-n, avg-distinct, EAD-n",
    )
    add_hidden_alias(g, "--memory", "memory")
    g.add_argument(
        "--approx", choices=["hll"], default=None, help="with --stream-memory: HLL distinct counts"
    )
    add_option_flags(p, "memory_budget", "pairs", "pairs_seed")


def add_sampling_flags(
    g: Any, *, top_p: float | None, max_tokens: tuple[str, int], top_k: bool = False
) -> None:
    """How a model samples a response, into group ``g``: --temperature, --top-p (``top_p``: the
    command's default; None: not sent, the server's own), with ``top_k`` --top-k, and the length
    cap (``max_tokens``: the command's flag and default)."""
    g.add_argument("--temperature", type=float, default=TEMPERATURE, help="sampling temperature")
    g.add_argument(
        "--top-p",
        type=float,
        default=top_p,
        help="nucleus sampling: keep the top p of the probability mass"
        + (" (default: not sent)" if top_p is None else ""),
    )
    if top_k:
        g.add_argument(
            "--top-k", type=int, default=TOP_K, help="keep the k likeliest tokens; 0: off"
        )
    flag, default = max_tokens
    g.add_argument(flag, type=int, default=default, help="length cap of a response, in tokens")


def add_at_k_options(p: Any) -> None:
    """--at-k K and the seeded draws behind it (``diveval.options``' at-k options)."""
    add_option_flags(p, *AT_K_OPTIONS)
