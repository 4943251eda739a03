"""Recognise what diveval wrote, by content, for `diveval report`.

Each input file is read once and sorted by its keys or columns, never by its name alone:

- JSON objects: ``score --json`` (``scores``), ``score --by --json`` (``groups`` + ``by``),
  ``score --level --json`` (``level`` + ``scores``), ``meta tevet --json`` (``tests``),
  ``correlate --json`` (``correlations`` + ``human``), ``length-bias --json`` (``runs``),
  ``compare --json`` (``comparison`` + ``rows``), ``leaderboard --json`` (``leaderboard`` +
  ``systems``);
- rows (CSV/TSV or JSON lines): ``score --items`` (``_line`` + metric columns), ``score --summary``
  (``_n``), ``rate export`` (systems: ``_sets``; sets: ``_subset``; raters: ``rater`` + ``kept``),
  and the scored input itself (records with ``responses``), which brings the sets' texts.

The result is a :class:`Collected` of plain data; the command adds what needs the metric layer
(directions, bootstrap intervals, correlations) and ``html.render`` draws it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..errors import InputError
from ..io.matching import PROMPT_FIELDS
from ..io.numbers import is_label, number
from ..io.readers import read_input
from ..results import Score

#: Record fields that name a set's prompt, in order of preference.
#: Fields that name the system when no ``--by`` says which.
SYSTEM_FIELDS = ("system", "model")
ALL = "all"  # the one group of a run without --by


@dataclass
class InputFile:
    path: str
    kind: str
    sha256: str
    size: int


@dataclass
class SystemValue:
    """One metric of one system, as a run reported it."""

    value: float
    signature: str | None = None
    interval: tuple[float, float] | None = None
    items: list[float] | None = None  # per-set values, in the group's order
    setting: str | None = None


@dataclass
class SetRow:
    """One set (or response) of one system."""

    line: int | None
    prompt: str
    values: dict[str, float] = field(default_factory=dict)
    responses: list[str] | None = None
    labels: list[int] | None = None  # equivalence classes of the responses, where present
    human: float | None = None
    sampling: Any = None


@dataclass
class Collected:
    """Everything the inputs hold, by system; empty parts mean the section is left out."""

    files: list[InputFile] = field(default_factory=list)
    by: str | None = None
    setting: str | None = None
    systems: dict[str, dict[str, SystemValue]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    sets: dict[str, list[SetRow]] = field(default_factory=dict)
    curves: dict[str, dict[str, list[dict[str, float]]]] = field(default_factory=dict)
    # diversity profiles (Hill numbers over the order q): {metric: {system: [(q, value), ...]}}
    profiles: dict[str, dict[str, list[tuple[str, float]]]] = field(default_factory=dict)
    # rarefaction / extrapolation curves (`diveval rarefy`): {measure-order: {system: curve}}
    rarefaction: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    levels: list[dict[str, Any]] = field(default_factory=list)
    # `score --by SYSTEM --across --json`: alpha / beta / gamma and the systems' similarity matrix
    across: list[dict[str, Any]] = field(default_factory=list)
    length_bias: list[dict[str, Any]] = field(default_factory=list)
    correlations: list[dict[str, Any]] = field(default_factory=list)
    tevet: list[dict[str, Any]] = field(default_factory=list)
    human_systems: list[dict[str, Any]] = field(default_factory=list)
    human_sets: list[dict[str, Any]] = field(default_factory=list)
    raters: list[dict[str, Any]] = field(default_factory=list)
    comparisons: list[dict[str, Any]] = field(default_factory=list)  # compare --json outputs
    leaderboards: list[dict[str, Any]] = field(default_factory=list)  # leaderboard --json outputs
    signatures: dict[str, set[str]] = field(default_factory=dict)
    human: str = "human"
    # the JSON runs' per-group items, kept to align with the scored input's records
    _json_items: dict[str, dict[str, SystemValue]] = field(default_factory=dict)
    _labels: dict[str, list[list[int]]] = field(default_factory=dict)
    _records: list[dict[str, Any]] = field(default_factory=list)
    _items_rows: list[dict[str, Any]] = field(default_factory=list)
    _items_path: str | None = None
    _records_path: str | None = None
    # the scored input a run names, where it could not be read (why), for the sets' cards
    input_note: str = ""

    def sign(self, metric: str, signature: str | None) -> None:
        if signature:
            self.signatures.setdefault(metric, set()).add(signature)


def sha256_of(path: str) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


def _read(path: str) -> tuple[str, Any]:
    """('object', dict) for one JSON object, ('rows', [dict]) for JSON lines or a table."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file diveval wrote", path) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text: not a file diveval wrote", path) from None
    stripped = text.lstrip()
    if not stripped:
        raise InputError("empty file", path)
    if stripped[0] in "{[":
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, dict):
            return "object", whole
        if isinstance(whole, list):
            if all(isinstance(r, dict) for r in whole):
                return "rows", list(whole)
            raise InputError("a JSON array whose entries are not all objects", path)
        rows = []
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not JSON: {exc.msg}", path, i) from None
            if not isinstance(rec, dict):
                raise InputError("each JSON line must be an object", path, i)
            rows.append(rec)
        return "rows", rows
    dialect = (
        "excel-tab" if path.lower().endswith(".tsv") or "\t" in text.split("\n", 1)[0] else "excel"
    )
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    if not reader.fieldnames or len(reader.fieldnames) < 2:
        raise InputError("neither JSON nor a table with a header: not a file diveval wrote", path)
    # a row longer than the header puts its extra cells under None: not a table diveval wrote
    rows = [dict(r) for r in reader]
    if any(None in r for r in rows):
        raise InputError("a row has more cells than the header: not a table diveval wrote", path)
    return "rows", rows


