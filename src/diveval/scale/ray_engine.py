"""``diveval.score(..., engine="ray")``: the same metrics, with the same numbers, on a Ray cluster.

Ray Data carries the input (rows of sets, or rows of texts) in order (``preserve_order``), and:

* sets setting: every metric is per set, so consecutive batches of sets are scored where Ray puts
  them and joined (:func:`diveval.scale.combine.join_set_scores`). Metrics with a model (NLI,
  embeddings, LSDSCC, BERTScore) run in an actor pool: each actor loads its models once and keeps
  them for every batch it is given (``concurrency`` actors, ``num_gpus`` each when the cluster has
  GPUs); inside a batch the metric deduplicates its pairs and texts as in one process, and the
  model cache (``cache_dir``) is shared by every actor on a machine.
* corpus setting: each metric is reduced from the state its row names (``Metric.state``,
  :mod:`diveval.state`): one-pass states are built per batch of rows and merged in order;
  two-pass states (Self-BLEU) merge their pass-1 summaries, which every batch then reads for pass
  2. States of metrics with a model or with per-item options (references) run as one task per
  block of texts (the model loads once per task, the options are sliced with the texts) and
  merge as shard files do. A metric whose row names no state runs as one Ray task on the whole
  input.

The input is a list (read on the driver) or a Ray Dataset of one column, ``responses`` or
``text``, read on the cluster by :func:`diveval.scale.ray_read.read_dataset` (JSON lines, Parquet,
a ``datasets`` folder): sets and the corpus states then never pass through the driver.

Ray is imported here only: a user without Ray never imports it.
"""

from __future__ import annotations

import os
import pickle
import re
import warnings
from typing import Any, Callable, Iterable

import numpy as np

from ..data import as_setting
from ..errors import InputError
from ..models.devices import SETTINGS_OPTIONS, ModelSettings
from ..registry import PER_ITEM_OPTIONS, Metric, check_options, get_metric, metrics_for
from ..results import CORPUS, Score
from .combine import join_set_scores, per_item_options
from .engine import EngineOptions, is_ray_dataset
from .local import score as score_here
from .ray_read import dataset_setting
from .ray_session import ray_initialized, start_ray
from .shards import merge_shards, score_part, shard_slice


def _takes_remote_args(ray) -> bool:
    """Whether ``Dataset.map_batches`` still takes extra Ray remote arguments (``max_restarts``)."""
    import inspect

    params = inspect.signature(ray.data.Dataset.map_batches).parameters.values()
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def _caught(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[tuple]]:
    """``fn(*args, **kwargs)`` and the Python warnings it gave (a damaged score cache...). A Ray
    worker's stderr reaches no terminal, so the driver gives them again (:func:`_rewarn`), as
    one process would. Categories travel by name: unpickling a class could fail on the driver."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")  # the driver's filters decide, as for its own warnings
        out = fn(*args, **kwargs)
    said = [
        (f"{w.category.__module__}:{w.category.__qualname__}", str(w.message), w.filename, w.lineno)
        for w in seen
    ]
    return out, said


#: warnings given again on the driver, once per message and place, as Python's own registry does
_REWARNED: dict = {}


def _rewarn(said: Iterable[tuple]) -> None:
    import importlib

    for category_name, message, filename, lineno in said:
        module, _, name = category_name.partition(":")
        try:
            category = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            category = UserWarning
        if not (isinstance(category, type) and issubclass(category, Warning)):
            category = UserWarning
        warnings.warn_explicit(message, category, filename, lineno, registry=_REWARNED)


def _score_batch(batch: dict, names: list[str], options: dict) -> dict:
    """Score one batch of sets locally (inside a Ray task or actor); the per-item options
    (references, reference groups) travel in the rows, pickled."""
    sets = [list(map(str, s)) for s in batch["responses"]]
    per_item = [pickle.loads(x) for x in batch["per_item"]]
    opts = dict(options)
    for key in per_item[0] if per_item else {}:
        opts[key] = [p[key] for p in per_item]
    scores, said = _caught(score_here, sets, names, **opts)
    return {
        "scores": np.array([pickle.dumps(scores)], dtype=object),
        "warnings": np.array([pickle.dumps(said)], dtype=object),
    }


class _ModelScorer:
    """An actor of the pool: the metric's models load on its first batch and stay loaded (the
    model registry caches them per process, and an actor is one process)."""

    def __init__(self, names: list[str], options: dict):
        self.names, self.options = names, options

    def __call__(self, batch: dict) -> dict:
        return _score_batch(batch, self.names, self.options)


def _state_batch(batch: dict, metrics: list[Metric], options: dict, summary: bool = False) -> dict:
    """Each metric's state of one batch of texts (pass 1 of a two-pass state: its ``summary``).
    The rows travel with the task, so a metric registered on the driver only works too; the
    states go back through Ray's cloudpickle for the same reason (a class defined there)."""
    from ray import cloudpickle

    texts = [str(t) for t in batch["text"]]
    out = {}
    for metric in metrics:
        state = metric.make_state(options)
        state.update(texts)
        out[metric.name] = state.summary() if summary else state
    return {"states": np.array([cloudpickle.dumps(out)], dtype=object)}


