"""``df.unpivot`` (``melt``): each row once per value column, as Spark's ``Unpivot``.

Planned as Spark plans it, within each task and without a shuffle: the value columns are
put into one array of ``(name, value)`` structs and exploded, so a row's values come out
together, in the order the columns were given. The values take their common type first
(Spark's least common type, ``planner.logical.types.common_all``); columns without one are
refused with Spark's ``UNPIVOT_VALUE_DATA_TYPE_MISMATCH``. ``values`` None means every
column that is not an id, as in Spark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.transformations import FrameTransformations
from sparkwire.planner.api.functions import Column, ColumnOrName
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types

FrameT = TypeVar("FrameT", bound=FrameTransformations)
#: the exploded struct's column, named apart from any user column by its leading underscores
_PAIR = "__unpivot_pair"


def _columns(given: ColumnOrName | Sequence[ColumnOrName] | None) -> list[Column]:
    if given is None:
        return []
    items = [given] if isinstance(given, str | Column) else list(given)
    return [F.to_column(c) for c in items]


def unpivot(df: FrameT, ids: ColumnOrName | Sequence[ColumnOrName] | None,
            values: ColumnOrName | Sequence[ColumnOrName] | None,
            variable: str, value: str) -> FrameT:
    id_columns = _columns(ids)
    id_names = {df._named(c, "unpivot")[0].casefold() for c in id_columns}
    value_columns = _columns(values) if values is not None else [
        F.col(f"`{name}`") for name in df.columns if name.casefold() not in id_names]
    if not value_columns:
        raise AnalysisError("unpivot needs at least one value column", condition="UNPIVOT_REQUIRES_VALUE_COLUMNS")
    named = [df._named(c, "unpivot") for c in value_columns]
    scope = df._scope
    found = [scope.type_of(expr) for _, expr in named]
    try:
        common = types.common_all(found)
    except AnalysisError:
        raise AnalysisError(
            "unpivot's value columns have no common type: "
            + ", ".join(f"{n} {types.spark_type_name(t)}" for (n, _), t in zip(named, found, strict=True)),
            condition="UNPIVOT_VALUE_DATA_TYPE_MISMATCH") from None
    common_name = types.to_name(common)
    if common_name is None:
        raise AnalysisError(f"unpivot of {types.spark_type_name(common)} values is not supported by sparkwire")
    pairs = [F.struct(F.lit(name).alias("n"), col.cast(common_name).alias("v"))
             for (name, _), col in zip(named, value_columns, strict=True)]
    exploded = df.select(*id_columns, F.explode(F.array(*pairs)).alias(_PAIR))
    kept = [F.col(f"`{c}`") for c in exploded.columns[:-1]]
    return exploded.select(*kept, F.col(_PAIR).getField("n").alias(variable),
                           F.col(_PAIR).getField("v").alias(value))
