"""diveval where users already aggregate: a torchmetrics Metric (:mod:`.torchmetrics`), a Ray
Data aggregation (:mod:`.ray`) and a transformers TrainerCallback (:mod:`.transformers`).

None re-implements a metric: each carries the metric's own mergeable state (see
:mod:`diveval.state`) through the host's aggregation, so its numbers are those of
``diveval.score``. Each module imports its host library; ``import diveval`` imports none of them.
"""
