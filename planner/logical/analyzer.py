"""Name resolution and typing: the one place user names become plan columns.

Every relation (a DataFrame, a SQL table or subquery) has *attributes*: the name the user
sees, the name its column carries inside the plan (``internal``), its Arrow type, an
optional qualifier (``df.alias("o")``, a SQL table alias) and the ids of the DataFrames it
passed through unchanged (``origins``). Internal names are unique within a relation,
case-insensitively, because DuckDB resolves identifiers ignoring case; they equal the
user's name except where a join puts two columns of one name side by side, when the right
one is renamed ``name#2``. Users never see internal names: results carry user names.

Resolution follows Spark with ``spark.sql.caseSensitive=false``:

- ``F.col("x")`` (a ``Column`` before analysis) matches attributes named ``x`` in any case;
  ``F.col("o.x")`` first tries qualifier ``o``;
- ``df["x"]`` (a ``Ref``) matches only attributes that came through ``df``, so after
  ``df1.join(df2, ...)`` ``df1.id`` and ``df2.id`` are told apart;
- no match is an ``AnalysisError`` with a "did you mean", several are an ambiguity error
  that says how to qualify;
- a dotted name no column has, whose head (``s`` or ``t.s``) is a struct column, is a
  path of fields: ``F.col("s.f")`` and SQL's ``s.f`` take field ``f``, named ``f``.

Unaliased expressions are named as Spark names them (``output_name``): ``s["f"]`` of a
struct is a field access, ``s.f``, however it was written (``m["k"]`` of a map stays
``m[k]``), which only the types tell apart.
"""

from __future__ import annotations

import difflib
import functools
import itertools
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Literal

import pyarrow as pa

from sparkwire.planner.logical import types
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Call, Cast, Column, Expr, Lit, NamedExpr, Ref
from sparkwire.planner.logical.plan import Join, JoinType, Operator, Project, SetKind, SetOperation
from sparkwire.planner.logical.render import output_name, sql
from sparkwire.planner.logical.predicates import conjunction, conjuncts, factor_common
from sparkwire.planner.logical.self_joins import self_join_equality
from sparkwire.planner.logical.struct_stars import settled_struct
from sparkwire.planner.logical.tree import column_names, has_window, transform
from sparkwire.planner.logical.type_passes import spark_types
from sparkwire.planner.logical.typed_to_char import TO_CHARS, spelling

_plan_ids = itertools.count(1)
#: Whether a lookup's miss is only probed (``Scope.probe``), its message never shown.
_PROBING: ContextVar[bool] = ContextVar("sparkwire_probing", default=False)


def new_plan_id() -> int:
    """A process-unique id for a new DataFrame, recorded in its attributes' origins."""
    return next(_plan_ids)


@dataclass(frozen=True)
class Attribute:
    name: str
    internal: str
    type: pa.DataType
    qualifier: str | None = None
    origins: frozenset[int] = field(default_factory=frozenset)

    @property
    def column(self) -> Column:
        return Column(name=self.internal)


