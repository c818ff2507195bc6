"""Higher-order functions of the registry: a collection and a ``Lambda``
(``planner.logical.expressions``), whose parameters the analyzer types
(``planner.logical.lambdas``); types in ``planner.logical.array_types``, the worker's
builders, with each difference from DuckDB written down, in
``coordinator.worker.compile.calls_lambdas``.

The lambda is built by the caller: the DataFrame API calls the user's Python function with
its parameters as columns (``planner.api.functions.lambdas``), the SQL front end turns
``x -> ...`` into one (``planner.sql.lambdas``). ``reduce`` is ``aggregate`` under its other
name, as in Spark.
"""

from __future__ import annotations

from sparkwire.planner.logical.functions.base import plain

FUNCTIONS = (
    *(plain(name, 2) for name in (
        "transform", "filter", "exists", "forall", "map_filter", "transform_keys",
        "transform_values")),
    plain("aggregate", (3, 4)),
    plain("reduce", (3, 4)),
    plain("zip_with", 3),
    plain("map_zip_with", 3),
)
