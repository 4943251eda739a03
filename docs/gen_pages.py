"""Generate the reference pages of the documentation from the code itself.

* one page per registered metric (``metrics/<name>.md``), from its registry row (settings,
  options, fixed parameters, direction, extra, citation, reference implementation) and the
  docstrings of the function that computes it, with the tests that check it and an example;
* ``metrics/index.md``: every metric by family;
* ``cli.md``: every subcommand's usage, options, defaults and help, from the real argparse parsers.

mkdocs runs it through ``docs/hooks.py`` at build time (the pages exist only in the build, so they
cannot drift from the registry); ``python docs/gen_pages.py build/docs`` writes the same Markdown
to a folder for reading.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

# A family's register module titles its groups of rows in ``TABLES``; one with a plain ``TABLE``
# is listed under its module's name, so a new family still gets its pages.

CORPUS_EXAMPLE = ["i don't know .", "i'm not sure .", "let's go hiking this weekend ."]
SETS_EXAMPLE = [
    ["let's go hiking .", "how about a movie ?", "i'd rather stay home ."],
    ["yes , i sent it this morning .", "not yet .", "which report ?"],
]
REFERENCES_EXAMPLE = (
    ["i don't know .", "let's go hiking ."],
    [["i have no idea .", "no clue , sorry ."], ["we could go for a hike .", "a walk ?"]],
)
GROUPS_EXAMPLE = (
    [["i love it .", "it is great .", "no idea ."]],
    [[["i love it .", "i like it a lot ."], ["it is bad .", "i hate it ."], ["who knows ?"]]],
)


@dataclass(frozen=True)
class Page:
    path: str  # relative to the docs folder, e.g. "metrics/ead.md"
    title: str
    text: str


# ---------------------------------------------------------------- the registry


def families() -> list[tuple[str, list[Any]]]:
    """[(family title, [Metric, ...])] in the catalog's order; every registered metric once."""
    from diveval import catalog
    from diveval.registry import all_metrics

    metrics = all_metrics()
    out: list[tuple[str, list[Any]]] = []
    seen: set[str] = set()
    for module_name in catalog.METRIC_MODULES:
        module = importlib.import_module(module_name)
        groups = getattr(module, "TABLES", None) or {module_name: getattr(module, "TABLE", [])}
        for title, rows in groups.items():
            rows = [m for m in rows if metrics.get(m.name) is m and m.name not in seen]
            if rows:
                out.append((title, rows))
                seen.update(m.name for m in rows)
    rest = [m for name, m in metrics.items() if name not in seen]
    if rest:  # registered outside a family TABLE: still documented
        out.append(("Other", rest))
    return out


# ---------------------------------------------------------------- docstrings


def docstring_markdown(doc: str | None) -> str:
    """A docstring as Markdown: doctests fenced as Python sessions, Sphinx roles as code."""
    if not doc:
        return ""
    text = inspect.cleandoc(doc)
    # Sphinx roles: ``~a.b.C`` shows as ``C``, ``a.b.C`` in full
    text = re.sub(
        r":(?:class|func|meth|mod|attr|data):`(~?)([\w.]+)`",
        lambda m: f"``{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}``",
        text,
    )
    text = re.sub(r" ?\(issue \d+\)", "", text)  # tracker numbers mean nothing to a reader
    out: list[str] = []
    in_doctest = False
    for line in text.split("\n"):
        starts = line.lstrip().startswith(">>>")
        if starts and not in_doctest:
            if out and out[-1].strip():
                out.append("")
            out.append("```pycon")
            in_doctest = True
        elif in_doctest and not line.strip():
            out.append("```")
            in_doctest = False
        out.append(line.strip() if in_doctest else line)
    if in_doctest:
        out.append("```")
    return "\n".join(out).strip()


_FORMULA = re.compile(r"^[A-Za-z][\w\-^]*(?:\([^)]*\))?\s=\s\S")


def formulas(*docs: str | None) -> list[str]:
    """Lines of the docstrings that state a formula (``EAD = N / ...``, ``MDS = ...``), each
    cut at the prose that follows it, in order, without repeats."""
    out: list[str] = []
    for doc in docs:
        for raw in inspect.cleandoc(doc or "").split("\n"):
            line = raw.strip().lstrip("*-").strip()
            if not _FORMULA.match(line):
                continue
            line = re.split(r"(?<=\S): |; ", line, maxsplit=1)[0].rstrip(".,;:")
            if line not in out:
                out.append(line)
    return out


