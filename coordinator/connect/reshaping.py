"""The relations that reshape or summarize one input without a plan shape of their own:
partitioning, sampling, the ``na`` functions, ``describe``, ``summary``, ``df.stat``'s calls,
``transpose`` and ``unpivot``. Each is the one
DataFrame API call a sparkwire program makes for it (``Relations`` dispatches here by the
relation's field name), so they plan, and answer, exactly as the API does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pyarrow as pa
from pyspark.sql.connect.proto import relations_pb2

from sparkwire.coordinator.connect.expressions import Expressions
from sparkwire.coordinator.connect.literals import python_value
from sparkwire.planner.api.column import Column, SortOrder
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.na import Scalar

#: A relation's input as a DataFrame (``Relations.frame``).
Frame = Callable[[relations_pb2.Relation], DataFrame]


class Reshaping:
    """The relations of this module, for one request: ``frame`` builds an input."""

    def __init__(self, frame: Frame, expressions: Expressions) -> None:
        self._frame = frame
        self._expressions = expressions

    def build(self, kind: str, relation: Any) -> DataFrame | None:
        """``relation`` (of field ``kind``) as a DataFrame; None: not a kind of this module."""
        method = getattr(self, f"_{kind}", None)
        return None if method is None else method(relation)

    def _repartition(self, r: relations_pb2.Repartition) -> DataFrame:
        df = self._frame(r.input)
        shuffle = r.shuffle if r.HasField("shuffle") else True
        return df.repartition(r.num_partitions) if shuffle else df.coalesce(r.num_partitions)

    def _repartition_by_expression(self, r: relations_pb2.RepartitionByExpression) -> DataFrame:
        """``repartition(n, cols)``, or ``repartitionByRange`` when the keys are sort orders."""
        df = self._frame(r.input)
        keys: list[Column | SortOrder] = [
            self._expressions.sort_order(e.sort_order) if e.WhichOneof("expr_type") == "sort_order"
            else self._expressions.column(e) for e in r.partition_exprs]
        if any(isinstance(k, SortOrder) for k in keys):
            return (df.repartitionByRange(r.num_partitions, *keys) if r.HasField("num_partitions")
                    else df.repartitionByRange(*keys))
        columns = [k for k in keys if isinstance(k, Column)]
        return (df.repartition(r.num_partitions, *columns) if r.HasField("num_partitions")
                else df.repartition(*columns))

    def _sample(self, s: relations_pb2.Sample) -> DataFrame:
        """PySpark sends ``sample(fraction)`` as the bounds ``[0, fraction)``."""
        return self._frame(s.input).sample(s.with_replacement, s.upper_bound - s.lower_bound,
                                           s.seed if s.HasField("seed") else None)

    def _fill_na(self, f: relations_pb2.NAFill) -> DataFrame:
        values = [cast(Scalar, python_value(v)) for v in f.values]  # the client sends scalars only
        df = self._frame(f.input)
        if len(values) == 1:
            return df.na.fill(values[0], list(f.cols) or None)
        return df.na.fill(dict(zip(f.cols, values, strict=True)))

    def _drop_na(self, d: relations_pb2.NADrop) -> DataFrame:
        """``how="all"`` arrives as at least one non-null, ``how="any"`` as none given."""
        thresh = d.min_non_nulls if d.HasField("min_non_nulls") else None
        return self._frame(d.input).na.drop("any", thresh, list(d.cols) or None)

    def _replace(self, r: relations_pb2.NAReplace) -> DataFrame:
        pairs = {python_value(p.old_value): python_value(p.new_value) for p in r.replacements}
        return self._frame(r.input).na.replace(pairs, subset=list(r.cols) or None)

    def _describe(self, d: relations_pb2.StatDescribe) -> DataFrame:
        return self._frame(d.input).describe(*d.cols)

    def _summary(self, s: relations_pb2.StatSummary) -> DataFrame:
        return self._frame(s.input).summary(*s.statistics)

    def _transpose(self, t: relations_pb2.Transpose) -> DataFrame:
        index = [self._expressions.column(c) for c in t.index_columns]
        return self._frame(t.input).transpose(*index[:1])

    # -- df.stat: a number or a table (the client reads the first value of the first row) ---
    def _approx_quantile(self, q: relations_pb2.StatApproxQuantile) -> DataFrame:
        """A list of quantiles per column (the client takes the first when it asked for one)."""
        df = self._frame(q.input)
        quantiles = df.stat.approxQuantile(list(q.cols), list(q.probabilities), q.relative_error)
        return _one_value(df, "approx_quantile", quantiles, pa.list_(pa.list_(pa.float64())))

    def _corr(self, c: relations_pb2.StatCorr) -> DataFrame:
        df = self._frame(c.input)
        method = c.method if c.HasField("method") else None
        return _one_value(df, "corr", df.stat.corr(c.col1, c.col2, method), pa.float64())

    def _cov(self, c: relations_pb2.StatCov) -> DataFrame:
        df = self._frame(c.input)
        return _one_value(df, "cov", df.stat.cov(c.col1, c.col2), pa.float64())

    def _crosstab(self, c: relations_pb2.StatCrosstab) -> DataFrame:
        return self._frame(c.input).stat.crosstab(c.col1, c.col2)

    def _freq_items(self, f: relations_pb2.StatFreqItems) -> DataFrame:
        support = f.support if f.HasField("support") else None
        return self._frame(f.input).stat.freqItems(list(f.cols), support)

    def _sample_by(self, s: relations_pb2.StatSampleBy) -> DataFrame:
        fractions = {python_value(f.stratum): f.fraction for f in s.fractions}
        return self._frame(s.input).stat.sampleBy(self._expressions.column(s.col), fractions,
                                                  s.seed if s.HasField("seed") else None)

    def _unpivot(self, u: relations_pb2.Unpivot) -> DataFrame:
        """No ``values`` given: every column not an id, as the API's ``None``."""
        values = ([self._expressions.column(v) for v in u.values.values] if u.HasField("values")
                  else None)
        return self._frame(u.input).unpivot([self._expressions.column(i) for i in u.ids], values,
                                            u.variable_column_name, u.value_column_name)


def _one_value(df: DataFrame, name: str, value: object, type_: pa.DataType) -> DataFrame:
    """Spark answers a ``df.stat`` call that gives a value with one row of one column."""
    return df.sparkSession.createDataFrame(pa.table({name: pa.array([value], type_)}))
