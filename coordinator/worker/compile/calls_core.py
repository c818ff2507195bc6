"""The core scalar builders: comparisons, logic, NULL tests, ``IN``/``BETWEEN``,
``coalesce``, ``concat``, trimming, date shifts and the few one-argument functions DuckDB
has a node for; the other families are ``calls_text``, ``calls_dates``, ``calls_math``,
``calls_collections`` and ``casing``, gathered with these by ``calls``.

Where Spark's semantics differ from DuckDB's default, the builder says so (``concat``,
``date_add`` ...). Nothing is formatted into SQL text.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity, literal_text
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import cast, paren
from sparkwire.planner.logical.functions.assertions import USER_RAISED

__all__ = ["CALLS"]


def _binary(cls: type[exp.Expr]) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(cls.__name__, args, 2)
        return cls(this=paren(args[0]), expression=paren(args[1]))

    return build


def _unary(cls: type[exp.Expr]) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(cls.__name__, args, 1)
        return cls(this=paren(args[0]))

    return build


def _chain(cls: type[exp.Expr]) -> Builder:
    """``and`` / ``or`` of two or more operands, folded left."""

    def build(args: list[exp.Expr]) -> exp.Expr:
        if len(args) < 2:
            raise CompileError(f"{cls.__name__} takes at least 2 arguments, got {len(args)}")
        result = paren(args[0])
        for arg in args[1:]:
            result = cls(this=result, expression=paren(arg))
        return result

    return build


def _is_null(args: list[exp.Expr]) -> exp.Expr:
    arity("is_null", args, 1)
    return exp.Is(this=paren(args[0]), expression=exp.Null())


def _is_not_null(args: list[exp.Expr]) -> exp.Expr:
    return exp.Not(this=exp.Paren(this=_is_null(args)))


def _in(args: list[exp.Expr]) -> exp.Expr:
    if not args:
        raise CompileError("in takes a value and a list")
    if len(args) == 1:
        # `x IN ()` is not SQL; an empty list matches nothing (Spark 4 semantics, even for NULL).
        return exp.Boolean(this=False)
    return exp.In(this=paren(args[0]), expressions=args[1:])


def _between(args: list[exp.Expr]) -> exp.Expr:
    arity("between", args, 3)
    return exp.Between(this=paren(args[0]), low=paren(args[1]), high=paren(args[2]))


def _date_shift(unit: str) -> Builder:
    """``date_add(d, n)`` / ``add_months(d, n)`` as Spark has them: a DATE moved by ``n``
    days or months (DuckDB's date + interval is a TIMESTAMP, so it is cast back); a month
    past the end of the next is its last day, in both engines."""

    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(f"date shift by {unit}", args, 2)
        amount = exp.Anonymous(this=f"to_{unit}", expressions=[cast(args[1], "INTEGER")])
        return cast(exp.Add(this=paren(args[0]), expression=amount), "DATE")

    return build


def _concat(args: list[exp.Expr]) -> exp.Expr:
    """``a || b || ...``: NULL when any part is NULL, as Spark's ``concat``; DuckDB's
    ``concat()`` would skip NULL parts."""
    if not args:
        raise CompileError("concat takes at least 1 argument")
    result: exp.Expr = cast(args[0], "VARCHAR")
    for arg in args[1:]:
        result = exp.DPipe(this=result, expression=cast(arg, "VARCHAR"), safe=False)
    return result


def _named_function(name: str) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, 1)
        return exp.Anonymous(this=name, expressions=args)

    return build


def _coalesce(args: list[exp.Expr]) -> exp.Expr:
    if not args:
        raise CompileError("coalesce takes at least 1 argument")
    return exp.Coalesce(this=args[0], expressions=args[1:])


def _raise_error(args: list[exp.Expr]) -> exp.Expr:
    """``error('[' || class || '] ' || message)``: the class is a checked literal
    (``planner.logical.literal_args``); a NULL message reads ``null``, as Spark prints it."""
    arity("raise_error", args, 2)
    error_class, message = args
    text = exp.DPipe(
        this=exp.DPipe(this=exp.DPipe(this=exp.Literal.string("["), expression=error_class, safe=False),
                       expression=exp.Literal.string("] "), safe=False),
        expression=exp.Coalesce(this=cast(message, "VARCHAR"), expressions=[exp.Literal.string("null")]),
        safe=False)
    return exp.Anonymous(this="error", expressions=[text])


def _assert_true(args: list[exp.Expr]) -> exp.Expr:
    """NULL where the condition holds, Spark's ``USER_RAISED_EXCEPTION`` elsewhere (false
    or NULL)."""
    arity("assert_true", args, 2)
    failure = _raise_error([exp.Literal.string(USER_RAISED), args[1]])
    return exp.Case(ifs=[exp.If(this=paren(args[0]), true=exp.Null())], default=failure)


def _func(cls: type[exp.Func]) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(cls.__name__.lower(), args, 1)
        return cls(this=args[0])

    return build


def _session_value(args: list[exp.Expr]) -> exp.Expr:
    """``session_value(name, value)`` (``current_user()`` ...): the value the planner read
    from the session, a string literal."""
    arity("session_value", args, 2)
    return exp.Literal.string(literal_text(args[1], "session_value's value"))


CALLS: dict[str, Builder] = {
    "eq": _binary(exp.EQ),
    "ne": _binary(exp.NEQ),
    "lt": _binary(exp.LT),
    "le": _binary(exp.LTE),
    "gt": _binary(exp.GT),
    "ge": _binary(exp.GTE),
    "and": _chain(exp.And),
    "or": _chain(exp.Or),
    "not": _unary(exp.Not),
    "is_null": _is_null,
    "is_not_null": _is_not_null,
    # Spark's isnan of NULL is false (DuckDB's is NULL); an integer is a double, never NaN
    "isnan": lambda args: exp.Coalesce(this=exp.Anonymous(this="isnan", expressions=[cast(args[0], "DOUBLE")]),
                                       expressions=[exp.false()]),
    # describe()'s reading of a string column as numbers: NULL where it is none (Spark's
    # lenient cast), never an error
    "try_double": lambda args: exp.TryCast(this=args[0], to=exp.DataType.build("DOUBLE")),
    "in": _in,
    "between": _between,
    "coalesce": _coalesce,
    "like": _binary(exp.Like),
    "concat": _concat,
    "trim": _named_function("trim"),
    "ltrim": _named_function("ltrim"),
    "rtrim": _named_function("rtrim"),
    "date_add": _date_shift("days"),
    "add_months": _date_shift("months"),
    "abs": _func(exp.Abs),
    "trunc": lambda args: exp.Anonymous(this="trunc", expressions=args),
    "length": _func(exp.Length),
    "year": _func(exp.Year),
    "month": _func(exp.Month),
    "day": _func(exp.Day),
    "raise_error": _raise_error,
    "assert_true": _assert_true,
    "session_value": _session_value,
}
