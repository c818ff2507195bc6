"""How a join is distributed: one side broadcast to the other's tasks, both sides shuffled
on the keys, or both in one task; chosen by ``planner.physical.stages`` for each join it cuts."""

from __future__ import annotations

from typing import Literal

from sparkwire.planner.optimizer.estimates import estimate_bytes
from sparkwire.planner.logical.plan import Join, JoinType

JoinStrategy = Literal["broadcast_right", "broadcast_left", "shuffle", "single"]


def join_strategy(op: Join, threshold: int) -> tuple[JoinStrategy, str]:
    """How a join is distributed (Daft's and datafusion-distributed's reasoning).

    A side may be broadcast only when the join never emits its unmatched rows: every
    consumer task sees all of it, so each task would emit them once more. That allows the
    right side of inner, left, semi, anti and cross joins and the left side of inner,
    right and cross joins. A null-aware anti join always broadcasts its right side (a NULL
    anywhere in it decides every row); a join without keys broadcasts whichever side it
    may, and a full join without keys gathers both sides into one task. A side hinted to be
    broadcast (``Join.broadcast``) is, where it may be, as Spark honours the hint. Otherwise the
    smaller side under ``threshold`` (estimated bytes) is broadcast, or both are shuffled;
    a threshold of 0 never broadcasts by size.
    """
    left_ok, right_ok = duplicable(op.how)
    if op.null_aware:
        return "broadcast_right", "broadcast right (NOT IN: a NULL anywhere on the right decides every row)"
    hinted = _hinted(op, left_ok, right_ok)
    if hinted is not None:
        return hinted, f"{hinted.replace('_', ' ')} (a broadcast hint)"
    if not op.left_keys:
        if right_ok:
            return "broadcast_right", "broadcast right (no equality keys to hash on)"
        if left_ok:
            return "broadcast_left", "broadcast left (no equality keys to hash on)"
        return "single", "both sides in one task (a full join without equality keys)"
    if threshold <= 0:
        return "shuffle", "shuffle both sides (broadcast_threshold is 0)"
    right_bytes, left_bytes = estimate_bytes(op.right), estimate_bytes(op.left)
    sizes = f"left ≈{size_text(left_bytes)}, right ≈{size_text(right_bytes)}, threshold {size_text(threshold)}"
    if right_ok and right_bytes <= threshold and (not left_ok or right_bytes <= left_bytes):
        return "broadcast_right", f"broadcast right ({sizes})"
    if left_ok and left_bytes <= threshold:
        return "broadcast_left", f"broadcast left ({sizes})"
    if not (left_ok or right_ok):
        return "shuffle", f"shuffle both sides (a {op.how} join emits both sides' unmatched rows)"
    return "shuffle", f"shuffle both sides ({sizes})"


def _hinted(op: Join, left_ok: bool, right_ok: bool) -> JoinStrategy | None:
    """The strategy a broadcast hint asks for, when the join type allows it (Spark
    ignores a hint it cannot follow, with a warning)."""
    if op.broadcast == "right" and right_ok:
        return "broadcast_right"
    if op.broadcast == "left" and left_ok:
        return "broadcast_left"
    return None


def duplicable(how: JoinType) -> tuple[bool, bool]:
    """Whether the left and the right side of a ``how`` join may be read whole by several
    tasks that each hold a share of the other side: a side whose unmatched rows the join
    never emits. The rule of broadcasting, and of adaptive execution's switch to a
    broadcast and split of a skewed partition (``coordinator.adaptive``)."""
    return how in ("inner", "right", "cross"), how in ("inner", "left", "semi", "anti", "cross")


def size_text(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"
