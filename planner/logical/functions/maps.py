"""Map functions of the registry beyond ``map_keys``/``map_values`` (``collections``), with
Spark's semantics; types: ``planner.logical.array_types``; the worker's builders:
``coordinator.worker.compile.calls_maps``.

- ``map_from_arrays``, ``map_from_entries`` and ``map_concat`` fail on a duplicate key
  (Spark's default ``mapKeyDedupPolicy`` ``EXCEPTION``, ``DUPLICATED_MAP_KEY``) and on a
  NULL key (``NULL_MAP_KEY``), and are NULL where an argument is;
- ``map_concat`` takes maps of one type (Spark would widen; sparkwire asks for the cast);
- ``map_entries`` is an array of ``struct<key, value>``.
"""

from __future__ import annotations

from sparkwire.planner.logical.functions.base import plain

FUNCTIONS = (
    plain("map_contains_key", 2),
    plain("map_entries"),
    plain("map_from_arrays", 2),
    plain("map_from_entries"),
    plain("map_concat", (1, None)),
)
