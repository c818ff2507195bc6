"""Bitwise functions of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``;
built, and their semantics written down, in ``planner.logical.functions.bits``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.api.functions.unary import of_one_column

__all__ = [
    "bit_and", "bit_count", "bit_get", "bit_or", "bit_xor", "bitwiseNOT", "bitwise_not",
    "getbit", "shiftLeft", "shiftRight", "shiftRightUnsigned", "shiftleft", "shiftright",
    "shiftrightunsigned",
]

bitwise_not = of_one_column("bitwise_not")
bitwiseNOT = of_one_column("bitwiseNOT", "bitwise_not")  # noqa: N816 - PySpark's deprecated alias
bit_count = of_one_column("bit_count")
bit_and = of_one_column("bit_and")
bit_or = of_one_column("bit_or")
bit_xor = of_one_column("bit_xor")


def bit_get(col: ColumnOrName, pos: ColumnOrName | int) -> Column:
    return call("bit_get", to_column(col).expr, lit(pos).expr)


def getbit(col: ColumnOrName, pos: ColumnOrName | int) -> Column:
    return call("getbit", to_column(col).expr, lit(pos).expr)


def shiftleft(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803 - PySpark's name
    return call("shiftleft", to_column(col).expr, lit(numBits).expr)


def shiftright(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803 - PySpark's name
    return call("shiftright", to_column(col).expr, lit(numBits).expr)


def shiftrightunsigned(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803
    return call("shiftrightunsigned", to_column(col).expr, lit(numBits).expr)


# PySpark's deprecated spellings
shiftLeft = shiftleft  # noqa: N816
shiftRight = shiftright  # noqa: N816
shiftRightUnsigned = shiftrightunsigned  # noqa: N816
