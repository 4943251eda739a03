"""``diveval.torchmetrics.DiversityMetric``: the torchmetrics Metric of
:mod:`diveval.integrations.torchmetrics`, under a shorter name."""

from __future__ import annotations

from diveval.integrations.torchmetrics import DiversityMetric

__all__ = ["DiversityMetric"]
