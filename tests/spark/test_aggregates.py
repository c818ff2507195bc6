"""Collection and statistics aggregates against real PySpark (``compare.py``), on 1 and 3
workers, grouped and global, so two-phase merges (``collect_list``, ``collect_set``,
``count_if``) and single-phase shuffles (the rest) both meet Spark's answers.

``collect_list``/``collect_set`` orders are not defined in Spark: the programs sort them.
``percentile_approx`` is exact here, and so is Spark's on inputs smaller than its accuracy:
they compare equal. ``approx_count_distinct`` is exact here, Spark's a HyperLogLog++
estimate: they compare within the relative standard deviation asked for."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

from tests.spark.compare import assert_same, assert_same_sql, pyspark_api, sparkwire_api

# its programs pass through Spark Connect too (compare.Remote), at more than the CI budget allows
pytestmark = pytest.mark.connect

N = 90
DATA = pa.table({
    "k": [None if n % 13 == 5 else ["a", "b", "c", "", "d"][n % 5] for n in range(N)],
    "i": pa.array([None if n % 7 == 3 else (n * 37) % 23 - 11 for n in range(N)], pa.int32()),
    "b": pa.array([None if n % 11 == 4 else (n * 7919) % 1000 - 500 for n in range(N)], pa.int64()),
    "x": [float("nan") if n == 17 else None if n % 9 == 2 else (n % 17) / 4 - 2 for n in range(N)],
    "s": [None if n % 6 == 1 else ["", "x", "yy", "x"][n % 4] for n in range(N)],
})


def statistics(api, df, grouped: bool):
    F = api.F
    aggregates = [
        F.sort_array(F.collect_list("i")).alias("list_i"),
        F.sort_array(F.collect_set("s")).alias("set_s"),
        F.size(F.collect_list("x")).alias("n_x"),
        F.stddev("i"), F.std("b"), F.stddev_samp("b"), F.stddev_pop("i"),
        F.variance("i"), F.var_samp("b"), F.var_pop("b"),
        F.stddev("x").alias("sd_x_nan"),
        F.percentile_approx("i", 0.5),
        F.percentile_approx("b", [0.0, 0.25, 0.9, 1.0], 1000).alias("pcts_b"),
        F.count_if(F.col("i") > 0),
        F.count_if(F.col("s") == "").alias("empties"),
        F.sum_distinct("i"),
        F.sumDistinct("b").alias("sd_b"),
        (F.stddev_pop("i") * 2 + F.count_if(F.col("b") < 0)).alias("mixed"),
    ]
    if grouped:
        return df.groupBy("k").agg(F.any_value(F.upper("k")).alias("any_k"), *aggregates)
    return df.agg(*aggregates)


@pytest.mark.slow
def test_grouped_aggregates(spark, sessions) -> None:
    assert_same(lambda api, df: statistics(api, df, grouped=True), [DATA], spark, sessions)


@pytest.mark.slow
def test_global_aggregates(spark, sessions) -> None:
    assert_same(lambda api, df: statistics(api, df, grouped=False), [DATA], spark, sessions)


@pytest.mark.slow
def test_aggregates_of_no_rows(spark, sessions) -> None:
    def program(api, df):
        F = api.F
        return df.where(F.col("i") > 100).agg(
            F.collect_list("i").alias("l"), F.collect_set("s").alias("st"), F.count_if(F.col("b") > 0),
            F.stddev("i"), F.percentile_approx("i", 0.5), F.sum_distinct("i"),
            F.approx_count_distinct("i"),
        )

    assert_same(program, [DATA], spark, sessions)


@pytest.mark.slow
def test_two_phase_only(spark, sessions) -> None:
    """Only mergeable calls: partials per task, a shuffle on the key, merged lists."""

    def program(api, df):
        F = api.F
        return df.groupBy("s").agg(
            F.sort_array(F.collect_list("b")).alias("bs"),
            F.sort_array(F.collect_set("k"), asc=False).alias("ks"),
            F.count_if(F.col("x").isNull()).alias("nulls"),
        )

    assert_same(program, [DATA], spark, sessions)


@pytest.mark.slow
@pytest.mark.parametrize("rsd", [0.05])
def test_approx_count_distinct_within_rsd(spark, local_sessions, rsd: float) -> None:
    def program(api, df):
        F = api.F
        return df.groupBy("k").agg(
            F.approx_count_distinct("b", rsd).alias("b"), F.approx_count_distinct("s", rsd).alias("s"),
            F.approx_count_distinct(F.col("i") * 1000, rsd).alias("i"),
        )

    want = {r["k"]: r.asDict() for r in program(pyspark_api(), spark.createDataFrame(DATA)).collect()}
    exact = {k: {c: len({v for v in DATA.filter(pa.compute.equal(DATA["k"], k) if k is not None
                                                  else pa.compute.is_null(DATA["k"]))[c].to_pylist()
                         if v is not None}) for c in ("b", "s")} for k in want}
    for session in local_sessions:
        ours = program(sparkwire_api(), session.createDataFrame(DATA))
        assert ours.dtypes == [("k", "string"), ("b", "bigint"), ("s", "bigint"), ("i", "bigint")]
        got = {r["k"]: r for r in ours.toArrow().to_pylist()}
        assert got.keys() == want.keys()
        for k, row in got.items():
            assert row["b"] == exact[k]["b"] and row["s"] == exact[k]["s"], "exact counts"
            for c in ("b", "s", "i"):
                assert abs(row[c] - want[k][c]) <= max(1, 3 * rsd * want[k][c]), (k, c)


@pytest.mark.slow
def test_nested_and_decimal_inputs(spark, sessions) -> None:
    from tests.spark.test_arrays import DATA as NESTED

    def program(api, df):
        F = api.F
        dec = F.col("i").cast("decimal(10,2)")
        return df.groupBy("k").agg(
            F.size(F.collect_set("arr")).alias("n_sets"),
            F.sort_array(F.collect_set("arr")).alias("arrs"),
            F.sort_array(F.collect_list(F.struct(F.coalesce("i", F.lit(0)), F.coalesce("s", F.lit(""))))).alias("structs"),
            F.percentile_approx(dec, 0.5).alias("pdec"),
            F.stddev(dec).alias("sdec"),
            F.sum_distinct(dec).alias("sumdec"),
            F.collect_list(F.lit(None).cast("int")).alias("nothing"),
        )

    assert_same(program, [NESTED], spark, sessions)


# Decimals near decimal(38,18)'s limits: the averages keep all 22 digits of Spark's
# decimal(38,22) (a double keeps 16), HALF_UP, over groups of 1 to 400 rows.
WIDE = pa.table({
    "g": [n % 7 if n < 2000 else 9 for n in range(2003)],
    "d": pa.array([
        None if n % 11 == 3 else decimal.Decimal(
            f"{'-' if n % 3 == 0 else ''}{(n * 7919) % 9999999999999999}.{(n * 104729) % 10**18:018d}")
        for n in range(2000)
    ] + [decimal.Decimal("9999999999999999.999999999999999999"),
         decimal.Decimal("9999999999999999.999999999999999998"), None], pa.decimal128(38, 18)),
    "e": pa.array([None if n % 5 == 0 else decimal.Decimal(n % 1000 - 500) / 100 for n in range(2003)],
                  pa.decimal128(5, 2)),
})


@pytest.mark.slow
def test_decimal_avg_is_exact(spark, sessions) -> None:
    """``avg`` of a decimal is Spark's exact sum / count at scale s+4, single-phase (one
    worker) and merged from partial sums and counts (three)."""

    def program(api, df):
        F = api.F
        return df.groupBy("g").agg(F.avg("d"), F.avg("e"), F.count("d"), (F.avg("e") * 2).alias("twice"))

    assert_same(program, [WIDE], spark, sessions)
    assert_same(lambda api, df: df.agg(api.F.avg("d"), api.F.mean("e")), [WIDE], spark, sessions)
    query = "SELECT g, AVG(d) AS a, AVG(e) + 1 AS b FROM agg_wide GROUP BY g"
    assert_same_sql(query, {"agg_wide": WIDE}, spark, sessions)


@pytest.mark.slow
def test_picks_over_the_whole_input_skip_tasks_without_rows(spark, sessions) -> None:
    """A global ``first``/``last``/``any_value`` whose only row is in one task: every
    other task's partial row, made from no rows, holds a NULL that is not a value."""

    def program(api, df):
        F = api.F

        def picks(suffix: str):
            return [F.first("b").alias("f" + suffix), F.last("b").alias("l" + suffix),
                    F.any_value("b").alias("a" + suffix), F.first("i", ignorenulls=True).alias("fi" + suffix)]

        only_last = df.where(F.col("b") == (89 * 7919) % 1000 - 500).agg(*picks("1"))
        only_first = df.where(F.col("b") == -500).agg(*picks("2"))
        null_one = df.where(F.col("i").isNull() & (F.col("b") == (3 * 7919) % 1000 - 500)).agg(
            F.first("i").alias("f3"), F.last("i").alias("l3"))
        return only_last.crossJoin(only_first).crossJoin(null_one)

    assert_same(program, [DATA], spark, sessions)
