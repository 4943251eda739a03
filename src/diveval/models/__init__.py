"""Model backends behind small protocols (NLIModel, Embedder, Generator) and score caching.

A run's model settings (device, precision, batch size, threads, score cache) are resolved once,
into a frozen ``ModelSettings`` (``devices.py``), where the run starts; the run's context carries
them, and a metric row that declares a model (``Metric.model``) gets the model loaded once with
them, never loose ``device=`` keywords. ``diveval score -m sent-bert --device cpu``, file by file:

1. ``commands/score.py``: ``--device cpu`` -> the options ``{"device": "cpu"}`` -> ``diveval.score``.
2. ``api.py``: ``resolve_settings(options)`` -> ``ModelSettings(device="cpu", precision="fp32")``.
3. ``semantic/register.py``: the ``sent-bert`` row (``model="embedder"``) asks ``embedder_for``.
4. ``semantic/embedding_diversity.py``: minus the mean pairwise cosine of ``embedder.encode``.
5. ``models/embedders.py``: ``embedder_for`` -> ``resolve_embedder`` -> ``SentenceTransformer``.
6. ``models/devices.py``: ``ModelSettings.place`` asks torch for "cpu" once, as the model loads.

Between them, plumbing every metric shares: the CLI checks the same settings before it reads the
input (``cli.py``), the local engine puts them in the run's context (``scale/local.py``), the row
is called through ``registry.Metric.__call__``, and ``loaded.load_once`` / ``cache.py`` keep one
model and one embedding per text.
"""
