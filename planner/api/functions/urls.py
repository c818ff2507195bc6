"""``parse_url`` and ``try_parse_url`` of ``pyspark.sql.functions``, re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.urls``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["parse_url", "try_parse_url"]


def parse_url(url: ColumnOrName, partToExtract: ColumnOrName,  # noqa: N803 - PySpark's names
              key: ColumnOrName | None = None) -> Column:
    return _parsed("parse_url", url, partToExtract, key)


def try_parse_url(url: ColumnOrName, partToExtract: ColumnOrName,  # noqa: N803 - PySpark's names
                  key: ColumnOrName | None = None) -> Column:
    return _parsed("try_parse_url", url, partToExtract, key)


def _parsed(fn: str, url: ColumnOrName, part: ColumnOrName, key: ColumnOrName | None) -> Column:
    """PySpark takes the part and key as columns (a ``str`` naming one), as ``lit`` makes them."""
    keys = () if key is None else (to_column(key).expr,)
    return call(fn, to_column(url).expr, to_column(part).expr, *keys)
