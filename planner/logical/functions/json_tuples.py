"""``json_tuple(json, k1, k2 ...)``: a generator of one row per input row, its columns
``c0``, ``c1`` ... each the value of one top-level key of the JSON object, with Spark's
semantics (``JsonTuple``); checked against PySpark (``tests/spark/test_json_tuples.py``).

It is planned as ``inline`` of a one-struct array whose fields are ``get_json_object(json,
'$['k']')`` (``planner.logical.functions.jsons``): that reading is Spark's for a key of an
object (a string unquoted, anything else its JSON text, a JSON ``null`` NULL), and a
NULL, invalid or non-object JSON gives a row of NULLs, as Spark's ``nullRow``. Where this
is not Spark's answer: text after the object (Jackson reads the object and stops, so Spark
answers; DuckDB refuses the text, so this is NULL, as for ``get_json_object``), and a key
given twice in one object (Spark's ``json_tuple`` takes its last value, this the first).
In SQL text ``json_tuple`` is not supported yet (a generator there is planned by
``planner.sql.generators``, which knows ``explode`` and ``inline``). The keys are
string literals here (Spark also takes columns); a key holding ``'`` or ``]``, which a path
cannot quote, is refused.
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import checked_call, option, shown
from sparkwire.planner.logical.functions.collections import struct_of
from sparkwire.planner.logical.functions.generators import Generator
from sparkwire.planner.logical.functions.jsons import get_json_object


def _path(key: Expr) -> Lit:
    name = option(key)
    if not isinstance(name, str) or "'" in name or "]" in name:
        raise AnalysisError(f"json_tuple takes string literal keys without ' or ] here, got {shown(key)}")
    return Lit(value=f"$['{name}']")


def json_tuple(json_text: Expr, *keys: Expr) -> Generator:
    """The generator of ``json_text``'s values at ``keys``, in columns ``c0`` ...``"""
    if not keys:
        raise AnalysisError("json_tuple takes at least one key")
    fields = [(get_json_object(json_text, _path(key)), f"c{i}") for i, key in enumerate(keys)]
    return Generator(checked_call("array", struct_of(fields)), position=False, outer=False, inline=True)
