"""``json_tuple`` (``planner.logical.functions.json_tuples``) against real PySpark: one
table of edges (nested objects and arrays as JSON text, escapes, JSON ``null``, keys with
spaces, quotes and brackets and in another case, keys given twice (the last value wins), arrays, scalars, invalid and empty text, NULL) and one select,
so the family costs one Spark job."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

JSON = pa.table({"j": [
    '{"a": 1, "b": "x\\ny", "c": {"d": [1, 2.50, "s"]}, "a b": true, "e": null}', "[1]", "bad", None,
    '{"a": 1e3, "b": -0.0, "c": 12345678901234567890}', "{}", "", '{"b": [], "c": {}, "a b": "q\\"uote"}',
    ' {"a" : 0.1 } ', '{"A": 1}', '{"c": [null, true, {"x": "y"}]}', '"str"', '{"a": "\\u00e9€"}',
    '{"a": 1, "b": null, "a": {"z": 2}, "b": "last", "it\'s": 3, "x]": [4]}', '{"e": 1, "e": null}',
]})


def tuples(api, df):
    return df.select("j", api.F.json_tuple("j", "a", "b", "c", "a b", "e", "it's", "x]"))


@pytest.mark.slow
def test_json_tuple_matches_pyspark(spark, sessions) -> None:
    assert_same(tuples, [JSON], spark, sessions)


@pytest.mark.parametrize(("build", "why"), [
    (lambda: F.json_tuple("j"), "at least one key"),
])
def test_refused_with_a_reason(build, why) -> None:
    with pytest.raises(AnalysisError, match=why):
        build()
