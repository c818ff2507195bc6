"""Window frames as Spark fixes them, in one place for the analyzer and for naming.

An aggregate over a window reads the frame the user gave, else Spark's default: with an
``ORDER BY``, ``RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`` (the current row's
peers, rows with equal order keys, are all inside); without one, the whole partition
(``ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING``). Ranking and offset
functions have a frame of their own, which a user's frame must equal (Spark refuses any
other): ``ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`` for the ranks and ``ntile``,
the same as ``RANGE`` for ``cume_dist``, and the one row ``n`` before (``lag``) or after
(``lead``) for the offsets. ``nth_value`` reads its frame as an aggregate does.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import AggCall, Frame, WindowCall

WHOLE_PARTITION = Frame(unit="rows", start=None, end=None)
UP_TO_PEERS = Frame(unit="range", start=None, end=0)
UP_TO_ROW = Frame(unit="rows", start=None, end=0)


def effective(function: AggCall | WindowCall, frame: Frame | None, ordered: bool) -> Frame:
    """The frame ``function`` runs over: its required one, the user's, or the default."""
    required = required_frame(function)
    if required is not None:
        return required
    if frame is not None:
        return frame
    return UP_TO_PEERS if ordered else WHOLE_PARTITION


def required_frame(function: AggCall | WindowCall) -> Frame | None:
    """The frame a ranking or offset function always has; None for aggregates and
    ``nth_value``."""
    if isinstance(function, AggCall) or function.fn == "nth_value":
        return None
    if function.fn == "cume_dist":
        return UP_TO_PEERS
    if function.fn in ("lag", "lead"):
        n = function.offset if function.fn == "lead" else -function.offset
        return Frame(unit="rows", start=n, end=n)
    return UP_TO_ROW


def bound_text(value: int | None, unbounded: str) -> str:
    """A bound as Spark prints it in column names (``-1 FOLLOWING`` for one row before)."""
    if value is None:
        return f"UNBOUNDED {unbounded}"
    return "CURRENT ROW" if value == 0 else f"{value} FOLLOWING"


def frame_text(frame: Frame) -> str:
    start = bound_text(frame.start, "PRECEDING")
    end = bound_text(frame.end, "FOLLOWING")
    return f"{frame.unit.upper()} BETWEEN {start} AND {end}"
