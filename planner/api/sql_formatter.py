"""``session.sql(text, **kwargs)``: PySpark's string formatting of SQL text.

With keyword arguments, PySpark formats the text with Python's ``str.format`` rules
(``pyspark/sql/sql_formatter.py``), each value turned into SQL first:

- a DataFrame becomes the name of a temporary view of it (``_pyspark_<hex>``; the same frame
  named twice, the same name), which the query reads;
- a Column that is a plain column reference (``df.id``, ``F.col("id")``) becomes its name,
  in backticks where Spark's SQL needs them; any other Column is refused
  (``VALUE_NOT_PLAIN_COLUMN_REFERENCE``);
- a string becomes a SQL string literal, quotes and backslashes escaped;
- anything else is formatted as ``str.format`` formats it (``{n}`` of 3 is ``3``).

PySpark registers each frame's view in the session and drops it after the call; here the
views are handed to that one query only (``Formatted.views``), so no other query, nor a
concurrent one, ever sees them. Without keyword arguments the text is left as it is, braces
and all, as PySpark leaves it. The text formatted is the program's own, never anything read
from a socket (a Spark Connect client formats on its side and sends the result).
"""

from __future__ import annotations

import re
import string
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sparkwire.planner.api.column import Column
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import expressions as ex

#: A name part Spark writes without backticks (``quoteIfNeeded``).
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Formatted:
    """The text after formatting, and the frames it names by view name."""

    text: str
    views: Mapping[str, DataFrame] = field(default_factory=dict)


def format_sql(text: str, values: Mapping[str, object]) -> Formatted:
    """``text`` formatted with ``values`` as PySpark's ``spark.sql(text, **values)`` does
    (the text unchanged when there are none)."""
    if not values:
        return Formatted(text)
    formatter = _SqlFormatter()
    formatted = formatter.format(text, **values)
    return Formatted(formatted, {name: df for df, name in formatter.frames})


def _sql_string(value: str) -> str:
    """A SQL string literal of ``value``, written as Spark's ``Literal.sql`` writes it."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _column_sql(column: Column, field_name: str) -> str:
    """The SQL name of a plain column reference; any other column is refused, as PySpark
    refuses it."""
    expr = column.expr
    if column.is_aliased or not isinstance(expr, ex.Column | ex.Ref):
        raise AnalysisError(
            f"[VALUE_NOT_PLAIN_COLUMN_REFERENCE] Value `{column!r}` in `{field_name}` should be a "
            "plain column reference such as `df.col` or `col('column')`.",
            condition="VALUE_NOT_PLAIN_COLUMN_REFERENCE",
            parameters={"val": repr(column), "field_name": field_name})
    return ".".join(p if _PLAIN_NAME.fullmatch(p) else "`" + p.replace("`", "``") + "`"
                    for p in expr.name.split("."))


class _SqlFormatter(string.Formatter):
    """``str.format`` with each value turned into SQL; collects the frames it named."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[tuple[DataFrame, str]] = []

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        value, first = super().get_field(field_name, args, kwargs)
        return self._sql(value, field_name), first

    def _sql(self, value: object, field_name: str) -> object:
        if isinstance(value, DataFrame):
            return self._view_name(value)
        if isinstance(value, Column):
            return _column_sql(value, field_name)
        if isinstance(value, str):
            return _sql_string(value)
        return value

    def _view_name(self, df: DataFrame) -> str:
        for known, name in self.frames:
            if known is df:
                return name
        name = f"_pyspark_{uuid.uuid4().hex}"
        self.frames.append((df, name))
        return name
