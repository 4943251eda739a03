"""The printed tables of the paired comparisons: ``diveval compare`` and ``diveval leaderboard``
(their --json is the results' ``to_dict``)."""

from __future__ import annotations

from typing import Any

from .tables import render_table


def _num(v: float | None, sign: bool = False) -> str:
    if v is None:
        return "-"
    return f"{v:+.4f}" if sign else f"{v:.4f}"


def _p(v: float | None) -> str:
    return "-" if v is None else (f"{v:.4f}" if v >= 1e-4 else f"{v:.1e}")


def comparison_table(result: Any) -> str:
    """``diveval compare``'s table (a ``meta.statistics.compare_results.Comparison``): one
    table per candidate; ``*`` marks a significant difference after Holm."""
    s = result.settings
    m_tests = s["adjustment"].split(" over ")[-1]
    level = 1 - s["alpha"] / max(1, int(m_tests.split()[0]))
    blocks = []
    for cand in result.candidates:
        rows = [r for r in result.rows if r.candidate == cand]
        n = rows[0].n_prompts if rows else 0
        title = f"{cand} vs {result.baseline} (baseline), {n} prompts in common, k = {s['k']}"
        body = []
        for r in rows:
            iv = (
                f"[{_num(r.interval[0], True)}, {_num(r.interval[1], True)}]"
                + (" ^" if r.interval_extended else "")
                if r.interval
                else "-"
            )
            body.append(
                [
                    r.metric + (" (lower = more diverse)" if r.direction == "lower" else ""),
                    _num(r.baseline_value),
                    _num(r.candidate_value),
                    _num(r.difference, True),
                    iv,
                    _p(r.p_value),
                    _p(r.p_adjusted) + (" *" if r.significant else ""),
                    r.more_diverse or ("(not comparable)" if r.note else "no decision"),
                ]
            )
        blocks.append(
            render_table(
                title,
                [
                    "metric",
                    "baseline",
                    "candidate",
                    "difference",
                    f"{level:.2%} simultaneous interval",
                    "p",
                    "p (Holm)",
                    "more diverse",
                ],
                body,
            )
        )
        blocks += [f"  {r.metric}: {r.note}" for r in rows if r.note]
    blocks.append(
        f"* significant at alpha {s['alpha']:g} after Holm's adjustment over {m_tests}; test: "
        f"{s['test']}, {s['resamples']} resamples, seed {s['seed']}, levels {s['levels']}, "
        f"prompts matched by {s['match']}.\n"
        "'more diverse' names a system only where the test is significant.\n"
        f"Intervals: simultaneous (Bonferroni, each at 1 - alpha/m = {level:.4g}: all {m_tests} "
        f"hold together with {1 - s['alpha']:.0%}), so that no interval excludes 0 where the "
        "adjusted test makes no decision; a row Holm finds significant may still reach 0 (Holm's "
        "later steps test at more than alpha/m). The unadjusted "
        f"{s['confidence']:.0%} interval of each test is in --json as interval_unadjusted."
    )
    if any(r.interval_extended for r in result.rows):
        blocks.append(
            "^ extended to 0: the bootstrap's interval excluded 0 where the permutation test, "
            "adjusted, makes no decision (two procedures that disagree at the margin)."
        )
    sigs = {r.metric: r.signature for r in result.rows}
    blocks += [f"{m}: {sig}" for m, sig in sigs.items()]
    return "\n".join(blocks)


def leaderboard_table(board: Any) -> str:
    """``diveval leaderboard``'s table (a ``meta.statistics.leaderboard.Leaderboard``): the
    systems by value, with their interval, rank range and letter group."""
    s = board.settings
    conf = f"{s['confidence']:.0%}"
    which = "simultaneous" if s["intervals"].startswith("simultaneous") else "per-system"
    body = [
        [
            x.rank,
            x.system,
            f"{x.value:.4f}",
            f"[{x.interval[0]:.4f}, {x.interval[1]:.4f}]",
            f"{x.rank_range[0]}-{x.rank_range[1]}",
            x.letters,
        ]
        for x in board.standings
    ]
    arrow = "higher" if board.direction == "higher" else "lower"
    title = (
        f"{board.metric} ({arrow} = more diverse), {len(board.standings)} systems on "
        f"{s['n_prompts']} prompts, k = {s['k']}"
    )
    cols = ["rank", "system", board.metric, f"{conf} interval ({which})", "ranks", "group"]
    separated = sum(p.separated for p in board.pairs)
    return "\n".join(
        [
            render_table(title, cols, body),
            f"group: systems that share a letter are not significantly different (alpha "
            f"{s['alpha']:g}, {s['adjustment']}: {separated} of {len(board.pairs)} separated); "
            "ranks: every rank the system can take given the pairs not separated.",
            f"intervals: {s['intervals']}; test: {s['test']}, {s['resamples']} resamples, seed "
            f"{s['seed']}, prompts matched by {s['match']}.",
            board.signature,
        ]
    )
