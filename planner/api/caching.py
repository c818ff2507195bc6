"""``df.cache()`` / ``persist()`` / ``unpersist()``: results the workers hold for reuse.

As in Spark's cache manager, caching registers the DataFrame's plan with the session; every
later query is planned with each registered subtree it contains (largest first) replaced by
a ``CachedSource`` leaf. The first query that needs a cache materializes it: one query of
its own computes the plan and ends a stage at it (``Keep``) whose task outputs the workers
keep in their partition stores after the query (bounded by the store's budget, spilling
beyond it); then every query reading the cache runs chunk ``i`` on the worker holding it,
without recomputing anything (``explain`` and the query metrics show the cached stage).
``unpersist`` and closing the session release the chunks. A worker lost with a chunk: as
Spark recomputes lost cached partitions from lineage, the next query needing the cache runs
its plan again on the live workers first (the executor's ``cached_source``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sparkwire.planner.logical.plan import Operator, children, with_children

if TYPE_CHECKING:
    from sparkwire.planner.api.executor import Executor


def with_caches(plan: Operator, executor: Executor) -> Operator:
    """``plan`` with every cached subtree replaced by its cache, materializing it first if
    this is its first use."""
    if not executor.has_caches():
        return plan
    source = executor.cached_source(plan)
    if source is not None:
        return source
    inputs = children(plan)
    return with_children(plan, [with_caches(c, executor) for c in inputs]) if inputs else plan
