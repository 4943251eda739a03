"""Inspect AI scorers for every diveval metric that scores sets, and a solver for k samples.

Inspect loads this module through the ``inspect_ai`` entry point declared in diveval's
``pyproject.toml`` the first time a name in the ``diveval/`` namespace is looked up, so
``diveval/distinct-2`` (any name of ``diveval.metrics()`` that supports the sets setting) works as
a scorer, e.g. ``inspect score LOG --scorer diveval/self-bleu``, or in a task:

    from diveval.harness.inspect_registry import diversity, k_samples
    Task(dataset=..., solver=k_samples(5), scorer=diversity("distinct-2"))

Where the k responses come from: the sample's ``output.choices``. The ``diveval/k_samples``
solver fills them with Inspect's own mechanisms: ``fork()`` of k ``generate()`` solvers (any
model), or ``num_choices=k`` in one request (models that return several choices). A plain
``generate()`` with ``--num-choices K`` fills them too. Epochs are not used: they are independent
repetitions of the whole sample, scored and reduced one by one.

Each sample's score is the metric on its k responses (diveval's sets setting, one set); the
scorer's metrics are Inspect's ``mean()`` and ``stderr()`` over samples, so the mean equals
``diveval.score(sets, [metric]).value`` on the same responses. The score's ``metadata`` holds
diveval's signature.
"""

from __future__ import annotations

from typing import Any, Callable

from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, fork, solver
from inspect_ai.solver import generate as generate_solver
from inspect_ai.util import registry_info

from ..errors import InputError, did_you_mean
from ..options import RESPONSES_PER_PROMPT
from . import score_sets, set_metrics

__all__ = ["PREFIX", "SCORERS", "diversity", "k_samples", "responses_of"]

METHODS = ("fork", "choices")
PREFIX = "diveval/"


def responses_of(state: TaskState) -> list[str]:
    """The k response texts of a sample: one per choice of its last model output."""
    return [choice.message.text for choice in state.output.choices]


def _scorer_factory(metric: str) -> Callable[..., Scorer]:
    def factory(**options: Any) -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            sample = f"sample {state.sample_id}"
            result = score_sets(metric, [responses_of(state)], options, names=[sample])
            return Score(
                value=result.value,
                explanation=result.signature,
                metadata={"signature": result.signature, "k": len(state.output.choices)},
            )

        return score

    factory.__name__ = metric
    factory.__doc__ = f"diveval's {metric} of each sample's k responses (output.choices)."
    return factory


def _named(decorate: Callable[[str], Any], name: str, make: Callable[[str], Any]) -> Any:
    """``decorate(name)(make(name))``, registered as ``diveval/<name>`` however diveval was loaded.

    Inspect prefixes the package name only when it sees diveval as installed; from a source tree
    on ``sys.path`` it does not, and then the prefix is given explicitly.
    """
    made = decorate(name)(make(name))
    if registry_info(made).name != PREFIX + name:
        made = decorate(PREFIX + name)(make(name))
    return made


#: {metric name: registered scorer factory}; Inspect names them ``diveval/<metric>``.
SCORERS: dict[str, Callable[..., Scorer]] = {
    name: _named(lambda n: scorer(metrics=[mean(), stderr()], name=n), name, _scorer_factory)
    for name in set_metrics()
}


def diversity(metric: str, **options: Any) -> Scorer:
    """The ``diveval/<metric>`` scorer, with diveval's run options (tokenizer, lowercase, ...)."""
    if metric not in SCORERS:
        raise InputError(
            f"no diveval scorer {metric!r}: it is not a registered metric that scores sets"
            + did_you_mean(metric, SCORERS)
        )
    return SCORERS[metric](**options)


def _k_samples(k: int = RESPONSES_PER_PROMPT.default, method: str = "fork") -> Solver:
    """Generate k responses for each sample into ``state.output.choices``.

    method ``fork``: k ``generate()`` solvers on forked copies of the state (works with every
    model; each is an independent request). ``choices``: one request with ``num_choices=k`` (the
    model must return k choices, else an error says so). The conversation continues with the
    first response.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if method == "choices":
            state = await generate(state, num_choices=k)
            if len(state.output.choices) != k:
                raise ValueError(
                    f"asked for num_choices={k}, the model returned {len(state.output.choices)} "
                    "choices; use k_samples(method='fork') for this model"
                )
            return state
        forks = await fork(state, [generate_solver() for _ in range(k)])
        first = forks[0]
        output: ModelOutput = first.output.model_copy(
            update={"choices": [f.output.choices[0] for f in forks]}
        )
        state.messages = first.messages
        state.output = output
        return state

    return solve


k_samples = _named(lambda n: solver(name=n), "k_samples", lambda _: _k_samples)
