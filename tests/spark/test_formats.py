"""The JSON (``to_json`` of every type it takes), URL and UTF-8 functions, ``quote``, ``typeof``, ``jaro_winkler_similarity`` and
``substr`` against real PySpark: one table of edge cases (NULLs, empty strings, text that is
not JSON, nested values, escapes, non-ASCII text, extremes) and one select of every function,
in the DataFrame API and in SQL text (``F.expr``), so the family costs one Spark job."""

from __future__ import annotations

import datetime as dt
import decimal
import re

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same, pyspark_api, sparkwire_api

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

FORMATS = pa.table({
    "j": pa.array([
        '{"a":1,"b":"x","c":[1,2,{"d":null}],"e":{"f":1.50}}', '[1,2,3]', "[]", "{}", "not json", "",
        None, '{"a": "\\u00e9 ü", "b": null}', '"str"', '[1,"a",null,2.5]', '{"a":[{"b":1},{"b":2}],"b":true}',
        '{"a":9223372036854775807,"b":-0.0,"c":[1]}', '{"a":[{"b":"x"}],"e":{"f":"q"},"c":[[1]]}', '{"a b":{"c":[5,6]}}',
    ]),
    "s": pa.array(["x", "a b*~-._+/é?&=", "a+b%20c%2Fé", "", None, "it's \\ q", "ß∂ƒ,ü", "%41%e2%82%ac",
                   "martha", "dixon", "abc", "a", "", "AbCd-123 ÉßŒ٣"]),
    "t": pa.array(["Ab1-é", "x", "", "", "q", None, "ß∂ƒ", "%", "marhta", "dicksonx", "abc", "", "", "marhta"]),
    "n": pa.array([7, 1, 2, None, -1, 0, 5, 3, 2, 1, 4, 2, 1, 3], pa.int32()),
    "m": pa.array([0.5, 1.5, None, -0.0, 1e300, 0.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]),
    "p": pa.array([decimal.Decimal("1.25")] * 14, pa.decimal128(5, 2)),
    "d": pa.array([dt.date(2020, 1, 2)] * 14),
    "b": pa.array([b"\x00\xff"] * 13 + [None]),
    "h": pa.array(["616263", "abc", None, "", "YWI=", "zz", "YWJj", "YWI", "AbC", " 61", "Zm9v\n", "YQ==",
                   "YQ", "é"]),
    "c": pa.array(['q"\\/\n\t\x01\x1f\u2028é', None, ""] + ["c"] * 11),
})


