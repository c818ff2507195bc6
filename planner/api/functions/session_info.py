"""The functions of ``pyspark.sql.functions`` that read the session (``current_database``,
``current_user``, ``version`` ...); built, and their values written down, in
``planner.logical.functions.session_info``."""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.api.column import Column
from sparkwire.planner.api.functions.core import call

__all__ = ["current_catalog", "current_database", "current_schema", "current_user", "session_user",
           "user", "version", "current_path"]


def _niladic(name: str) -> Callable[[], Column]:
    def function() -> Column:
        return call(name)

    function.__name__ = function.__qualname__ = name
    return function


current_database = _niladic("current_database")
current_schema = _niladic("current_schema")
current_catalog = _niladic("current_catalog")
current_user = _niladic("current_user")
user = _niladic("user")
session_user = _niladic("session_user")
version = _niladic("version")
current_path = _niladic("current_path")
