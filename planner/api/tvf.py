"""``spark.tvf``: Spark 4's table-valued functions as methods, each a DataFrame.

``range`` is ``session.range``; the generators (``explode``, ``inline``, ``posexplode``,
their ``_outer`` forms, ``stack``, ``json_tuple``) are the same functions of
``pyspark.sql.functions`` selected from one row, which is what Spark's table-valued form
of a generator is, so the columns are named and typed as the generator names them (``col``,
``pos``, ``key``/``value``, ``col0``..., ``c0``...). ``collations`` and ``sql_keywords``
list Spark's own catalogue, and ``variant_explode`` needs the variant type: PySpark's names
sparkwire has not, refused with the reason.
"""

from __future__ import annotations

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.column import Column
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.executor import Executor
from sparkwire.planner.api.sources import range_dataframe

#: PySpark's table-valued functions sparkwire lacks, with the reason.
_LACKING = {
    "collations": "Spark's catalogue of collations; sparkwire compares strings by their bytes only",
    "sql_keywords": "Spark's catalogue of its SQL parser's keywords, which sparkwire's parser does not share",
    "variant_explode": "the variant type is not supported yet",
    "variant_explode_outer": "the variant type is not supported yet",
}


class TableValuedFunction:
    """``session.tvf``: a DataFrame per table-valued function."""

    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def __getattr__(self, name: str) -> object:
        why = _LACKING.get(name)
        if why is None:
            raise AttributeError(f"TableValuedFunction has no attribute {name!r}")
        raise AttributeError(f"`{name}` is not supported by sparkwire "
                             f"(PySpark's TableValuedFunction.{name}): {why}")

    def range(self, start: int, end: int | None = None, step: int = 1,
              numPartitions: int | None = None) -> DataFrame:  # noqa: N803 - PySpark's name
        return range_dataframe(self._executor, start, end, step, numPartitions)

    def explode(self, collection: Column) -> DataFrame:
        return self._generated(F.explode(collection))

    def explode_outer(self, collection: Column) -> DataFrame:
        return self._generated(F.explode_outer(collection))

    def inline(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        return self._generated(F.inline(input))

    def inline_outer(self, input: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        return self._generated(F.inline_outer(input))

    def posexplode(self, collection: Column) -> DataFrame:
        return self._generated(F.posexplode(collection))

    def posexplode_outer(self, collection: Column) -> DataFrame:
        return self._generated(F.posexplode_outer(collection))

    def stack(self, n: Column, *fields: Column) -> DataFrame:
        return self._generated(F.stack(n, *fields))

    def json_tuple(self, input: Column, *fields: Column) -> DataFrame:  # noqa: A002 - PySpark's name
        return self._generated(F.json_tuple(input, *fields))

    def _generated(self, generator: Column) -> DataFrame:
        """The generator's rows from one input row, its columns only."""
        return range_dataframe(self._executor, 1, None, 1, None).select(generator)
