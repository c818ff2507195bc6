"""Joins and set operations of ``DataFrame``, a layer of their own (``planner.api.frame``): each
resolves both sides' attributes (``planner.logical.analyzer``) and derives the new frame;
``join(other, ["k"])`` also shapes its output as PySpark does (each key once). The other
side is a frame of the same class (``Self``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Self

from sparkwire.planner.api.column import Column, JoinOn
from sparkwire.planner.api.transformations import FrameTransformations
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import analyze_join, analyze_set_operation, join_type
from sparkwire.planner.logical.expressions import AggCall, Call, Expr, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Join, JoinType, SetKind



class FrameCombining(FrameTransformations):
    """A layer of ``DataFrame`` (``planner.api.frame``)."""

    __slots__ = ()

    def join(
        self, other: Self, on: JoinOn = None, how: str | None = None,
    ) -> Self:
        """PySpark's ``join``: ``on`` is a column name or a list of them (the key appears
        once in the output), a Column condition or a list of them (ANDed), or None (a cross
        join); ``how`` takes PySpark's names (``inner``, ``left``/``left_outer``,
        ``right``, ``full``/``outer``, ``left_semi``, ``left_anti``, ``cross`` ...)."""
        if not isinstance(other, FrameCombining):
            raise AnalysisError(f"join takes a DataFrame, got {type(other).__name__}")
        kind = join_type(how or "inner")
        names = [on] if isinstance(on, str) else on
        if isinstance(names, list | tuple) and names and all(isinstance(n, str) for n in names):
            return self._using_join(other, list(names), kind)
        given = [on] if isinstance(on, Column) else list(on or [])
        conditions = [c for c in given if isinstance(c, Column)]
        if len(conditions) != len(given):
            raise AnalysisError("join's on takes column names or Column conditions, not a mix")
        condition = None
        for c in conditions:
            condition = c.expr if condition is None else Call(fn="and", args=(condition, c.expr))
        if condition is None and kind not in ("inner", "cross"):
            raise AnalysisError(f"a {kind} join needs a join condition")
        plan, attrs = analyze_join(self._plan, self._attrs, other._plan, other._attrs, kind,
                                   condition)
        return self._derive(self._hinted(plan, other), attrs)

    def _hinted(self, join: Join, other: Self) -> Join:
        """``join`` with the side a broadcast hint names (``planner.api.frame_extras``);
        both hinted, the right one, as Spark's join selection prefers it."""
        side = "right" if other._broadcast else "left" if self._broadcast else None
        return join if side is None else join.model_copy(update={"broadcast": side})

    def crossJoin(self, other: Self) -> Self:  # noqa: N802 - PySpark's name
        return self.join(other, how="cross")

    def _using_join(self, other: Self, names: list[str], kind: JoinType) -> Self:
        """``join(other, ["k"])``: equality on same-named columns, each key once in the
        output (for a full join, the non-null of the two), then the rest of each side."""
        left_keys = [self._scope.lookup(n) for n in names]
        right_keys = [other._scope.lookup(n) for n in names]
        using = [(self._attrs.index(lk), other._attrs.index(rk))
                 for lk, rk in zip(left_keys, right_keys, strict=True)]
        plan, attrs = analyze_join(self._plan, self._attrs, other._plan, other._attrs, kind,
                                   None, using)
        joined = self._derive(self._hinted(plan, other), attrs)
        if kind in ("semi", "anti"):
            return joined
        left_attrs = joined._attrs[: len(self._attrs)]
        right_attrs = joined._attrs[len(self._attrs):]
        outputs: list[tuple[str, Expr]] = []
        for lk, rk in zip(left_keys, right_keys, strict=True):
            left = left_attrs[self._attrs.index(lk)].column
            right = right_attrs[other._attrs.index(rk)].column
            by_kind: dict[str, Expr] = {"right": right, "full": Call(fn="coalesce", args=(left, right))}
            key = by_kind.get(kind, left)
            outputs.append((lk.name, key))
        for mine, joined_side, keys in ((self._attrs, left_attrs, left_keys),
                                        (other._attrs, right_attrs, right_keys)):
            outputs.extend((a.name, a.column) for a, original in zip(joined_side, mine, strict=True)
                           if original not in keys)
        return joined._project(outputs)

    def union(self, other: Self) -> Self:
        """Rows of both, by position, duplicates kept (PySpark's ``union``, SQL's UNION ALL)."""
        return self._set_operation(other, "union", all_=True)

    unionAll = union  # noqa: N815 - PySpark's name

    def unionByName(self, other: Self, allowMissingColumns: bool = False) -> Self:  # noqa: N802,N803
        """Rows of both, matching columns by name (in any case)."""
        if allowMissingColumns:
            raise AnalysisError("unionByName(allowMissingColumns=True) is not supported by sparkwire")
        if len(self._attrs) != len(other._attrs):
            raise AnalysisError(
                f"unionByName needs the same columns: {self.columns} and {other.columns}"
            )
        reordered = other.select(*[other._scope.lookup(a.name).name for a in self._attrs])
        return self.union(reordered)

    def intersect(self, other: Self) -> Self:
        """Distinct rows present in both (NULLs compare equal)."""
        return self._set_operation(other, "intersect", all_=False)

    def intersectAll(self, other: Self) -> Self:  # noqa: N802 - PySpark's name
        return self._set_operation(other, "intersect", all_=True)

    def subtract(self, other: Self) -> Self:
        """Distinct rows of this one not in ``other`` (SQL's EXCEPT)."""
        return self._set_operation(other, "except", all_=False)

    def exceptAll(self, other: Self) -> Self:  # noqa: N802 - PySpark's name
        return self._set_operation(other, "except", all_=True)

    def distinct(self) -> Self:
        keys = tuple(NamedExpr(name=a.internal, expr=a.column) for a in self._attrs)
        return self._derive(Aggregate(input=self._plan, keys=keys, aggregates=()), self._attrs)

    def dropDuplicates(self, subset: Sequence[str] | None = None) -> Self:  # noqa: N802
        """One row per distinct ``subset`` (all columns when None); which row is kept is
        unspecified, as in Spark."""
        if subset is None:
            return self.distinct()
        keyed = {self._scope.lookup(n).internal for n in subset}
        keys = tuple(NamedExpr(name=a.internal, expr=a.column) for a in self._attrs
                     if a.internal in keyed)
        rest = tuple(NamedExpr(name=a.internal, expr=AggCall(fn="any_value", arg=a.column))
                     for a in self._attrs if a.internal not in keyed)
        grouped = self._derive(Aggregate(input=self._plan, keys=keys, aggregates=rest),
                               [*(a for a in self._attrs if a.internal in keyed),
                                *(a for a in self._attrs if a.internal not in keyed)])
        return grouped._project([(a.name, a.column) for a in self._attrs])

    drop_duplicates = dropDuplicates

    def _set_operation(self, other: Self, kind: SetKind, all_: bool) -> Self:
        if not isinstance(other, FrameCombining):
            raise AnalysisError(f"{kind} takes a DataFrame, got {type(other).__name__}")
        plan, attrs = analyze_set_operation(self._plan, self._attrs, other._plan, other._attrs,
                                            kind, all_)
        return self._derive(plan, attrs)
