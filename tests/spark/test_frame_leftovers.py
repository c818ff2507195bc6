"""DataFrame leftovers of issue 35 against real PySpark: ``colRegex`` (backticked regexes
over the column names, case ignored, possessive quantifiers; a plain name) and ``toJSON``
(each row's JSON text: NULL fields left out, nested values, non-ASCII text)."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from tests.spark.compare import assert_same

FRAME = pa.table({
    "Col1": [1, 2, None], "col2": ["a", None, "é\"q"], "x_y": [1.5, None, -0.0],
    "d": [dt.date(2020, 1, 1), None, dt.date(1969, 12, 31)], "arr": [[1, None], [], None],
})


def regex_selects(api, df):
    return df.select(df.colRegex("`COL1`"), df.colRegex("`(col2)?+.+_.+`"), df.colRegex("d"),
                     df.colRegex("`nothing`"), df.colRegex("`[a-b].*`"), df.colRegex("`c.L2`"))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The return type of DataFrame.toJSON")  # PySpark's own: it will be a DataFrame
def test_col_regex_and_to_json_match_pyspark(spark, sessions) -> None:
    assert_same(regex_selects, [FRAME], spark, sessions)
    want = sorted(spark.createDataFrame(FRAME).toJSON().collect())
    for session in sessions:
        got = session.createDataFrame(FRAME).toJSON()
        assert got.columns == ["value"]
        assert sorted(row.value for row in got.collect()) == want


def test_col_regex_only_in_select(sessions) -> None:
    df = sessions[0].createDataFrame(FRAME)
    for build, why in [
        (lambda: df.filter(df.colRegex("`c.*`")).schema, "cannot resolve"),
        (lambda: df.select(df.colRegex("`c.*`").alias("a")).schema, "cannot resolve"),
        (lambda: df.colRegex("t.`c.*`"), "qualified"),
        (lambda: df.colRegex("`(`"), "invalid"),
    ]:
        with pytest.raises(AnalysisError, match=why):
            build()
