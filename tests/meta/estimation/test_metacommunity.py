"""Alpha, beta, gamma across systems (Reeve et al. 2016) equal greylock 1.1.0, the reference."""

from __future__ import annotations

import json

import numpy as np
import pytest

from diveval.errors import InputError
from diveval.meta.estimation.metacommunity import across_systems, decompose

# greylock's own power mean of order 0 calls numpy's power with `where` and no `out`
pytestmark = pytest.mark.filterwarnings("ignore:'where' used without 'out':UserWarning")

# diveval's names -> greylock's measure names (Reeve's normalised alpha and beta are the headline)
GREYLOCK = {
    "gamma": "gamma",
    "alpha": "normalized_alpha",
    "beta": "normalized_beta",
    "raw_alpha": "alpha",
    "raw_beta": "beta",
}


def _random_community(rng, species, systems, zero_share=0.3):
    counts = rng.integers(1, 6, size=(species, systems)).astype(float)
    counts[rng.random((species, systems)) < zero_share] = 0
    for j in range(systems):  # every system keeps at least one species
        if counts[:, j].sum() == 0:
            counts[rng.integers(species), j] = 1
    x = rng.random((species, 4))
    z = x @ x.T
    d = np.sqrt(np.diag(z))
    z = z / np.outer(d, d)  # a cosine matrix: Z_ii = 1, entries in [0, 1]
    return counts, z


@pytest.mark.parametrize("q", [0.0, 0.5, 1.0, 2.0, 3.0, np.inf])
@pytest.mark.parametrize("seed", range(4))
def test_decompose_equals_greylock(q, seed):
    greylock = pytest.importorskip("greylock")
    rng = np.random.default_rng(seed)
    counts, z = _random_community(rng, species=7 + seed, systems=2 + seed % 3)
    ours = decompose(counts, z, q)
    viewpoint = 1000.0 if np.isinf(q) else q  # greylock's power mean takes the limit past 100
    for similarity in (z, None):
        meta = greylock.Metacommunity(counts, similarity=similarity)
        got = decompose(counts, np.eye(len(counts)) if similarity is None else z, q)
        for name, theirs in GREYLOCK.items():
            expected = float(np.asarray(meta.metacommunity_diversity(viewpoint, theirs)).ravel()[0])
            assert got[name] == pytest.approx(expected, rel=1e-9, abs=1e-12), (name, q)
    assert ours["beta"] >= 1 - 1e-12 and ours["beta"] <= counts.shape[1] + 1e-12


def test_beta_is_one_for_systems_that_say_the_same_and_their_count_when_nothing_is_shared():
    texts = ["a", "b", "c"]
    same = {f"p{i}": {"x": texts, "y": texts, "z": texts} for i in range(3)}
    out = across_systems(same, "exact", n_resamples=50)
    assert out.values["beta"] == pytest.approx(1.0)
    assert out.values["gamma"] == pytest.approx(3.0) == out.values["alpha"]
    apart = {f"p{i}": {"x": ["a", "b"], "y": ["c", "d"], "z": ["e", "f"]} for i in range(3)}
    out = across_systems(apart, "exact", n_resamples=50)
    assert out.values["beta"] == pytest.approx(3.0) and out.values["gamma"] == pytest.approx(6.0)
    assert out.similarity_matrix[0, 1] == 0 and out.similarity_matrix[0, 0] == 0


def test_each_prompt_equals_greylock_on_the_exact_texts_and_skipped_prompts_are_named():
    greylock = pytest.importorskip("greylock")
    groups = {
        "p0": {"a": ["yes", "no", "yes"], "b": ["yes", "maybe"]},
        "p1": {"a": ["hi", "hello"], "b": ["hey", "hi", "hi there"]},
        "p2": {"a": ["only a answered"]},
    }
    out = across_systems(groups, "exact", n_resamples=200, seed=3)
    assert out.prompts == ("p0", "p1") and out.skipped == ("p2",)
    assert (
        "1 prompt(s) not answered by every system" in out.warnings[0] and "'p2'" in out.warnings[0]
    )
    for i, prompt in enumerate(out.prompts):
        texts = sorted({t for r in groups[prompt].values() for t in r})
        counts = np.array([[groups[prompt][s].count(t) for s in ("a", "b")] for t in texts], float)
        meta = greylock.Metacommunity(counts)
        for name, theirs in GREYLOCK.items():
            expected = float(np.asarray(meta.metacommunity_diversity(1.0, theirs)).ravel()[0])
            assert out.per_prompt[name][i] == pytest.approx(expected, rel=1e-9)
    assert out.values["beta"] == pytest.approx(out.per_prompt["beta"].mean())
    iv = out.intervals["beta"]
    assert iv.low <= out.values["beta"] <= iv.high
    assert "across|decomposition:reeve2016|forms:normalised|sim:exact|q:1" in out.signature
    again = across_systems(groups, "exact", n_resamples=200, seed=3)
    assert again.to_dict(True) == out.to_dict(True)  # seeded: the same numbers


def test_bad_inputs_are_one_line_errors():
    with pytest.raises(InputError, match="at least 2 systems, found 1"):
        across_systems({"p": {"a": ["x"]}, "q": {"a": ["y"]}}, "exact")
    with pytest.raises(InputError, match="at least 2 prompts answered by every system"):
        across_systems({"p": {"a": ["x"], "b": ["y"]}}, "exact")
    with pytest.raises(InputError, match="an empty response"):
        across_systems({"p": {"a": [" "], "b": ["y"]}, "q": {"a": ["x"], "b": ["y"]}}, "exact")