def _second_pass_batch(batch: dict, tables: Any) -> dict:
    import ray

    texts = [str(t) for t in batch["text"]]
    values = {name: state.score(texts) for name, state in ray.get(tables).items()}
    return {"values": np.array([pickle.dumps(values)], dtype=object)}


def _collect(ds, column: str) -> list:
    rows = ds.take_all()
    for r in rows:
        if "warnings" in r:
            _rewarn(pickle.loads(r["warnings"]))
    return [pickle.loads(r[column]) for r in rows]


def _merge_all(states: list) -> Any:
    return states[0].merge(*states[1:])


def score(
    data: Any,
    metrics: Iterable[str] | None = None,
    run_on: EngineOptions | None = None,
    *,
    models: ModelSettings | None = None,
    **options: Any,
) -> dict[str, Score]:
    """:func:`diveval.score` on Ray; same arguments, same results. ``run_on`` holds the engine's
    options (:class:`~diveval.scale.engine.EngineOptions`); ``options`` are the metrics';
    ``models``: the model settings the caller resolved (None: those of ``options``).

    address: a running cluster (``"auto"``: the one last started on this machine,
    ``"ray://host:10001"``); None starts a Ray of this call's own (unless ``RAY_ADDRESS`` is set),
    never joining one that happens to run on the machine. concurrency: actors in the model pool
    (default: the cluster's CPUs, at most 4). num_gpus: GPUs per actor. batch_rows: sets (or
    texts) per batch. verbose: a Ray that this call starts shows its own logs and the workers'
    output (quiet by default).
    """
    run_on = run_on or EngineOptions(engine="ray")
    options = settings_as_options(options, models)
    address, concurrency = run_on.address, run_on.concurrency
    num_gpus, batch_rows = run_on.num_gpus, run_on.batch_rows

    if is_ray_dataset(data):
        try:
            setting, items = dataset_setting(data), data
        except Exception as exc:
            raise _worker_input_error(exc) or exc from None
    else:
        setting, items = as_setting(data)
    chosen = metrics_for(metrics, setting)
    names = [m.name for m in chosen]
    check_options(options, chosen)  # a typo fails here, before a cluster starts
    # a Ray this call starts on this machine, not a cluster the user runs
    own_local = not (address or os.environ.get("RAY_ADDRESS")) and ray_initialized() is False
    ray = start_ray(address, run_on.verbose)
    options.pop("progress", None)  # Ray shows no per-run bars on workers
    keys = [k for k in PER_ITEM_OPTIONS if options.get(k) is not None]
    if keys and is_ray_dataset(items):
        raise InputError(
            f"{', '.join(keys)}: one value per item; with a Ray Dataset input, give a list instead"
        )
    try:
        if setting == CORPUS:
            return _score_corpus(ray, items, names, batch_rows or 50_000, options, num_gpus)
        actors: dict[str, Any] = {"num_gpus": num_gpus or None}
        if own_local and _takes_remote_args(ray):
            # Ray Data's actors restart on failure by default, and Ray then logs an error line on
            # stderr for every pool whose constructor takes an object reference (which Ray Data
            # always passes; ray-project/ray#57733). On one machine diveval started itself, a
            # failed model actor fails the run instead (the score cache keeps the work done).
            actors["max_restarts"] = 0
        return _score_sets(ray, items, chosen, keys, concurrency, batch_rows, options, actors)
    except Exception as exc:
        raise _worker_input_error(exc) or exc from None


