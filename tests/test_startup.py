"""Start-up of the ``diveval`` command: building the parser reads option declarations only.

``diveval --version`` is answered before any parser is built; a run of one command builds that
command's parser alone, and ``--help`` (or a mistyped command) the parser of every command
(``cli.build_parser``), so whatever a command module imports at its top is paid by every run of
that command and by every --help. A command imports its machinery (numpy, scipy, the metrics,
the models) in ``run``; these tests run the CLI in a fresh interpreter and name the machinery
that was imported anyway.
"""

from __future__ import annotations

import json
import subprocess
import sys

# Name prefixes that building the parser must not import: the numerical stack, the metric and
# analysis modules, the model libraries and diveval's model code.
MACHINERY = (
    "numpy",
    "scipy",
    "rich",
    "torch",
    "transformers",
    "sentence_transformers",
    "onnxruntime",
    "tokenizers",
    "diveval.registry",
    "diveval.lexical",
    "diveval.semantic",
    "diveval.reference",
    # the options module (meta.statistics.compare_options) is the light one
    "diveval.meta.statistics.compare",
    "diveval.meta.statistics.leaderboard",
    "diveval.meta.statistics.bootstrap",
    "diveval.meta.studies.agreement",
    "diveval.meta.estimation.levels",
    "diveval.rate.export",
    "diveval.io.readers",
    "diveval.models",
)
# diveval.models' settings modules: what --device, --precision, --threads and --online accept,
# checked before any work; standard library only (the test below would name what they pull in).
SETTINGS = (
    "diveval.models",
    "diveval.models.devices",
    "diveval.models.threads",
    "diveval.models.offline",
)


def _imported_machinery(code: str) -> list[str]:
    """The modules of MACHINERY in sys.modules after ``code`` runs in a fresh interpreter."""
    probe = (
        "import sys, json\n"
        f"{code}\n"
        "print('\\nMODULES ' + json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    line = [x for x in proc.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, proc.stderr
    modules = json.loads(line[-1][len("MODULES ") :])
    return [
        m
        for m in modules
        if m not in SETTINGS and any(m == p or m.startswith(p + ".") for p in MACHINERY)
    ]


def test_building_the_parser_imports_no_machinery():
    assert _imported_machinery("from diveval.cli import build_parser; build_parser()") == []


def test_version_imports_no_machinery():
    code = (
        "from diveval.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert _imported_machinery(code) == []


def test_the_probe_sees_machinery_a_command_imports():
    # the checks above would pass vacuously if the probe read nothing: a command's run imports
    found = _imported_machinery(
        "from diveval.commands import compare; import diveval.meta.statistics.compare"
    )
    assert (
        "diveval.meta.statistics.compare" in found
        and "numpy" in found
        and "diveval.lexical" in found
    )


def test_a_small_lexical_score_imports_no_scipy_or_model_library(examples_dir):
    # scoring registers the metric families up to the one of each metric asked (catalog order:
    # lexical, semantic, reference), and a metric's heavy library is imported when it runs:
    # Distinct-n needs none of scipy, the model stacks, the other families or the Ray engine
    code = (
        "import contextlib, io\n"
        "from diveval.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['score', {str(examples_dir / 'responses.txt')!r}, '-m', 'distinct-2', '--json'])"
    )
    found = _imported_machinery(code)
    heavy = ("scipy", "torch", "transformers", "sentence_transformers", "onnxruntime")
    assert "diveval.lexical.distinct" in found  # it did score
    assert [m for m in found if m.split(".")[0] in heavy] == []
    later = ("diveval.semantic", "diveval.reference")
    assert [m for m in found if m.startswith(later)] == []
    assert [m for m in found if m.startswith("diveval.scale.ray")] == []


def test_version_is_answered_before_any_parser_is_built(capsys):
    # `diveval --version` imports the standard library and diveval's version alone
    probe = (
        "import contextlib, io, sys\n"
        "from diveval.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        main(['--version'])\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
        "print(repr(out.getvalue()))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'diveval'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    printed, modules = proc.stdout.splitlines()
    assert modules == "['diveval', 'diveval._version', 'diveval.cli']"
    # the same line, and the same exit, as the parser's own --version action
    from diveval.cli import build_parser

    try:
        build_parser().parse_args(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert printed == repr(capsys.readouterr().out)


def test_the_parser_of_one_command_parses_as_the_whole_parser():
    # main() builds the parser of the command named first alone: its help, its defaults and
    # what it parses are those of that command in the parser of every command
    import argparse

    from diveval.cli import COMMANDS, build_parser

    def commands(parser):
        (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return action.choices

    whole = commands(build_parser())
    assert list(whole) == COMMANDS
    for name in COMMANDS:
        alone = commands(build_parser(name))
        assert list(alone) == [name]
        assert alone[name].format_help() == whole[name].format_help(), name
    argv = ["score", "x.txt", "-m", "distinct-2", "--json", "--quiet"]
    assert vars(build_parser("score").parse_args(argv)) == vars(build_parser().parse_args(argv))
