"""From parsed CLI arguments to metric options: the one mapping every command uses.

A flag's ``dest`` is the option's canonical name (``--nli-model`` -> ``nli_model``, ``--cache`` ->
``cache_dir``). An unset flag (None, or False for a switch) is left out, so the metric's own
default applies: one rule for every command.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..models.devices import SETTINGS_OPTIONS
from ..options import KNOWN_OPTIONS, OPTION
from . import SHOWN_DEFAULT


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
        if kwargs.get("default") is None and option.default is not None:
            # the help formatter shows it (the one place that adds defaults to help texts)
            setattr(action, SHOWN_DEFAULT, option.default)


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
    from . import add_online_flag

    add_online_flag(p)


def parse_vocab(value: Any) -> Any:
    """--vocab: an integer V >= 1, 'tokenizer', or a text file whose distinct tokens give V."""
    if value is None or value == "tokenizer" or isinstance(value, int):
        return value
    if value.lstrip("+-").isdigit():
        if int(value) < 1:
            raise InputError(
                f"--vocab must be a positive integer, 'tokenizer' or a file, got {value}"
            )
        return int(value)
    from ..io.readers import read_input

    return read_input(value, "txt").items


def bootstrap_arguments(args) -> dict:
    """The keyword arguments of the bootstrap flags of :func:`add_bootstrap_options`."""
    return {
        "n_resamples": args.resamples or None,
        "confidence": args.confidence,
        "fraction": args.fraction,
        "replace": not args.no_replace,
        "seed": args.seed,
    }


def add_bootstrap_options(p, fraction: float) -> None:
    g = p.add_argument_group("bootstrap")
    g.add_argument(
        "--resamples", type=int, default=1000, help="bootstrap resamples (0: none; default 1000)"
    )
    g.add_argument(
        "--confidence", type=float, default=0.95, help="interval confidence (default 0.95)"
    )
    g.add_argument(
        "--fraction",
        type=float,
        default=fraction,
        help=f"share of rows in each resample (default {fraction:g})",
    )
    g.add_argument(
        "--no-replace", action="store_true", help="draw each resample without replacement"
    )
    g.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
