"""``to_number``/``try_to_number`` against real PySpark: inputs against formats with
grouping, currency, every sign form, leading zeros, points with and without digits, spaces,
empty and NULL text, and mismatches (NULL from ``try_``); one select, in the DataFrame API
and SQL text; one Spark job. ``to_number`` of a mismatch fails as Spark's."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

TEXTS = pa.table({"s": pa.array([
    "454", "45", "4545", "1,234", "1234", "234", "12,34", "$78.12", "78.12", "78.1", "78", ".5", "78.", "-12", "+12",
    "12-", "12+", "<12>", "<12", " 12 ", "", None, "0012", "1,2", "$", ".", "1,234,567", "0.0", "<-12>", "12.345",
])})
_FORMATS = ["999", "000", "9,999", "$99.99", "S99", "99S", "99MI", "MI99", "99PR", "99.99", "9G9", "0099",
            "9,999,999", "99D999"]


def numbers(api, df):
    F_ = api.F
    return df.select("s", *(F_.try_to_number("s", F_.lit(f)).alias(f"n{i}") for i, f in enumerate(_FORMATS)),
                     F_.expr("try_to_number(s, '9,999.99') AS sql_n"))


@pytest.mark.slow
def test_number_formats_match_pyspark(spark, sessions) -> None:
    assert_same(numbers, [TEXTS], spark, sessions)


def test_to_number_of_a_match_and_of_a_mismatch(sessions) -> None:
    df = sessions[0].createDataFrame(TEXTS)
    assert df.where(F.col("s") == "1,234").select(F.to_number("s", F.lit("9,999"))).collect()[0][0] == 1234
    with pytest.raises(Exception, match=r"INVALID_FORMAT.MISMATCH_INPUT.*does not match"):
        df.select(F.to_number("s", F.lit("999"))).collect()
    for bad in ("9.9.9", "99$", "x9"):
        with pytest.raises(AnalysisError, match="INVALID_FORMAT"):
            F.to_number("s", F.lit(bad))
