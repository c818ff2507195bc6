"""Bounds on how large one value a call makes may grow.

``lpad``, ``rpad`` and ``repeat`` make a string, ``array_repeat``, ``sequence`` and
``array_insert`` an array, as long as an argument says: a plan asking for ``lpad(s,
2147483647, 'x')`` once grew a 512 MiB worker past 4 GiB, busy long after its query was
cancelled. Each of these calls first compares the length it would make with a bound and
fails the query where it is more, before anything is allocated. Spark's own bound on an
array is 2^31 - 15 elements (``COLLECTION_SIZE_LIMIT_EXCEEDED``, the error class used here
for both); these are lower, since a worker evaluates such a call for a whole vector of rows
at once:

- a call whose arguments are all constants is made once (DuckDB folds it), so it may make up
  to ``MAX_VALUE_LENGTH`` (``planner.limits``, 1 Mi): ``explode(sequence(1, 1000000))``, the
  idiom that makes rows, still runs;
- a call made for each row is made for ``VECTOR_ROWS`` rows at once by each of the worker's
  DuckDB threads, and DuckDB checks an interrupt only between vectors. At 1 MiB a value,
  ``lpad`` over 4,096 rows on a 512 MiB worker held 2 GiB of strings (RSS 201 -> 1,553 MiB)
  and one vector took ~20 s of CPU (lpad writes ~10 ns a character here), so a cancelled
  task held its worker for 14 s more. Such a value is bounded in bytes by
  ``row_value_bytes``: half of DuckDB's memory share over the values in flight (a vector per
  thread; the other half stays DuckDB's buffers'), at most ``ROW_VALUE_BYTES``, which keeps a
  vector's work near half a second (67 M characters of lpad: 0.55 s of CPU); a unit costs
  what was measured (``_CHARACTER``, ``_NUMBER``, ``_ANY``). The worker sets it on the cursor
  of each task whose query makes such calls, shared among them (``VALUE_BYTES_VARIABLE``,
  ``worker.engine``): a row's values of all of them are in memory at once. SQL run without
  it gets the ceiling.

Per-row bounds this gives on 2 cores with 2 task slots (2 threads in flight), as characters
/ ``sequence`` elements / other elements: ``worker.memory`` 128 MiB (the least): 1,638 / 273
/ 136; 512 MiB: 6,553 / 1,092 / 546; 2 GiB (the default): 26,214 / 4,369 / 2,184; 2.5 GiB
and more: 32,768 / 5,461 / 2,730. More cores per worker divide them by the threads.
"""


from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder
from sparkwire.coordinator.worker.compile.errors import raise_error
from sparkwire.coordinator.worker.compile.templates import template
from sparkwire.planner.limits import MAX_VALUE_LENGTH

__all__ = ["BOUNDED", "ROW_VALUE_BYTES", "VALUE_BYTES_VARIABLE", "VECTOR_ROWS", "bounded",
           "row_value_bytes"]

#: Rows DuckDB evaluates an expression for at once (its ``STANDARD_VECTOR_SIZE``).
VECTOR_ROWS: Final = 2048
#: The most bytes a value made for each row may have, whatever the memory: 256 MiB a vector.
ROW_VALUE_BYTES: Final = 128 << 10
#: The DuckDB variable, set on each task's cursor, holding that worker's ``row_value_bytes``.
VALUE_BYTES_VARIABLE: Final = "sparkwire_value_bytes"
#: Bytes a unit of a value costs while DuckDB makes a vector of them, measured (RSS over
#: 2,048 rows of 65,536 units, one thread): a character 1 (ASCII) to 3 (a euro sign) bytes,
#: counted at UTF-8's most, 4; an element of a BIGINT list 18 (its child vector grows by
#: doubling), counted 24; of a VARCHAR list 42, counted 48 for calls whose elements may be
#: any type.
_CHARACTER, _NUMBER, _ANY = ("characters", 4), ("elements", 24), ("elements", 48)