def formats(api, df):
    F_ = api.F
    return df.select(
        F_.get_json_object("j", "$.a"), F_.get_json_object("j", "$.c[2]"), F_.get_json_object("j", "$.e.f"),
        F_.get_json_object("j", "$"), F_.get_json_object("j", "$.a[1].b"),
        F_.get_json_object("j", "$['a b'].c[1]"), F_.get_json_object("j", "a"),
        F_.json_array_length("j"), F_.json_object_keys("j"),
        F_.schema_of_json(F_.lit('{"a":1,"b":[1.5],"c":{"d":"x"},"e":null,"f":99999999999999999999}'))
        .alias("schema"), F_.schema_of_json(F_.lit("[[1, 2.5], []]")).alias("schema2"),
        F_.url_encode("s"), F_.try_url_decode("s"), F_.url_decode(F_.url_encode("s")).alias("round"),
        F_.is_valid_utf8("s"), F_.make_valid_utf8("s"), F_.validate_utf8("s"), F_.try_validate_utf8("s"),
        F_.quote("s"), F_.jaro_winkler_similarity("s", "t"), F_.substr("s", "n"), F_.substr("s", "n", F_.lit(2)),
        F_.typeof("n"), F_.typeof("p"), F_.typeof("b"), F_.typeof(F_.struct("n", F_.array("d"))),
        F_.typeof(F_.create_map("s", "m")), F_.typeof(F_.lit(None)),
        F_.expr("get_json_object(j, '$.c[2].d') AS sql_path"), F_.expr("json_object_keys(j) AS sql_keys"),
        F_.expr("typeof(n + 1L) AS sql_type"), F_.expr("jaro_winkler_similarity(t, s) AS sql_jw"),
        F_.to_json(F_.struct("n", "c", "m", "p", "d", "b")), F_.to_json(F_.array("m", "n")),
        F_.to_json(F_.struct(F_.array(F_.struct("n")).alias("l"), F_.create_map("d", "c").alias("m"))),
        F_.expr("to_json(array(c, c)) AS sql_json"),
        F_.from_json("j", "a INT, b STRING").alias("fj1"), F_.from_json("j", "a DOUBLE, b BOOLEAN").alias("fj2"),
        F_.from_json("j", "array<int>").alias("fj3"),
        F_.from_json("j", "a array<struct<b:bigint>>, e struct<f:float>, c array<string>").alias("fj4"),
        F_.from_json("j", api.T.StructType([api.T.StructField("b", api.T.StringType())])).alias("fj5"),
        F_.expr("from_json(j, 'b STRING, c array<bigint>') AS sql_fj"),
        F_.mask("s"), F_.mask("t", F_.lit("a"), F_.lit("X"), F_.lit(None), F_.lit("*")),
        F_.expr("mask(c, 'Y') AS sql_mask"),
        F_.try_to_binary("h"), F_.try_to_binary("h", F_.lit("BASE64")), F_.to_binary("h", F_.lit("utf-8")),
        F_.expr("try_to_binary(h, 'hex') AS sql_bin"),
    )


@pytest.mark.slow
def test_format_functions_match_pyspark(spark, sessions) -> None:
    assert_same(formats, [FORMATS], spark, sessions)


@pytest.mark.slow
@pytest.mark.parametrize(("error_class", "build"), [
    ("CANNOT_DECODE_URL", lambda F_: F_.url_decode("s")),
    ("CONVERSION_INVALID_INPUT", lambda F_: F_.to_binary("s")),
])
def test_malformed_input_fails_as_in_pyspark(spark, sessions, error_class, build) -> None:
    table = pa.table({"s": ["a%zz"]})
    for api, df in ((pyspark_api(), spark.createDataFrame(table)),
                    (sparkwire_api(), sessions[0].createDataFrame(table))):
        with pytest.raises(Exception, match=re.escape(f"[{error_class}]")):
            df.select(build(api.F).alias("r")).toArrow()


def test_refused_with_a_reason() -> None:
    for build, why in [
        (lambda: F.get_json_object("j", "$.a[*]"), "wildcard"),
        (lambda: F.get_json_object("j", "$.*"), "wildcard"),
        (lambda: F.get_json_object("j", F.col("p")), "literal path"),
        (lambda: F.get_json_object("j", '$["a"]'), None),
        (lambda: F.schema_of_json(F.col("j")), "string literal"),
        (lambda: F.schema_of_json("{", {"x": "y"}), "options"),
        (lambda: F.to_json("j", {"x": "y"}), "options"),
        (lambda: F.from_json("j", "a map<string,int>"), "a map"),
        (lambda: F.from_json("j", "a timestamp"), "timestamp"),
        (lambda: F.from_json("j", "a int", {"mode": "FAILFAST"}), "options"),
        (lambda: F.mask("s", F.lit("XY")), "one-character"),
        (lambda: F.to_binary("s", F.lit("utf-16")), "format"),
    ]:
        if why is None:
            build()  # a path Spark cannot parse is NULL, not refused
            continue
        with pytest.raises(AnalysisError, match=why):
            build()


def test_refused_by_type(sessions) -> None:
    df = sessions[0].createDataFrame(pa.table({"b": [b"\xff"], "t": [dt.datetime(2020, 1, 1)]}))
    for column, why in [
        (F.is_valid_utf8("b"), "takes strings"),
        (F.to_json("b"), "a struct, an array or a map"),
        (F.to_json(F.struct("t")), "timestamp"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            df.select(column).schema
