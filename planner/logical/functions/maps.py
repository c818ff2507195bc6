"""Map functions of the registry beyond ``map_keys``/``map_values`` (``collections``), with
Spark's semantics; types: ``planner.logical.array_types``; the worker's builders:
``coordinator.worker.compile.calls_maps``.

- ``map_from_arrays``, ``map_from_entries`` and ``map_concat`` fail on a duplicate key
  (Spark's default ``mapKeyDedupPolicy`` ``EXCEPTION``, ``DUPLICATED_MAP_KEY``) and on a
  NULL key (``NULL_MAP_KEY``), and are NULL where an argument is;
- ``map_concat`` takes maps of one type (Spark would widen; sparkwire asks for the cast);
- ``map_entries`` is an array of ``struct<key, value>``;
- ``str_to_map(text, pairDelim=',', keyValueDelim=':')`` splits ``text`` at every match of
  the pair delimiter, then each pair at the first match of the key-value delimiter (a pair
  without one has a NULL value); both delimiters are Java regexes, given as literals and
  checked as the other patterns are (``planner.logical.literal_args``).
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, plain


def str_to_map(text: Expr, pair_delimiter: Expr = Lit(value=","),
               key_value_delimiter: Expr = Lit(value=":")) -> Expr:
    return checked_call("str_to_map", text, pair_delimiter, key_value_delimiter)

FUNCTIONS = (
    plain("map_contains_key", 2),
    plain("map_entries"),
    plain("map_from_arrays", 2),
    plain("map_from_entries"),
    plain("map_concat", (1, None)),
    Function.of("str_to_map", str_to_map),
)
