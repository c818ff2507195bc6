"""``hmac`` (``planner.logical.functions.macs``) against real PySpark: one table of edges
(keys shorter than, exactly, and longer than the 64-byte block, non-ASCII text, binary keys
and messages, empty messages, NULLs) and one select of every algorithm sparkwire builds, in
each spelling Spark reads, and SQL text, so the family costs one Spark job; an empty key
fails in both."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import AnalysisError
from sparkwire import functions as F
from tests.spark.compare import assert_same, pyspark_api, sparkwire_api

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

MACS = pa.table({
    "k": pa.array(["key", "k" * 64, "k" * 65, "é€", None, "k", "0123456789" * 20]),
    "m": pa.array(["msg", "", "x", "ünï", "m", None, "The quick brown fox"]),
    "bk": pa.array([b"\x00\xff", b"\x80" * 64, b"\x01" * 100, b"k", b"z", None, b"\x00"]),
    "bm": pa.array([b"", b"\x00", b"\xfe\xff", None, b"abc", b"d", b"\x7f" * 300]),
})


def macs(api, df):
    F_ = api.F
    return df.select(
        F_.hmac("k", "m"), F_.hmac("k", "m", F_.lit("MD5")), F_.hmac("k", "m", F_.lit("sha-1")),
        F_.hmac("k", "m", F_.lit("SHA1")), F_.hmac("k", "m", F_.lit("sha256")), F_.hmac("bk", "bm", F_.lit("MD5")),
        F_.hmac("bk", "m"), F_.hmac("k", "bm", F_.lit("SHA-1")), F_.expr("hmac(k, m, 'SHA-256') AS sql_hmac"),
    )


@pytest.mark.slow
def test_hmac_matches_pyspark(spark, sessions) -> None:
    assert_same(macs, [MACS], spark, sessions)


@pytest.mark.slow
def test_an_empty_key_fails(spark, sessions) -> None:
    table = pa.table({"k": [""], "m": ["x"]})
    for engine, api in ((spark, pyspark_api()), (sessions[0], sparkwire_api())):
        with pytest.raises(Exception, match="HMAC_CRYPTO_ERROR"):
            engine.createDataFrame(table).select(api.F.hmac("k", "m")).collect()


@pytest.mark.parametrize(("algorithm", "why"), [
    (F.lit("SHA-512"), "DuckDB has no SHA-512 digest"),
    (F.lit("sha384"), "DuckDB has no sha384 digest"),
    (F.lit("HmacSHA256"), "HMAC_ALGORITHM"),
    (F.col("a"), "string literal algorithm"),
])
def test_refused_with_a_reason(algorithm, why) -> None:
    with pytest.raises(AnalysisError, match=why):
        F.hmac("k", "m", algorithm)
