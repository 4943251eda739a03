"""Past one process: mergeable metric states (see :mod:`diveval.scale.states`)."""

from .states import NgramState

__all__ = ["NgramState"]