def test_cosine_similarity_through_the_shipped_embedder():
    pytest.importorskip("sentence_transformers")
    groups = {
        "p0": {"a": ["i love hiking", "let's watch a film"], "b": ["i love hiking", "a movie?"]},
        "p1": {"a": ["the weather is nice", "it rains"], "b": ["it is sunny", "so cold today"]},
    }
    out = across_systems(groups, n_resamples=100)
    assert 1.0 <= out.values["beta"] <= 2.0
    assert "sim:cosine-clip0|model:all-MiniLM-L6-v2|fp:" in out.signature
    same = {p: {"a": r["a"], "b": list(r["a"])} for p, r in groups.items()}
    assert across_systems(same, n_resamples=100).values["beta"] == pytest.approx(1.0, abs=1e-5)


def _write_records(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_cli_across(tmp_path, capsys):
    from diveval.cli import main

    records = [
        {"prompt": "p0", "system": "a", "responses": ["yes", "no"]},
        {"prompt": "p0", "system": "b", "responses": ["yes", "sure"]},
        {"prompt": "p1", "system": "a", "responses": ["hi", "hello"]},
        {"prompt": "p1", "system": "b", "responses": ["hey", "hi"]},
        {"prompt": "p2", "system": "a", "responses": ["alone"]},
    ]
    src = tmp_path / "runs.jsonl"
    _write_records(src, records)
    argv = ["score", str(src), "--by", "system", "--across", "--similarity", "exact"]
    assert main([*argv, "--json", "--resamples", "100"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)["across"]
    assert out["systems"] == ["a", "b"] and out["n_prompts"] == 2 and out["skipped_prompts"] == 1
    assert 1 <= out["measures"]["beta"]["value"] <= 2
    assert "not answered by every system" in captured.err
    assert main([*argv, "--resamples", "100"]) == 0
    table = capsys.readouterr().out
    assert "effective number of distinct systems" in table and "2 prompts" in table
    assert main(["score", str(src), "--across"]) == 2
    assert "add --by FIELD" in capsys.readouterr().err
    # --across with --level is refused, not dropped for the level run
    assert main(["score", str(src), "--level", "per-input", "-m", "distinct-1", "--across"]) == 2
    assert "--across" in capsys.readouterr().err


def test_the_report_draws_the_across_decomposition(tmp_path, capsys):
    from diveval.cli import main

    records = [
        {"prompt": p, "system": s, "responses": r}
        for p, answers in {
            "p0": {"a": ["yes", "no"], "b": ["yes", "sure"], "c": ["no", "never"]},
            "p1": {"a": ["hi", "hello"], "b": ["hey", "hi"], "c": ["good day", "howdy"]},
        }.items()
        for s, r in answers.items()
    ]
    src = tmp_path / "runs.jsonl"
    _write_records(src, records)
    argv = ["score", str(src), "--by", "system", "--across", "--similarity", "exact", "--json"]
    assert main([*argv, "--resamples", "50"]) == 0
    run = tmp_path / "across.json"
    run.write_text(capsys.readouterr().out)
    page = tmp_path / "report.html"
    assert main(["report", str(run), "-o", str(page)]) == 0
    html = page.read_text()
    assert "How alike are the systems" in html and "effective number of distinct systems" in html
    assert html.count("<rect") >= 9  # the 3 x 3 heatmap
    assert 'id="across-0-t"' in html
    assert "How to read these (--similarity exact)" in html  # the note travels to the report


def test_the_terminal_table_stays_readable_at_many_systems():
    from diveval.report.tables import across_table

    systems = [f"model-{i:02d}" for i in range(24)]
    groups = {}
    for p in range(4):
        answers = {s: [f"{s} says {i} to {p}" for i in range(5)] for s in systems}
        answers["model-07"] = list(answers["model-03"])  # one pair says the same things
        groups[f"p{p}"] = answers
    out = across_systems(groups, "exact", n_resamples=50)
    text = across_table(out, "systems.jsonl: --by system --across")
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 120  # a 25-column matrix took the 160 there are
    first = next(line for line in lines if " ~ " in line)
    assert "model-03 ~ model-07" in first and "0.2000" in first  # 5 of 25 pairs the same text
    assert sum(" ~ " in line for line in lines) == 10
    assert "--json similarity_matrix" in text
    assert "How to read these (--similarity exact)" in text
    full = out.to_dict()
    assert len(full["similarity_matrix"]) == 24 and full["similarity"] == "exact"
    assert full["most_alike"][0] == {"systems": ["model-03", "model-07"], "similarity": 0.2}
    # a few systems: the whole matrix, as before
    few = across_systems({p: {s: a[s] for s in systems[:3]} for p, a in groups.items()}, "exact")
    assert "mean similarity, same prompt" in across_table(few, "t")


def test_the_note_says_what_the_similarity_makes_of_the_numbers():
    # every answer "a b c x_i": any two share 3 of 5 words, Jaccard 0.6; k = 5 answers that all
    # differ then count as 5 / (1 + 4 x 0.6) = 1.47 effective answers, which alpha is
    k = 5
    groups = {
        f"p{p}": {s: [f"a b c x{p}{s}{i}" for i in range(k)] for s in ("s1", "s2", "s3")}
        for p in range(3)
    }
    out = across_systems(groups, "jaccard", n_resamples=50)
    ceiling = k / (1 + (k - 1) * 0.6)
    assert out.values["alpha"] == pytest.approx(ceiling)
    note = out.reading()
    assert "(--similarity jaccard)" in note and "0.60 alike" in note
    assert f"= {ceiling:.2f} effective answers" in note and f"alpha ({ceiling:.2f})" in note
