"""Bounds every transport and every worker applies to what it receives, in one place.

A task plan larger than ``MAX_PLAN_BYTES`` is refused by the transport that carries it
(before it is buffered whole, where the protocol allows) and again by the worker that
decodes it; a transport may be configured lower, never higher.
"""

from __future__ import annotations

from typing import Final

MAX_PLAN_BYTES: Final = 16 * 1024 * 1024
