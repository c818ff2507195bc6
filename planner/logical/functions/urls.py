"""``parse_url(url, part[, key])`` and ``try_parse_url``: the raw parts of a URL as Spark's
``java.net.URI`` reads them (the grammar in full: ``coordinator.worker.compile.calls_urls``);
checked against PySpark (``tests/spark/test_urls.py``). An invalid URL fails the query
under ANSI (``INVALID_URL``, Spark 4's default) and is NULL otherwise and for
``try_parse_url``. The part (``HOST``, ``PATH``, ``QUERY``, ``REF``, ``PROTOCOL``, ``FILE``,
``AUTHORITY``, ``USERINFO``; another is NULL, as in Spark) and the key may be literals or
columns.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Expr, ScalarFunction
from sparkwire.planner.logical.functions.base import Function, checked_call


def _parse(fn: ScalarFunction) -> Function:
    def build(url: Expr, part: Expr, key: Expr | None = None) -> Expr:
        return checked_call(fn, url, part, *(() if key is None else (key,)))

    return Function.of(fn, build)


FUNCTIONS = (_parse("parse_url"), _parse("try_parse_url"))
