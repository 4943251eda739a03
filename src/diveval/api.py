"""``diveval.score`` / ``diveval.metrics``: validate the call, then hand it to an engine.

The engines (:mod:`diveval.scale`) do the work and never import this module.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Union

from .data import as_setting, count_responses, select_column, without_empty
from .errors import InputError
from .meta.estimation.at_k import score_at_k
from .models.devices import ModelSettings, resolve_settings
from .models.threads import set_threads
from .options import AT_K_OPTIONS
from .registry import PER_ITEM_OPTIONS, all_metrics
from .scale.engine import EngineOptions, is_ray_dataset
from .scale.local import Scores
from .scale.local import score as score_here

__all__ = ["EngineOptions", "Scores", "metrics", "score"]


def score(
    data: Any,
    metrics: Iterable[str] | None = None,
    *,
    engine: Union[str, EngineOptions] = "local",
    models: ModelSettings | None = None,
    **options: Any,
) -> Scores:
    """Score a corpus (list of str) or sets (list of lists of str) with registered metrics.

    metrics: registry names (``diveval.metrics()`` lists them); by default the lexical metrics
    that support the input's setting, of which those undefined on this input are skipped and
    listed in the result's ``skipped`` (all of them undefined is an error). options: tokenizer,
    lowercase, vocab, nli_model, ... each metric takes the ones it declares; ``threads`` sets the
    CPU threads of the model backends for the whole process (see ``diveval.models.threads``).

    data may also be a numpy array, a pandas Series, or a DataFrame with ``column=`` naming the
    text column (strings: corpus; lists of strings: sets).
    Empty responses (blank or whitespace only) are skipped as ``diveval score`` skips them in a
    file: a set left with none is left out (so are its per-item options), a UserWarning says
    which, the result's ``skipped_empty`` counts them, and an input with none left is an
    InputError.
    engine: ``"local"`` (this process), ``"ray"`` (a Ray cluster, same results), or an
    :class:`EngineOptions` (Ray's ``address``, ``concurrency``, ``num_gpus``, ``batch_rows``,
    ``verbose``; also accepted as keywords beside ``engine="ray"``).
    models: the :class:`~diveval.models.devices.ModelSettings` the caller already resolved from
    these options (the CLI does, before it reads the input); None: resolved here.

    >>> score([["a b", "a c"]], metrics=["distinct-1"])["distinct-1"].value
    0.75
    """
    data = select_column(data, options.pop("column", None))
    skipped, empty = None, 0
    if not is_ray_dataset(data):  # a Ray Dataset's rows are read on the cluster, not here
        setting, items = as_setting(data)
        n_items = count_responses(setting, items)
        data, options, skipped = without_empty(setting, items, options, PER_ITEM_OPTIONS)
        empty = n_items - count_responses(setting, data)
    # the model keywords (device=, precision=, batch_size=, cache_dir=, threads=) checked and
    # resolved once, here or by the caller, into the settings every model of the run loads with
    if models is None:
        models = resolve_settings(options)
    if options.pop("threads", None) is not None:  # process-wide: the backends' CPU threads
        set_threads(models.threads)
    run_on, options = EngineOptions.split(engine, options)
    at_k = {k: options.pop(k) for k in AT_K_OPTIONS if k in options}
    if at_k.get("at_k") is not None:  # every metric at K responses per set (meta.estimation.at_k)
        if run_on.engine == "ray":
            raise InputError("at_k runs in this process: not with engine='ray'")
        return _warned(score_at_k(data, metrics, models=models, **at_k, **options), skipped, empty)
    if any(v is not None for v in at_k.values()):
        raise InputError("at_k_draws and at_k_seed go with at_k")
    if run_on.engine == "ray":
        from .scale.ray_engine import score as score_on_ray

        return _warned(
            Scores(score_on_ray(data, metrics, run_on, models=models, **options)), skipped, empty
        )
    return _warned(score_here(data, metrics, models=models, **options), skipped, empty)


def _warned(scores: Scores, warning: str | None, skipped: int) -> Scores:
    """``scores`` of an input whose ``skipped`` empty responses were left out: said as a
    warning (``warning``: which) and kept as ``scores.skipped_empty``. Not in the Scores'
    details: the same texts give the same details by every engine and integration."""
    scores.skipped_empty = skipped
    if warning is not None:
        warnings.warn(f"diveval.score: {warning}", UserWarning, stacklevel=3)
    return scores


def metrics() -> dict[str, str]:
    """{name: one-line description} of every registered metric."""
    return {name: m.description for name, m in all_metrics().items()}