class Scope:
    """The attributes an expression may name, and the resolver over them."""

    def __init__(self, attributes: Sequence[Attribute]) -> None:
        self.attributes = tuple(attributes)
        self.types = {a.internal: a.type for a in self.attributes}
        #: The attributes by folded name, in order: a lookup scanned them all (a TPC-DS
        #: join's scope holds over a hundred), 5 % of planning.
        self._by_name: dict[str, list[Attribute]] = {}
        for a in self.attributes:
            self._by_name.setdefault(a.name.casefold(), []).append(a)

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.attributes]

    def lookup(self, name: str, plan_id: int | None = None) -> Attribute:
        candidates = self._candidates(name)
        if plan_id is not None:
            candidates = [a for a in candidates if plan_id in a.origins]
            if not candidates:
                raise AnalysisError(
                    f"column {name!r} of another DataFrame cannot be resolved here; "
                    f"available columns: {', '.join(self.names)}"
                )
        if len(candidates) == 1:
            return candidates[0]
        if not candidates:
            if _PROBING.get():
                raise AnalysisError(f"cannot resolve column {name!r}")
            raise unresolved_column(name, self.names)
        raise AnalysisError(
            f"column {name!r} is ambiguous: {len(candidates)} columns have that name; take it "
            f"from its DataFrame (df[{name!r}]) or alias the DataFrames and qualify it "
            f"(df.alias('a') ... F.col('a.{name}'))"
        )

    def field_path(self, name: str) -> Expr | None:
        """``s.f.g`` or ``t.s.f`` as fields of the struct column it starts with, if no
        column has that name and one struct column has its head; else None."""
        if "." not in name or self._candidates(name):
            return None
        parts = name.split(".")
        for head in (2, 1):
            found = self._candidates(".".join(parts[:head])) if len(parts) > head else []
            if len(found) == 1 and pa.types.is_struct(found[0].type):
                path: Expr = found[0].column
                for part in parts[head:]:
                    path = Call(fn="get_field", args=(path, Lit(value=part)))
                return path
        return None

    def output_name(self, expr: Expr) -> str:
        """The name Spark gives the unaliased (unresolved) ``expr``: a field path its
        last field, a struct's ``s["f"]`` ``s.f``."""
        if isinstance(expr, Column) and self.field_path(expr.name) is not None:
            return expr.name.rsplit(".", 1)[-1]
        return output_name(self.spelled(expr))

    def _starred(self, qualifier: str) -> list[Attribute]:
        """The columns of ``*`` (qualifier ``""``) or of ``qualifier.*``."""
        return [a for a in self.attributes
                if not qualifier or (a.qualifier or "").casefold() == qualifier.casefold()]

    def _is_struct(self, expr: Expr) -> bool:
        """Whether the unresolved ``expr`` is of a struct type."""
        return bool(pa.types.is_struct(self.type_of(self.resolve(expr))))

    def spelled(self, expr: Expr) -> Expr:
        """The unresolved ``expr`` with each ``[]`` of a struct written as the field
        access it is, as Spark prints it."""

        def visit(node: Expr) -> Expr | None:
            struct = settled_struct(node, lambda q: [(a.name, Column(name=a.name)) for a in self._starred(q)],
                                    lambda e: transform(e, visit), self._is_struct)
            if struct is not None:
                return struct
            if isinstance(node, Call) and node.fn == "get_item":
                container = transform(node.args[0], visit)
                struct = pa.types.is_struct(self.type_of(self.resolve(node.args[0])))
                return Call(fn="get_field" if struct else "get_item", args=(container, node.args[1]))
            if isinstance(node, Call) and node.fn in TO_CHARS and len(node.args) == 2:
                operand = transform(node.args[0], visit)
                return spelling(Call(fn=node.fn, args=(operand, node.args[1])),
                                self.type_of(self.resolve(node.args[0])))
            return None

        return transform(expr, visit)

    def _candidates(self, name: str) -> list[Attribute]:
        if "." in name:
            qualifier, rest = name.split(".", 1)
            qualified = [
                a for a in self._by_name.get(rest.casefold(), ())
                if a.qualifier is not None and a.qualifier.casefold() == qualifier.casefold()
            ]
            if qualified:
                return qualified
        return list(self._by_name.get(name.casefold(), ()))

    def resolve(self, expr: Expr, first: Callable[[Expr], Expr | None] | None = None) -> Expr:
        """``expr`` with every user reference replaced by the plan column it means; where
        ``first`` gives a node, that node (already resolved) instead."""

        def replace_ref(node: Expr) -> Expr | None:
            if first is not None and (done := first(node)) is not None:
                return done
            struct = settled_struct(node, lambda q: [(a.name, a.column) for a in self._starred(q)],
                                    resolve_part, self._is_struct)
            if struct is not None:
                return struct
            if isinstance(node, Column):
                path = self.field_path(node.name)
                return self.lookup(node.name).column if path is None else path
            if isinstance(node, Ref):
                return self.lookup(node.name, node.plan_id).column
            return None

        def resolve_part(node: Expr) -> Expr:
            return transform(node, replace_ref)

        return self.typed(transform(expr, replace_ref))

    def probe(self, expr: Expr) -> Expr | None:
        """``resolve(expr)``, or None where that raises: for callers asking whether an
        expression names only columns in scope. A miss skips the message's "did you mean",
        whose similarity search over a wide join's columns took 10 ms a miss."""
        token = _PROBING.set(True)
        try:
            return self.resolve(expr)
        except AnalysisError:
            return None
        finally:
            _PROBING.reset(token)

    def typed(self, expr: Expr) -> Expr:
        """``expr``, whose columns are already plan columns, typed as Spark types it."""
        return spark_types(expr, self.types)

    def reference(self, expr: Expr) -> Attribute | None:
        """The attribute a bare column reference means, else None."""
        if isinstance(expr, Column):
            return self.lookup(expr.name) if self.field_path(expr.name) is None else None
        if isinstance(expr, Ref):
            return self.lookup(expr.name, expr.plan_id)
        return None

    def type_of(self, resolved: Expr) -> pa.DataType:
        return types.infer(resolved, self.types)

    def attribute_of(self, resolved: Expr) -> Attribute | None:
        """The attribute a resolved bare column is, else None."""
        if isinstance(resolved, Column):
            return next((a for a in self.attributes if a.internal == resolved.name), None)
        return None