def _what(shape: str, data: Any) -> str:
    if shape == "object":
        return "keys: " + ", ".join(sorted(map(str, data))[:6])
    names = sorted({str(k) for r in data[:50] for k in r if k is not None})
    return "columns: " + ", ".join(names[:6]) if names else "no rows"


def kind_of(shape: str, data: Any) -> str | None:
    """The diveval output ``data`` is, from its keys or columns; None when it is none of them."""
    if shape == "object":
        if isinstance(data.get("comparison"), dict) and isinstance(data.get("rows"), list):
            return "compare"
        if isinstance(data.get("leaderboard"), dict) and isinstance(data.get("systems"), list):
            return "leaderboard"
        if "groups" in data and "by" in data:
            return "score-by"
        if "level" in data and isinstance(data.get("scores"), dict):
            return "level"
        if isinstance(data.get("across"), dict):
            return "across"
        if isinstance(data.get("scores"), dict):
            return "score"
        if isinstance(data.get("tests"), dict):
            return "tevet"
        if isinstance(data.get("correlations"), dict) and "human" in data:
            return "correlate"
        runs = data.get("runs")
        if (
            isinstance(runs, list)
            and runs
            and all(isinstance(r, dict) and "lengths" in r and "metrics" in r for r in runs)
        ):
            return "length-bias"
        return None
    if not data:
        return None
    cols = set().union(*(r.keys() for r in data[:50]))
    if {"rater", "kept", "pearson"} <= cols:
        return "raters"
    if {"system", "_subset", "human"} <= cols:
        return "rate-sets"
    if {"system", "human", "_sets"} <= cols:
        return "rate-systems"
    if "_n" in cols:
        return "summary"
    if "_line" in cols:
        return "items"
    if "responses" in cols and all(isinstance(r.get("responses"), list) for r in data):
        return "responses"
    return None


def _num(v: Any) -> float | None:
    x = number(v)
    return None if x is None or math.isnan(x) else x


def _sampling(v: Any) -> Any:
    if isinstance(v, str) and v.strip().startswith("{"):
        try:
            return json.loads(v)
        except json.JSONDecodeError:
            return v
    return v


def _prompt(rec: dict[str, Any], fallback: str) -> str:
    for f in PROMPT_FIELDS:
        v = rec.get(f)
        if isinstance(v, str) and v.strip():
            return v
        if isinstance(v, list) and v and all(isinstance(t, str) for t in v):
            return " / ".join(v)  # a dialogue context: its turns
    return fallback


