"""Filters through set operations, what an OR implies below an aggregate (``rules.pushdown``),
and a subtree read twice through filters computing only what its readers keep
(``rules.shared_filters``)."""

from __future__ import annotations

from sparkwire.planner.logical.expressions import AggCall, Call, Column, Lit, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Filter, Join, Operator, Project, SetOperation, operators
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.optimizer.rules import optimize
from sparkwire.planner.optimizer.rules.pushdown import push_filters
from sparkwire.planner.physical.stages import plan_stages

MiB = 1 << 20
SALES = LocalSource(source_id="sales", chunks=2, columns=("year", "amount"), bytes=40 * MiB, rows=1_000_000)
OTHER = LocalSource(source_id="other", chunks=2, columns=("y", "a"), bytes=40 * MiB, rows=1_000_000)


def eq(column: str, value: object) -> Call:
    return Call(fn="eq", args=(Column(name=column), Lit(value=value)))


def gt(column: str, value: object) -> Call:
    return Call(fn="gt", args=(Column(name=column), Lit(value=value)))


def either(*parts: Call) -> Call:
    return Call(fn="or", args=parts)


def both(*parts: Call) -> Call:
    return Call(fn="and", args=parts)


def totals(source: LocalSource = SALES) -> Aggregate:
    year, amount = source.columns
    return Aggregate(input=source, keys=(NamedExpr(name="year", expr=Column(name=year)),),
                     aggregates=(NamedExpr(name="total", expr=AggCall(fn="sum", arg=Column(name=amount))),))


def filters_over(plan: Operator, source: LocalSource) -> list[Filter]:
    return [op for op in operators(plan) if isinstance(op, Filter) and op.input == source]


def test_a_filter_goes_into_both_inputs_of_a_union_named_as_each_names_it() -> None:
    union = SetOperation(left=SALES, right=OTHER, kind="union", all=True)
    plan = push_filters(Filter(input=union, predicate=eq("year", 2001)))
    assert plan == SetOperation(left=Filter(input=SALES, predicate=eq("year", 2001)),
                                right=Filter(input=OTHER, predicate=eq("y", 2001)), kind="union", all=True)


def test_an_or_leaves_below_an_aggregate_what_it_implies_on_the_keys() -> None:
    condition = either(both(eq("year", 2001), gt("total", 0)), eq("year", 2002))
    plan = push_filters(Filter(input=totals(), predicate=condition))
    assert isinstance(plan, Filter) and plan.predicate == condition  # the OR still holds above
    assert filters_over(plan, SALES) == [Filter(input=SALES, predicate=either(eq("year", 2001), eq("year", 2002)))]


def test_an_or_with_a_branch_on_the_aggregates_alone_implies_nothing() -> None:
    condition = either(eq("year", 2001), gt("total", 0))
    plan = push_filters(Filter(input=totals(), predicate=condition))
    assert filters_over(plan, SALES) == []


def _read_twice(first: Call, second: Call) -> Join:
    """The year totals of a union read twice, each read filtered: a CTE used twice."""
    shared = SetOperation(left=totals(), right=totals(OTHER), kind="union", all=True)

    def read(condition: Call, suffix: str) -> Project:
        return Project(input=Filter(input=shared, predicate=condition), columns=(
            NamedExpr(name=f"year{suffix}", expr=Column(name="year")),
            NamedExpr(name=f"total{suffix}", expr=Column(name="total"))))

    return Join(left=read(first, "1"), right=read(second, "2"), how="inner",
                left_keys=(Column(name="total1"),), right_keys=(Column(name="total2"),))


def test_a_subtree_read_twice_is_computed_once_for_the_rows_its_readers_keep() -> None:
    plan = optimize(_read_twice(both(eq("year", 2001), gt("total", 0)), eq("year", 2002)))
    aggregates = [op for op in operators(plan) if isinstance(op, Aggregate)]
    assert len(aggregates) == 4 and len(set(aggregates)) == 2  # still one subtree, read twice
    wanted = Filter(input=SALES, predicate=either(eq("year", 2001), eq("year", 2002)))
    assert filters_over(plan, SALES) == [wanted, wanted]
    staged = plan_stages(plan, ["year1", "total1", "year2", "total2"], cores=2, broadcast_threshold=MiB)
    stage_aggregates = [op for s in staged.stages for op in operators(s.fragment) if isinstance(op, Aggregate)]
    assert len(stage_aggregates) == len(set(stage_aggregates))  # each computed by one stage


def test_a_read_without_a_filter_keeps_the_subtree_whole() -> None:
    shared = totals()
    filtered = Filter(input=shared, predicate=eq("year", 2001))
    plan = optimize(Join(left=filtered, right=Project(input=shared, columns=(
        NamedExpr(name="t2", expr=Column(name="total")),)), how="cross"))
    assert filters_over(plan, SALES) == []


def _joined(how: str) -> Join:
    return Join(left=SALES, right=OTHER, how=how, left_keys=(Column(name="year"),), right_keys=(Column(name="y"),))


def test_a_condition_on_the_kept_side_s_key_is_copied_to_the_other_side() -> None:
    """A left join keeps no unmatched right row: right rows of another year match nothing
    the filter keeps (TPC-DS q78's web and catalog sales, aggregated for one year)."""
    plan = push_filters(Filter(input=_joined("left"), predicate=eq("year", 2001)))
    assert filters_over(plan, SALES) == [Filter(input=SALES, predicate=eq("year", 2001))]
    assert filters_over(plan, OTHER) == [Filter(input=OTHER, predicate=eq("y", 2001))]


def test_nothing_is_copied_into_a_side_the_join_keeps_unmatched() -> None:
    plan = push_filters(Filter(input=_joined("right"), predicate=eq("year", 2001)))
    assert filters_over(plan, OTHER) == []
    anti = _joined("anti").model_copy(update={"null_aware": True})  # NOT IN: a NULL anywhere counts
    assert filters_over(push_filters(Filter(input=anti, predicate=eq("year", 2001))), OTHER) == []