@dataclass(frozen=True)
class Relation:
    """A logical plan and its attributes: what a SQL FROM item, subquery or view is."""

    plan: Operator
    attrs: tuple[Attribute, ...]

    @functools.cached_property
    def scope(self) -> Scope:
        """The resolver over ``attrs``, built once: a Scope indexes every attribute by name,
        and the join order asks a relation's scope again for each candidate it weighs."""
        return Scope(self.attrs)

    def qualified(self, qualifier: str | None) -> Relation:
        """The relation under a new table alias (every column's qualifier)."""
        if qualifier is None:
            return self
        # built directly: ``dataclasses.replace`` rereads the fields of every attribute of
        # every FROM item (16,000 a TPC-DS run), 1 % of planning
        return Relation(self.plan, tuple(Attribute(a.name, a.internal, a.type, qualifier, a.origins)
                                         for a in self.attrs))


def passed_through(attributes: Iterable[Attribute], plan_id: int) -> tuple[Attribute, ...]:
    """The same attributes, now also reachable as columns of DataFrame ``plan_id``."""
    return tuple(replace(a, origins=a.origins | {plan_id}) for a in attributes)


def projected(scope: Scope, items: Sequence[NamedExpr], plan_id: int) -> tuple[Attribute, ...]:
    """Attributes of a projection of resolved ``items``: a column passed through keeps its
    identity (qualifier, origins); anything computed is new."""
    by_internal = {a.internal: a for a in scope.attributes}
    out = []
    for item in items:
        kept = by_internal.get(item.expr.name) if isinstance(item.expr, Column) else None
        if kept is not None and kept.name == item.name:
            out.append(replace(kept, internal=item.name, origins=kept.origins | {plan_id}))
        else:
            out.append(Attribute(item.name, item.name, scope.type_of(item.expr), None,
                                 frozenset({plan_id})))
    check_unique(a.internal for a in out)
    return tuple(out)


def renamed_apart(
    left: Sequence[Attribute], right: Sequence[Attribute]
) -> tuple[tuple[Attribute, ...], tuple[NamedExpr, ...] | None]:
    """``right``'s attributes with internal names clashing with ``left``'s renamed, and the
    projection that renames them (None when nothing clashes)."""
    taken = {a.internal.casefold() for a in left}
    if not any(a.internal.casefold() in taken for a in right):
        return tuple(right), None
    taken |= {a.internal.casefold() for a in right}
    out, items = [], []
    for a in right:
        internal = a.internal
        if internal.casefold() in {x.internal.casefold() for x in left}:
            internal = fresh(a.name, taken)
        out.append(replace(a, internal=internal))
        items.append(NamedExpr(name=internal, expr=a.column))
    return tuple(out), tuple(items)


def fresh(base: str, taken: set[str]) -> str:
    """``base#2``, ``base#3`` ...: the first not in ``taken`` (case-insensitively); added."""
    n = 2
    while f"{base}#{n}".casefold() in taken:
        n += 1
    name = f"{base}#{n}"
    taken.add(name.casefold())
    return name


def coerced(expr: Expr, have: pa.DataType, want: pa.DataType) -> Expr:
    """``expr`` cast to ``want`` when its type differs (so equal values hash alike)."""
    if have == want:
        return expr
    name = types.to_name(want)
    if name is None:
        raise AnalysisError(f"cannot coerce {have} to {want}")
    return Cast(expr=expr, to=name)