def settings_as_options(options: dict, models: ModelSettings | None) -> dict:
    """``options`` with the caller's resolved ``models`` in place of their loose keywords (device,
    precision, batch_size, cache_dir): every path of a Ray run (workers' runs, corpus states,
    blocks) resolves its settings again from the options, so the settings travel as those."""
    if models is None:
        return options
    loose = {k: getattr(models, k) for k in SETTINGS_OPTIONS}
    return {**options, **{k: v for k, v in loose.items() if v is not None}}


def _worker_input_error(exc: BaseException) -> InputError | None:
    """The InputError a Ray worker raised, out of Ray's wrappers (which add the worker's traceback
    to the message), so the user sees the one-line error."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            break
        if isinstance(seen, InputError) and type(seen).__module__.startswith("diveval"):
            return seen
        seen = getattr(seen, "cause", None) or seen.__cause__
    # Ray Data passes a failed batch's error on as text only
    found = re.search(r"diveval\.errors\.InputError: (.+)", str(exc))
    return InputError(found.group(1).strip()) if found else None


def _score_sets(
    ray,
    items: Any,
    chosen: list[Metric],
    keys: list[str],
    concurrency: int | None,
    batch_rows: int | None,
    options: dict,
    actors: dict[str, Any],
) -> dict[str, Score]:
    names = [m.name for m in chosen]
    cpus = int(ray.cluster_resources().get("CPU", 1))
    pool = concurrency or max(1, min(4, cpus))
    if is_ray_dataset(items):
        no_options = pickle.dumps({})
        # read (and checked) into the cluster's object store first: reading tasks that wait
        # for CPUs held by the actor pool below would never run on a small cluster
        rows = items.map_batches(
            lambda b: {**b, "per_item": np.array([no_options] * len(b["responses"]), object)},
            batch_format="numpy",
        ).materialize()
        size = batch_rows or 1000
    else:
        per_item = [{k: options[k][i] for k in keys} for i in range(len(items))]
        rows = ray.data.from_items(
            [{"responses": list(s), "per_item": pickle.dumps(p)} for s, p in zip(items, per_item)]
        )
        size = batch_rows or max(1, -(-len(items) // (2 * pool)))
    options = {k: v for k, v in options.items() if k not in keys}
    # a metric that loads a model runs in the actor pool, which loads it once per actor
    model_names = [m.name for m in chosen if m.model is not None]
    plain_names = [m.name for m in chosen if m.name not in model_names]
    parts: dict[str, list[Score]] = {n: [] for n in names}
    if plain_names:
        _gather(_map_rows(rows, _score_batch, size, names=plain_names, options=options), parts)
    if model_names:
        with warnings.catch_warnings():
            # Ray Data takes max_restarts only among its (deprecated) extra remote arguments
            warnings.filterwarnings("ignore", message="`ray_remote_args` is deprecated")
            done = rows.map_batches(
                _ModelScorer,
                batch_size=size,
                fn_constructor_kwargs={"names": model_names, "options": options},
                compute=ray.data.ActorPoolStrategy(size=pool),
                **actors,
                batch_format="numpy",
            )
        _gather(done, parts)
    return {n: join_set_scores(parts[n]) for n in names}


def _map_rows(rows: Any, function: Any, size: int, **kwargs: Any) -> Any:
    """``function`` over ``rows`` in numpy batches of ``size`` rows, with keyword arguments."""
    return rows.map_batches(function, batch_size=size, fn_kwargs=kwargs, batch_format="numpy")


def _gather(done: Any, parts: dict[str, list[Score]]) -> None:
    """Each batch's scores appended, in input order, to ``parts`` (per metric)."""
    for batch_scores in _collect(done, "scores"):
        for n, s in batch_scores.items():
            parts[n].append(s)


