"""``json_tuple(json, k1, k2 ...)``: a generator of one row per input row, its columns
``c0``, ``c1`` ... each the value of one top-level key of the JSON object, with Spark's
semantics (``JsonTuple``); checked against PySpark (``tests/spark/test_json_tuples.py``).

It is planned as ``inline`` of a one-struct array whose fields are ``json_tuple_value(json,
'k')`` (the worker's builder: ``coordinator.worker.compile.calls_json_tuples``): the value
read as ``get_json_object`` reads a key of an object (a string unquoted, anything else its
JSON text, a JSON ``null`` NULL), but of a key given twice in one object the last value
that is not a JSON ``null``, as Spark answers; a NULL, invalid or non-object JSON gives a row of
NULLs, as Spark's ``nullRow``. Where this is not Spark's answer: text after the object
(Jackson reads the object and stops, so Spark answers; DuckDB refuses the text, so this is
NULL, as for ``get_json_object``).
In SQL text ``json_tuple`` is not supported yet (a generator there is planned by
``planner.sql.generators``, which knows ``explode`` and ``inline``). The keys are
string literals here (Spark also takes columns).
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import checked_call, option, shown
from sparkwire.planner.logical.functions.collections import struct_of
from sparkwire.planner.logical.functions.generators import Generator


def _key(key: Expr) -> Lit:
    name = option(key)
    if not isinstance(name, str):
        raise AnalysisError(f"json_tuple takes string literal keys here, got {shown(key)}")
    return Lit(value=name)


def json_tuple(json_text: Expr, *keys: Expr) -> Generator:
    """The generator of ``json_text``'s values at ``keys``, in columns ``c0`` ...``"""
    if not keys:
        raise AnalysisError("json_tuple takes at least one key")
    fields = [(checked_call("json_tuple_value", json_text, _key(key)), f"c{i}") for i, key in enumerate(keys)]
    return Generator(checked_call("array", struct_of(fields)), position=False, outer=False, inline=True)
