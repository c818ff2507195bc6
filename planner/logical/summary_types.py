"""Types of the later aggregates (``planner.logical.functions.summaries``), as Spark types
them; ``planner.logical.types`` asks here, as it asks ``collection_types``.

- ``bool_and``/``every``, ``bool_or``/``some`` take a boolean (Spark refuses anything
  else, with no implicit cast) and give one;
- ``product``, ``median`` and ``percentile`` give doubles (an array of them for several
  percentages), of numeric columns;
- ``max_by``/``min_by`` give their value's type;
- ``listagg``/``string_agg`` give a string, of a value cast to a string, binary refused (``planner.logical.functions.listaggs``);
- ``vector_sum``/``vector_avg`` take and give ``array<float>`` (Spark's type check, no cast);
- ``regr_count`` is a bigint; the other regressions are doubles, typed with the statistics
  (``regr_avgx``/``regr_avgy`` of a decimal, a decimal in Spark, refused).
"""

from __future__ import annotations

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import AggCall, Cast

_BOOLEAN = frozenset({"bool_and", "bool_or", "every", "some"})
_DOUBLES = frozenset({"product", "median", "percentile"})


def aggregate_type(call: AggCall, arg: pa.DataType) -> pa.DataType | None:
    """The type of ``call`` over a value of type ``arg``; None for the other aggregates."""
    if call.fn in _BOOLEAN:
        if not pa.types.is_boolean(arg):
            raise AnalysisError(f"{call.fn} takes a boolean column, got {arg}")
        return pa.bool_()
    if call.fn in _DOUBLES:
        if not (pa.types.is_integer(arg) or pa.types.is_floating(arg) or pa.types.is_decimal(arg)):
            raise AnalysisError(f"{call.fn} takes a numeric column, got {arg}; cast it first")
        if call.fractions is not None:
            return pa.list_(pa.field("element", pa.float64()))
        return pa.float64()
    if call.fn in ("max_by", "min_by"):
        return arg
    if call.fn in ("listagg", "listagg_distinct"):  # of its value cast to a string
        if isinstance(call.arg, Cast) and call.arg.source == "binary":
            raise AnalysisError(f"{call.alias or 'listagg'} of a binary column is not supported by "
                                "sparkwire (Spark's answer is binary); cast it to string first")
        return pa.string()
    if call.fn in ("vector_sum", "vector_avg"):
        if not (pa.types.is_null(arg) or (pa.types.is_list(arg) and arg.value_type == pa.float32())):
            raise AnalysisError(f"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] {call.fn}'s argument requires the "
                                f"\"ARRAY<FLOAT>\" type, got {arg}")
        return pa.list_(pa.field("element", pa.float32()))
    if call.fn == "regr_count":
        return pa.int64()
    if call.fn.startswith("regr_"):
        if call.fn in ("regr_avgx", "regr_avgy") and pa.types.is_decimal(arg):
            raise AnalysisError(f"{call.fn} of a decimal is not supported by sparkwire (Spark's "
                                "is a decimal); cast it to double")
        return pa.float64()
    return None
