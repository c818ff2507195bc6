"""The ``Generate`` operator: ``explode``/``posexplode`` of an array or a map (and their
``_outer`` forms), a row per element beside the input's columns; ``inline`` of an array of
structs, a column per field (DuckDB's ``struct_extract_at`` of each zipped ``unnest``)."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context, unique_names
from sparkwire.coordinator.worker.compile.nodes import cast, col, ident, select_from
from sparkwire.planner.logical.plan import Generate, output_columns

__all__ = ["generate"]


def generate(ctx: Context, op: Generate) -> exp.Select:
    """``SELECT <input columns>, unnest(...) AS <names> FROM (input)``: DuckDB zips
    the unnests of one SELECT, so a position, a key and a value come from parallel
    lists of one length. ``outer`` replaces a NULL or empty collection by ``[NULL]``,
    which yields the one row of NULLs Spark's ``explode_outer`` gives; positions are
    0-based ``INTEGER``s, as Spark's ``pos``."""
    columns = output_columns(op.input)
    unique_names([*columns, *op.names], "generate")
    source = ctx.input(op.input)
    collection = ctx.expr(op.expr)
    count = cast(exp.Anonymous(this="cardinality", expressions=[collection.copy()]), "BIGINT")
    lists: list[exp.Expr] = []
    if op.position:
        lists.append(exp.Anonymous(this="range", expressions=[count.copy()]))
    if op.kind == "map":
        lists += [exp.Anonymous(this=f, expressions=[collection.copy()]) for f in ("map_keys", "map_values")]
    elif op.kind == "structs":
        lists += [collection.copy() for _ in op.names]
    else:
        lists.append(collection)
    if op.outer:
        filled = exp.GT(this=count, expression=exp.Literal.number(0))
        lists = [exp.Case(ifs=[exp.If(this=filled.copy(), true=values)],
                          default=exp.Array(expressions=[exp.Null()])) for values in lists]
    generated: list[exp.Expr] = [exp.Anonymous(this="unnest", expressions=[values]) for values in lists]
    if op.position:
        generated[0] = cast(generated[0], "INTEGER")
    if op.kind == "structs":  # the i-th field of each struct (a NULL struct: NULLs)
        generated = [exp.Anonymous(this="struct_extract_at", expressions=[
            exp.Paren(this=g), exp.Literal.number(i)]) for i, g in enumerate(generated, 1)]
    outputs = [*map(col, columns),
               *(exp.alias_(g, ident(n)) for g, n in zip(generated, op.names, strict=True))]
    return select_from(outputs, source)
