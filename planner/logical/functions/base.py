"""The contract of the function registry: a ``Function`` entry, and the checks its
arguments pass.

A function is built from argument expressions, whoever calls it: the DataFrame API turns
Python values and columns into expressions first (``planner.api.functions``), the SQL front
end translates sqlglot's nodes (``planner.sql.functions``). A literal argument is a ``Lit``;
what a function needs to be constant (a pattern, a scale, a flag) it reads with ``option``,
so a call written in SQL is checked exactly as the same call made from Python is.

Three kinds of checks, each in one place:

- the number of arguments, here, read from the builder's signature once;
- options a builder reads itself (``split``'s limit, ``ntile``'s buckets ...), in its
  family module, with the message the user sees;
- pattern-like arguments a worker checks again when it validates a plan, in
  ``planner.logical.literal_args``, run by ``checked_call`` when the ``Call`` is built.

A function's result type is that of the expression it builds, inferred by
``planner.logical.types`` (collections: ``planner.logical.collection_types``); the registry
types nothing itself.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast, get_args

from pydantic import ValidationError

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Call, Expr, Lit, ScalarFunction
from sparkwire.planner.logical.identifiers import check_identifier
from sparkwire.planner.logical.literal_args import NOT_LITERAL
from sparkwire.planner.logical.render import output_name

Build = Callable[..., Expr]


@dataclass(frozen=True)
class Function:
    """One function by its Spark name: ``build`` makes its expression from ``min_args`` to
    ``max_args`` argument expressions (None: any number) and refuses arguments it cannot
    take, with the message the user sees."""

    name: str
    build: Build
    min_args: int
    max_args: int | None

    @classmethod
    def of(cls, name: str, build: Build) -> Function:
        """The entry for ``build``, its arity read from its signature."""
        params = list(inspect.signature(build).parameters.values())
        required = [p for p in params if p.default is inspect.Parameter.empty
                    and p.kind is not inspect.Parameter.VAR_POSITIONAL]
        variadic = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
        return cls(name, build, len(required), None if variadic else len(params))

    def __call__(self, *args: Expr) -> Expr:
        if len(args) < self.min_args or (self.max_args is not None and len(args) > self.max_args):
            raise AnalysisError(f"{self.name} takes {self._arity()} argument(s), got {len(args)}")
        return self.build(*args)

    def _arity(self) -> str:
        if self.max_args is None:
            return f"at least {self.min_args}"
        if self.max_args == self.min_args:
            return str(self.min_args)
        return f"{self.min_args} to {self.max_args}"


def plain(name: str, args: int | tuple[int, int | None] = 1, fn: ScalarFunction | None = None) -> Function:
    """A function that is one ``Call`` of its arguments as given: ``fn`` (by default the
    function's own name, which must then be one the plan allows) with ``args`` arguments
    (a number, or the least and the most)."""
    low, high = (args, args) if isinstance(args, int) else args
    call = cast(ScalarFunction, fn or allowed(name, ScalarFunction))

    def build(*values: Expr) -> Expr:
        return checked_call(call, *values)

    return Function(name, build, low, high)


def allowed(name: str, kind: object) -> str:
    """``name``, a member of the allow-list ``kind`` (a ``Literal`` of ``expressions``):
    an entry naming another is refused when the registry is built, not when it is called."""
    if name not in get_args(kind):
        raise ValueError(f"{name} is not a function the plan allows")
    return name


def checked_call(fn: ScalarFunction, *args: Expr) -> Call:
    """A call whose arguments the plan model checks (``planner.logical.literal_args``), a
    refused one reported as the ``AnalysisError`` it is rather than as a validation dump."""
    try:
        return Call(fn=fn, args=args)
    except ValidationError as exc:
        message = str(exc.errors()[0]["msg"]).removeprefix("Value error, ")
        raise AnalysisError(message) from None


def option(arg: Expr) -> object:
    """The value of an option argument: an untyped literal's, else ``NOT_LITERAL``."""
    return arg.value if isinstance(arg, Lit) and arg.type is None else NOT_LITERAL


def number_option(arg: Expr) -> object:
    """A number option (a percentage): an untyped literal's value, or a decimal literal's
    as a float (SQL's ``0.75`` is a decimal), else ``NOT_LITERAL``."""
    if isinstance(arg, Lit) and arg.type is not None and arg.type.startswith("decimal") \
            and isinstance(arg.value, str):
        return float(arg.value)
    return option(arg)


def shown(arg: Expr) -> str:
    """An argument as an error message shows it: a literal's value, else the column as
    PySpark prints one (``Column<'k'>``)."""
    value = option(arg)
    return repr(value) if value is not NOT_LITERAL else f"Column<'{output_name(arg)}'>"


def int_option(arg: Expr) -> int | None:
    """An option that is an int literal (no bool: Python's ``True`` is an int), else None."""
    value = option(arg)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def alias(name: str) -> str:
    """A name given to a column (``alias``, ``AS``), refused as an invalid column name."""
    try:
        return check_identifier(name)
    except ValueError as exc:
        raise AnalysisError(f"invalid column name: {exc}") from None