def collect(
    paths: Iterable[str],
    metric_names: Iterable[str],
    human: str = "human",
    runs: Iterable[dict[str, Any]] = (),
    records: Iterable[dict[str, Any]] = (),
    sources: Iterable[str] = (),
) -> Collected:
    """Read every input; raise a one-line InputError naming the file that is not one of
    diveval's outputs, or that does not match the others. ``runs`` (score JSON dicts) and
    ``records`` (the scored input's records, with ``_line``) come from memory: `score --report`;
    ``sources`` are the files they were read from, hashed for the provenance."""
    known = set(metric_names)
    out = Collected(human=human)
    deferred: list[tuple[str, str, Any]] = []
    for path in sources:
        digest, size = sha256_of(path)
        out.files.append(InputFile(path, "scored input", digest, size))
    for run in runs:
        deferred.append(("(this run)", kind_of("object", run) or "score", run))
    out._records = [dict(r) for r in records]
    for path in paths:
        shape, data = _read(path)
        kind = kind_of(shape, data)
        if kind is None and shape == "object":  # JSON lines with a single record
            shape, data = "rows", [data]
            kind = kind_of(shape, data)
        if kind is None:
            raise InputError(
                f"not an output `diveval report` reads ({_what(shape, data)}); give what "
                "score --json/--items/--summary/--level, meta tevet --json, correlate --json, "
                "length-bias --json, compare --json, leaderboard --json or rate export wrote",
                path,
            )
        digest, size = sha256_of(path)
        out.files.append(InputFile(path, kind, digest, size))
        deferred.append((path, kind, data))
    # the runs first: they say how the rows are grouped (--by) and what the metrics are
    order = ["score-by", "score", "level", "across", "length-bias", "tevet", "correlate"]
    deferred.sort(key=lambda t: order.index(t[1]) if t[1] in order else len(order))
    for path, kind, data in deferred:
        _READERS[kind](out, path, data, known)
    if any(out._json_items.values()) and not out._records and not out._items_rows:
        _read_recorded_input(out, [(p, d) for p, k, d in deferred if k in ("score", "score-by")])
    _assemble_sets(out, known)
    return out


def scored_records(data: Any) -> list[dict[str, Any]]:
    """The records of a scored input (``io.readers.InputData``) as the report joins them: each
    record with its item's text (``responses`` for sets, ``response`` for a corpus) and its line
    (a .txt corpus has no records: its lines are its items)."""
    text_key = "responses" if data.setting == "sets" else "response"
    out = []
    for i, item in enumerate(data.items):
        rec = {**(data.records[i] if data.records else {}), text_key: item}
        rec["_line"] = data.line_of(i) or i + 1
        out.append(rec)
    return out


def _read_recorded_input(out: Collected, runs: list[tuple[str, dict[str, Any]]]) -> None:
    """The file a run scored (its ``input``, with its ``field`` and ``format``), read as `diveval
    score` read it, when no input brought the sets' texts: `score --json --items > run.json`,
    then `report run.json`, shows the responses. Looked for as written, then beside the run;
    a file that is gone, unreadable or no longer the one scored is left out, and the cards say so."""
    named = {(d.get("input"), d.get("field"), d.get("format")) for _, d in runs}
    if len(named) != 1:
        return
    ((name, fld, fmt),) = named
    if not isinstance(name, str) or name == "-":
        return
    folders = [""] + [os.path.dirname(p) for p, _ in runs if p != "(this run)"]
    found = next((c for c in (os.path.join(f, name) for f in folders) if os.path.isfile(c)), None)
    if found is None:
        out.input_note = f"{name}, the run's input, was not found"
        return
    try:
        records = scored_records(read_input(found, fmt, fld))
    except InputError as exc:
        out.input_note = f"{name}, the run's input, could not be read: {exc.problem}"
        return
    grouped: dict[str, int] = {}
    for rec in records:
        key = str(rec.get(out.by)) if out.by else ALL
        grouped[key] = grouped.get(key, 0) + 1
    for group, per_metric in out._json_items.items():
        if any(len(v.items or []) != grouped.get(group, 0) for v in per_metric.values()):
            out.input_note = f"{name}, the run's input, has changed since the run"
            return
    out._records, out._records_path = records, found
    digest, size = sha256_of(found)
    out.files.append(InputFile(found, "scored input (named by the run)", digest, size))


