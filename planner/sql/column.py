"""One SQL expression: what ``F.expr``, ``selectExpr`` and ``filter``/``where`` with a string
mean, in Spark SQL's dialect (the DataFrame API makes the Column).

The text is parsed by sqlglot as the single item of a ``SELECT`` with nothing else (no
FROM, no second item, no second statement), then translated by ``planner.sql.expressions``
into the planner's own validated expression models: nothing of the text travels further.
``expr AS name`` gives the column that name (checked as a column name).
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.functions.base import alias
from sparkwire.planner.sql.errors import SqlError, syntax_error
from sparkwire.planner.sql.expressions import expression
from sparkwire.planner.sql.normalize import DIALECT


def sql_expression(text: str) -> tuple[ex.Expr, str | None]:
    """The expression the SQL expression ``text`` means, and the name it gives it, if any."""
    if not isinstance(text, str):
        raise SqlError(f"expected SQL expression text, got {type(text).__name__}")
    try:
        statements = sqlglot.parse(f"SELECT {text}", read=DIALECT)
    except ParseError as exc:
        first = exc.errors[0] if exc.errors else {}
        raise syntax_error(f"cannot parse SQL expression {text!r}: {first.get('description', exc)}", first) from None
    select = statements[0] if len(statements) == 1 else None
    if not isinstance(select, exp.Select) or len(select.expressions) != 1 or any(
        select.args.get(key) for key in select.arg_types if key != "expressions"
    ):
        raise SqlError(f"{text!r} is not one SQL expression")
    node = select.expressions[0]
    if isinstance(node, exp.Alias):
        return expression(node.this), alias(node.alias)
    return expression(node), None