# ---------------------------------------------------------------- tests


def _uses(node: ast.AST) -> tuple[set[str], set[str]]:
    """(string constants, names of called functions) in a function's body."""
    strings, names = set(), set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            strings.add(sub.value)
        elif isinstance(sub, ast.Call):
            f = sub.func
            names.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", ""))
    return strings, names


@lru_cache(maxsize=1)
def _test_functions() -> tuple[tuple[str, str, frozenset[str], frozenset[str]], ...]:
    """(file, test name, string constants, called names) of every test function in tests/,
    with those of the helpers of its own file that it calls (``check(...)`` in a test)."""
    out = []
    if not TESTS.is_dir():
        return ()
    for path in sorted(TESTS.rglob("test_*.py")):
        if path.name == "test_docs.py":  # it names metrics to test these pages, not the metrics
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError:
            continue
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        helpers = {n.name: _uses(n) for n in functions if not n.name.startswith("test_")}
        for node in functions:
            if not node.name.startswith("test_"):
                continue
            strings, names = _uses(node)
            for _ in range(2):  # helpers of helpers
                for name in list(names):
                    if name in helpers:
                        strings |= helpers[name][0]
                        names |= helpers[name][1]
            rel = path.relative_to(ROOT).as_posix()
            out.append((rel, node.name, frozenset(strings), frozenset(names)))
    return tuple(out)


def tests_for(
    metric: Any, impl: Callable[..., Any], other_impls: set[str] = frozenset()
) -> list[tuple[str, str]]:
    """The tests that name the metric in a string or call its function, or another public
    function of that function's module that computes no other metric (``self_bleu_tokens`` for
    ``self-bleu``, not ``nli_counts`` for ``nli-baseline``)."""
    word = re.compile(rf"(?<![\w-]){re.escape(metric.name)}(?![\w-])")
    module = sys.modules.get(impl.__module__)
    functions = {impl.__name__} | {
        name
        for name, obj in vars(module or object()).items()
        if inspect.isfunction(obj)
        and obj.__module__ == impl.__module__
        and not name.startswith("_")
        and name not in other_impls
    }
    return [
        (path, name)
        for path, name, strings, called in _test_functions()
        if functions & called or any(word.search(s) for s in strings)
    ]


# ---------------------------------------------------------------- metric pages


def cli_flags() -> dict[str, str]:
    """{metric option: its flag in ``diveval score``}, from the real parser."""
    score = subcommands(build_cli())["score"]
    return {a.dest: max(a.option_strings, key=len) for a in score._actions if a.option_strings}


def _inline(text: Any) -> str:
    """Plain text (help strings, descriptions) kept literal in Markdown: ``ref-*`` must not open
    an emphasis, ``<`` must not open a tag."""
    parts = re.split(r"(`[^`]*`)", str(text).replace("\n", " "))
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = re.sub(r"([*_\\])", r"\\\1", parts[i].replace("<", "&lt;"))
    return "".join(parts)


def _cell(value: Any) -> str:
    return _inline(value).replace("|", "\\|")


