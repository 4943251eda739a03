"""Every option default is written once, in diveval.options: the functions behind each registered
metric (its compute, the implementation a registry wrapper calls, its at-K form) must default to
the same value, or to None (unset: the function resolves it, as the option says)."""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import pytest

from diveval.options import OPTION
from diveval.registry import Metric, all_metrics, implemented_by
from diveval.results import Score

ROWS = sorted(all_metrics().values(), key=lambda m: m.name)


def _functions(row: Metric) -> list[Callable[..., Any]]:
    fns = [row.compute]
    if row.implementation is not row.compute:
        fns.append(row.implementation)
    if row.at_k is not None:
        fns.append(row.at_k)
    return fns


#: options a registry wrapper passes on under the implementation's own name
RENAMED = {"pairs_seed": "seed"}


def disagreements(row: Metric) -> list[str]:
    """Each keyword default (and module-level ``DEFAULT_<OPTION>``) of the functions behind
    ``row`` that differs from the row's option default."""
    out = []
    for fn in _functions(row):
        params = inspect.signature(fn).parameters
        module = importlib.import_module(fn.__module__)
        for name in row.options:
            want = row.option_default(name)
            param = params.get(name)
            if param is None and fn is not row.compute:
                param = params.get(RENAMED.get(name, name))
            if param is not None and param.default not in (inspect.Parameter.empty, None):
                if param.default != want:
                    out.append(f"{fn.__qualname__}({name}={param.default!r}), option: {want!r}")
            constant = getattr(module, f"DEFAULT_{name.upper()}", None)
            if constant is not None and constant != want:
                out.append(
                    f"{module.__name__}.DEFAULT_{name.upper()} = {constant!r}, option: {want!r}"
                )
    return out


@pytest.mark.parametrize("row", ROWS, ids=lambda m: m.name)
def test_function_defaults_agree_with_the_options(row: Metric) -> None:
    assert disagreements(row) == []


@pytest.mark.parametrize("row", ROWS, ids=lambda m: m.name)
def test_a_registry_wrapper_names_the_function_it_calls(row: Metric) -> None:
    """A wrapper written beside the rows (a lazy import) says what it calls, so that the check
    above reaches the implementation's defaults."""
    if row.compute.__module__.endswith(".register"):
        assert row.implementation is not row.compute, row.compute.__qualname__


def test_the_check_finds_a_wrapper_default_that_disagrees() -> None:
    @implemented_by("diveval.reference.multiref:rouge_l")
    def wrapper(data: Any, references: Any = None, reduction: str = "mean") -> Score:
        raise AssertionError("not called")

    row = Metric("ref-test", "", wrapper, options=("references", "reduction"), direction="higher")
    assert disagreements(row) == [
        "test_the_check_finds_a_wrapper_default_that_disagrees.<locals>."
        "wrapper(reduction='mean'), option: 'max'"
    ]


def test_the_check_finds_an_implementation_default_that_disagrees() -> None:
    """ref-bleu's implementation defaults to reduction multi, which only ref-bleu-* declare."""

    @implemented_by("diveval.reference.multiref:bleu")
    def wrapper(data: Any, **options: Any) -> Score:
        raise AssertionError("not called")

    row = Metric("ref-test", "", wrapper, options=("references", "reduction"), direction="higher")
    assert disagreements(row) == ["bleu(reduction='multi'), option: 'max'"]
    assert (
        disagreements(Metric("ref-bleu-9", "", wrapper, options=row.options, direction="higher"))
        == []
    )


def test_the_similarity_of_score_across_is_the_options() -> None:
    from diveval.meta.metacommunity import DEFAULT_SIMILARITY

    assert DEFAULT_SIMILARITY == OPTION["similarity"].default_for("score --across")


def test_help_shows_each_metrics_default() -> None:
    assert OPTION["reduction"].shown_default() == "multi for ref-bleu-*; max otherwise"
    assert OPTION["smoothing"].shown_default() == "method1"
