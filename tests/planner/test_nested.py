"""Nested types, collection functions and the ``Generate`` operator in the planner: type
names, typing, naming, plan validation, column pruning and stage cutting (no engine)."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pydantic import ValidationError

from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.expressions import AggCall, Column, Lit, check_type_name
from sparkwire.planner.limits import MAX_TYPE_DEPTH
from sparkwire.planner.logical.plan import Generate, operators
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.optimizer.rules.columns import prune_columns
from sparkwire.planner.logical.types import from_name, spark_type_name, to_name
from tests.planner.conftest import FakeExecutor

T = pa.table({
    "k": pa.array([1, 2], pa.int64()),
    "s": ["a,b", None],
    "arr": pa.array([[1, None], []], pa.list_(pa.int32())),
    "m": pa.array([[("a", 1.5)], None], pa.map_(pa.string(), pa.float64())),
    "col": ["x", "y"],
})


@pytest.fixture
def df():
    return create_dataframe(FakeExecutor(workers=2, chunks=2), T)


@pytest.mark.parametrize(("name", "spark"), [
    ("array<int32>", "array<int>"),
    ("map<string,int64>", "map<string,bigint>"),
    ("struct<a:int32,b:string>", "struct<a:int,b:string>"),
    ("array<map<string,array<decimal(12,2)>>>", "array<map<string,array<decimal(12,2)>>>"),
    ("struct<x y:array<bool>>", "struct<x y:array<boolean>>"),
])
def test_type_names_round_trip_through_arrow_with_spark_spellings(name: str, spark: str) -> None:
    arrow = from_name(check_type_name(name))
    assert to_name(arrow) == name
    assert spark_type_name(arrow) == spark


def test_arrays_are_named_like_pysparks_to_arrow() -> None:
    assert from_name("array<int32>") == pa.list_(pa.field("element", pa.int32()))
    assert to_name(pa.large_list(pa.int64())) == "array<int64>"


@pytest.mark.parametrize("bad", [
    "array<int>", "array<int32", "map<string>", "struct<>", "struct<a:int32,A:int32>",
    'struct<"a:int32>', "struct<a int32>", "array<int32>x", "list<int32>",
    "array<" * (MAX_TYPE_DEPTH + 1) + "int32" + ">" * (MAX_TYPE_DEPTH + 1),
])
def test_bad_type_names_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        check_type_name(bad)


def test_dtypes_and_names_of_collection_functions(df) -> None:
    out = df.select(
        F.split("s", ","), F.array("k", F.lit(1)), F.struct("k", F.col("s").alias("t"), F.lit(2)),
        F.create_map(F.lit("a"), "k"), F.element_at("m", "a"), F.col("arr")[0], F.size("arr"),
        F.struct("k", "s").s, F.map_keys("m"), F.sort_array("arr", False),
    )
    assert out.dtypes == [
        ("split(s, ,, -1)", "array<string>"), ("array(k, 1)", "array<bigint>"),
        ("struct(k, s AS t, 2)", "struct<k:bigint,t:string,col3:int>"), ("map(a, k)", "map<string,bigint>"),
        ("element_at(m, a)", "double"), ("arr[0]", "int"), ("size(arr)", "int"),
        ("struct(k, s).s", "string"), ("map_keys(m)", "array<string>"),
        ("sort_array(arr, false)", "array<int>"),
    ]


def test_map_lookups_are_planned_as_map_values(df) -> None:
    out = df.select(F.element_at("m", "a").alias("a"), F.col("m")["a"].alias("b"),
                    F.element_at("arr", 1).alias("c"))
    fns = [c.expr.fn for c in out.plan.columns]  # type: ignore[union-attr]
    assert fns == ["map_value", "map_value", "element_at"]


def test_aggregate_types() -> None:
    frame = create_dataframe(FakeExecutor(workers=2, chunks=2), T)
    out = frame.groupBy("s").agg(
        F.collect_list("k"), F.collect_set("arr"), F.stddev("k"), F.var_pop("k"),
        F.approx_count_distinct("k"), F.count_if(F.col("k") > 1), F.sum_distinct("k"),
        F.percentile_approx("k", 0.5), F.percentile_approx("k", [0.1, 0.9], 50),
    )
    assert [t for _, t in out.dtypes] == [
        "string", "array<bigint>", "array<array<int>>", "double", "double", "bigint", "bigint",
        "bigint", "bigint", "array<bigint>",
    ]
    assert out.columns[-1] == "percentile_approx(k, array(0.1, 0.9), 50)"
    assert out.columns[6:8] == ["count_if((k > 1))", "sum(DISTINCT k)"]


def test_percentile_arguments_are_validated() -> None:
    with pytest.raises(AnalysisError, match="percentages"):
        F.percentile_approx("k", 1.5)
    with pytest.raises(AnalysisError, match="accuracy"):
        F.percentile_approx("k", 0.5, 0)
    with pytest.raises(ValidationError):
        AggCall(fn="percentile_approx", arg=Column(name="k"), fraction=0.5)  # no accuracy
    with pytest.raises(ValidationError):
        AggCall(fn="collect_list", arg=Column(name="k"), fraction=0.5)


def test_generate_outputs_names_and_validation(df) -> None:
    out = df.select("k", F.posexplode_outer("m"), "col")
    assert out.dtypes == [("k", "bigint"), ("pos", "int"), ("key", "string"), ("value", "double"),
                          ("col", "string")]
    generate = next(n for n in operators(out.plan) if isinstance(n, Generate))
    assert (generate.kind, generate.position, generate.outer) == ("map", True, True)
    clash = df.select(F.explode("arr"), "col")  # the input's `col` and the element's
    assert clash.dtypes == [("col", "int"), ("col", "string")]
    with pytest.raises(ValidationError, match="makes 2 column"):
        Generate(input=LocalSource(source_id="x", chunks=1, columns=("a",)), expr=Column(name="a"),
                 kind="map", names=("only",))


def test_generate_prunes_unread_columns_and_extends_the_open_stage(df) -> None:
    out = df.select(F.explode("arr").alias("v")).where(F.col("v") > 0)
    pruned = prune_columns(out.plan)
    source = next(n for n in operators(pruned) if isinstance(n, LocalSource))
    assert source.columns == ("arr",)
    plan = out.staged_plan()
    assert StagedPlan.model_validate_json(plan.model_dump_json()) == plan
    generating = [s for s in plan.stages if any(isinstance(n, Generate) for n in operators(s.fragment))]
    assert len(generating) == 1 and generating[0].tasks == 2  # per task, no boundary of its own


def test_generator_misuse_is_refused(df) -> None:
    with pytest.raises(AnalysisError, match="only one generator"):
        df.select(F.explode("arr"), F.posexplode("m"))
    with pytest.raises(AnalysisError, match="not supported by sparkwire"):
        F.explode("arr").isNull()
    with pytest.raises(AnalysisError, match="takes an array or a map"):
        df.select(F.explode("s"))
    with pytest.raises(AnalysisError, match="not a struct"):
        df.select(F.col("s").getField("x"))
    with pytest.raises(AnalysisError, match="invalid regex"):
        F.split("s", "[")
    assert isinstance(F.split("s", ",").expr.args[1], Lit)  # the pattern travels as a literal


def test_show_and_collect_give_nested_values_as_pyspark_does() -> None:
    from sparkwire.planner.api.rows import Row, python_value
    from sparkwire.planner.api.show import show_string

    t = pa.table({
        "st": pa.array([{"i": 1, "s": "a"}, None], pa.struct([("i", pa.int32()), ("s", pa.string())])),
        "m": pa.array([[("a", None)], []], pa.map_(pa.string(), pa.int64())),
        "arr": pa.array([[1, None], None], pa.list_(pa.int32())),
    })
    lines = show_string(t, 5, True, False).splitlines()
    assert lines[3] == "|{1, a}|{a -> NULL}|[1, NULL]|"
    assert lines[4] == "|  NULL|         {}|     NULL|"
    first = python_value(t["st"][0].as_py(), t.schema.field("st").type)
    assert isinstance(first, Row) and first.s == "a"
    assert python_value(t["m"][0].as_py(), t.schema.field("m").type) == {"a": None}


def test_nested_casts_take_spark_type_names() -> None:
    frame = create_dataframe(FakeExecutor(workers=2, chunks=2), T)
    out = frame.select(F.col("arr").cast("array<bigint>"), F.col("m").cast("map<string, string>"))
    assert out.dtypes == [("arr", "array<bigint>"), ("m", "map<string,string>")]