def check_unique(names: Iterable[str]) -> None:
    """Refuse names equal but for case: a later reference could not tell them apart, and
    DuckDB, which ignores case, neither."""
    seen: dict[str, str] = {}
    for name in names:
        key = name.casefold()
        if key in seen:
            same = "" if seen[key] == name else f" and {seen[key]!r}"
            raise AnalysisError(f"duplicate column name {name!r}{same}; give one of them an alias")
        seen[key] = name


def unresolved_column(name: str, columns: Sequence[str]) -> AnalysisError:
    """Spark's ``UNRESOLVED_COLUMN.WITH_SUGGESTION``: its proposal is the five columns most
    like ``name``, most alike first."""
    folded = {c.casefold(): c for c in columns}
    close = difflib.get_close_matches(name.casefold(), list(folded), n=1)
    hint = f" Did you mean {folded[close[0]]!r}?" if close else ""
    alike = difflib.get_close_matches(name.casefold(), list(folded), n=5, cutoff=0)
    return AnalysisError(
        f"cannot resolve column {name!r}.{hint} Available columns: {', '.join(columns)}",
        condition="UNRESOLVED_COLUMN.WITH_SUGGESTION" if columns else "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
        parameters={"objectName": quote(name), "proposal": ", ".join(quote(folded[c]) for c in alike)},
    )


def quote(name: str) -> str:
    """A name as Spark's messages show it: in backticks, a backtick doubled."""
    return "`" + name.replace("`", "``") + "`"


_JOIN_NAMES: dict[str, JoinType] = {
    "inner": "inner", "cross": "cross",
    "outer": "full", "full": "full", "fullouter": "full", "full_outer": "full",
    "left": "left", "leftouter": "left", "left_outer": "left",
    "right": "right", "rightouter": "right", "right_outer": "right",
    "semi": "semi", "leftsemi": "semi", "left_semi": "semi",
    "anti": "anti", "leftanti": "anti", "left_anti": "anti",
}


def join_type(how: str) -> JoinType:
    """PySpark's join type names (any case, with or without ``_``)."""
    kind = _JOIN_NAMES.get(how.casefold())
    if kind is None:
        raise AnalysisError(
            f"unsupported join type {how!r}; supported: {', '.join(sorted(_JOIN_NAMES))}"
        )
    return kind


def analyze_join(
    left: Operator, left_attrs: Sequence[Attribute], right: Operator,
    right_attrs: Sequence[Attribute], how: JoinType, condition: Expr | None,
    using: Sequence[tuple[int, int]] = (),
) -> tuple[Join, tuple[Attribute, ...]]:
    """A typed join: the right side renamed apart from the left, the condition resolved
    over both, its equalities between one side and the other taken as keys (coerced to one
    type, so equal keys hash alike), the rest kept as the residual condition. ``using``
    pairs attributes by position, left and right, that must be equal: a using-join's keys,
    which name one column of each side even where both sides came from one DataFrame
    (``df.join(df.select("a"), "a")``)."""
    right_attrs, renames = renamed_apart(left_attrs, right_attrs)
    if renames is not None:
        right = Project(input=right, columns=renames)
    scope = Scope([*left_attrs, *right_attrs])
    if condition is not None and has_window(condition):
        raise AnalysisError(f"a window function in a join condition ({sql(condition)}) is not "
                            "supported by sparkwire; compute it with withColumn first")
    sides = functools.cache(lambda: (Scope(left_attrs), Scope(right_attrs)))
    resolved = None if condition is None else scope.resolve(
        condition, lambda node: self_join_equality(node, sides))
    if using:
        keys = scope.typed(conjunction([Call(fn="eq", args=(left_attrs[i].column, right_attrs[j].column))
                                        for i, j in using]))  # type: ignore[arg-type]
        resolved = keys if resolved is None else Call(fn="and", args=(keys, resolved))
    if resolved is not None and not pa.types.is_boolean(scope.type_of(resolved)):
        raise AnalysisError(f"join condition {sql(resolved)} is not a boolean")
    left_names = {a.internal for a in left_attrs}
    right_names = {a.internal for a in right_attrs}
    left_keys: list[Expr] = []
    right_keys: list[Expr] = []
    residual: list[Expr] = []
    for part in (p for c in conjuncts(resolved) for p in conjuncts(factor_common(c))):
        pair = _key_pair(part, left_names, right_names)
        if pair is None:
            residual.append(part)
            continue
        lk, rk = pair
        lt, rt = scope.type_of(lk), scope.type_of(rk)
        want = types.common(lt, rt)
        left_keys.append(coerced(lk, lt, want))
        right_keys.append(coerced(rk, rt, want))
    if how == "cross" and (left_keys or residual):
        how = "inner"
    join = Join(
        left=left, right=right, how=how, left_keys=tuple(left_keys), right_keys=tuple(right_keys),
        condition=conjunction(residual),
    )
    out = tuple(left_attrs) if how in ("semi", "anti") else (*left_attrs, *right_attrs)
    return join, out


