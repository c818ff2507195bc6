"""The planner's exceptions, one tree so callers can catch as broadly as they need::

    ValueError
    └── PlanError          a plan that cannot be built or cut into stages (a planner bug or a
        │                  hand-made plan that breaks an invariant)
        └── AnalysisError  the user's query is wrong: unknown column, aggregate in a filter,
                           bad type name, missing input path ...

Both derive from ``ValueError`` because every one of them is a bad value handed to the
planner; ``AnalysisError`` is raised while the DataFrame is being built, before anything runs,
as PySpark does.
"""

from __future__ import annotations


class PlanError(ValueError):
    """A plan the planner cannot handle."""


class AnalysisError(PlanError):
    """A mistake in the user's query, reported when the DataFrame is built."""