def _score_corpus(
    ray, texts: Any, names: list[str], size: int, options: dict, num_gpus: float
) -> dict:

    rows = texts if is_ray_dataset(texts) else ray.data.from_items([{"text": t} for t in texts])
    metrics = [get_metric(n) for n in names]
    per_item = any(options.get(k) is not None for k in PER_ITEM_OPTIONS)
    # by block: states that load a model or read per-item options; by batch of rows: the others
    blocked = [m.name for m in metrics if m.state is not None and (per_item or m.model is not None)]
    one_pass = [m for m in metrics if m.state and m.passes == 1 and m.name not in blocked]
    two_pass = [m for m in metrics if m.state and m.passes == 2 and m.name not in blocked]
    results: dict[str, Score] = {}
    if one_pass:
        done = _map_rows(rows, _state_batch, size, metrics=one_pass, options=options)
        batches = _collect(done, "states")  # in input order (preserve_order)
        for m in one_pass:
            state = _merge_all([b[m.name] for b in batches])
            results[m.name] = state.result().with_metric(m.name)
    if two_pass:
        pass1 = _map_rows(rows, _state_batch, size, metrics=two_pass, options=options, summary=True)
        batches = _collect(pass1, "states")
        merged = {m.name: _merge_all([b[m.name] for b in batches]) for m in two_pass}
        tables = ray.put(merged)
        pass2 = _map_rows(rows, _second_pass_batch, size, tables=tables)
        values = [pickle.loads(r["values"]) for r in pass2.take_all()]
        for name in merged:
            per = np.concatenate([v[name] for v in values])
            results[name] = merged[name].result(per).with_metric(name)
    if is_ray_dataset(texts) and any(n not in results for n in names):
        # the metrics below take the texts on the driver (in blocks, or whole)
        texts = [str(r["text"]) for r in texts.take_all()]
    if blocked:  # per-item ref-* scores, pooled BLEU statistics, Vendi Gram states: by block
        results.update(_score_corpus_blocks(ray, texts, blocked, size, options, num_gpus))
    rest = [n for n in names if n not in results]
    if rest:  # no mergeable state: one task over the whole input, same code as one process
        scores, said = ray.get(ray.remote(_caught).remote(score_here, texts, rest, **options))
        _rewarn(said)
        results.update(scores)
    # the states' Scores get the script and language warnings one process gives (a sample)
    sample = [str(r["text"]) for r in texts.take(64)] if is_ray_dataset(texts) else texts
    return {n: get_metric(n).language_checked(results[n], sample, options) for n in names}


def _score_corpus_blocks(
    ray, texts: list, names: list[str], size: int, options: dict, num_gpus: float
) -> dict:
    """Corpus metrics that shards can carry (see :mod:`diveval.scale.shards`), one Ray task per
    block of ``size`` texts (per-item options sliced with them), merged as shard files are."""

    count = max(1, -(-len(texts) // size))
    task = ray.remote(num_gpus=num_gpus)(_caught) if num_gpus else ray.remote(_caught)
    futures = []
    for i in range(count):
        span = shard_slice(len(texts), i, count)
        opts = per_item_options(options, span)
        part = (CORPUS, texts[span], names, opts, (i, count), len(texts))
        futures.append(task.remote(score_part, *part))
    shards = []
    for shard, said in ray.get(futures):
        _rewarn(said)
        shards.append(shard)
    return merge_shards(shards)
