"""Every option default is written once, in diveval.options: the functions behind each registered
metric (its compute, the implementation a registry wrapper calls, its at-K form) must default to
the same value, or to None (unset: the function resolves it, as the option says)."""

from __future__ import annotations

import ast
import importlib
import inspect
import tokenize
from pathlib import Path
from typing import Any, Callable

import pytest

from diveval.constants import TEVET_TOKENIZER
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


def _public_functions() -> list[tuple[str, Callable[..., Any]]]:
    import diveval

    out = []
    for name in diveval.__all__:
        obj = getattr(diveval, name)
        if callable(obj) and not inspect.isclass(obj):
            out.append((name, obj))
    return out


#: public functions whose parameter of an option's name is their own: Tevet & Berant's tests
#: reproduce their columns with their tokenizer (the constant their command reads too); NLI
#: Diversity's variant is the paper's scoring (Baseline), not ROUGE's ``variant`` option
OWN_DEFAULTS = {
    ("tevet_test", "tokenizer"): TEVET_TOKENIZER,
    ("nli_diversity", "variant"): "baseline",
}


def _allowed_defaults(fn: Callable[..., Any], option: str) -> set[Any]:
    """The defaults a function may give ``option``: the option's default for each metric the
    function computes (``reduction`` is multi for ref-bleu-*), else the option's default."""
    rows = [r for r in ROWS if option in r.options and fn in _functions(r)]
    if not rows:
        return {OPTION[option].default}
    return {r.option_default(option) for r in rows}


def public_disagreements(name: str, fn: Callable[..., Any]) -> list[str]:
    """Each keyword default of ``fn`` (public as ``name``) named like an option that is neither
    the option's default nor the function's own, as OWN_DEFAULTS says."""
    wrong = []
    for param in inspect.signature(fn).parameters.values():
        if param.name not in OPTION or param.default in (inspect.Parameter.empty, None):
            continue
        own = OWN_DEFAULTS.get((name, param.name))
        allowed = {own} if own is not None else _allowed_defaults(fn, param.name)
        if param.default not in allowed:
            wrong.append(f"{name}({param.name}={param.default!r}), option: {sorted(allowed)}")
    return wrong


@pytest.mark.parametrize(
    "name, fn", _public_functions(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_every_public_function_defaults_to_the_options(name: str, fn: Callable[..., Any]) -> None:
    assert public_disagreements(name, fn) == []


def test_the_public_check_finds_a_default_of_its_own() -> None:
    def tokenized(data: Any, tokenizer: str = "13a", lowercase: bool = False) -> None: ...

    assert public_disagreements("tokenized", tokenized) == [
        "tokenized(tokenizer='13a'), option: ['whitespace']"
    ]


def test_the_public_functions_were_read() -> None:
    names = {name for name, _ in _public_functions()}
    assert {"score", "distinct", "ead", "self_bleu", "nli_diversity", "tevet_test"} <= names


STATE_ROWS = [row for row in ROWS if row.state is not None]


@pytest.mark.parametrize("row", STATE_ROWS, ids=lambda m: m.name)
def test_a_fresh_state_holds_the_option_defaults(row: Metric) -> None:
    """A state made without options keeps each option it holds at the option's default, or
    unset (None: resolved as the function resolves it), so a sharded or streamed run computes
    what one call does."""
    state = row.make_state({})
    held = {name: getattr(state, name) for name in row.options if hasattr(state, name)}
    wrong = {
        name: value
        for name, value in held.items()
        if value is not None and value != row.option_default(name)
    }
    assert wrong == {}


def test_the_state_check_reads_the_options_states_hold() -> None:
    held = [r.name for r in STATE_ROWS if hasattr(r.make_state({}), "tokenizer")]
    assert {"distinct-2", "self-bleu", "entropy-1", "ref-local-recall"} <= set(held)


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
    from diveval.meta.estimation.metacommunity import DEFAULT_SIMILARITY

    assert DEFAULT_SIMILARITY == OPTION["similarity"].default_for("score --across")


def test_help_shows_each_metrics_default() -> None:
    assert OPTION["reduction"].shown_default() == "multi for ref-bleu-*; max otherwise"
    assert OPTION["smoothing"].shown_default() == "method1"


# -- the shared defaults, each written once ---------------------------------------------------

SRC = Path(__file__).resolve().parents[1] / "src" / "diveval"

#: literals that are a default somewhere (and a name elsewhere), written once in the package:
#: the tokenizer's name, BLEU's smoothing, EAD's V (BERT's vocabulary)
WRITTEN_ONCE: tuple[Any, ...] = ("whitespace", "method1", 30522)


def _literals(path: Path) -> list[tuple[Any, int]]:
    """The string and number literals of ``path`` that are whole tokens (a docstring or a help
    text that mentions a value is one longer string; comments are no tokens), with their lines."""
    found = []
    with path.open("rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type not in (tokenize.STRING, tokenize.NUMBER):
                continue
            try:
                value = ast.literal_eval(tok.string)
            except (ValueError, SyntaxError):  # an f-string
                continue
            found.append((value, tok.start[0]))
    return found


def _where(value: Any) -> list[str]:
    return [
        f"{path.relative_to(SRC)}:{line}"
        for path in sorted(SRC.rglob("*.py"))
        for literal, line in _literals(path)
        if type(literal) is type(value) and literal == value
    ]


@pytest.mark.parametrize("value", WRITTEN_ONCE, ids=repr)
def test_a_shared_default_is_written_once(value: Any) -> None:
    where = _where(value)
    assert len(where) == 1, f"{value!r} written {len(where)} times: {', '.join(where)}"


def _resampling_declarations() -> dict[str, set[str]]:
    """{module: names} of the module-level constants that spell the bootstrap's resamples (1000)
    or confidence (0.95) as a literal."""
    out: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            value = getattr(node, "value", None)
            if not isinstance(value, ast.Constant) or value.value not in (1000, 0.95):
                continue
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if any("RESAMPLES" in n or "CONFIDENCE" in n for n in names):
                out.setdefault(str(path.relative_to(SRC)), set()).update(names)
    return out


def test_the_resampling_defaults_are_declared_in_one_module() -> None:
    assert _resampling_declarations() == {
        "constants.py": {"DEFAULT_RESAMPLES", "DEFAULT_CONFIDENCE"}
    }


def test_the_confidence_level_is_written_where_it_is_declared() -> None:
    """0.95 is the declared confidence, and the level of the pairs' normal interval (its z)."""
    assert {where.split(":")[0] for where in _where(0.95)} == {"constants.py", "pairs.py"}


def test_no_function_spells_its_own_resampling_default() -> None:
    """A function's resamples or confidence default is a named constant, not a number of its own."""
    literal = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            args = node.args
            named = args.posonlyargs + args.args
            pairs = list(zip(named[len(named) - len(args.defaults) :], args.defaults))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            literal += [
                f"{path.relative_to(SRC)}:{node.lineno} {node.name}({a.arg}={d.value!r})"
                for a, d in pairs
                if a.arg in ("confidence", "resamples", "n_resamples")
                and isinstance(d, ast.Constant)
                and type(d.value) in (int, float)
            ]
    assert literal == []
