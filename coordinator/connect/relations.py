"""A protocol relation as our ``DataFrame``, built by the calls a sparkwire program makes.

Each relation kind is one DataFrame API call (``project`` is ``select``, ``set_op`` one of
``union``/``intersect``/``subtract`` and their ``All``/``ByName`` forms ...), SQL goes to
``session.sql`` and a table name to ``session.table``: the same analyzer, function registry
and planner a program written against ``sparkwire`` gets. A kind with no translation yet
fails with Spark's ``CONNECT_INVALID_PLAN.INVALID_ONE_OF_FIELD_NOT_SUPPORTED``, naming it.
Every DataFrame built is kept by the plan id the client gave it, so a column taken from a
frame (``df["a"]``) resolves against that frame (``expressions``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from pyspark.sql.connect.proto import relations_pb2

from sparkwire.coordinator.connect.errors import PlanNotSupported
from sparkwire.coordinator.connect.expressions import Expressions
from sparkwire.coordinator.connect.kept import KeptFrames
from sparkwire.coordinator.connect.literals import python_value
from sparkwire.coordinator.connect.types import from_proto
from sparkwire.coordinator.connect.reshaping import Reshaping
from sparkwire.planner.api.column import Column
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.sources import sql_dataframe

if TYPE_CHECKING:
    from sparkwire.coordinator.session import Session

Relation = relations_pb2.Relation
_JOIN_TYPES = {
    relations_pb2.Join.JOIN_TYPE_UNSPECIFIED: "inner", relations_pb2.Join.JOIN_TYPE_INNER: "inner",
    relations_pb2.Join.JOIN_TYPE_FULL_OUTER: "full", relations_pb2.Join.JOIN_TYPE_LEFT_OUTER: "left",
    relations_pb2.Join.JOIN_TYPE_RIGHT_OUTER: "right", relations_pb2.Join.JOIN_TYPE_LEFT_ANTI: "left_anti",
    relations_pb2.Join.JOIN_TYPE_LEFT_SEMI: "left_semi", relations_pb2.Join.JOIN_TYPE_CROSS: "cross",
}
#: (set operation, ALL) -> our method; UNION by name is ``unionByName``.
_SET_OPS: dict[tuple[int, bool], Callable[[DataFrame, DataFrame], DataFrame]] = {
    (relations_pb2.SetOperation.SET_OP_TYPE_UNION, True): DataFrame.union,
    (relations_pb2.SetOperation.SET_OP_TYPE_UNION, False): lambda a, b: a.union(b).distinct(),
    (relations_pb2.SetOperation.SET_OP_TYPE_INTERSECT, True): DataFrame.intersectAll,
    (relations_pb2.SetOperation.SET_OP_TYPE_INTERSECT, False): DataFrame.intersect,
    (relations_pb2.SetOperation.SET_OP_TYPE_EXCEPT, True): DataFrame.exceptAll,
    (relations_pb2.SetOperation.SET_OP_TYPE_EXCEPT, False): DataFrame.subtract,
}
_READERS = ("parquet", "csv", "json")


class Relations:
    """Translates the relations of one request on ``session``; a relation the client
    persisted or checkpointed is the frame ``kept`` holds for it."""

    def __init__(self, session: Session, kept: KeptFrames | None = None) -> None:
        self.session = session
        self._kept = kept or KeptFrames()
        self._frames: dict[int, DataFrame] = {}
        self.expressions = Expressions(self._frames)
        self._reshaping = Reshaping(self.frame, self.expressions)

    def frame(self, rel: Relation) -> DataFrame:
        """``rel`` as a DataFrame, kept by its plan id. A plan id seen before in this request
        is the same client DataFrame (``df.join(df, df.a == df.a)``): it is the same frame
        here too, so the API's rules for a frame joined with itself apply as in a program."""
        if rel.common.HasField("plan_id") and rel.common.plan_id in self._frames:
            return self._frames[rel.common.plan_id]
        kind = rel.WhichOneof("rel_type")
        build = getattr(self, f"_{kind}", None)
        df = self._kept.persisted(rel) or (
            build(getattr(rel, str(kind))) if build is not None
            else self._reshaping.build(str(kind), getattr(rel, str(kind))) if kind else None)
        if df is None:
            number = Relation.DESCRIPTOR.fields_by_name[kind].number if kind else 0
            raise PlanNotSupported.field("spark.connect.Relation", str(kind), number)
        return self._keep(rel, df)

    def _keep(self, rel: Relation, df: DataFrame) -> DataFrame:
        """``df``, kept by ``rel``'s plan id if it has one."""
        if rel.common.HasField("plan_id"):
            self._frames[rel.common.plan_id] = df
        return df

    def _columns(self, expressions: Any) -> list[Column]:
        return [self.expressions.column(e) for e in expressions]

    # -- leaves ------------------------------------------------------------------------------
    def _read(self, read: relations_pb2.Read) -> DataFrame:
        if read.HasField("named_table"):
            return self.session.table(read.named_table.unparsed_identifier)
        source = read.data_source
        fmt = (source.format or "parquet").casefold()
        if fmt not in _READERS or source.predicates or read.is_streaming:
            raise PlanNotSupported(f"reading the data source {fmt!r} that way is not supported by "
                                   f"sparkwire (it reads {', '.join(_READERS)})",
                                   condition="UNSUPPORTED_DATA_SOURCE_FOR_DIRECT_QUERY",
                                   parameters={"dataSourceType": fmt})
        if fmt == "parquet":
            return self.session.read.parquet(*source.paths)
        reader = getattr(self.session.read, fmt)
        schema = source.schema or None  # the client may send an empty one
        df: DataFrame = reader(list(source.paths), schema, **dict(source.options))
        return df

    def _cached_remote_relation(self, r: relations_pb2.CachedRemoteRelation) -> DataFrame:
        return self._kept.checkpointed(r.relation_id)

    def _sql(self, sql: relations_pb2.SQL, views: Mapping[str, DataFrame] | None = None) -> DataFrame:
        """``spark.sql``; ``views``: the frames the client named in the text (``{df}``),
        views of this query only, beside the session's."""
        tables = {**self.session.views, **self.session.global_views.for_sql(), **(views or {})}
        return sql_dataframe(self.session, sql.query, tables, sql_arguments(sql))

    def _range(self, r: relations_pb2.Range) -> DataFrame:
        parts = r.num_partitions if r.HasField("num_partitions") else None
        return self.session.range(r.start if r.HasField("start") else 0, r.end, r.step or 1, parts)

    def _local_relation(self, local: relations_pb2.LocalRelation) -> DataFrame:
        if not local.HasField("data"):
            return self.session.createDataFrame([], local.schema)
        with pa.ipc.open_stream(local.data) as reader:
            return self.session.createDataFrame(reader.read_all())

    def _with_relations(self, w: relations_pb2.WithRelations) -> DataFrame:
        """A plan whose expressions name other frames by plan id (``df.scalar()``,
        ``df.exists()``): each reference is built first, so kept by its id, then the root.
        ``spark.sql(text, df=df)`` sends SQL as the root and each frame as a reference
        aliased by the view name the client wrote into the text, as Spark's server reads it."""
        if w.root.HasField("sql") and w.references and all(r.HasField("subquery_alias") for r in w.references):
            views = {r.subquery_alias.alias: self.frame(r.subquery_alias.input) for r in w.references}
            return self._keep(w.root, self._sql(w.root.sql, views))
        for reference in w.references:
            self.frame(reference)
        return self.frame(w.root)

    def _unresolved_table_valued_function(self, f: relations_pb2.UnresolvedTableValuedFunction) -> DataFrame:
        """``spark.tvf.<name>(...)``: the session's ``tvf`` method of that name."""
        name = f.function_name.casefold()
        method = None if name.startswith("_") else getattr(self.session.tvf, name, None)
        if method is None:
            raise PlanNotSupported(f"the table-valued function {name!r} is not supported by sparkwire",
                                   condition="UNRESOLVABLE_TABLE_VALUED_FUNCTION",
                                   parameters={"name": name})
        df: DataFrame = method(*self._columns(f.arguments))
        return df

    # -- one input ---------------------------------------------------------------------------
    def _project(self, p: relations_pb2.Project) -> DataFrame:
        if not p.HasField("input"):
            raise PlanNotSupported("a projection without an input is not supported by sparkwire",
                                   condition="CONNECT_INVALID_PLAN.FIELD_CANNOT_BE_EMPTY")
        df = self.frame(p.input)
        return df.select(*self._columns(p.expressions))

    def _filter(self, f: relations_pb2.Filter) -> DataFrame:
        return self.frame(f.input).filter(self.expressions.column(f.condition))

    def _sort(self, s: relations_pb2.Sort) -> DataFrame:
        df = self.frame(s.input)
        keys = [self.expressions.sort_order(o) for o in s.order]
        return df.orderBy(*keys) if s.is_global else df.sortWithinPartitions(*keys)

    def _limit(self, limit: relations_pb2.Limit) -> DataFrame:
        return self.frame(limit.input).limit(limit.limit)

    def _offset(self, offset: relations_pb2.Offset) -> DataFrame:
        return self.frame(offset.input).offset(offset.offset)

    def _aggregate(self, agg: relations_pb2.Aggregate) -> DataFrame:
        df = self.frame(agg.input)
        keys = self._columns(agg.grouping_expressions)
        values = self._columns(agg.aggregate_expressions)
        kind = agg.group_type
        if kind == relations_pb2.Aggregate.GROUP_TYPE_ROLLUP:
            grouped = df.rollup(*keys)
        elif kind == relations_pb2.Aggregate.GROUP_TYPE_CUBE:
            grouped = df.cube(*keys)
        elif kind == relations_pb2.Aggregate.GROUP_TYPE_PIVOT:
            pivot_values = [python_value(v) for v in agg.pivot.values] or None
            grouped = df.groupBy(*keys).pivot(self.expressions.column(agg.pivot.col), pivot_values)
        elif kind == relations_pb2.Aggregate.GROUP_TYPE_GROUPING_SETS:
            sets = [self._columns(s.grouping_set) for s in agg.grouping_sets]
            grouped = df.groupingSets(sets, *keys)
        else:
            grouped = df.groupBy(*keys)
        return grouped.agg(*values)

    def _deduplicate(self, d: relations_pb2.Deduplicate) -> DataFrame:
        df = self.frame(d.input)
        return df.dropDuplicates(list(d.column_names) or None)

    def _with_columns(self, w: relations_pb2.WithColumns) -> DataFrame:
        df = self.frame(w.input)
        return df.withColumns({a.name[0]: self.expressions.column(a.expr) for a in w.aliases})

    def _with_columns_renamed(self, w: relations_pb2.WithColumnsRenamed) -> DataFrame:
        renames = dict(w.rename_columns_map) or {r.col_name: r.new_col_name for r in w.renames}
        return self.frame(w.input).withColumnsRenamed(renames)

    def _drop(self, d: relations_pb2.Drop) -> DataFrame:
        return self.frame(d.input).drop(*self._columns(d.columns), *d.column_names)

    def _to_df(self, t: relations_pb2.ToDF) -> DataFrame:
        return self.frame(t.input).toDF(*t.column_names)

    def _to_schema(self, t: relations_pb2.ToSchema) -> DataFrame:
        return self.frame(t.input).to(from_proto(t.schema))

    def _subquery_alias(self, s: relations_pb2.SubqueryAlias) -> DataFrame:
        return self.frame(s.input).alias(s.alias)

    def _hint(self, h: relations_pb2.Hint) -> DataFrame:
        parameters = [python_value(p.literal) for p in h.parameters]
        return self.frame(h.input).hint(h.name, *parameters)

    def _show_string(self, s: relations_pb2.ShowString) -> DataFrame:
        """Spark answers ``show()`` with one row of one column ``show_string``."""
        text = self.frame(s.input).show_string(s.num_rows, s.truncate or False, s.vertical)
        return self.session.createDataFrame(pa.table({"show_string": [text]}))

    # -- two inputs --------------------------------------------------------------------------
    def _join(self, j: relations_pb2.Join) -> DataFrame:
        left, right = self.frame(j.left), self.frame(j.right)
        how = _JOIN_TYPES[j.join_type]
        if j.using_columns:
            return left.join(right, list(j.using_columns), how)
        if not j.HasField("join_condition"):
            return left.crossJoin(right) if how in ("inner", "cross") else left.join(right, None, how)
        return left.join(right, self.expressions.column(j.join_condition), how)

    def _set_op(self, s: relations_pb2.SetOperation) -> DataFrame:
        left, right = self.frame(s.left_input), self.frame(s.right_input)
        if s.by_name:
            if s.set_op_type != relations_pb2.SetOperation.SET_OP_TYPE_UNION:
                raise PlanNotSupported("only UNION matches columns by name",
                                       condition="CONNECT_INVALID_PLAN.EXCEPT_DOES_NOT_SUPPORT_UNION_BY_NAME")
            combined = left.unionByName(right, s.allow_missing_columns)
            return combined if s.is_all else combined.distinct()
        return _SET_OPS[(s.set_op_type, s.is_all)](left, right)


def sql_arguments(sql: Any) -> dict[str, object] | list[object] | None:
    """The parameters of a ``SQL`` relation or ``SqlCommand``, as ``session.sql`` takes them."""
    if sql.args:
        return {k: python_value(v) for k, v in sql.args.items()}
    if sql.pos_args:
        return [python_value(v) for v in sql.pos_args]
    if sql.named_arguments:
        return {k: python_value(v.literal) for k, v in sql.named_arguments.items()}
    if sql.pos_arguments:
        return [python_value(v.literal) for v in sql.pos_arguments]
    return None
