"""Which transport to use, as data.

A transport is chosen by ``kind`` (a registry name) and configured by ``options``, the
keyword arguments of its class. Keeping the options an open mapping rather than a closed
union of per-transport models is deliberate: a third-party transport registered through the
entry-point group is configured exactly like a built-in one, and this module never imports a
backend. The transport's constructor validates its own options. ``security`` is typed, not an
option, because it holds a secret and applies to every transport alike (``transport.security``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sparkwire.transport.security import Security


class TransportConfig(BaseModel):
    """``SPARKWIRE_TRANSPORT__KIND=memory``; options as ``SPARKWIRE_TRANSPORT__OPTIONS__X``."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(default="memory", min_length=1, max_length=64)
    options: dict[str, Any] = Field(default_factory=dict)
    security: Security = Field(default_factory=Security)