def metric_page(metric: Any, family: str, flags: dict[str, str], impls: dict[str, str]) -> Page:
    """``impls``: {metric name: the name of the function that computes it}, for every metric."""
    from diveval.results import CORPUS

    impl = metric.implementation
    impl_module = sys.modules.get(impl.__module__)
    module_doc = impl_module.__doc__ if impl_module is not None else None
    if "register" in impl.__module__.rsplit(".", 1)[-1]:
        module_doc = None  # a register module's docstring describes the table, not the metric
    direction = (
        "**higher** value = more diverse"
        if metric.direction == "higher"
        else "**lower** value = more diverse"
    )
    if metric.name.startswith(("ref-", "lsdscc-maxbleu")):
        direction = f"**{metric.direction}** value = closer to the references (a quality score)"
    options = []
    for opt in metric.options:
        if opt in ("references", "reference_groups", "logprobs"):
            options.append(f'`{opt}` (JSONL field `"{opt}"`)')
        elif opt in flags:
            options.append(f"`{opt}` (`{flags[opt]}`)")
        else:
            options.append(f"`{opt}`")
    fixed = ", ".join(f"`{k} = {v!r}`" for k, v in metric.fixed.items()) or "none"
    extra = f"`pip install 'diveval[{metric.extra}]'`" if metric.extra else "none (base install)"
    rows = [
        ("Direction", direction),
        ("Settings", ", ".join(metric.settings)),
        ("Options", ", ".join(options) or "none"),
        ("Fixed parameters", fixed),
        ("Extra", extra),
        ("Citation", _inline(metric.citation) or "none (diveval's own)"),
        ("In `diveval score` by default", "yes" if metric.default else "no"),
        ("Family", family),
        ("Computed by", f"`{impl.__module__}.{impl.__qualname__}`"),
    ]
    lines = [
        f"# {metric.name}",
        "",
        _inline(metric.description),
        "",
        "| Field | Value |",
        "|---|---|",
        *(f"| {k} | {v.replace('|', '&#124;')} |" for k, v in rows),
        "",
        "## Definition",
        "",
    ]
    if module_doc:
        lines += [docstring_markdown(module_doc), ""]
    lines += [f"### `{impl.__name__}()`", "", docstring_markdown(impl.__doc__) or "(no docstring)"]
    found = formulas(module_doc, impl.__doc__)
    if found:
        lines += ["", "## Formula", "", "```text", *found, "```"]
    lines += ["", "## Reference implementation and tests", ""]
    if metric.reference:
        lines.append(f"Equal to {metric.reference}.")
    else:
        lines.append(
            "No independent implementation to compare with: the tests check the definition."
        )
    tests = tests_for(metric, impl, {f for n, f in impls.items() if f != impl.__name__})
    if tests:
        lines += ["", "Tests that name it or call its function:", ""]
        by_file: dict[str, list[str]] = {}
        for path, name in tests:
            by_file.setdefault(path, []).append(f"`{name}`")
        lines += [f"- `{path}`: {', '.join(names)}" for path, names in by_file.items()]
    lines += agreement_section(metric.name)
    lines += [
        "",
        "Every registered metric also runs through `tests/test_common.py` in each setting it",
        "supports: signature, one item per input, order invariance, identical responses no more",
        "diverse than varied ones, empty and one-element input, unknown options, pickling,",
        "determinism.",
        "",
        "## Example",
        "",
        *example(metric, CORPUS),
        "",
        *identical_example(metric),
    ]
    return Page(f"metrics/{metric.name}.md", metric.name, "\n".join(lines))


@lru_cache(maxsize=1)
def _leaderboard() -> dict | None:
    """The agreement leaderboard benchmarks/agreement.py wrote, None where there is none."""
    from diveval.meta.studies.agreement import LEADERBOARD

    if not LEADERBOARD.exists():
        return None
    return json.loads(LEADERBOARD.read_text(encoding="utf-8"))


def agreement_section(name: str) -> list[str]:
    """The metric's own rows of the agreement leaderboard: rho and OCA per test and task."""
    board = _leaderboard()
    if board is None:
        return []
    found = [(f, r) for f in board["files"] for r in f["rows"] if r["metric"] == name]
    if not found:
        return []

    def cell(v: Any, iv: Any) -> str:
        if v is None:
            return "-"
        return f"{v:.2f}" + (f" [{iv[0]:.2f}, {iv[1]:.2f}]" if iv and iv[0] is not None else "")

    lines = [
        "",
        "## Agreement with people",
        "",
        "Its Spearman ρ with Tevet & Berant's diversity label (decTest: sampling temperature, form",
        "diversity; conTest: low or high content diversity, where OCA is the best one-threshold",
        "accuracy) and its rank on each file; the whole table, the human score and the other",
        "metrics: [the agreement leaderboard](../agreement.md).",
        "",
        "| test | task | ρ [95%] | OCA [95%] | rank |",
        "|---|---|---|---|---|",
    ]
    for f, r in found:
        test = f"{f['test']}-{f['sets']}"
        if r.get("error"):
            lines.append(f"| {test} | {f['task']} | failed: {_cell(r['error'])} | - | - |")
            continue
        rank = "not ranked" if r["rank"] is None else f"{r['rank']} of {len(f['rows'])}"
        lines.append(
            f"| {test} | {f['task']} | {cell(r['spearman'], r['spearman_interval'])} | "
            f"{cell(r['oca'], r['oca_interval'])} | {rank} |"
        )
    return lines