def row_value_bytes(engine_memory: int, threads: int) -> int:
    """The bytes one value made for each row may have on a worker whose DuckDB has
    ``engine_memory`` (its ``memory_limit``) and runs ``threads`` threads at once: a vector
    of such values per thread fits half of that memory, at most ``ROW_VALUE_BYTES``."""
    return min(ROW_VALUE_BYTES, engine_memory // 2 // (VECTOR_ROWS * max(threads, 1)))


_REPEATED = template("length(:s) * CAST(:n AS HUGEINT)")
_STEPS = template("abs(CAST(:b AS HUGEINT) - :a) // greatest(abs(CAST(:s AS HUGEINT)), 1) + 1")
_PLACE = template("abs(CAST(:p AS HUGEINT))")
# The clamps are CASEs, not least()/greatest(), which skip NULLs: a NULL argument stays NULL.
# :m is the bound (a constant once DuckDB has bound the query).
_AT_MOST = template("CASE WHEN :n > :m THEN :m + 1 ELSE :n END")
_TIMES_AT_MOST = template(
    "CASE WHEN length(:s) * CAST(:n AS HUGEINT) > :m THEN :m // greatest(length(:s), 1) + 1 ELSE :n END")
_PLACE_AT_MOST = template("CASE WHEN :p > :m THEN :m + 1 WHEN :p < -:m THEN -:m - 1 ELSE :p END")
# The stop a sequence reaches in at most :m steps (within BIGINT: it lies between the start
# and the given stop).
_STOP_AT_MOST = template(
    "CAST(CASE WHEN CAST(:b AS HUGEINT) - :a > abs(CAST(:s AS HUGEINT)) * :m "
    "THEN CAST(:a AS HUGEINT) + abs(CAST(:s AS HUGEINT)) * :m "
    "WHEN CAST(:a AS HUGEINT) - :b > abs(CAST(:s AS HUGEINT)) * :m "
    "THEN CAST(:a AS HUGEINT) - abs(CAST(:s AS HUGEINT)) * :m "
    "ELSE :b END AS BIGINT)")
_STEP = template("CASE WHEN :a <= :b THEN 1 ELSE -1 END")
_AS_INT = template("CAST(:n AS INTEGER)")
# A row's bound: the worker's bytes (the ceiling where no worker set them) in units.
_ROW_BOUND = template(
    f"CAST(least({MAX_VALUE_LENGTH}, coalesce(getvariable('{VALUE_BYTES_VARIABLE}'), "
    f"{ROW_VALUE_BYTES}) // :u) AS BIGINT)")

Args = list[exp.Expr]
Bound = Callable[[Args, exp.Expr], tuple[exp.Expr, Args]]
#: What an argument made only of these is: a constant, which DuckDB folds, so its call is
#: made once. Anything else (a column, a volatile call) may differ by row.
_CONSTANT = (exp.Literal, exp.Null, exp.Boolean, exp.Cast, exp.TryCast, exp.Neg, exp.Paren,
             exp.DataType, exp.DataTypeParam, exp.Add, exp.Sub, exp.Mul)


def _with(args: Args, index: int, value: exp.Expr) -> Args:
    return [value if i == index else arg for i, arg in enumerate(args)]


def _sequence(args: Args, most: exp.Expr) -> tuple[exp.Expr, Args]:
    step = args[2] if len(args) == 3 else _STEP(a=args[0], b=args[1])
    stop = _STOP_AT_MOST(a=args[0], b=args[1], s=step, m=most)
    return _STEPS(a=args[0], b=args[1], s=step), _with(args, 1, stop)


#: Each bounded call: from its arguments and the bound, the length its value would have and
#: the arguments clamped so that it can make no longer one (what DuckDB evaluates when it
#: folds constants: it folds the value's branch too, whatever the check says); and what the
#: length counts.
_BOUNDS: dict[str, tuple[Bound, tuple[str, int]]] = {
    # DuckDB's pads take an INTEGER length, Spark casts a BIGINT one: within the bound it fits
    "lpad": (lambda a, m: (a[1], _with(a, 1, _AS_INT(n=_AT_MOST(n=a[1], m=m)))), _CHARACTER),
    "rpad": (lambda a, m: (a[1], _with(a, 1, _AS_INT(n=_AT_MOST(n=a[1], m=m)))), _CHARACTER),
    "repeat": (lambda a, m: (_REPEATED(s=a[0], n=a[1]),
                             _with(a, 1, _TIMES_AT_MOST(s=a[0], n=a[1], m=m))), _CHARACTER),
    "array_repeat": (lambda a, m: (a[1], _with(a, 1, _AT_MOST(n=a[1], m=m))), _ANY),
    "sequence": (_sequence, _NUMBER),
    "array_insert": (lambda a, m: (_PLACE(p=a[1]), _with(a, 1, _PLACE_AT_MOST(p=a[1], m=m))), _ANY),
}


#: The calls bounded here: a fragment counts them (``CompiledFragment.bounded_calls``), since
#: the values of all of them in a row are in memory at once and share the row's bound.
BOUNDED: Final = frozenset(_BOUNDS)


def bounded(calls: dict[str, Builder]) -> dict[str, Builder]:
    """``calls``' builders of the calls above, each checking its value's length first."""
    return {name: _checked(name, calls[name], *_BOUNDS[name]) for name in _BOUNDS}


def _made_once(args: Args) -> bool:
    return all(isinstance(node, _CONSTANT) for arg in args for node in arg.walk())


def _checked(name: str, build: Builder, bound: Bound, unit: tuple[str, int]) -> Builder:
    def checked(args: Args) -> exp.Expr:
        build(args)  # checks the arguments' count
        once = _made_once(args)
        most = (exp.Literal.number(MAX_VALUE_LENGTH) if once
                else _ROW_BOUND(u=exp.Literal.number(unit[1])))
        length, clamped = bound(args, most)
        size = exp.Paren(this=length)
        where = ("" if once else f" (made for each row: raise worker.memory for more; a value "
                                 f"of constants may hold {MAX_VALUE_LENGTH})")
        too_large = raise_error(
            "COLLECTION_SIZE_LIMIT_EXCEEDED", f"{name} would make a value of ", size.copy(),
            f" {unit[0]}, more than the ", most.copy(), f" one value may hold{where}.")
        return exp.Case(ifs=[exp.If(this=exp.GT(this=size, expression=most.copy()),
                                    true=too_large)], default=build(clamped))

    return checked
