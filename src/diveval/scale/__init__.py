"""Past one process: mergeable metric states (see :mod:`diveval.scale.states`)."""

from .states import NgramState, SelfBleuState

__all__ = ["NgramState", "SelfBleuState"]