def analyze_set_operation(
    left: Operator, left_attrs: Sequence[Attribute], right: Operator,
    right_attrs: Sequence[Attribute], kind: SetKind, all_: bool,
) -> tuple[SetOperation, tuple[Attribute, ...]]:
    """Columns matched by position, each pair coerced to its common type on both sides;
    the result has the left side's names."""
    if len(left_attrs) != len(right_attrs):
        raise AnalysisError(
            f"{kind} needs the same number of columns on both sides: "
            f"{len(left_attrs)} and {len(right_attrs)}"
        )
    wanted = [types.common(a.type, b.type) for a, b in zip(left_attrs, right_attrs, strict=True)]
    left = _cast_to(left, left_attrs, wanted)
    right = _cast_to(right, right_attrs, wanted)
    out = tuple(replace(a, type=w) for a, w in zip(left_attrs, wanted, strict=True))
    return SetOperation(left=left, right=right, kind=kind, all=all_), out


def _cast_to(op: Operator, attrs: Sequence[Attribute], wanted: Sequence[pa.DataType]) -> Operator:
    """``op`` with each column cast to its wanted type, where it differs."""
    if all(a.type == w for a, w in zip(attrs, wanted, strict=True)):
        return op
    columns = tuple(
        NamedExpr(name=a.internal, expr=coerced(a.column, a.type, w))
        for a, w in zip(attrs, wanted, strict=True)
    )
    return Project(input=op, columns=columns)


def _key_pair(
    expr: Expr, left: set[str], right: set[str]
) -> tuple[Expr, Expr] | None:
    """``(left side, right side)`` of an equality between the two inputs, else None."""
    if not (isinstance(expr, Call) and expr.fn == "eq" and len(expr.args) == 2):
        return None
    a, b = expr.args
    ca, cb = set(column_names(a)), set(column_names(b))
    if ca and cb and ca <= left and cb <= right:
        return a, b
    if ca and cb and ca <= right and cb <= left:
        return b, a
    return None


def with_result_types(plan: Operator, attrs: Sequence[Attribute]) -> Operator:
    """``plan`` with its numeric outputs cast to the types the planner gives them.

    The planner types results as Spark SQL does (``planner.logical.types``); DuckDB, computing
    them, sometimes picks another type: ``sum`` of BIGINT is HUGEINT, ``year`` is BIGINT,
    BIGINT widens to DECIMAL(19,0) where Spark's bigint is decimal(20,0). Results flow
    back into Spark, so the final projection casts every numeric column whose type the
    engine might choose differently; DuckDB drops a cast to the type a column already has.
    """
    items, cast = [], False
    for a in attrs:
        name = types.to_name(a.type) if _engine_may_differ(a.type) else None
        expr: Expr = a.column if name is None else Cast(expr=a.column, to=name)
        cast = cast or name is not None
        items.append(NamedExpr(name=a.internal, expr=expr))
    return Project(input=plan, columns=tuple(items)) if cast else plan


def _engine_may_differ(t: pa.DataType) -> bool:
    """Integers and decimals: DuckDB's floating results are doubles, as Spark's are; and
    arrays, maps and structs, whose elements and fields DuckDB types by its own rules."""
    return pa.types.is_integer(t) or pa.types.is_decimal(t) or types.is_nested(t)