def example(metric: Any, corpus: str) -> list[str]:
    """A command line on a file of examples/ and the same in Python (runnable as shown)."""
    name = metric.name
    keyword = ""
    if "reference_groups" in metric.options:
        path, (data, extra), keyword = "examples/groups.jsonl", GROUPS_EXAMPLE, "reference_groups"
    elif "references" in metric.options:
        path, (data, extra), keyword = "examples/references.jsonl", REFERENCES_EXAMPLE, "references"
    elif metric.supports(corpus):
        path, data = "examples/responses.txt", CORPUS_EXAMPLE
    else:
        path, data = "examples/sets.jsonl", SETS_EXAMPLE
    assignments = _assign("data", data)
    if keyword:
        assignments += _assign(keyword, extra)
    kwargs = f", {keyword}={keyword}" if keyword else ""
    install = [f"pip install 'diveval[{metric.extra}]'"] if metric.extra else []
    return [
        "```sh",
        *install,
        f"diveval score {path} --metric {name}",
        "```",
        "",
        "```python",
        "import diveval",
        "",
        *assignments,
        f"scores = diveval.score(data, [{_py(name)}]{kwargs})",
        f"print(scores[{_py(name)}].value, scores[{_py(name)}].signature)",
        "```",
    ]


def identical_example(metric: Any) -> list[str]:
    """The rule for identical responses, for a metric that takes ``identical``: its default and
    three copies of one response under each rule (runnable as shown)."""
    if "identical" not in metric.options:
        return []
    name, rule = metric.name, metric.option_default("identical")
    return [
        "## Identical responses",
        "",
        "Two responses with the same text: `--identical one` gives them similarity 1 (one class,",
        "the model not asked), `--identical model` the model's or judge's own score of the pair.",
        f"This metric's default is `{rule}`, its reference's; the signature says which",
        f"(`ident:{rule}`). See [Metric definitions](../guides/metrics.md).",
        "",
        "```sh",
        'printf \'{"responses": ["yes .", "yes .", "yes ."]}\\n\' > yes.jsonl',
        f"diveval score yes.jsonl --metric {name} --identical one",
        f"diveval score yes.jsonl --metric {name} --identical model",
        "```",
        "",
        "```python",
        "import diveval",
        "",
        'data = [["yes .", "yes .", "yes ."]]',
        'for rule in ("one", "model"):',
        f"    s = diveval.score(data, [{_py(name)}], identical=rule)[{_py(name)}]",
        "    print(rule, s.value, s.signature)",
        "```",
        "",
    ]


def _py(value: Any) -> str:
    """Lists of strings as Python source with double quotes (JSON is valid Python for them)."""
    return json.dumps(value, ensure_ascii=False)


def _assign(name: str, value: list[Any]) -> list[str]:
    """``name = value`` as source lines: on one line when short, else one item a line."""
    one = f"{name} = {_py(value)}"
    if len(one) <= 78:
        return [one]
    return [f"{name} = [", *(f"    {_py(item)}," for item in value), "]"]


#: The kind of measure each family is, for the table of where every measure comes from. A new
#: family names its kind here (tests/test_docs.py checks that each one has one of KINDS).
KINDS = ("lexical", "semantic", "geometric", "distributional", "reference-based")
FAMILY_KINDS = {
    "Lexical": "lexical",
    "Lexical: LLM evaluation": "lexical",
    "Lexical: GEM benchmark": "lexical",
    "Semantic (model-backed)": "semantic",
    "Geometry of a set": "geometric",
    "Homogenization": "semantic",
    "Equivalence classes": "semantic",
    "Meaning classes and similarity graphs": "semantic",
    "Against reference groups (LSDSCC)": "reference-based",
    "Against references": "reference-based",
    "Model text against human text": "distributional",
}


def origins_table(fams: list[tuple[str, list[Any]]]) -> list[str]:
    """Every measure by kind: its paper and the independent implementation it is tested against
    (the row's ``reference``, which also says where the two differ)."""
    lines = [
        "",
        "## Where each measure comes from",
        "",
        "Grouped by kind. *Tested against*: the independent implementation (or the authors'",
        "published values) each metric's tests run and compare with, and how closely; where the",
        "two differ by convention, the difference is named there and on the metric's page. A",
        "dash: no installable implementation exists, and the tests check the definition.",
    ]
    for kind in KINDS:
        rows = [m for title, ms in fams if FAMILY_KINDS.get(title) == kind for m in ms]
        if not rows:
            continue
        lines += ["", f"### {kind.capitalize()}", "", "| metric | paper | tested against |"]
        lines.append("|---|---|---|")
        lines += [
            f"| [{m.name}]({m.name}.md) | {_cell(m.citation) or '-'} "
            f"| {_cell(m.reference) or '-'} |"
            for m in rows
        ]
    return lines


