"""SQL's higher-order functions (``transform(a, x -> x + 1)``, ``aggregate(a, 0, (acc, x) ->
acc + x)`` ...) onto the registry's (``planner.logical.functions.higher_order``).

sqlglot's Spark dialect parses ``transform`` as ``Transform``, ``filter`` as ``ArrayFilter``,
``exists`` as an ``Exists`` of a lambda (a subquery's ``EXISTS`` has none), ``aggregate`` and
``reduce`` alike as ``Reduce`` (both named ``aggregate`` here), and leaves the others
anonymous. A lambda's body is translated as any expression, then each column it names
after a parameter (``x``, or ``x.f`` of a struct parameter) becomes that parameter: inside a
lambda its parameters shadow the columns, as in Spark. Parameters are numbered apart, as
the DataFrame API numbers them (``x_3``), so nested lambdas may reuse a name.
"""

from __future__ import annotations

import itertools

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.logical.tree import transform
from sparkwire.planner.sql.collections import Translate
from sparkwire.planner.sql.syntax import is_lambda_exists

#: The higher-order functions sqlglot leaves anonymous, resolved by their own names.
_BY_NAME = frozenset({"forall", "zip_with", "map_filter", "transform_keys", "transform_values",
                      "map_zip_with"})
_BY_CLASS: dict[type[exp.Expr], str] = {
    exp.Exists: "exists", exp.Transform: "transform", exp.ArrayFilter: "filter"}
_NUMBERS = itertools.count()


def higher_order(node: exp.Expr, translate: Translate) -> ex.Expr | None:
    """The planner expression for a higher-order call, or None if ``node`` is none."""
    if is_lambda_exists(node) or isinstance(node, exp.Transform | exp.ArrayFilter):
        name = _BY_CLASS[type(node)]
        parts = [node.this, node.expression]
    elif isinstance(node, exp.Reduce):
        name = "aggregate"
        parts = [node.args.get(key) for key in ("this", "initial", "merge", "finish")]
    elif isinstance(node, exp.Anonymous) and node.name.lower() in _BY_NAME:
        name, parts = node.name.lower(), list(node.expressions)
    else:
        return None
    args = [_lambda(p, translate) if isinstance(p, exp.Lambda) else translate(p)
            for p in parts if p is not None]
    return registry.call(name, *args)


def _lambda(node: exp.Lambda, translate: Translate) -> ex.Lambda:
    number = next(_NUMBERS)
    names = {p.name.casefold(): f"{p.name}_{number}" for p in node.expressions}

    def bound(part: ex.Expr) -> ex.Expr | None:
        if not isinstance(part, ex.Column):
            return None
        head, *fields = part.name.split(".")
        if head.casefold() not in names:
            return None
        value: ex.Expr = ex.LambdaVar(name=names[head.casefold()])
        for field in fields:
            value = registry.call("get_field", value, ex.Lit(value=field))
        return value

    def as_column(part: exp.Expr) -> exp.Expr:
        # sqlglot's parser leaves a parameter in a body as a bare identifier
        if isinstance(part, exp.Identifier) and not isinstance(part.parent, exp.Column) \
                and part.name.casefold() in names:
            return exp.column(part.copy())
        return part

    body = translate(node.this.copy().transform(as_column))
    return ex.Lambda(params=tuple(names.values()), body=transform(body, bound))
