"""The map functions of ``planner.logical.functions.maps`` as DuckDB trees, gathered with the
others in ``calls.CALLS``. Where Spark (4) and DuckDB differ, Spark wins:

- a map built from arrays or entries, or concatenated, with a key twice fails with Spark's
  ``DUPLICATED_MAP_KEY`` (its default ``mapKeyDedupPolicy``; DuckDB's ``map_concat`` keeps
  the last value silently), with a NULL key with ``NULL_MAP_KEY``, and with key and value
  arrays of different lengths as Spark's check of their lengths does; a NULL argument,
  or a NULL entry of ``map_from_entries``, gives NULL;
- ``map_contains_key`` and ``map_entries`` are DuckDB's ``map_contains``/``map_entries``;
- ``str_to_map`` splits as Java's ``split(regex, -1)`` (empty pieces kept, DuckDB's
  ``regexp_split_to_array`` too), then each pair at the first key-value delimiter: the
  key is what precedes it, the value what follows (NULL without one); the map is built as
  ``map_from_arrays``' (a key twice fails). The delimiters reach DuckDB as literals (RE2,
  checked as Java regexes by the planner).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError, raise_error
from sparkwire.coordinator.worker.compile.nodes import call
from sparkwire.coordinator.worker.compile.templates import over, template

__all__ = ["MAP_CALLS", "checked_map"]

_X = "__sparkwire_x"
_DUPLICATE = raise_error(
    "DUPLICATED_MAP_KEY",
    'Duplicate map key was found, please check the input data. If you want to remove the '
    'duplicated keys, you can set "spark.sql.mapKeyDedupPolicy" to "LAST_WIN" so that the key '
    'inserted at last takes precedence.')
_NULL_KEY = raise_error("NULL_MAP_KEY", "Cannot use null as map key.")
_LENGTHS = raise_error(
    "_LEGACY_ERROR_TEMP_2169",
    "The key array and value array of MapData must have the same length.")
#: ``map(keys, values)`` checked as Spark builds a map: NULL keys, duplicates, lengths.
_FROM_ARRAYS = template(
    "CASE WHEN :k IS NULL OR :v IS NULL THEN NULL WHEN len(:k) <> len(:v) THEN :lengths "
    "WHEN list_count(:k) < len(:k) THEN :null_key "
    "WHEN len(list_distinct(:k)) < len(:k) THEN :duplicate ELSE map(:k, :v) END")
_KEYS = template(f"list_transform(:a, lambda {_X}: struct_extract_at({_X}, 1))")
_VALUES = template(f"list_transform(:a, lambda {_X}: struct_extract_at({_X}, 2))")
_ANY_NULL_ENTRY = template("CASE WHEN list_count(:a) < len(:a) THEN NULL ELSE :map END")
_CONCAT = template("CASE WHEN :total > cardinality(:map) THEN :duplicate ELSE :map END")


def checked_map(keys: exp.Expr, values: exp.Expr) -> exp.Expr:
    """``map(keys, values)`` failing as Spark's map building does (NULL when either is)."""
    return _FROM_ARRAYS(k=keys, v=values, lengths=_LENGTHS, null_key=_NULL_KEY, duplicate=_DUPLICATE)


_PAIRS = template("regexp_split_to_array(:s, :p)")
_KEY = template(f"list_transform(:pairs, lambda {_X}: CASE WHEN regexp_matches({_X}, :kv) "
                f"THEN regexp_extract({_X}, :first, 1) ELSE {_X} END)")
_VALUE = template(f"list_transform(:pairs, lambda {_X}: CASE WHEN regexp_matches({_X}, :kv) "
                  f"THEN regexp_extract({_X}, :first, 2) END)")


def _str_to_map(args: list[exp.Expr]) -> exp.Expr:
    if len(args) != 3:
        raise CompileError(f"str_to_map takes 3 arguments, got {len(args)}")
    text, pair, key_value = args
    delimiter = literal_text(key_value, "str_to_map's key-value delimiter")
    # the text before the first match, and after it ((?s): a pair may hold newlines)
    first = exp.Literal.string(f"(?s)^(.*?)(?:{delimiter})(.*)$")
    pairs = _PAIRS(s=text, p=pair)
    return checked_map(_KEY(pairs=pairs, kv=key_value, first=first),
                       _VALUE(pairs=pairs.copy(), kv=key_value.copy(), first=first.copy()))


def _map_from_arrays(args: list[exp.Expr]) -> exp.Expr:
    if len(args) != 2:
        raise CompileError(f"map_from_arrays takes 2 arguments, got {len(args)}")
    return checked_map(*args)


def _map_from_entries(args: list[exp.Expr]) -> exp.Expr:
    if len(args) != 1:
        raise CompileError(f"map_from_entries takes 1 argument, got {len(args)}")
    entries = args[0]
    built = checked_map(_KEYS(a=entries), _VALUES(a=entries))
    return _ANY_NULL_ENTRY(a=entries, map=built)


def _map_concat(args: list[exp.Expr]) -> exp.Expr:
    """DuckDB's ``map_concat`` (NULL for a NULL map), failing when the keys of the maps
    together outnumber the result's: some key was in two of them."""
    if not args:
        raise CompileError("map_concat takes at least 1 argument")
    if len(args) == 1:  # DuckDB's map_concat takes two maps or more
        return args[0]
    total: exp.Expr = call("cardinality", args[0].copy())
    for other in args[1:]:
        total = exp.Add(this=total, expression=call("cardinality", other.copy()))
    return _CONCAT(total=total, map=call("map_concat", *args), duplicate=_DUPLICATE)


MAP_CALLS: dict[str, Builder] = {
    "map_contains_key": over("map_contains(:m, :k)", "m", "k"),
    "map_entries": over("map_entries(:m)", "m"),
    "map_from_arrays": _map_from_arrays,
    "map_from_entries": _map_from_entries,
    "map_concat": _map_concat,
    "str_to_map": _str_to_map,
}
