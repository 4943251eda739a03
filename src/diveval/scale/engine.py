"""Which engine runs a scoring call, and the options that belong to the engine, not the metrics.

Engine options (where to run, how many workers, how big a batch) travel apart from metric options
(tokenizer, models, references): a metric never sees them, and a signature never records them,
since they cannot change a number.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Optional

from ..errors import InputError

ENGINES = ("local", "ray")


def is_ray_dataset(data: Any) -> bool:
    """Whether ``data`` is a Ray Dataset (duck-typed: Ray is not imported here), whose rows are
    read on the cluster."""
    return type(data).__module__.startswith("ray.data") and hasattr(data, "map_batches")


@dataclass(frozen=True)
class EngineOptions:
    """``engine``: "local" (this process) or "ray". The rest are Ray's: ``address`` of a running
    cluster ("auto", "ray://host:10001"; None starts a local Ray), ``concurrency`` (actors in the
    model pool; default the cluster's CPUs, at most 4), ``num_gpus`` per actor, ``batch_rows``
    (sets or texts per batch), ``verbose`` (Ray's own logs on the terminal; quiet by default)."""

    engine: str = "local"
    address: Optional[str] = None
    concurrency: Optional[int] = None
    num_gpus: float = 0
    batch_rows: Optional[int] = None
    verbose: bool = False

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise InputError(f"unknown engine {self.engine!r}; choose 'local' or 'ray'")
        if self.concurrency is not None and self.concurrency < 1:
            raise InputError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.engine == "local":
            given = [f.name for f in fields(self)[1:] if getattr(self, f.name) not in (None, 0)]
            if given:
                raise InputError(f"{', '.join(given)}: options of engine='ray', not 'local'")

    @classmethod
    def split(cls, engine: Any, options: dict[str, Any]) -> tuple[EngineOptions, dict[str, Any]]:
        """(engine options, metric options) from ``score``'s arguments: ``engine`` is a name or an
        EngineOptions; Ray's own keywords may also come among the options, as they always could."""
        names = {f.name for f in fields(cls)} - {"engine"}
        picked = {k: options[k] for k in names if k in options}
        rest = {k: v for k, v in options.items() if k not in names}
        if isinstance(engine, EngineOptions):
            if picked:
                raise InputError(f"{', '.join(sorted(picked))}: give them in the EngineOptions")
            return engine, rest
        return cls(engine=engine, **picked), rest
