"""A bound on how large one value a call makes may grow.

``lpad``, ``rpad`` and ``repeat`` make a string, ``array_repeat``, ``sequence`` and
``array_insert`` an array, as long as an argument says: a plan asking for ``lpad(s,
2147483647, 'x')`` once grew a 512 MiB worker past 4 GiB, busy long after its query was
cancelled. Each of these calls first compares the length it would make with
``MAX_VALUE_LENGTH`` (``planner.limits``) and fails the query where it is more, before
anything is allocated. Spark's own bound on an array is 2^31 - 15 elements
(``COLLECTION_SIZE_LIMIT_EXCEEDED``, the error class used here for both); this one is lower,
since a worker evaluates such a call for a whole vector of rows at once.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder
from sparkwire.coordinator.worker.compile.errors import raise_error
from sparkwire.coordinator.worker.compile.templates import template
from sparkwire.planner.limits import MAX_VALUE_LENGTH

__all__ = ["bounded"]

_REPEATED = template("length(:s) * CAST(:n AS HUGEINT)")
_STEPS = template("abs(CAST(:b AS HUGEINT) - :a) // greatest(abs(CAST(:s AS HUGEINT)), 1) + 1")
_PLACE = template("abs(CAST(:p AS HUGEINT))")
# The clamps are CASEs, not least()/greatest(), which skip NULLs: a NULL argument stays NULL.
_AT_MOST = template(f"CASE WHEN :n > {MAX_VALUE_LENGTH} THEN {MAX_VALUE_LENGTH + 1} ELSE :n END")
_TIMES_AT_MOST = template(
    f"CASE WHEN length(:s) * CAST(:n AS HUGEINT) > {MAX_VALUE_LENGTH} "
    f"THEN {MAX_VALUE_LENGTH} // greatest(length(:s), 1) + 1 ELSE :n END")
_PLACE_AT_MOST = template(
    f"CASE WHEN :p > {MAX_VALUE_LENGTH} THEN {MAX_VALUE_LENGTH + 1} "
    f"WHEN :p < -{MAX_VALUE_LENGTH} THEN -{MAX_VALUE_LENGTH + 1} ELSE :p END")
# The stop a sequence reaches in at most MAX_VALUE_LENGTH steps (within BIGINT: it lies
# between the start and the given stop).
_STOP_AT_MOST = template(
    f"CAST(CASE WHEN CAST(:b AS HUGEINT) - :a > abs(CAST(:s AS HUGEINT)) * {MAX_VALUE_LENGTH} "
    f"THEN CAST(:a AS HUGEINT) + abs(CAST(:s AS HUGEINT)) * {MAX_VALUE_LENGTH} "
    f"WHEN CAST(:a AS HUGEINT) - :b > abs(CAST(:s AS HUGEINT)) * {MAX_VALUE_LENGTH} "
    f"THEN CAST(:a AS HUGEINT) - abs(CAST(:s AS HUGEINT)) * {MAX_VALUE_LENGTH} "
    f"ELSE :b END AS BIGINT)")
_STEP = template("CASE WHEN :a <= :b THEN 1 ELSE -1 END")
_AS_INT = template("CAST(:n AS INTEGER)")

Args = list[exp.Expr]


def _with(args: Args, index: int, value: exp.Expr) -> Args:
    return [value if i == index else arg for i, arg in enumerate(args)]


def _sequence(args: Args) -> tuple[exp.Expr, Args]:
    step = args[2] if len(args) == 3 else _STEP(a=args[0], b=args[1])
    stop = _STOP_AT_MOST(a=args[0], b=args[1], s=step)
    return _STEPS(a=args[0], b=args[1], s=step), _with(args, 1, stop)


#: Each bounded call: from its arguments, the length its value would have and the arguments
#: clamped so that it can make no longer one (what DuckDB evaluates when it folds constants:
#: it folds the value's branch too, whatever the check says); and what the length counts.
_BOUNDS: dict[str, tuple[Callable[[Args], tuple[exp.Expr, Args]], str]] = {
    # DuckDB's pads take an INTEGER length, Spark casts a BIGINT one: within the bound it fits
    "lpad": (lambda a: (a[1], _with(a, 1, _AS_INT(n=_AT_MOST(n=a[1])))), "characters"),
    "rpad": (lambda a: (a[1], _with(a, 1, _AS_INT(n=_AT_MOST(n=a[1])))), "characters"),
    "repeat": (lambda a: (_REPEATED(s=a[0], n=a[1]), _with(a, 1, _TIMES_AT_MOST(s=a[0], n=a[1]))),
               "characters"),
    "array_repeat": (lambda a: (a[1], _with(a, 1, _AT_MOST(n=a[1]))), "elements"),
    "sequence": (_sequence, "elements"),
    "array_insert": (lambda a: (_PLACE(p=a[1]), _with(a, 1, _PLACE_AT_MOST(p=a[1]))), "elements"),
}


def bounded(calls: dict[str, Builder]) -> dict[str, Builder]:
    """``calls``' builders of the calls above, each checking its value's length first."""
    return {name: _checked(name, calls[name], *_BOUNDS[name]) for name in _BOUNDS}


def _checked(name: str, build: Builder, bound: Callable[[Args], tuple[exp.Expr, Args]],
             unit: str) -> Builder:
    def checked(args: Args) -> exp.Expr:
        build(args)  # checks the arguments' count
        length, clamped = bound(args)
        size = exp.Paren(this=length)
        too_large = raise_error(
            "COLLECTION_SIZE_LIMIT_EXCEEDED", f"{name} would make a value of ", size.copy(),
            f" {unit}, more than the {MAX_VALUE_LENGTH} one value may hold.")
        return exp.Case(ifs=[exp.If(this=exp.GT(this=size, expression=exp.Literal.number(
            MAX_VALUE_LENGTH)), true=too_large)], default=build(clamped))

    return checked