def add_run(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    """``score --json`` or ``score --by --json`` (their output, or the same dict in memory)."""
    if "groups" in data:
        groups = data["groups"]
        if not isinstance(groups, dict) or not groups:
            raise InputError("'groups' holds no groups", path)
        if out.by is not None and out.by != data.get("by"):
            raise InputError(f"grouped by {data.get('by')!r}, another input by {out.by!r}", path)
        out.by = data.get("by")
    else:
        groups = {ALL: {"items": data.get("items"), "scores": data["scores"]}}
        if data.get("rarefaction"):
            groups[ALL]["rarefaction"] = data["rarefaction"]
    out.setting = data.get("setting", out.setting)
    for group, body in groups.items():
        scores = body.get("scores") if isinstance(body, dict) else None
        if not isinstance(scores, dict):
            raise InputError(f"group {group!r} has no scores", path)
        if group in out.systems and out.systems[group] and scores:
            raise InputError(f"system {group!r} is already in another input", path)
        _add_rarefaction(out, str(group), body.get("rarefaction"), path)
        row = out.systems.setdefault(str(group), {})
        if isinstance(body.get("items"), int):
            out.sizes[str(group)] = body["items"]
        for name, s in scores.items():
            try:  # typed: the Score that `score --json` wrote
                score = Score.from_dict(s, name) if isinstance(s, dict) else None
            except ValueError:
                score = None
            if score is None:
                raise InputError(f"score {name!r} of {group!r} has no numeric value", path)
            known.add(name)
            value = SystemValue(
                score.value,
                s.get("signature"),
                items=None if score.items is None else score.items.tolist(),
                setting=s.get("setting"),
            )
            details = dict(score.details)
            iv = details.get("interval")
            if isinstance(iv, list) and len(iv) == 2 and iv[0] != iv[1]:
                value.interval = (float(iv[0]), float(iv[1]))
            row[name] = value
            out.sign(name, value.signature)
            curve = details.get("curve")
            if isinstance(curve, list) and curve:
                out.curves.setdefault(name, {})[str(group)] = _mean_curve(curve)
            profile = _profile(details)
            if profile:
                out.profiles.setdefault(name, {})[str(group)] = profile
            labels = details.get("labels")
            if isinstance(labels, list) and labels and all(isinstance(x, list) for x in labels):
                out._labels[str(group)] = labels
        out._json_items[str(group)] = {n: v for n, v in row.items() if v.items is not None}


def _add_rarefaction(out: Collected, group: str, runs: Any, path: str) -> None:
    """The curves of `diveval rarefy` (a list of measures, each with its curve), by measure."""
    if not runs:
        return
    if not isinstance(runs, list):
        raise InputError(f"group {group!r}: 'rarefaction' is not a list of curves", path)
    names = {0: "richness", 1: "shannon", 2: "simpson"}
    for r in runs:
        c = r.get("curve") if isinstance(r, dict) else None
        if not isinstance(c, dict) or not isinstance(c.get("sizes"), list):
            raise InputError(f"group {group!r}: a rarefaction entry has no curve", path)
        name = f"{r.get('measure')}-{names.get(r.get('q'), r.get('q'))}"
        out.rarefaction.setdefault(name, {})[group] = r
        out.sign(name, r.get("signature"))


def _profile(details: dict[str, Any]) -> list[tuple[str, float]]:
    """A diversity profile in a run's details: the orders q it lists (``orders``) and the mean
    over sets at each (``q<order>_mean``), as similarity-hill writes them; [] where there is none."""
    orders = details.get("orders")
    if not isinstance(orders, list) or not orders:
        return []
    values = [details.get(f"q{q}_mean") for q in orders]
    if not all(isinstance(v, (int, float)) for v in values):
        return []
    return [(str(q), float(v)) for q, v in zip(orders, values)]  # type: ignore[arg-type]


def _mean_curve(curve: list[Any]) -> list[dict[str, float]]:
    """A corpus curve as it is; a sets run's curves (one per set) averaged at each k."""
    if curve and isinstance(curve[0], dict):
        return [{k: float(p[k]) for k in ("k", "mean", "low", "high") if k in p} for p in curve]
    by_k: dict[float, list[dict[str, Any]]] = {}
    for per_set in curve:
        for p in per_set:
            by_k.setdefault(float(p["k"]), []).append(p)
    return [
        {
            "k": k,
            "mean": sum(p["mean"] for p in ps) / len(ps),
            "low": sum(p.get("low", p["mean"]) for p in ps) / len(ps),
            "high": sum(p.get("high", p["mean"]) for p in ps) / len(ps),
            "sets": len(ps),
        }
        for k, ps in sorted(by_k.items())
    ]


def _add_level(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    for name, s in data["scores"].items():
        iv = s.get("interval") or {}
        out.levels.append(
            {
                "metric": name,
                "level": s.get("level", data["level"]),
                "value": s.get("value"),
                "low": iv.get("low"),
                "high": iv.get("high"),
                "confidence": iv.get("confidence"),
                "input": data.get("input"),
            }
        )
        out.sign(name, s.get("signature"))


def _add_across(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    across = data["across"]
    for key in ("systems", "measures", "similarity_matrix"):
        if key not in across:
            raise InputError(f"an --across output without {key!r}", path)
    out.across.append({**across, "input": data.get("input"), "by": data.get("by")})


def _add_length_bias(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    for run in data["runs"]:
        for name, m in run["metrics"].items():
            if len(m.get("mean", [])) != len(run["lengths"]):
                raise InputError(
                    f"run {run.get('source')!r}: {name} has not one mean per length", path
                )
            out.sign(name, m.get("signature"))
        out.length_bias.append(run)


def _add_tevet(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    for source, rows in data["tests"].items():
        for r in rows:
            out.tevet.append(dict(r, file=os.path.basename(source)))
            out.sign(r.get("metric", "?"), r.get("signature"))


def _add_compare(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    """``compare --json``: its settings and rows, kept as they are for the report's section."""
    rows = [r for r in data["rows"] if isinstance(r, dict)]
    out.comparisons.append(
        {"file": os.path.basename(path), "settings": data["comparison"], "rows": rows}
    )
    for r in rows:
        out.sign(str(r.get("metric", "?")), r.get("signature"))


def _add_leaderboard(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    """``leaderboard --json``: its settings and ranked systems, kept as they are for the report."""
    systems = [x for x in data["systems"] if isinstance(x, dict)]
    board = data["leaderboard"]
    out.leaderboards.append({"file": os.path.basename(path), "settings": board, "systems": systems})
    out.sign(str(board.get("metric", "?")), data.get("signature"))


def _add_correlate(out: Collected, path: str, data: dict[str, Any], known: set[str]) -> None:
    for group, per_metric in data["correlations"].items():
        for metric, by_method in per_metric.items():
            for method, c in by_method.items():
                iv = c.get("interval") or {}
                out.correlations.append(
                    {
                        "input": os.path.basename(str(data.get("input", path))),
                        "human": data.get("human"),
                        "group": group,
                        "metric": metric,
                        "method": method,
                        "value": c.get("value"),
                        "p": c.get("p_value"),
                        "n": c.get("n"),
                        "low": iv.get("low"),
                        "high": iv.get("high"),
                    }
                )


def _metric_columns(rows: list[dict[str, Any]], known: set[str], skip: Iterable[str]) -> list[str]:
    cols: list[str] = []
    for r in rows:
        cols += [c for c in r if c not in cols]
    return [c for c in cols if c in known and c not in skip and not is_label(c)]


def _group_field(out: Collected, rows: list[dict[str, Any]]) -> str | None:
    if out.by:
        return out.by
    return next((f for f in SYSTEM_FIELDS if f in rows[0]), None)


def _add_summary(out: Collected, path: str, rows: list[dict[str, Any]], known: set[str]) -> None:
    key = next((c for c in rows[0] if c != "_n"), None)
    if out.by and out.by in rows[0]:
        key = out.by
    if key is None:
        raise InputError("a summary with no group column", path)
    metrics = _metric_columns(rows, known, [key, out.human])
    for r in rows:
        group = str(r[key])
        row = out.systems.setdefault(group, {})
        n = _num(r.get("_n"))
        if n is not None:
            out.sizes.setdefault(group, int(n))
        for m in metrics:
            v = _num(r.get(m))
            if v is not None and m not in row:
                row[m] = SystemValue(v)
        h = _num(r.get(out.human))
        if h is not None:
            out.human_systems.append(
                {"system": group, "human": h, **{m: _num(r.get(m)) for m in metrics}}
            )


def _rate_rows(kept_in: str):
    """The reader of a rate export's rows (one per system, or one per set) into ``out.<kept_in>``."""

    def add(out: Collected, path: str, rows: list[dict[str, Any]], known: set[str]) -> None:
        metrics = _metric_columns(rows, known, ["system", "human"])
        for r in rows:
            getattr(out, kept_in).append(
                {
                    "system": str(r["system"]),
                    "human": _num(r.get("human")),
                    "source": "rate export",
                    **{m: _num(r.get(m)) for m in metrics},
                }
            )

    return add


def _add_raters(out: Collected, path: str, rows: list[dict[str, Any]], known: set[str]) -> None:
    for r in rows:
        kept = str(r.get("kept")).strip().lower() in ("true", "yes", "1")
        out.raters.append(
            {
                "rater": str(r["rater"]),
                "pearson": _num(r.get("pearson")),
                "sets": _num(r.get("n_sets")),
                "kept": kept,
                "reason": str(r.get("reason") or ""),
            }
        )


def _add_items(out: Collected, path: str, rows: list[dict[str, Any]], known: set[str]) -> None:
    if out._items_rows:
        raise InputError("a second --items file: give one per report", path)
    for r in rows:
        if _num(r.get("_line")) is None:
            raise InputError("an item row without a line number in _line", path)
    out._items_rows, out._items_path = rows, path


def _add_records(out: Collected, path: str, rows: list[dict[str, Any]], known: set[str]) -> None:
    if out._records:
        raise InputError("a second scored input: give one per report", path)
    out._records = [dict(r, _line=i) for i, r in enumerate(rows, 1)]
    out._records_path = path


def _assemble_sets(out: Collected, known: set[str]) -> None:
    """Per-system set rows from the items file (joined to the scored input by line) or from the
    JSON run's per-item values (aligned with the scored input's records, group by group)."""
    records = {r["_line"]: r for r in out._records}
    if out._items_rows:
        rows = out._items_rows
        group_field = _group_field(out, rows)
        metrics = _metric_columns(rows, known, [out.human])
        if not metrics:
            raise InputError("item rows with no metric column", out._items_path)
        for r in rows:
            line = int(_num(r["_line"]) or 0)
            group = str(r.get(group_field)) if group_field else ALL
            rec = records.get(line)
            if out._records and rec is None:
                raise InputError(
                    f"row of line {line} has no record at that line of the scored input "
                    "(is it the file these items came from?)",
                    out._items_path,
                )
            base = rec or r
            out.sets.setdefault(group, []).append(_set_row(out, line, base, r, metrics))
    elif out._json_items and out._records:
        by = out.by
        grouped: dict[str, list[dict[str, Any]]] = {}
        for rec in out._records:
            grouped.setdefault(str(rec.get(by)) if by else ALL, []).append(rec)
        for group, per_metric in out._json_items.items():
            recs = grouped.get(group, [])
            for name, v in per_metric.items():
                if v.items is not None and len(v.items) != len(recs):
                    raise InputError(
                        f"{len(recs)} records of {group!r}, but the run has {len(v.items)} "
                        f"values of {name}: not the input that was scored",
                        out._records_path,
                    )
            for k, rec in enumerate(recs):
                values = {n: v.items[k] for n, v in per_metric.items() if v.items is not None}
                out.sets.setdefault(group, []).append(
                    _set_row(out, rec["_line"], rec, values, list(values))
                )
    elif out._json_items:
        for group, per_metric in out._json_items.items():
            sizes = {len(v.items) for v in per_metric.values() if v.items is not None}
            n = max(sizes, default=0)
            for k in range(n):
                values = {
                    name: v.items[k]
                    for name, v in per_metric.items()
                    if v.items is not None and len(v.items) == n
                }
                out.sets.setdefault(group, []).append(
                    SetRow(None, f"set {k + 1}", values={k2: float(x) for k2, x in values.items()})
                )
    for group, labels in out._labels.items():
        rows_ = out.sets.get(group, [])
        if len(labels) == len(rows_):
            for row, lab in zip(rows_, labels):
                if row.responses is None or len(lab) == len(row.responses):
                    row.labels = [int(x) for x in lab]
    for group, rows_ in out.sets.items():
        for row in rows_:
            if row.human is not None:
                out.human_sets.append({"system": group, "human": row.human, **row.values})
            if group not in out.systems:
                out.systems[group] = {}


def _set_row(
    out: Collected, line: int, base: dict[str, Any], values_from: dict[str, Any], metrics: list[str]
) -> SetRow:
    values = {}
    for m in metrics:
        v = _num(values_from.get(m))
        if v is not None:
            values[m] = v
    responses = base.get("responses")
    if isinstance(responses, str):  # an items CSV cell
        try:
            responses = json.loads(responses)
        except json.JSONDecodeError:
            responses = None
    if not (isinstance(responses, list) and all(isinstance(t, str) for t in responses)):
        responses = [base["response"]] if isinstance(base.get("response"), str) else None
    return SetRow(
        line,
        _prompt(base, f"line {line}"),
        values,
        responses,
        human=_num(base.get(out.human)),
        sampling=_sampling(base.get("sampling")),
    )


_READERS: dict[str, Callable[[Collected, str, Any, set[str]], None]] = {
    "score": add_run,
    "score-by": add_run,
    "level": _add_level,
    "across": _add_across,
    "length-bias": _add_length_bias,
    "tevet": _add_tevet,
    "correlate": _add_correlate,
    "compare": _add_compare,
    "leaderboard": _add_leaderboard,
    "summary": _add_summary,
    "rate-systems": _rate_rows("human_systems"),
    "rate-sets": _rate_rows("human_sets"),
    "raters": _add_raters,
    "items": _add_items,
    "responses": _add_records,
}