def metrics_index(fams: list[tuple[str, list[Any]]]) -> Page:
    lines = [
        "# Metrics",
        "",
        "Every metric of the registry (`diveval metrics` prints the same list). *Direction*: which",
        "value is more diverse, or, for reference-based metrics, closer to the references.",
        "*Settings*: `corpus` (one response per context) and/or `sets` (several responses per",
        "context, scored per set and averaged).",
    ]
    for title, rows in fams:
        lines += ["", f"## {title}", "", "| metric | direction | settings | extra | description |"]
        lines.append("|---|---|---|---|---|")
        for m in rows:
            lines.append(
                f"| [{m.name}]({m.name}.md) | {m.direction} | {'/'.join(m.settings)} "
                f"| {m.extra or '-'} | {_cell(m.description)} |"
            )
    lines += origins_table(fams)
    return Page("metrics/index.md", "Metrics", "\n".join(lines) + "\n")


# ---------------------------------------------------------------- the CLI


def build_cli() -> argparse.ArgumentParser:
    from diveval.cli import build_parser

    return build_parser()


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help or "" for a in action._choices_actions}
    return {}


def _action_line(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = parser._get_formatter()
    if action.option_strings:
        names = ", ".join(action.option_strings)
        if action.nargs != 0:
            names += " " + formatter._format_args(
                action, formatter._get_default_metavar_for_optional(action)
            )
    else:
        names = formatter._format_args(action, action.dest)
    help_text = _inline(formatter._expand_help(action)) if action.help else ""
    parts = [f"- `{names}`"]
    # the default is in help_text: the help formatter is the one place that adds it
    if help_text:
        parts.append(": " + help_text.replace("\n", " "))
    return " ".join(parts).replace(" :", ":")


def command_section(parser: argparse.ArgumentParser, level: int, help_line: str) -> list[str]:
    # COLUMNS fixes argparse's wrapping, so the page does not depend on the terminal
    lines = [f"{'#' * level} `{parser.prog}`", ""]
    if help_line:
        lines += [_inline(help_line[0].upper() + help_line[1:]) + ".", ""]
    if parser.description and parser.description != help_line:
        lines += [_inline(parser.description), ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    for group in parser._action_groups:
        actions = [
            a
            for a in group._group_actions
            if a.help != argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)
        ]
        if not actions:
            continue
        lines += [f"**{group.title}**", ""]
        lines += [_action_line(parser, a) for a in actions]
        lines.append("")
    if parser.epilog:
        lines += ["```text", parser.epilog.strip("\n"), "```", ""]
    children = subcommands(parser)
    helps = _helps(parser)
    for name, child in children.items():
        lines += command_section(child, level + 1, helps.get(name, ""))
    return lines


def cli_page() -> Page:
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "78"  # the width of a code block on the page
    try:
        parser = build_cli()
        lines = [
            "# Command line",
            "",
            "Generated from the `diveval` parsers: every subcommand with its usage, options,",
            "defaults and help (`diveval COMMAND --help` prints the same).",
            "",
            "```text",
            parser.format_usage().strip(),
            "```",
            "",
        ]
        if parser.epilog:
            lines += ["```text", parser.epilog.strip("\n"), "```", ""]
        helps = _helps(parser)
        for name, child in subcommands(parser).items():
            lines += command_section(child, 2, helps.get(name, ""))
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old
    return Page("cli.md", "Command line", "\n".join(lines))


# ---------------------------------------------------------------- all pages


def pages() -> list[Page]:

    fams = families()
    flags = cli_flags()
    impls = {m.name: m.implementation.__name__ for _, rows in fams for m in rows}
    out = [metrics_index(fams)]
    for title, rows in fams:
        out += [metric_page(m, title, flags, impls) for m in rows]
    out.append(cli_page())
    return out


def nav(generated: list[Page]) -> list[Any]:
    """The metrics part of the site's navigation: the index, then each family's pages."""
    titles = {p.path: p.title for p in generated}
    section: list[Any] = [{"All metrics": "metrics/index.md"}]
    for title, rows in families():
        section.append(
            {title: [f"metrics/{m.name}.md" for m in rows if f"metrics/{m.name}.md" in titles]}
        )
    return section


def write(folder: Path) -> list[Path]:
    written = []
    for page in pages():
        path = folder / page.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page.text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build" / "docs")
    print(f"{len(write(target))} pages written to {target}")
