"""Past one process: the engines (local, shards, streaming, Ray). They split the input and merge
the states each metric row names (``Metric.state``, :mod:`diveval.state`); each state lives beside
the metric that owns it (:mod:`diveval.lexical.ngram_state`, :mod:`diveval.semantic.gram_state`,
...)."""
