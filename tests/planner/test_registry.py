"""The function registry (``planner.logical.functions``): one table the DataFrame API and the
SQL front end both build calls through, so a call is the same expression, checked alike,
whichever way it is written; and the layers it lets stay apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkwire.planner.api import functions as F
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Column, Lit
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.logical.functions.base import Function, plain
from tests.test_layering import ROOT, imported_modules


@pytest.mark.parametrize(("python", "text"), [
    (lambda: F.regexp_replace("s", "[.]", "-"), "regexp_replace(s, '[.]', '-')"),
    (lambda: F.regexp_extract("s", "(a)", 1), "regexp_extract(s, '(a)')"),
    (lambda: F.date_format("d", "yyyy-MM"), "date_format(d, 'yyyy-MM')"),
    (lambda: F.to_timestamp_ntz("s", "yyyy"), "to_timestamp_ntz(s, 'yyyy')"),
    (lambda: F.round("x"), "round(x)"),
    (lambda: F.log("x"), "ln(x)"),
    (lambda: F.split("s", ",", 2), "split(s, ',', 2)"),
    (lambda: F.struct("k", F.col("s").alias("z")), "struct(k, s AS z)"),
    (lambda: F.col("m")["a"], "m['a']"),
    (lambda: F.col("arr")[0], "arr[0]"),
    (lambda: F.sort_array("arr", False), "sort_array(arr, false)"),
    (lambda: F.count("*"), "count(*)"),
    (lambda: F.first("x", True), "first(x) IGNORE NULLS"),
    (lambda: F.col("s").rlike("^a"), "s rlike '^a'"),
    (lambda: F.date_sub("d", 2), "date_sub(d, 2)"),
])
def test_python_and_sql_build_the_same_call(python, text: str) -> None:  # type: ignore[no-untyped-def]
    assert F.expr(text).expr == python().expr


@pytest.mark.parametrize(("python", "text", "message"), [
    (lambda: F.split("s", "["), "split(s, '[')", "invalid regex pattern"),
    (lambda: F.regexp_replace("s", "(?=a)", "-"), "regexp_replace(s, '(?=a)', '-')", "lookahead"),
    (lambda: F.next_day("d", "Funday"), "next_day(d, 'Funday')", "next_day of 'Funday'"),
    (lambda: F.floor("x", 1), None, "floor with a scale"),
    (lambda: F.greatest("x"), None, "greatest needs at least two columns"),
])
def test_python_and_sql_are_checked_alike(python, text: str | None, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnalysisError, match=message):
        python()
    if text is not None:
        with pytest.raises(AnalysisError, match=message):
            F.expr(text)


def test_the_registry_names_its_functions_and_counts_their_arguments() -> None:
    # Spark names day(d) and dayofmonth(d) apart; dateadd is date_add under Spark's name
    assert registry.call("dayofmonth", Column(name="d")).fn == "dayofmonth"
    assert registry.call("day", Column(name="d")).fn == "day"
    assert registry.call("dateadd", Column(name="d"), Column(name="n")).fn == "date_add"
    assert registry.lookup("LPAD").name == "lpad"
    with pytest.raises(AnalysisError, match="the function sentences is not supported by sparkwire"):
        registry.lookup("sentences")
    with pytest.raises(AnalysisError, match=r"lpad takes 3 argument\(s\), got 1"):
        registry.call("lpad", Column(name="s"))
    with pytest.raises(AnalysisError, match=r"bround takes 1 to 2 argument\(s\), got 3"):
        F.expr("bround(x, 1, 2)")
    with pytest.raises(AnalysisError, match="at least 1"):
        registry.call("concat_ws")
    entry = Function.of("f", lambda a, b=None, *rest: a)
    assert (entry.min_args, entry.max_args) == (1, None)
    assert registry.call("round", Column(name="x")).args[1] == Lit(value=0)  # type: ignore[union-attr]


def test_a_name_claimed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="lower is registered twice"):
        registry._joined([plain("lower"), plain("lower")])
    with pytest.raises(ValueError, match="explode is registered twice"):
        registry._joined([Function.of("explode", lambda collection: collection)])
    with pytest.raises(ValueError, match="sentences is not a function the plan allows"):
        plain("sentences", 2)


def test_generators_are_built_by_the_registry_and_named_by_alias() -> None:
    generator = registry.generator("posexplode_outer", Column(name="m")).named("p", "k", "v")
    assert (generator.position, generator.outer, generator.names) == (True, True, ("p", "k", "v"))
    assert F.posexplode_outer("m").alias("p", "k", "v").generator == generator
    with pytest.raises(AnalysisError, match="invalid column name"):
        generator.named('a"b')
    with pytest.raises(AnalysisError, match="the generator stack is not supported"):
        registry.generator("stack", Column(name="m"))


def _imports(folder: str) -> dict[str, set[str]]:
    return {str(p.relative_to(ROOT)): imported_modules(p) for p in (ROOT / folder).rglob("*.py")}


def test_the_sql_front_end_and_the_logical_layer_never_import_the_api() -> None:
    """Lazy imports inside functions and ``TYPE_CHECKING`` imports count too."""
    below_api = {**_imports("planner/sql"), **_imports("planner/logical")}
    offenders = {path: sorted(m for m in mods if m.startswith("sparkwire.planner.api"))
                 for path, mods in below_api.items()}
    assert {k: v for k, v in offenders.items() if v} == {}
    logical = {path: sorted(m for m in mods if m.startswith("sparkwire.planner.sql"))
               for path, mods in _imports("planner/logical").items()}
    assert {k: v for k, v in logical.items() if v} == {}


def test_function_groups_import_their_core_not_the_package() -> None:
    groups = _imports("planner/api/functions")
    assert {path for path, mods in groups.items() if "sparkwire.planner.api.functions" in mods} == set()
    column = imported_modules(Path(ROOT, "planner/api/column.py"))
    assert not any(m.startswith(("sparkwire.planner.api.window", "sparkwire.planner.api.functions"))
                   for m in column)
