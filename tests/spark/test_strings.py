"""String functions and Column string methods against real PySpark: one wide program over
data with NULLs, duplicates, empty strings, spaces at both ends and non-ASCII text."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

DATA = pa.table({
    "s": pa.array(["hello wORLD  a-b", "  padded  ", "", None, "a.b.c", "a.b.c", "ünïcode é", "x1y22z333"]),
    "t": pa.array(["b", "", "x", "a", None, "c", "ß", "2"]),
    "n": pa.array([3, -2, 0, 4, 1, 1, None, 12], pa.int32()),
})


def strings(api, df):
    F_ = api.F
    s, t = F_.col("s"), F_.col("t")
    return df.select(
        "s",
        F_.concat_ws("-", "s", "t"), F_.concat_ws("", "t"), F_.concat("s", "t"),
        F_.lpad("s", 12, "*"), F_.rpad("s", 4, "xy"), F_.lpad("s", 3, ""), F_.rpad("t", -1, "x"),
        F_.lpad("s", F_.col("n").cast("bigint"), "-").alias("lpad_bigint"),
        F_.rpad("t", F_.col("n").cast("bigint"), "=").alias("rpad_bigint"),
        F_.regexp_replace("s", r"[a-z]\.", "<$0>"), F_.regexp_replace("s", r"(\w)(\d+)", r"$2\$$1"),
        F_.regexp_extract("s", r"([a-z])(\d+)", 2), F_.regexp_extract("s", r"(x)?(\.)", 1),
        F_.instr("s", "b"), F_.instr("s", ""), F_.locate("b", "s"), F_.locate("b", "s", 3),
        F_.locate("a", "s", 0), F_.locate("", "s", 3), F_.locate("c", "s", 30), F_.initcap("s"), F_.format_string("[%5s|%-3d|%s]", "s", "n", "t"),
        s.like("a%"), s.rlike(r"^\s+p"), s.startswith("a."), s.endswith(t), s.contains(t),
        s.eqNullSafe(t), s.eqNullSafe(F_.lit(None)), s.substr(0, 3), s.substr(-3, 2),
        F_.substring("s", 2, 100), F_.substring("s", -20, 22), F_.substring("s", 3, -1),
        F_.trim("s"), F_.ltrim("s"), F_.rtrim("s"), F_.length(F_.trim("s")),
    )


@pytest.mark.slow
def test_string_functions_match_pyspark(spark, sessions) -> None:
    assert_same(strings, [DATA], spark, sessions)


#: Characters whose Unicode case is several characters (ß, ligatures, ŉ, ǰ, ΐ, İ), title-case
#: digraphs, the Greek final sigma, words split by spaces only; NULL, empty, duplicates.
CASES = pa.table({"s": pa.array([
    "straße", "ǆemal ǈ Ǌ", "ﬁne ﬂow ﬃ", "hello   world", "o'neil mc-d", "İstanbul", "ΣΑΣ ΟΔΟΣ, σ",
    "a\tb c", "ÿ ŉ ǰ ΐ", None, "123abc ABC", "", " x", "straße", "MiXeD ß-ẞ", "ᾳ ᾼ ᾀ", "ß",
])})


def casing(api, df):
    F_ = api.F
    return df.select("s", F_.upper("s"), F_.lower("s"), F_.initcap("s"),
                     F_.length(F_.upper("s")).alias("n"), F_.upper(F_.lower("s")).alias("round_trip"))


@pytest.mark.slow
def test_case_mapping_is_javas(spark, sessions) -> None:
    """Java's full case mapping (ß upper-cases to SS, İ lower-cases to i̇, final sigma) and
    Spark's initcap (title case of each space-separated word's first character)."""
    assert_same(casing, [CASES], spark, sessions)


def test_java_regex_the_engine_would_read_otherwise_is_refused() -> None:
    for pattern, why in [("(?<=a)b", "lookbehind"), ("(a)\\1", "backreference"), ("a++", "possessive"),
                         ("\\p{Lower}", "property"), ("[[:alpha:]]", "inside a character class"),
                         ("(?x) a", "flags"), ("(a", "unclosed")]:
        with pytest.raises(AnalysisError, match=why):
            F.col("s").rlike(pattern)
    with pytest.raises(AnalysisError, match="group number"):
        F.regexp_replace("s", "a", "$x")
    with pytest.raises(AnalysisError, match="not supported by sparkwire"):
        F.format_string("%.2f", "x")


def test_patterns_must_be_literals() -> None:
    from pydantic import ValidationError

    from sparkwire.planner.logical import expressions as ex

    with pytest.raises(ValidationError, match="must be a literal"):
        ex.Call(fn="rlike", args=(ex.Column(name="s"), ex.Column(name="p")))
    with pytest.raises(ValidationError, match="lookahead"):
        ex.Call.model_validate({"fn": "rlike", "args": [{"kind": "column", "name": "s"},
                                                        {"kind": "literal", "value": "(?=a)"}]})
