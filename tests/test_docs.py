"""The documentation site: one generated page per registered metric and none for anything else,
each page carrying its registry row, the CLI reference built from the real parsers, runnable
examples, and the strict mkdocs build (offline: the network guard of conftest covers it)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from diveval.cli import build_parser, main
from diveval.registry import all_metrics

ROOT = Path(__file__).resolve().parent.parent


def _load_gen_pages():
    spec = importlib.util.spec_from_file_location("gen_pages", ROOT / "docs" / "gen_pages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_pages"] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


gen = _load_gen_pages()
PAGES = {p.path: p for p in gen.pages()}
METRICS = all_metrics()


def metric_page_names(paths) -> set[str]:
    return {
        p[len("metrics/") : -len(".md")]
        for p in paths
        if p.startswith("metrics/") and p != "metrics/index.md"
    }


def test_every_registered_metric_has_one_page_and_no_other_metric_has_one():
    assert metric_page_names(PAGES) == set(METRICS)
    index = PAGES["metrics/index.md"].text
    for name in METRICS:
        assert f"[{name}]({name}.md)" in index
    sections = [entry for family in gen.nav(list(PAGES.values()))[1:] for entry in family.values()]
    assert sorted(p for pages in sections for p in pages) == sorted(
        f"metrics/{n}.md" for n in METRICS
    )


def test_every_family_has_a_kind_and_every_metric_is_in_the_table_of_origins():
    kinds = {title: gen.FAMILY_KINDS.get(title) for title, _ in gen.families()}
    assert all(kind in gen.KINDS for kind in kinds.values()), kinds
    origins = PAGES["metrics/index.md"].text.split("## Where each measure comes from")[1]
    for name, m in METRICS.items():
        row = next(line for line in origins.splitlines() if line.startswith(f"| [{name}]("))
        if m.reference:
            assert gen._cell(m.reference) in row


def test_a_page_shows_its_registry_row():
    for name, m in METRICS.items():
        text = PAGES[f"metrics/{name}.md"].text
        assert text.startswith(f"# {name}\n")
        assert f"**{m.direction}** value" in text
        assert ", ".join(m.settings) in text
        for option in m.options:
            assert f"`{option}`" in text
        for key, value in m.fixed.items():
            assert f"`{key} = {value!r}`" in text
        if m.extra:
            assert f"diveval[{m.extra}]" in text
        if m.citation:
            assert gen._inline(m.citation) in text
        if m.reference:
            assert f"Equal to {m.reference}." in text
        assert "## Definition" in text and "## Example" in text


@pytest.mark.parametrize(
    "name, function",
    [
        ("nli-baseline", "nli_diversity"),
        ("nli-counts", "nli_counts"),
        ("lsdscc-mds", "lsdscc_corpus"),
        ("ref-bleu-4", "bleu"),
        ("ref-bertscore-f", "bertscore"),
        ("sent-bert", "embedding_diversity"),
        ("homogenization-rougel", "homogenization_rouge_l"),
        ("equivalence-classes", "equivalence_classes"),
        ("self-bleu-3", "self_bleu"),
        ("vendi-ngram", "vendi"),
        ("spectral-eigv", "spectral_eigv"),
    ],
)
def test_an_adapter_row_is_documented_by_the_function_it_calls(name, function):
    impl = METRICS[name].implementation
    assert impl.__name__ == function
    text = PAGES[f"metrics/{name}.md"].text
    assert f"### `{function}()`" in text
    first = gen.docstring_markdown(impl.__doc__).split("\n")[0]
    assert first and first in text


def test_formulas_and_doctests_of_docstrings():
    assert "EAD = N / (V * (1 - ((V-1)/V)^C))" in PAGES["metrics/ead.md"].text
    assert "MDS = number of distinct aligned groups / K" in PAGES["metrics/lsdscc-mds.md"].text
    md = gen.docstring_markdown("Text.\n\n    >>> f(1)\n    2\n\n    :class:`~a.B` rest")
    assert md == "Text.\n\n```pycon\n>>> f(1)\n2\n```\n\n``B`` rest"


def test_the_tests_of_a_metric_are_listed():
    text = PAGES["metrics/self-bleu.md"].text
    assert (
        "tests/lexical/test_self_bleu.py" in text and "test_equals_nltk_on_random_corpora" in text
    )


def _all_parsers(parser: argparse.ArgumentParser):
    yield parser
    for child in gen.subcommands(parser).values():
        yield from _all_parsers(child)


def test_the_cli_page_lists_every_subcommand_option_and_default():
    text = PAGES["cli.md"].text
    parsers = list(_all_parsers(build_parser()))
    assert len(parsers) > 12  # the subcommands and their actions (meta tevet, rate serve...)
    for parser in parsers[1:]:
        assert f"# `{parser.prog}`" in text
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            for flag in action.option_strings:
                assert flag in text, (parser.prog, flag)
    assert (
        "`--model-field MODEL_FIELD`: cross-model: the record field naming the model (default: model)"
        in text
    )


def _example_blocks(text: str) -> tuple[list[str], str]:
    sh = re.search(r"```sh\n(.*?)```", text, re.S)
    py = re.search(r"```python\n(.*?)```", text, re.S)
    assert sh and py
    commands = [line for line in sh.group(1).splitlines() if line.startswith("diveval ")]
    return commands, py.group(1)


@pytest.mark.parametrize("name", sorted(n for n, m in METRICS.items() if m.extra is None))
def test_the_examples_run(name, capsys, monkeypatch):
    """Both examples of every metric that needs no extra, as written on its page."""
    monkeypatch.chdir(ROOT)
    commands, python = _example_blocks(PAGES[f"metrics/{name}.md"].text)
    (command,) = commands
    assert main([*command.split()[1:], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert name in json.dumps(out)
    exec(compile(python, f"<example of {name}>", "exec"), {})
    printed = capsys.readouterr().out.split()
    assert math.isfinite(float(printed[0])) and "|setting:" in printed[1]


def test_example_files_hold_the_python_examples_data():
    """The CLI and Python examples of reference-based metrics score the same items."""
    hyps, refs = gen.REFERENCES_EXAMPLE
    lines = (ROOT / "examples" / "references.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in lines] == [
        {"response": h, "references": r} for h, r in zip(hyps, refs)
    ]
    sets, groups = gen.GROUPS_EXAMPLE
    lines = (ROOT / "examples" / "groups.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in lines] == [
        {"responses": s, "reference_groups": g} for s, g in zip(sets, groups)
    ]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for the tests below by ``mkdocs build --strict`` (warnings are
    errors: a broken link, a missing page)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    site = tmp_path_factory.mktemp("docs") / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q"]
    cmd += ["-f", str(ROOT / "mkdocs.yml"), "-d", str(site)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return site


def test_strict_build_passes(site):
    """The strict build in a few seconds; the site holds one page per registered metric."""
    built = {p.stem for p in (site / "metrics").glob("*.html")} - {"index"}
    assert built == set(METRICS)
    assert (site / "cli.html").exists() and (site / "rate-page.png").exists()
    html = (site / "metrics" / "ead.html").read_text(encoding="utf-8")
    # nothing loaded from another host: no web fonts, no CDN scripts or styles
    assert not re.search(r'<(?:link|script)[^>]+(?:href|src)="https?://', html)


def _local_links(html: str) -> list[str]:
    refs = re.findall(r'(?:href|src)="([^"]*)"', html)
    return [r for r in refs if r and not re.match(r"^(?:[a-z]+:|#)", r)]


def test_the_site_opens_from_disk_every_link_to_a_file_that_exists(site):
    """Opened as build/site/index.html, with no server: every link of every page goes to a file
    (a link to a folder shows a directory listing from disk) that is there."""
    # 404.html is a server's page (its links are absolute), never opened from disk
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")
    assert len(pages) > len(METRICS)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="metrics/ead.html"' in index and 'href="guides/report.html"' in index
    broken = []
    for page in pages:
        for ref in _local_links(page.read_text(encoding="utf-8")):
            path = ref.split("#")[0].split("?")[0]
            target = (page.parent / path).resolve()
            if not path or path.endswith("/") or not target.is_file():
                broken.append(f"{page.relative_to(site)}: {ref}")
    assert not broken, broken[:20]


def test_search_works_from_disk_with_its_index_in_a_script(site):
    """A page read through file:// may not fetch search_index.json: the offline plugin puts the
    index in a script, and the worker shim it needs is served from the site, not a CDN."""
    script = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert script.startswith("var __index = {") and '"location":"metrics/ead.html' in script
    for page in (site / "index.html", site / "metrics" / "ead.html"):
        html = page.read_text(encoding="utf-8")
        (shim,) = re.findall(r'<script src="([^"]*iframe-worker[^"]*)"', html)
        assert (page.parent / shim).resolve().is_file()


def test_search_from_disk_in_a_browser_finds_a_metric(site):
    """Chromium on file://.../index.html: typing in the search box lists pages, and nothing is
    requested from anywhere but the disk."""
    chromium = pytest.importorskip("chromium")  # skips without Chromium or Playwright
    browsers = chromium.launch_browser()
    browser = next(browsers)
    requests: list[str] = []
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("request", lambda r: requests.append(r.url))
        page.goto((site / "index.html").as_uri())
        page.wait_for_load_state("load")
        page.click("input.md-search__input")
        page.keyboard.type("bleu", delay=50)
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        assert "matching document" in page.locator(".md-search-result__meta").inner_text()
        assert page.locator(".md-search-result__item").count() > 0
    finally:
        browsers.close()
    assert [u for u in requests if not u.startswith("file://")] == []
