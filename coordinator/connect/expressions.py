"""A protocol expression as our ``Column``, built through the DataFrame API.

The client sends Spark's operators as functions by their SQL names (``+``, ``==``, ``and``,
``not`` ...) and every other function by name. The operators become the ``Column`` operators
a program writes (``a + b``), which name and type their result as Spark does; the rest go to
the function registry by name (``planner.api.functions.core.call``), the one table the
DataFrame API and SQL build calls through. The client sends ``-col`` and ``negative(col)``
alike, as ``negative``: both are the registry's ``negative``, named ``negative(x)``, as Spark's
server names them. A column reference that carries the id of the
DataFrame it was taken from (``df["a"]`` in a self-join) resolves against that frame, as
our own ``df["a"]`` does. Generators, higher-order functions and the functions the DataFrame
API builds itself go through that API function (``api_calls``); a lambda becomes the Python
function PySpark's API takes, whose body is translated when the API calls it, with its
variables bound to the columns the API passes.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Iterable, Mapping

from pyspark.sql.connect.proto import expressions_pb2

from sparkwire.coordinator.connect.api_calls import Argument, api_call, call_function
from sparkwire.coordinator.connect.errors import PlanNotSupported
from sparkwire.coordinator.connect.literals import literal, python_value
from sparkwire.coordinator.connect.types import from_proto
from sparkwire.planner.api import functions as F
from sparkwire.planner.api.column import Column, SortOrder
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.functions.nested import GeneratorColumn
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.api.window import Window

Expression = expressions_pb2.Expression
Unary = Callable[[Column], Column]
Binary = Callable[[Column, Column], Column]

#: Spark's operators by the name the client sends, as our Column's operators.
_BINARY: dict[str, Binary] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "%": operator.mod, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge, "and": operator.and_,
    "or": operator.or_, "<=>": Column.eqNullSafe, "|": Column.bitwiseOR, "&": Column.bitwiseAND,
    "^": Column.bitwiseXOR, "contains": Column.contains, "startswith": Column.startswith,
    "endswith": Column.endswith,
}
_UNARY: dict[str, Unary] = {
    "not": operator.invert, "isnull": Column.isNull,
    "isnotnull": Column.isNotNull, "isnan": Column.isNaN, "~": F.bitwise_not,
}
#: Methods whose second argument our API takes as a Python string (a pattern).
_PATTERN: dict[str, Callable[[Column, str], Column]] = {
    "like": Column.like, "rlike": Column.rlike, "ilike": Column.ilike,
}
_ROWS = Expression.Window.WindowFrame.FRAME_TYPE_ROW
#: ``f(DISTINCT x)``: the name of each aggregate that has such a form.
_DISTINCT = {"count": "count_distinct", "sum": "sum_distinct", "listagg": "listagg_distinct",
             "string_agg": "string_agg_distinct"}
#: The subqueries a DataFrame makes of itself, by the kind the client sends.
_SUBQUERIES: dict[int, Callable[[DataFrame], Column]] = {
    expressions_pb2.SubqueryExpression.SUBQUERY_TYPE_SCALAR: DataFrame.scalar,
    expressions_pb2.SubqueryExpression.SUBQUERY_TYPE_EXISTS: DataFrame.exists,
}
_SORT = {
    (Expression.SortOrder.SORT_DIRECTION_ASCENDING, Expression.SortOrder.SORT_NULLS_FIRST): Column.asc_nulls_first,
    (Expression.SortOrder.SORT_DIRECTION_ASCENDING, Expression.SortOrder.SORT_NULLS_LAST): Column.asc_nulls_last,
    (Expression.SortOrder.SORT_DIRECTION_DESCENDING, Expression.SortOrder.SORT_NULLS_FIRST): Column.desc_nulls_first,
    (Expression.SortOrder.SORT_DIRECTION_DESCENDING, Expression.SortOrder.SORT_NULLS_LAST): Column.desc_nulls_last,
}


class Expressions:
    """Translates the expressions of one plan; ``frames`` are its DataFrames by plan id
    (filled by ``relations.Relations`` as it builds them)."""

    def __init__(self, frames: Mapping[int, DataFrame]) -> None:
        self._frames = frames
        #: the variables of the lambdas being translated, innermost last
        self._scopes: list[dict[str, Column]] = []

    def column(self, e: Expression) -> Column:
        """``e`` as a Column."""
        kind = e.WhichOneof("expr_type")
        match kind:
            case "literal":
                return literal(e.literal)
            case "unresolved_attribute":
                return self._attribute(e.unresolved_attribute)
            case "unresolved_star":
                target = e.unresolved_star.unparsed_target
                return F.col(target or "*")
            case "unresolved_function":
                f = e.unresolved_function
                return self._function(f.function_name, list(f.arguments), f.is_distinct)
            case "call_function":
                return call_function(e.call_function.function_name, self._columns(e.call_function.arguments))
            case "unresolved_regex":  # df.colRegex: the frame it was taken from reads it
                regex = e.unresolved_regex
                frame = self._frames.get(regex.plan_id) if regex.HasField("plan_id") else None
                if frame is not None:
                    return frame.colRegex(regex.col_name)
            case "unresolved_named_lambda_variable":
                return self._variable(".".join(e.unresolved_named_lambda_variable.name_parts))
            case "expression_string":  # selectExpr's items: "*" is every column, as there
                text = e.expression_string.expression
                return F.col(text) if text == "*" else F.expr(text)
            case "alias":
                return self._alias(e.alias)
            case "cast":
                return self._cast(e.cast)
            case "unresolved_extract_value":
                extract = e.unresolved_extract_value
                return self.column(extract.child)[self.column(extract.extraction)]
            case "window":
                return self._window(e.window)
            case "subquery_expression":
                return self._subquery(e.subquery_expression)
            case "update_fields":  # withField, dropFields
                update = e.update_fields
                struct = self.column(update.struct_expression)
                if update.HasField("value_expression"):
                    return struct.withField(update.field_name, self.column(update.value_expression))
                return struct.dropFields(update.field_name)
        raise _unsupported(e, kind)

    def _subquery(self, s: expressions_pb2.SubqueryExpression) -> Column:
        """``df.scalar()`` or ``df.exists()``: the client sends the frame once, among the
        plan's ``with_relations`` references, and here only its plan id."""
        frame = self._frames.get(s.plan_id)
        kind = _SUBQUERIES.get(s.subquery_type)
        if frame is None or kind is None:
            name = expressions_pb2.SubqueryExpression.SubqueryType.Name(s.subquery_type)
            raise PlanNotSupported(f"the subquery {name} is not supported by sparkwire",
                                   condition="UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY",
                                   parameters={"subqueryType": name})
        return kind(frame)

    def _window(self, w: Expression.Window) -> Column:
        """``f.over(spec)``, the spec built as a program builds it (``Window.partitionBy``
        ... ``rowsBetween``), so a frame is checked as the API checks it."""
        spec = Window.partitionBy(*self._columns(w.partition_spec)).orderBy(
            *(self.sort_order(o) for o in w.order_spec))
        if w.HasField("frame_spec"):
            frame = w.frame_spec
            between = spec.rowsBetween if frame.frame_type == _ROWS else spec.rangeBetween
            spec = between(_bound(frame.lower, Window.unboundedPreceding),
                           _bound(frame.upper, Window.unboundedFollowing))
        return self.column(w.window_function).over(spec)

    def _argument(self, e: Expression) -> Argument:
        """A function's argument: a Column, or a lambda as the Python function of as many
        parameters that PySpark's API takes (the API calls it once to build the body)."""
        if e.WhichOneof("expr_type") != "lambda_function":
            return self.column(e)
        f = e.lambda_function
        names = [".".join(v.name_parts) for v in f.arguments]

        def body(*columns: Column) -> Column:
            self._scopes.append(dict(zip(names, columns, strict=True)))
            try:
                return self.column(f.function)
            finally:
                self._scopes.pop()

        body.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(f"p{i}", inspect.Parameter.POSITIONAL_ONLY) for i in range(len(names))])
        return body

    def _variable(self, name: str) -> Column:
        for scope in reversed(self._scopes):
            if name in scope:
                return scope[name]
        raise PlanNotSupported(f"the lambda variable {name!r} is not bound here",
                               condition="CONNECT_INVALID_PLAN.LAMBDA_VARIABLE_NOT_BOUND")

    def _columns(self, expressions: Iterable[Expression]) -> list[Column]:
        return [self.column(e) for e in expressions]

    def sort_order(self, order: Expression.SortOrder) -> SortOrder:
        """A sort key (``Sort`` relations carry these, not expressions); an unspecified
        direction is ascending, unspecified nulls come first ascending and last descending,
        as in Spark."""
        column = self.column(order.child)
        direction = order.direction or Expression.SortOrder.SORT_DIRECTION_ASCENDING
        nulls = order.null_ordering or (
            Expression.SortOrder.SORT_NULLS_FIRST if direction == Expression.SortOrder.SORT_DIRECTION_ASCENDING
            else Expression.SortOrder.SORT_NULLS_LAST)
        return _SORT[(direction, nulls)](column)

    def _attribute(self, attribute: Expression.UnresolvedAttribute) -> Column:
        name = attribute.unparsed_identifier
        frame = self._frames.get(attribute.plan_id) if attribute.HasField("plan_id") else None
        return frame[name] if frame is not None else F.col(name)

    def _alias(self, alias: Expression.Alias) -> Column:
        column = self.column(alias.expr)
        if isinstance(column, GeneratorColumn) and not alias.HasField("metadata"):
            return column.alias(*alias.name)  # one name per column it makes
        if len(alias.name) != 1 or alias.HasField("metadata"):
            raise PlanNotSupported("an alias of several names or with metadata is not supported "
                                   "by sparkwire", condition="UNSUPPORTED_FEATURE.CONNECT_ALIAS")
        return column.alias(alias.name[0])

    def _cast(self, cast: Expression.Cast) -> Column:
        column = self.column(cast.expr)
        to = from_proto(cast.type) if cast.HasField("type") else cast.type_str
        if cast.eval_mode == Expression.Cast.EVAL_MODE_TRY:
            return column.try_cast(to if isinstance(to, str) else to.simpleString())
        return column.cast(to)

    def _function(self, name: str, arguments: list[Expression], distinct: bool) -> Column:
        key = name.casefold()
        if distinct:
            if key not in _DISTINCT:
                raise PlanNotSupported(f"{name}(DISTINCT ...) is not supported by sparkwire",
                                       condition="UNSUPPORTED_FEATURE.CONNECT_DISTINCT_AGGREGATE")
            key = _DISTINCT[key]
        if key == "count" and len(arguments) == 1 and arguments[0].WhichOneof("expr_type") == "unresolved_star":
            return F.count("*")
        through_api = api_call(key, arguments, self._argument)
        if through_api is not None:
            return through_api
        args = [self.column(a) for a in arguments]
        if key in _BINARY and len(args) == 2:
            return _BINARY[key](args[0], args[1])
        if key in _UNARY and len(args) == 1:
            return _UNARY[key](args[0])
        if key in _PATTERN and len(args) == 2 and arguments[1].literal.HasField("string"):
            return _PATTERN[key](args[0], arguments[1].literal.string)
        if key == "in" and args:
            return args[0].isin(*args[1:])
        if key == "when":
            return _case(args)
        if key == "count" and len(args) == 1:
            return F.count(args[0])  # count(lit(1)) is count(*), named count(1), as in PySpark
        return call(key, *(a.expr for a in args))


