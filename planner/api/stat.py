"""``df.stat`` (PySpark's ``DataFrameStatFunctions``) and the DataFrame methods of the same
names: ``approxQuantile``, ``corr``, ``cov``, ``crosstab``, ``freqItems``, ``sampleBy``.

Each is built from what the DataFrame API already has, as Spark builds them from its
aggregates (``StatFunctions``):

- ``approxQuantile`` is ``percentile_approx`` of the column as a double with NaN left out
  and NULLs ignored, at accuracy ``1 / relativeError`` (exact for 0); a column with no
  value gives an empty list;
- ``corr`` (Pearson's, the one method Spark has) and ``cov`` (the sample covariance) are
  the aggregates ``corr`` and ``covar_samp``, run now, over the columns as doubles with a
  NULL read as 0.0: Spark's ``StatFunctions`` reads rows with ``getDouble``, which gives 0
  for NULL, where the aggregates of the same names skip the row;
- ``crosstab`` counts pairs: its first column ``{col1}_{col2}`` holds ``col1``'s values as
  strings, then a ``bigint`` column per distinct value of ``col2`` (as a string, sorted);
  NULL is the string ``null`` on both sides, a pair that never occurs counts 0;
- ``freqItems`` gives, per column, the items occurring in more than ``support`` of the
  rows. Spark's one-pass sketch returns a superset that depends on how rows fall into
  partitions (its documented false positives); it keeps every distinct item where there
  are at most ``1 / support`` of them, and so does sparkwire, which otherwise counts
  exactly and returns the items over the support;
- ``sampleBy`` keeps each row with the probability its stratum's fraction gives (0 for a
  stratum not named), as one ``sample`` per stratum: the rows Spark picks for a seed cannot
  be reproduced, the fractions and the determinism can.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import reduce
from typing import Any, Generic, Protocol, Self, TypeVar

import pyarrow as pa

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.executor import Executor
from sparkwire.planner.api.functions import Column
from sparkwire.planner.api.relations import local_relation
from sparkwire.planner.api.rows import Row
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import Attribute, Scope
from sparkwire.planner.logical.plan import Operator

_SUPPORT = 0.01


class StatSource(Protocol):
    """What the statistics ask of a DataFrame."""

    _executor: Executor

    @property
    def _scope(self) -> Scope: ...

    def select(self, *cols: Any) -> Self: ...

    def filter(self, condition: Any) -> Self: ...

    def groupBy(self, *cols: Any) -> Any: ...  # noqa: N802 - PySpark's name

    def sample(self, withReplacement: Any = None, fraction: Any = None,  # noqa: N803
               seed: int | None = None) -> Self: ...

    def union(self, other: Self) -> Self: ...

    def collect(self) -> list[Row]: ...

    def _derive(self, plan: Operator, attributes: Sequence[Attribute], widen: Any = None) -> Self: ...


D = TypeVar("D", bound=StatSource)


class DataFrameStatFunctions(Generic[D]):
    """``df.stat``: the statistics of one DataFrame."""

    __slots__ = ("_df",)

    def __init__(self, df: D) -> None:
        self._df = df

    def approxQuantile(self, col: str | Sequence[str], probabilities: Sequence[float],  # noqa: N802
                       relativeError: float) -> list[float] | list[list[float]]:  # noqa: N803
        """The quantiles of one column (a list) or of several (a list per column)."""
        names = [col] if isinstance(col, str) else list(col)
        if not names or not all(isinstance(n, str) for n in names):
            raise AnalysisError("approxQuantile takes a column name or a list of them")
        probs = [float(p) for p in probabilities]
        if any(not 0 <= p <= 1 for p in probs):
            raise AnalysisError(f"approxQuantile's probabilities must be in [0, 1], got {probs}")
        if isinstance(relativeError, bool) or not relativeError >= 0:
            raise AnalysisError(f"approxQuantile's relativeError must be >= 0, got {relativeError!r}")
        accuracy = 2**31 - 1 if relativeError == 0 else max(1, int(1 / relativeError))
        for name in names:
            if not pa.types.is_integer(t := self._type(name)) and not pa.types.is_floating(t) \
                    and not pa.types.is_decimal(t):
                raise AnalysisError(f"approxQuantile needs a numeric column; {name!r} is {t}")
        columns = []
        for name in names:
            value = F.col(name).cast("double")  # NaN, greater than infinity, left out
            columns.append(F.percentile_approx(F.when(value <= F.lit(math.inf), value), probs, accuracy))
        row = self._df.select(*columns).collect()[0]
        found = [list(v) if v is not None else [] for v in row]
        return found[0] if isinstance(col, str) else found

    def corr(self, col1: str, col2: str, method: str | None = None) -> float | None:
        """Pearson's correlation coefficient of two numeric columns."""
        if (method or "pearson") != "pearson":
            raise AnalysisError(f"corr supports only method='pearson', got {method!r}")
        return self._one(F.corr(_null_as_zero(col1), _null_as_zero(col2)))

    def cov(self, col1: str, col2: str) -> float | None:
        """The sample covariance of two numeric columns."""
        return self._one(F.covar_samp(_null_as_zero(col1), _null_as_zero(col2)))

    def crosstab(self, col1: str, col2: str) -> D:
        """A contingency table of the two columns' values (the module's rule)."""
        first = f"{col1}_{col2}"
        keyed = self._df.select(_as_text(col1).alias(first), _as_text(col2).alias("_value"))
        counted = keyed.groupBy(first).pivot("_value").count()
        return counted.na.fill(0)  # type: ignore[no-any-return]

    def freqItems(self, cols: Sequence[str], support: float | None = None) -> D:  # noqa: N802
        """One row: per column, the array of its frequent items (the module's rule)."""
        support = _SUPPORT if support is None else support
        if not 1e-4 < support <= 1:
            raise AnalysisError(f"freqItems' support must be in (1e-4, 1], got {support}")
        if isinstance(cols, str) or not all(isinstance(c, str) for c in cols):
            raise AnalysisError("freqItems takes a list of column names")
        arrays = {}
        for name in cols:
            counts = [(r[0], r[1]) for r in self._df.groupBy(name).count().collect()]
            total = sum(n for _, n in counts)
            kept = counts if len(counts) <= 1 / support else [c for c in counts if c[1] > support * total]
            element = self._type(name)
            arrays[f"{name}_freqItems"] = pa.array([[v for v, _ in kept]], pa.list_(element))
        relation = local_relation(self._df._executor, pa.table(arrays))
        return self._df._derive(relation.plan, relation.attrs)

    def sampleBy(self, col: str | Column, fractions: Mapping[Any, float],  # noqa: N802
                 seed: int | None = None) -> D:
        """Each row kept with its stratum's fraction (the module's rule)."""
        if not isinstance(fractions, Mapping):
            raise AnalysisError(f"sampleBy's fractions must be a dict, got {type(fractions).__name__}")
        key = F.col(col) if isinstance(col, str) else col
        strata = [self._df.filter(key == F.lit(k)).sample(False, float(f), seed)
                  for k, f in fractions.items() if _fraction(f) > 0]
        if not strata:
            return self._df.filter(F.lit(False))
        return reduce(lambda a, b: a.union(b), strata)

    def _type(self, name: str) -> pa.DataType:
        return self._df._scope.lookup(name).type

    def _one(self, aggregate: Column) -> float | None:
        value = self._df.select(aggregate).collect()[0][0]
        return None if value is None else float(value)


def _null_as_zero(name: str) -> Column:
    """The column as a double with NULL read as 0.0, as Spark's ``StatFunctions`` reads
    each row (``row.getDouble``) rather than skipping it as the aggregates do."""
    return F.coalesce(F.col(name).cast("double"), F.lit(0.0))


def _as_text(name: str) -> Column:
    return F.coalesce(F.col(name).cast("string"), F.lit("null"))


def _fraction(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise AnalysisError(f"sampleBy's fractions must be numbers in [0, 1], got {value!r}")
    return float(value)
