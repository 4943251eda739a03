"""Context adaptation of added references (the paper rewrites retrieved turns with DELOREAN so
they fit the target context). A ``ContextAdapter`` takes a candidate reference, the context it
came from and the context it is going to, and returns the rewritten reference (or None to drop
it). diveval ships only the identity adapter: no DELOREAN-style rewriter (it needs a generative
language model and gradient-based decoding) is bundled; plug one in through the protocol.
"""

from __future__ import annotations

from typing import Protocol, Sequence


class ContextAdapter(Protocol):
    name: str

    def adapt(
        self, reference: str, source_context: Sequence[str], target_context: Sequence[str]
    ) -> str | None: ...


class IdentityAdapter:
    """Keeps the reference as it is (the default)."""

    name = "identity"

    def adapt(
        self, reference: str, source_context: Sequence[str], target_context: Sequence[str]
    ) -> str | None:
        return reference
