"""The planner's exceptions, one tree so callers can catch as broadly as they need::

    ValueError
    └── PlanError          a plan that cannot be built or cut into stages (a planner bug or a
        │                  hand-made plan that breaks an invariant)
        └── AnalysisError  the user's query is wrong: unknown column, aggregate in a filter,
                           bad type name, missing input path ...

Both take ``sparkwire.pyspark_errors.SparkCondition`` as a base too: Spark's error condition
and parameters where the raising site knows them (``condition=``, ``parameters=``), with
PySpark's getters. Both derive from ``ValueError`` because every one of them is a bad value handed to the
planner; ``AnalysisError`` is raised while the DataFrame is being built, before anything runs,
as PySpark does.
"""

from __future__ import annotations

import os

from pydantic import ValidationError

from sparkwire.pyspark_errors import SparkCondition


class PlanError(SparkCondition, ValueError):
    """A plan the planner cannot handle."""


class AnalysisError(PlanError):
    """A mistake in the user's query, reported when the DataFrame is built: PySpark's
    ``AnalysisException`` (``ParseException`` for SQL that does not parse) once
    ``pyspark.errors`` is loaded (``sparkwire.pyspark_errors``)."""

    pyspark_class = "AnalysisException"


def path_not_found(path: str) -> AnalysisError:
    """Spark's ``PATH_NOT_FOUND``, the path as a URI as Spark shows it."""
    uri = path if "://" in path or path.startswith("file:") else f"file:{os.path.abspath(path)}"
    return AnalysisError(f"path does not exist: {path!r}", condition="PATH_NOT_FOUND",
                         parameters={"path": uri})


def plain_message(exc: ValueError) -> str:
    """What went wrong, without pydantic's framing (model names, ``[type=...]``, URLs): a
    user passed a bad value, and only the reason means anything to them."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    reasons = []
    for error in exc.errors():
        reason = str(error["msg"]).removeprefix("Value error, ")
        field = ".".join(str(part) for part in error["loc"])
        reasons.append(f"{field}: {reason}" if field and not reason.startswith("identifier") else reason)
    return "; ".join(reasons)
