"""Start-up of the ``diveval`` command: building the parser reads option declarations only.

Every call builds the parser of every command (``cli.build_parser``), ``--version`` and ``--help``
included, so whatever a command module imports at its top is paid by every run of every command.
A command imports its machinery (numpy, scipy, the metrics, the models) in ``run``; these tests
run the CLI in a fresh interpreter and name the machinery that was imported anyway.
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
    "diveval.meta.compare",  # the options module (meta.compare_options) is the light one
    "diveval.meta.leaderboard",
    "diveval.meta.bootstrap",
    "diveval.meta.agreement",
    "diveval.meta.levels",
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
    found = _imported_machinery("from diveval.commands import compare; import diveval.meta.compare")
    assert "diveval.meta.compare" in found and "numpy" in found and "diveval.lexical" in found


def test_a_small_lexical_score_imports_no_scipy_or_model_library(examples_dir):
    # scoring registers every metric (their modules are imported), but a metric's heavy library
    # is imported when it runs: Distinct-n needs none of scipy or the model stacks
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
