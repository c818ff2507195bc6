"""Array, map and struct functions and the collection aggregates, as DuckDB sqlglot trees.

One builder per allowed function, gathered with the others in ``calls.CALLS``; the collection
aggregates (``COLLECTION_AGGREGATES``) join the other aggregates in ``calls_aggregate``.
Where Spark (4, ANSI on) and DuckDB differ, Spark wins, and each rule is written where it is
applied:

- ``split(s, regex, limit)``: DuckDB's ``regexp_split_to_array`` is Spark's split with
  ``limit <= 0`` (trailing empty strings kept, ``''`` splits into characters); a positive
  ``limit`` keeps ``limit - 1`` pieces and then the rest of the string, found from the
  lengths of those pieces and of the separators matched between them. The pattern reaches
  DuckDB as a string literal (RE2 dialect; the planner refused patterns Python cannot
  compile, and a pattern RE2 refuses fails the query with DuckDB's message);
- ``array_contains``: NULL for a NULL array or value, true when found, else NULL when the
  array holds a NULL, else false (DuckDB's ``list_contains`` ignores NULL elements);
- ``size`` is ``cardinality``, NULL for NULL (Spark with ANSI on; -1 only in legacy mode);
- ``element_at(array, i)`` is 1-based, negative from the end; index 0 or out of bounds fails
  the query (Spark's INVALID_INDEX_OF_ZERO / INVALID_ARRAY_INDEX_IN_ELEMENT_AT under ANSI),
  where DuckDB would give NULL; ``array[i]`` (``get_item``) is 0-based and fails likewise;
  a map lookup of a missing key is NULL in both engines;
- ``array_distinct`` keeps the first of equal elements in order and one NULL (DuckDB's
  ``list_distinct`` drops NULLs and reorders);
- ``sort_array`` puts NULLs first ascending and last descending; of structs (the planner
  names their type, ``planner.logical.typed_calls``) NULL fields sort first too, nested structs'
  as well, where DuckDB puts them after values: the elements are sorted ascending by a key
  of (field present, field) pairs, and descending is that order reversed, as in Spark;
- ``array_sort`` (no comparator) is ascending with NULL elements last, struct fields as
  ``sort_array``'s;
- ``collect_list``/``collect_set`` skip NULLs and give ``[]`` for no rows (DuckDB's
  ``list`` keeps NULLs and gives NULL);
- ``approx_count_distinct`` is exact (``count(DISTINCT x)``): within any ``rsd`` of
  Spark's HyperLogLog++ estimate, and equal to it for small inputs;
- ``percentile_approx`` is ``quantile_disc``, exact: the smallest input value whose rank
  reaches ``percentage * n``, which is Spark's answer whenever its accuracy allows exact
  ranks (rows <= accuracy; the default accuracy is 10000);
- ``stddev``/``variance`` on one row are NULL (sample) or 0 (population), NaN in, NaN out,
  as in Spark.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import paren
from sparkwire.planner.logical import typenames

_ELEMENT, _INDEX = "__sparkwire_e", "__sparkwire_i"


def _fn(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def _string_literal(fn: str, arg: exp.Expr) -> str:
    if not (isinstance(arg, exp.Literal) and arg.is_string):
        raise CompileError(f"{fn} takes a string literal there")
    return str(arg.this)


def _int_literal(fn: str, arg: exp.Expr) -> int:
    node = arg.this if isinstance(arg, exp.Neg) else arg
    if not (isinstance(node, exp.Literal) and not node.is_string):
        raise CompileError(f"{fn} takes an integer literal there")
    value = int(str(node.this))
    return -value if isinstance(arg, exp.Neg) else value


def _is_null(node: exp.Expr) -> exp.Expr:
    return exp.Is(this=paren(node), expression=exp.Null())


def _fail(message: str) -> exp.Expr:
    return _fn("error", exp.Literal.string(message))


def _case(branches: list[tuple[exp.Expr, exp.Expr]], default: exp.Expr) -> exp.Case:
    return exp.Case(ifs=[exp.If(this=c, true=v) for c, v in branches], default=default)


def _split(args: list[exp.Expr]) -> exp.Expr:
    arity("split", args, 3)
    text, pattern = args[0], args[1]
    _string_literal("split", pattern)
    limit = _int_literal("split", args[2])
    # Spark splits '' into [''] by any pattern; DuckDB 2.0.1 gives [] for the empty pattern
    # (2.0.0 gave ['']), so the empty string is answered here.
    empty = exp.EQ(this=text.copy(), expression=exp.Literal.string(""))
    pieces = _case([(empty, exp.Array(expressions=[exp.Literal.string("")]))],
                   _fn("regexp_split_to_array", text, pattern))
    if limit <= 0:
        return pieces
    head = _fn("list_slice", pieces.copy(), exp.Literal.number(1), exp.Literal.number(limit - 1))
    separators = _fn("list_slice", _fn("regexp_extract_all", text.copy(), pattern.copy()),
                     exp.Literal.number(1), exp.Literal.number(limit - 1))
    consumed = exp.Add(
        this=_fn("length", _fn("array_to_string", head.copy(), exp.Literal.string(""))),
        expression=_fn("length", _fn("array_to_string", separators, exp.Literal.string(""))),
    )
    rest = exp.Substring(this=text.copy(), start=exp.Add(this=exp.Literal.number(1), expression=consumed))
    short = exp.LTE(this=_fn("len", pieces.copy()), expression=exp.Literal.number(limit))
    return _case([(_is_null(text.copy()), exp.Null()), (short, pieces)],
                 _fn("list_append", head, rest))


def _array(args: list[exp.Expr]) -> exp.Expr:
    if not args:
        raise CompileError("array takes at least 1 argument")
    return exp.Array(expressions=args)


def _array_contains(args: list[exp.Expr]) -> exp.Expr:
    arity("array_contains", args, 2)
    array, value = args
    has_null = exp.LT(this=_fn("list_count", array.copy()), expression=_fn("len", array.copy()))
    return _case(
        [(exp.Or(this=_is_null(array.copy()), expression=_is_null(value.copy())), exp.Null()),
         (_fn("list_contains", array.copy(), value), exp.Boolean(this=True)),
         (has_null, exp.Null())],
        exp.Boolean(this=False),
    )


def _element_at(args: list[exp.Expr]) -> exp.Expr:
    arity("element_at", args, 2)
    array, index = args
    return _case(
        [(exp.EQ(this=paren(index.copy()), expression=exp.Literal.number(0)),
          _fail("[INVALID_INDEX_OF_ZERO] element_at: array indices start at 1")),
         (exp.GT(this=exp.Abs(this=index.copy()), expression=_fn("len", array.copy())),
          _fail("[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] element_at: the index is out of bounds "
                "of the array; use try_element_at to get NULL instead"))],
        _fn("list_extract", array, index),
    )


def _get_item(args: list[exp.Expr]) -> exp.Expr:
    arity("get_item", args, 2)
    array, index = args
    outside = exp.Or(
        this=exp.LT(this=paren(index.copy()), expression=exp.Literal.number(0)),
        expression=exp.GTE(this=paren(index.copy()), expression=_fn("len", array.copy())),
    )
    one_based = exp.Add(this=paren(index), expression=exp.Literal.number(1))
    return _case(
        [(outside, _fail("[INVALID_ARRAY_INDEX] array[index]: the index is out of bounds of "
                         "the array; use get() to get NULL instead"))],
        _fn("list_extract", array, one_based),
    )


def _map_value(args: list[exp.Expr]) -> exp.Expr:
    arity("map_value", args, 2)
    return _fn("map_extract_value", *args)


def _get_field(args: list[exp.Expr]) -> exp.Expr:
    arity("get_field", args, 2)
    _string_literal("get_field", args[1])
    return _fn("struct_extract", *args)


def _named_struct(args: list[exp.Expr]) -> exp.Expr:
    if not args or len(args) % 2:
        raise CompileError("named_struct takes name, value pairs")
    fields = [
        exp.PropertyEQ(this=exp.Literal.string(_string_literal("named_struct", name)), expression=value)
        for name, value in zip(args[0::2], args[1::2], strict=True)
    ]
    return exp.Struct(expressions=fields)


def _array_distinct(args: list[exp.Expr]) -> exp.Expr:
    arity("array_distinct", args, 1)
    element, index = exp.to_identifier(_ELEMENT, quoted=True), exp.to_identifier(_INDEX, quoted=True)
    first = exp.EQ(
        this=_fn("list_position", args[0].copy(), exp.Column(this=element.copy())),
        expression=exp.Column(this=index.copy()),
    )
    return _fn("list_filter", args[0], exp.Lambda(this=first, expressions=[element, index]))


def _sort_array(args: list[exp.Expr]) -> exp.Expr:
    if len(args) not in (2, 3):
        raise CompileError(f"sort_array takes an array, an order and a struct type, got {len(args)}")
    if not isinstance(args[1], exp.Boolean):
        raise CompileError("sort_array takes a boolean literal for its order")
    ascending = bool(args[1].this)
    if len(args) == 3:
        ordered = _sort_structs(args[0], _struct_type(args[2]), nulls_first=True)
        return ordered if ascending else _fn("list_reverse", ordered)
    order, nulls = ("ASC", "NULLS FIRST") if ascending else ("DESC", "NULLS LAST")
    return _fn("list_sort", args[0], exp.Literal.string(order), exp.Literal.string(nulls))


def _array_sort(args: list[exp.Expr]) -> exp.Expr:
    """Spark's ``array_sort`` without a comparator: ascending, NULL elements last (NULL
    fields of structs still first)."""
    if len(args) not in (1, 2):
        raise CompileError(f"array_sort takes an array and a struct type, got {len(args)}")
    if len(args) == 2:
        return _sort_structs(args[0], _struct_type(args[1]), nulls_first=False)
    return _fn("list_sort", args[0], exp.Literal.string("ASC"), exp.Literal.string("NULLS LAST"))


def _struct_type(arg: exp.Expr) -> typenames.TypeTree:
    try:
        tree = typenames.parse(_string_literal("an array sort", arg))
    except ValueError as exc:
        raise CompileError(f"an array sort: {exc}") from None
    if tree.kind != "struct":
        raise CompileError("an array sort names the type of struct elements only")
    return tree


def _sort_structs(array: exp.Expr, tree: typenames.TypeTree, nulls_first: bool) -> exp.Expr:
    """Each element paired with its Spark sort key, sorted ascending by the pairs, the
    elements kept; NULL elements first or last."""
    element = exp.Column(this=exp.to_identifier(_ELEMENT, quoted=True))
    paired = exp.Struct(expressions=[
        exp.PropertyEQ(this=exp.Literal.string("k"),
                       expression=_struct_key(element, tree, nulls_first=nulls_first)),
        exp.PropertyEQ(this=exp.Literal.string("v"), expression=element.copy()),
    ])
    pairs = _fn("list_transform", array, exp.Lambda(
        this=paired, expressions=[exp.to_identifier(_ELEMENT, quoted=True)]))
    ordered = _fn("list_sort", pairs, exp.Literal.string("ASC"), exp.Literal.string("NULLS FIRST"))
    return _fn("list_transform", ordered, exp.Lambda(
        this=_fn("struct_extract", element.copy(), exp.Literal.string("v")),
        expressions=[exp.to_identifier(_ELEMENT, quoted=True)]))


def _struct_key(value: exp.Expr, tree: typenames.TypeTree,
                nulls_first: bool = True) -> exp.Expr:
    """A struct that DuckDB orders as Spark orders ``value``: NULL first (a false flag, or
    last: a true one), then field by field, each one's flag before it, so a NULL field sorts
    before any value."""
    null = _is_null(value.copy())
    present = exp.Not(this=exp.Paren(this=null)) if nulls_first else null
    parts: list[exp.Expr] = [exp.PropertyEQ(this=exp.Literal.string("p"), expression=present)]
    for i, (name, field_type) in enumerate(zip(tree.fields, tree.args, strict=True)):
        field = _fn("struct_extract", value.copy(), exp.Literal.string(name))
        if field_type.kind == "struct":
            parts.append(exp.PropertyEQ(this=exp.Literal.string(f"f{i}"),
                                        expression=_struct_key(field, field_type)))
        else:
            parts += [
                exp.PropertyEQ(this=exp.Literal.string(f"p{i}"),
                               expression=exp.Not(this=exp.Paren(this=_is_null(field.copy())))),
                exp.PropertyEQ(this=exp.Literal.string(f"f{i}"), expression=field),
            ]
    return exp.Struct(expressions=parts)


def _create_map(args: list[exp.Expr]) -> exp.Expr:
    if not args or len(args) % 2:
        raise CompileError("create_map takes key, value pairs")
    return _fn("map", exp.Array(expressions=args[0::2]), exp.Array(expressions=args[1::2]))


def _one(name: str) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, 1)
        return _fn(name, *args)

    return build


COLLECTION_CALLS: dict[str, Builder] = {
    "split": _split,
    "array": _array,
    "array_contains": _array_contains,
    "size": _one("cardinality"),
    "element_at": _element_at,
    "get_item": _get_item,
    "map_value": _map_value,
    "get_field": _get_field,
    "named_struct": _named_struct,
    "array_distinct": _array_distinct,
    "sort_array": _sort_array,
    "array_sort": _array_sort,
    "create_map": _create_map,
    "map_keys": _one("map_keys"),
    "map_values": _one("map_values"),
}


def _or_empty(node: exp.Expr) -> exp.Expr:
    return exp.Coalesce(this=node, expressions=[exp.Array(expressions=[])])


def _collect_list(arg: exp.Expr) -> exp.Expr:
    listed = exp.Filter(this=_fn("list", arg.copy()),
                        expression=exp.Where(this=exp.Not(this=exp.Paren(this=_is_null(arg)))))
    return _or_empty(listed)


#: The aggregates that gather values into a list, and the merges of two-phase aggregation's
#: partial lists; ``[]`` for no rows, as Spark's.
COLLECTION_AGGREGATES: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    "collect_list": _collect_list,
    "collect_set": lambda arg: _or_empty(_fn("list_distinct", _fn("list", arg))),
    "merge_lists": lambda arg: _or_empty(_fn("flatten", _fn("list", arg))),
    "merge_sets": lambda arg: _or_empty(_fn("list_distinct", _fn("flatten", _fn("list", arg)))),
}
