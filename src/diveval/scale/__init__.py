"""Past one process: mergeable metric states (see :mod:`diveval.scale.states`)."""

from .states import GramState, NgramState, SelfBleuState

__all__ = ["GramState", "NgramState", "SelfBleuState"]
