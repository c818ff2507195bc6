"""``try_make_timestamp``, ``try_make_timestamp_ltz`` and ``try_make_timestamp_ntz``: the
``make_timestamp`` family (``planner.logical.functions.calendar``) giving NULL where those
fail, whatever the ANSI mode: a date that does not exist, an hour or minute out of range,
seconds below 0 or above 60 (60 without a fraction is the next minute, as there). Spark's
time-zone, ``date`` and ``time`` arguments are not supported (as for ``make_timestamp``)."""

from __future__ import annotations

from sparkwire.planner.logical.functions.base import plain

FUNCTIONS = tuple(plain(name, 6) for name in (
    "try_make_timestamp", "try_make_timestamp_ltz", "try_make_timestamp_ntz"))
