"""Trigonometric and other elementary math functions of ``pyspark.sql.functions``,
re-exported by ``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.elementary``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call, number_or_column
from sparkwire.planner.api.functions.unary import of_one_column

__all__ = [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cos", "cosh", "cot",
    "csc", "degrees", "e", "expm1", "factorial", "hypot", "negate", "negative", "pi",
    "positive", "radians", "rint", "sec", "sign", "sin", "sinh", "tan", "tanh", "toDegrees",
    "toRadians", "width_bucket",
]

NumberOrColumn = ColumnOrName | float | int

sin = of_one_column("sin")
cos = of_one_column("cos")
tan = of_one_column("tan")
asin = of_one_column("asin")
acos = of_one_column("acos")
atan = of_one_column("atan")
sinh = of_one_column("sinh")
cosh = of_one_column("cosh")
tanh = of_one_column("tanh")
asinh = of_one_column("asinh")
acosh = of_one_column("acosh")
atanh = of_one_column("atanh")
cot = of_one_column("cot")
sec = of_one_column("sec")
csc = of_one_column("csc")
degrees = of_one_column("degrees")
radians = of_one_column("radians")
toDegrees = of_one_column("toDegrees", "degrees")  # noqa: N816 - PySpark's deprecated alias
toRadians = of_one_column("toRadians", "radians")  # noqa: N816 - PySpark's deprecated alias
cbrt = of_one_column("cbrt")
expm1 = of_one_column("expm1")
rint = of_one_column("rint")
sign = of_one_column("sign")
factorial = of_one_column("factorial")
negative = of_one_column("negative")
negate = of_one_column("negate", "negative")
positive = of_one_column("positive")


def atan2(col1: NumberOrColumn, col2: NumberOrColumn) -> Column:
    return call("atan2", number_or_column(col1), number_or_column(col2))


def hypot(col1: NumberOrColumn, col2: NumberOrColumn) -> Column:
    return call("hypot", number_or_column(col1), number_or_column(col2))


def pi() -> Column:
    return call("pi")


def e() -> Column:
    return call("e")


def width_bucket(v: ColumnOrName, min: ColumnOrName, max: ColumnOrName,  # noqa: A002
                 numBucket: ColumnOrName | int) -> Column:  # noqa: N803 - PySpark's name
    return call("width_bucket", to_column(v).expr, to_column(min).expr, to_column(max).expr,
                number_or_column(numBucket))
