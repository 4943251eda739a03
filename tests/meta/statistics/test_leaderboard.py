"""`diveval leaderboard`: each pair's p-value is compare's, Holm over all pairs, the intervals are
what they say (per system, or simultaneous), A/A systems are separated at a rate of at most
alpha, planted tiers are found, the CLI's JSON and refusals, and the report's section."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from diveval.cli import main
from diveval.errors import InputError
from diveval.meta.statistics import compare as cmp
from diveval.meta.statistics import leaderboard as lb
from diveval.meta.statistics import resampling

WORDS = [f"w{i}" for i in range(400)]


def _sets(rng, n, k=4, vocab=60, length=6):
    return {
        f"p{i}": [" ".join(rng.choice(WORDS[:vocab], length)) for _ in range(k)] for i in range(n)
    }


def _copied(sets, rng, share):
    """The same sets, where a share of them repeat their first response (less diverse)."""
    out = {}
    for key, s in sets.items():
        out[key] = [s[0]] * len(s) if rng.random() < share else list(s)
    return out


def test_each_pairs_p_value_is_compares_and_holm_runs_over_all_pairs():
    rng = np.random.default_rng(3)
    # 9 prompts: 2**9 sign patterns <= 1,000 resamples, so both tests enumerate them exactly
    systems = {name: _sets(rng, 9, vocab=v) for name, v in (("a", 12), ("b", 40), ("c", 400))}
    board = lb.leaderboard(systems, "distinct-1", n_resamples=1000)
    assert len(board.pairs) == 3
    raw = []
    for p in board.pairs:
        row = cmp.compare({p.first: systems[p.first], p.second: systems[p.second]}, ["distinct-1"])
        r = row.rows[0]
        # compare's difference is candidate - baseline: here the first is its baseline
        assert p.difference == pytest.approx(-r.difference) and p.difference >= 0
        assert p.p_value == pytest.approx(r.p_value)
        raw.append(r.p_value)
    assert [p.p_adjusted for p in board.pairs] == pytest.approx(resampling.holm(raw).tolist())


def test_values_are_the_means_and_the_ranking_follows_the_direction():
    rng = np.random.default_rng(4)
    systems = {name: _sets(rng, 30, vocab=v) for name, v in (("few", 10), ("many", 400))}
    up = lb.leaderboard(systems, "distinct-2", n_resamples=1000)
    down = lb.leaderboard(systems, "self-bleu", n_resamples=1000)
    assert [s.system for s in up.standings] == ["many", "few"]
    assert up.direction == "higher" and down.direction == "lower"
    assert [s.system for s in down.standings] == ["many", "few"]  # lower Self-BLEU ranks first
    from diveval import score

    for s in up.standings:
        assert s.value == pytest.approx(
            score(list(systems[s.system].values()), ["distinct-2"])["distinct-2"].value
        )


def test_intervals_per_system_and_simultaneous():
    rng = np.random.default_rng(5)
    systems = {f"s{i}": _sets(rng, 40, vocab=20 + 10 * i) for i in range(6)}
    kw = dict(n_resamples=2000, seed=7)
    per = lb.leaderboard(systems, "distinct-1", intervals="per-system", **kw)
    sim = lb.leaderboard(systems, "distinct-1", **kw)
    assert "per-system" in per.settings["intervals"]
    assert "simultaneous" in sim.settings["intervals"]
    # the resamples the leaderboard drew: multiplicities seeded by (seed, 0), shared by systems
    names = [s.system for s in per.standings]
    values = np.stack(
        [
            [len(set(" ".join(x).split())) / len(" ".join(x).split()) for x in systems[n].values()]
            for n in names
        ],
        axis=1,
    )
    weights = resampling.multiplicities(40, 2000, np.random.default_rng([7, 0]))
    means = weights @ values / 40
    for i, s in enumerate(per.standings):
        assert s.interval == pytest.approx(resampling.percentile_interval(means[:, i], 0.95))
    lo, hi = np.array([s.interval for s in sim.standings]).T
    inside_all = ((means >= lo - 1e-12) & (means <= hi + 1e-12)).all(axis=1).mean()
    lo1, hi1 = np.array([s.interval for s in per.standings]).T
    inside_per = ((means >= lo1) & (means <= hi1)).all(axis=1).mean()
    # simultaneous: all six hold together on at least 95 % of the resamples; per-system: fewer
    assert inside_all >= 0.95 > inside_per
    assert all(
        a.interval[1] - a.interval[0] > b.interval[1] - b.interval[0]
        for a, b in zip(sim.standings, per.standings)
    )


def test_planted_tiers_get_their_letters_and_rank_ranges():
    rng = np.random.default_rng(6)
    base = [_sets(rng, 60, vocab=400) for _ in range(2)]
    systems = {
        "top1": base[0],
        "top2": base[1],
        "low1": _copied(_sets(rng, 60, vocab=400), rng, 0.6),
        "low2": _copied(_sets(rng, 60, vocab=400), rng, 0.6),
    }
    board = lb.leaderboard(systems, "distinct-1")
    got = {s.system: (s.letters, s.rank_range) for s in board.standings}
    assert {got["top1"], got["top2"]} == {("a", (1, 2))}
    assert {got["low1"], got["low2"]} == {("b", (3, 4))}
    sep = {(p.first, p.second): p.separated for p in board.pairs}
    assert sum(sep.values()) == 4


def test_a_a_systems_are_separated_at_most_at_alpha():
    # six systems drawn alike (per-prompt values from one distribution, a prompt effect shared):
    # the family-wise rate of any separation over 300 runs, within the binomial 2-sigma band
    rng = np.random.default_rng(8)
    runs, hits, pair_hits = 300, 0, 0
    names = [f"s{i}" for i in range(6)]
    choices = lb._Choices("permutation", 1000, 0, 0.05, 0.95, "simultaneous")
    for r in range(runs):
        prompt = rng.normal(size=(40, 1))
        values = prompt + rng.normal(size=(40, 6))
        board = lb._ranked(
            names,
            values,
            "higher",
            lb._Choices(**{**choices.__dict__, "seed": r}),
            metric="x",
            signature="x",
            extra={},
        )
        hits += any(p.separated for p in board.pairs)
        pair_hits += sum(p.p_value <= 0.05 for p in board.pairs)
    tolerance = 2 * math.sqrt(0.05 * 0.95 / runs)
    assert hits / runs <= 0.05 + tolerance
    # without Holm, each pair alone rejects about 5 % (15 pairs a run): the test itself is calibrated
    assert abs(pair_hits / (15 * runs) - 0.05) <= 2 * 2 * math.sqrt(0.05 * 0.95 / (15 * runs))


def test_reruns_are_identical_and_the_seed_is_used():
    rng = np.random.default_rng(9)
    systems = {f"s{i}": _sets(rng, 30) for i in range(3)}
    a = lb.leaderboard(systems, "distinct-1", seed=1).to_dict()
    assert lb.leaderboard(systems, "distinct-1", seed=1).to_dict() == a
    b = lb.leaderboard(systems, "distinct-1", seed=2).to_dict()
    assert [p["p_value"] for p in a["pairs"]] != [p["p_value"] for p in b["pairs"]]


def test_default_resamples_let_the_smallest_p_pass_holms_first_threshold():
    assert lb.default_resamples(2) == 1000
    for m in (2, 5, 20, 40):
        pairs = m * (m - 1) // 2
        assert 1 / (lb.default_resamples(m) + 1) <= 0.05 / pairs


def test_refusals():
    rng = np.random.default_rng(10)
    one = _sets(rng, 20)
    with pytest.raises(InputError, match="at least two systems"):
        lb.leaderboard({"a": one}, "distinct-1")
    short = dict(itertools.islice(one.items(), 15))
    with pytest.raises(InputError, match="same prompts"):
        lb.leaderboard({"a": one, "b": short}, "distinct-1")
    with pytest.raises(InputError, match="pooled corpus metric"):
        lb.leaderboard(
            {"a": {k: v[0] for k, v in one.items()}, "b": {k: v[1] for k, v in one.items()}},
            "distinct-1",
        )
    with pytest.raises(InputError, match="k = 4 responses per prompt and b k = 3"):
        lb.leaderboard({"a": one, "b": {k: v[:3] for k, v in one.items()}}, "distinct-1")
    many = {f"s{i}": one for i in range(20)}
    with pytest.raises(InputError, match="Holm's first threshold"):
        lb.leaderboard(many, "distinct-1", n_resamples=1000)
    with pytest.raises(InputError, match="intervals"):
        lb.leaderboard({"a": one, "b": one}, "distinct-1", intervals="bonferroni")


def test_a_mean_of_per_item_values_ranks_on_one_response_per_prompt():
    rng = np.random.default_rng(11)
    refs = {f"p{i}": ["w1 w2 w3 w4"] for i in range(20)}
    a = {f"p{i}": "w1 w2 w3 w4" for i in range(20)}
    b = {f"p{i}": " ".join(rng.choice(WORDS, 4)) for i in range(20)}
    board = lb.leaderboard({"a": a, "b": b}, "ref-rouge-l", references=refs, variant="nlg-eval")
    assert board.settings["setting"] == "corpus"
    top = board.standings[0]
    assert (top.system, top.value, top.rank_range) == ("a", pytest.approx(1.0), (1, 1))


# -- the command ------------------------------------------------------------------------------------


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _files(tmp_path, n_prompts=30):
    """Three systems under <org>/<model>/scores.jsonl, as the NoveltyBench runs are saved."""
    rng = np.random.default_rng(12)
    paths = []
    for org, model, vocab in (("o1", "wide", 400), ("o1", "mid", 400), ("o2", "narrow", 8)):
        recs = [
            {
                "id": f"q{i}",
                "prompt": f"prompt {i}",
                "generations": [" ".join(rng.choice(WORDS[:vocab], 6)) for _ in range(4)],
            }
            for i in range(n_prompts)
        ]
        paths.append(_write(tmp_path / org / model / "scores.jsonl", recs))
    return paths


def test_cli_table_and_json(tmp_path, capsys):
    paths = _files(tmp_path)
    args = ["leaderboard", *paths, "-m", "distinct-1", "--field", "generations"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "o1/wide" in out and "o2/narrow" in out and "simultaneous" in out
    assert main([*args, "--json"]) == 0
    first = capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    assert capsys.readouterr().out == first
    data = json.loads(first)
    assert data["inputs"] == paths
    for key in ("metric", "direction", "test", "resamples", "alpha", "adjustment", "intervals"):
        assert key in data["leaderboard"]
    assert data["leaderboard"]["adjustment"] == "holm over 3 pairs"
    systems = data["systems"]
    assert [s["rank"] for s in systems] == [1, 2, 3]
    for s in systems:
        assert set(s) == {"system", "value", "interval", "rank", "rank_range", "letters"}
    assert systems[-1]["system"] == "o2/narrow" and systems[-1]["rank_range"] == [3, 3]
    assert systems[-1]["letters"] not in systems[0]["letters"]
    for p in data["pairs"]:
        assert set(p) >= {"first", "second", "difference", "p_value", "p_adjusted", "separated"}
    assert "leaderboard:permutation" in data["signature"]


def test_cli_by_a_field(tmp_path, capsys):
    paths = _files(tmp_path)
    recs = [
        {**json.loads(line), "model": p.split("/")[-2]}
        for p in paths
        for line in open(p, encoding="utf-8")
    ]
    one = _write(tmp_path / "all.jsonl", recs)
    assert (
        main(
            [
                "leaderboard",
                one,
                "--by",
                "model",
                "-m",
                "distinct-1",
                "--field",
                "generations",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["by"] == "model" and {s["system"] for s in data["systems"]} == {
        "wide",
        "mid",
        "narrow",
    }


def test_cli_refusals_are_one_line_with_status_2(tmp_path, capsys):
    paths = _files(tmp_path)
    assert main(["leaderboard", paths[0], "-m", "distinct-1", "--field", "generations"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "two or more INPUT" in err
    fewer = _files(tmp_path / "fewer", n_prompts=25)
    assert (
        main(["leaderboard", paths[0], fewer[1], "-m", "distinct-1", "--field", "generations"]) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "same prompts" in err and "q25" in err
    assert (
        main(
            [
                "leaderboard",
                *paths,
                "-m",
                "distinct-1",
                "-m",
                "distinct-2",
                "--field",
                "generations",
            ]
        )
        == 2
    )
    assert "one metric" in capsys.readouterr().err


def test_report_shows_the_leaderboard(tmp_path, capsys):
    paths = _files(tmp_path)
    assert (
        main(["leaderboard", *paths, "-m", "distinct-1", "--field", "generations", "--json"]) == 0
    )
    out = tmp_path / "board.json"
    out.write_text(capsys.readouterr().out, encoding="utf-8")
    page = tmp_path / "report.html"
    assert main(["report", str(out), "-o", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert 'id="leaderboard"' in html and "o2/narrow" in html
    assert "share a letter" in html