def _bound(bound: Expression.Window.WindowFrame.FrameBoundary, unbounded: int) -> int:
    """A frame boundary as ``rowsBetween`` takes it: 0 the current row, an offset literal."""
    if bound.current_row:
        return Window.currentRow
    if bound.unbounded:
        return unbounded
    offset = python_value(bound.value.literal)
    if not isinstance(offset, int):
        raise PlanNotSupported("a window frame boundary must be an integer literal in sparkwire",
                               condition="UNSUPPORTED_FEATURE.CONNECT_WINDOW_FRAME")
    return offset


def _case(args: list[Column]) -> Column:
    """``CASE WHEN c1 THEN v1 ... ELSE e END``, sent as ``when(c1, v1, ..., e)``."""
    pairs, rest = args[: len(args) // 2 * 2], args[len(args) // 2 * 2:]
    case = F.when(pairs[0], pairs[1])
    for condition, value in zip(pairs[2::2], pairs[3::2], strict=True):
        case = case.when(condition, value)
    return case.otherwise(rest[0]) if rest else case


def _unsupported(e: Expression, kind: str | None) -> PlanNotSupported:
    number = Expression.DESCRIPTOR.fields_by_name[kind].number if kind else 0
    return PlanNotSupported.field("spark.connect.Expression", str(kind), number)
