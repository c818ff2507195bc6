"""Lowering a logical ``Aggregate`` into the pieces the stage cutter places.

A logical aggregate's outputs are expressions over aggregate calls and key names
(``sum(a) / count(*)``, ``k + max(b)``). Workers run only the plain form: an ``Aggregate``
whose items are single aggregate calls over columns, grouped by key *columns*, followed by a
``Project`` that computes the user's expressions under the user's names, in the user's order.

Two-phase splitting maps each call to a partial call and a merge of the partials::

    sum(x)   -> partial sum(x),              merge sum,  result as is
    count(x) -> partial count(x),            merge sum,  result cast back to int64
    min/max  -> partial min/max,             merge min/max
    any_value -> partial any_value,          merge any_value
    first/last -> partial first/last,        merge first/last (NULLs skipped in both
                                             with ignorenulls; which row is first is
                                             unspecified, as in Spark)
    ... without keys                      -> partial first/last of struct(x), merge
                                             skipping NULLs, result its field: a task
                                             with no rows still gives a partial row, and
                                             its NULL must not be taken for a value
                                             (Spark's valueSet flag); a struct holding
                                             NULL is a row that had one
    count_if(c) -> partial count_if(c),      merge sum,  result cast back to int64
    bool_and/every, bool_or/some, product, bit_* -> partial and merge the same aggregate
    collect_list(x) -> partial collect_list, merge merge_lists (the lists concatenated)
    collect_set(x)  -> partial collect_set,  merge merge_sets (concatenated, distinct)
    avg(x)   -> partial sum(x) and count(x), merge sums, result sum / count

The others (``count_distinct``, ``approx_count_distinct``, ``sum_distinct``, ``quantile``,
``percentile_approx``, ``percentile``, ``median``, ``max_by``/``min_by``, the ``stddev``/``variance`` family) have no such split here; an
aggregate containing one runs in a single phase, after a shuffle on its keys (the
standard deviations could merge count, mean and M2 partials, but a raw shuffle of the one
column they read is simpler and exact).
Partial columns are named like PySpark would name the call (``sum(x)``, ``count(1)``), so
plans stay readable; names are made unique against the keys and each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sparkwire.planner.logical.expressions import (
    AggCall,
    AggregateFunction,
    Call,
    Cast,
    Column,
    Expr,
    Lit,
    NamedExpr,
)
from sparkwire.planner.logical.plan import Aggregate, Operator, Project
from sparkwire.planner.logical.render import output_name
from sparkwire.planner.logical.tree import column_names, fresh_name, transform, walk

Items = tuple[NamedExpr, ...]
_MERGE: dict[str, AggregateFunction] = {
    "sum": "sum", "count": "sum", "min": "min", "max": "max", "any_value": "any_value",
    "first": "first", "last": "last",
    "count_if": "sum", "collect_list": "merge_lists", "collect_set": "merge_sets",
    "bit_and": "bit_and", "bit_or": "bit_or", "bit_xor": "bit_xor",
    "bool_and": "bool_and", "every": "bool_and", "bool_or": "bool_or", "some": "bool_or",
    "product": "product",
}


#: Calls that pick one row's value, and the field name their global partial boxes it under.
_PICKS = frozenset({"first", "last", "any_value"})
_BOX = Lit(value="v")


@dataclass(frozen=True)
class Lowered:
    """``prepare`` (may be empty) makes the keys columns; ``calls`` are the distinct
    aggregate calls over prepared columns; ``outputs`` are the user's aggregates over key
    names and call names."""

    prepare: Items
    keys: tuple[str, ...]
    calls: Items
    outputs: Items

    @property
    def key_columns(self) -> Items:
        return tuple(NamedExpr(name=k, expr=Column(name=k)) for k in self.keys)


def splittable(agg: Aggregate) -> bool:
    """Only calls with a merge (and ``avg``) have a partial form; the rest aggregate once."""
    return not any(
        isinstance(node, AggCall) and node.fn not in _MERGE and node.fn != "avg"
        for a in agg.aggregates
        for node in walk(a.expr)
    )


def lower(agg: Aggregate, input_columns: Sequence[str], prune: bool) -> Lowered:
    """``prune``: also project away input columns no aggregate reads (before a raw shuffle)."""
    keys = tuple(k.name for k in agg.keys)
    computed = any(k.expr != Column(name=k.name) for k in agg.keys)
    rename: dict[str, str] = {}
    prepare: Items = ()
    if computed or prune:
        prepare, rename = _prepare(agg, keys)
        if [p.name for p in prepare] == list(input_columns) and all(
            p.expr == Column(name=p.name) for p in prepare
        ):
            prepare = ()

    calls: dict[AggCall, str] = {}
    taken = set(keys)

    def name_call(node: Expr) -> Expr | None:
        if not isinstance(node, AggCall):
            return None
        call = transform(node, lambda e: _renamed(e, rename))
        assert isinstance(call, AggCall)
        if call not in calls:
            calls[call] = fresh_name(output_name(node), taken)
        return Column(name=calls[call])

    outputs = tuple(
        NamedExpr(name=a.name, expr=transform(a.expr, name_call)) for a in agg.aggregates
    )
    return Lowered(
        prepare=prepare,
        keys=keys,
        calls=tuple(NamedExpr(name=n, expr=c) for c, n in calls.items()),
        outputs=outputs,
    )


def split(lowered: Lowered) -> tuple[Items, Items, Items]:
    """(partial aggregates, merge aggregates over the partials, outputs over the merges)."""
    partial: dict[AggCall, str] = {}
    merge: list[NamedExpr] = []
    taken = set(lowered.keys)

    def partial_column(call: AggCall) -> Column:
        if call not in partial:
            name = partial[call] = fresh_name(output_name(call), taken)
            merged = AggCall(fn=_MERGE[call.fn], arg=Column(name=name),
                             ignore_nulls=call.ignore_nulls)
            merge.append(NamedExpr(name=name, expr=merged))
        return Column(name=partial[call])

    finals: dict[str, Expr] = {}
    for item in lowered.calls:
        call = item.expr
        assert isinstance(call, AggCall)
        if call.fn == "avg":
            total = partial_column(AggCall(fn="sum", arg=call.arg))
            rows = partial_column(AggCall(fn="count", arg=call.arg))
            finals[item.name] = Call(fn="div", args=(total, rows))
        elif call.fn in ("count", "count_if"):
            finals[item.name] = Cast(expr=partial_column(call), to="int64")
        elif call.fn in _PICKS and not call.ignore_nulls and not lowered.keys and call.arg is not None:
            boxed = Call(fn="named_struct", args=(_BOX, call.arg))
            pick: AggregateFunction = "last" if call.fn == "last" else "first"
            picked = partial_column(AggCall(fn=pick, arg=boxed, ignore_nulls=True))
            finals[item.name] = Call(fn="get_field", args=(picked, _BOX))
        else:
            finals[item.name] = partial_column(call)

    def final(node: Expr) -> Expr | None:
        return finals.get(node.name) if isinstance(node, Column) else None

    outputs = tuple(
        NamedExpr(name=o.name, expr=transform(o.expr, final)) for o in lowered.outputs
    )
    partials = tuple(NamedExpr(name=n, expr=c) for c, n in partial.items())
    return partials, tuple(merge), outputs


def finish(source: Operator, keys: Items, aggregates: Items, outputs: Items) -> Operator:
    """The aggregate, then the user's outputs; a projection that only renames is folded
    into the aggregate's names instead."""
    aggregate = Aggregate(input=source, keys=keys, aggregates=aggregates)
    names = [a.name for a in aggregates]
    refs = [o.expr.name if isinstance(o.expr, Column) else None for o in outputs]
    if refs == names:
        renamed = tuple(NamedExpr(name=o.name, expr=a.expr) for o, a in zip(outputs, aggregates))
        return aggregate.model_copy(update={"aggregates": renamed})
    columns = (*(NamedExpr(name=k.name, expr=Column(name=k.name)) for k in keys), *outputs)
    return Project(input=aggregate, columns=columns)


def _prepare(agg: Aggregate, keys: tuple[str, ...]) -> tuple[Items, dict[str, str]]:
    """Keys as named columns plus the input columns aggregates read; an input column
    shadowed by a differently computed key of the same name passes under a fresh name."""
    prepare = [NamedExpr(name=k.name, expr=k.expr) for k in agg.keys]
    used = list(dict.fromkeys(
        name
        for a in agg.aggregates
        for node in walk(a.expr)
        if isinstance(node, AggCall)  # its argument and its other column (max_by's ordering ...)
        for name in column_names(node)
    ))
    taken = set(keys) | set(used)
    plain = {k.name for k in agg.keys if k.expr == Column(name=k.name)}
    rename: dict[str, str] = {}
    for name in used:
        if name in plain:
            continue
        target = fresh_name(name, taken) if name in keys else name
        if target != name:
            rename[name] = target
        prepare.append(NamedExpr(name=target, expr=Column(name=name)))
    return tuple(prepare), rename


def _renamed(node: Expr, rename: dict[str, str]) -> Expr | None:
    if isinstance(node, Column) and node.name in rename:
        return Column(name=rename[node.name])
    return None
