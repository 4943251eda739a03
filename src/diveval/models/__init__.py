"""Model backends behind small protocols (NLIModel, Embedder, Generator) and score caching.

A run's model settings (device, precision, batch size, threads, score cache) are resolved once,
into a frozen ``ModelSettings`` (``devices.py``), where the run starts; the run's context carries
them, and a metric row that declares a model (``Metric.model``) gets the model loaded once with
them, never loose ``device=`` keywords. ``diveval score -m sent-bert --device cpu``, file by file (``tests/models/test_call_path.py``
counts them):

1. ``cli.py``: ``--device cpu`` checked once, before the input is read -> ``ModelSettings``.
2. ``commands/score.py``: reads the input, hands the settings to ``diveval.score``.
3. ``api.py``: picks the engine (the settings resolved already: not checked again).
4. ``scale/local.py``: the run's ``RunContext`` carries the settings to every metric.
5. ``registry.py``: the ``sent-bert`` row (``model="embedder"``) calls its ``load``
   (``embedders.with_embedder``), then its function with the loaded embedder.
6. ``models/embedders.py``: the embedder, loaded once per process and settings; or, once loaded,
   ``semantic/embedding_diversity.py``: minus the mean pairwise cosine of ``embedder.encode``.

``cache.py`` keeps one embedding per text; ``devices.py`` holds the settings and asks torch for
"cpu" once, as the model loads.
"""
