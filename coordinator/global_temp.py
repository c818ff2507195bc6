"""Spark's global temporary views: the ``global_temp`` database a session shares with every
session made from it (``Session.newSession``, and so every Spark Connect client of one
server), where a session's own temporary views are its alone.

A sparkwire session that owns its cluster makes one ``GlobalTempViews``; the sessions made
from it hold the same one, and an unrelated ``Session`` has its own, as two Spark
applications do. A global view is read only by its qualified name, ``global_temp.v``
(``spark.table``, SQL through ``planner.sql.global_views``, the catalog); an unqualified
``v`` is never one, as in Spark. Sessions of one server may create and drop views from
several threads, so the map is guarded by a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.executor import Executor, View
from sparkwire.planner.api.quoting import name_parts
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import quote
from sparkwire.planner.logical.plan import operators
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.sql.global_views import GLOBAL_TEMP, global_key

__all__ = ["GLOBAL_TEMP", "GlobalTempViews", "global_name", "is_global_database", "lookup"]


class GlobalTempViews:
    """The views of ``global_temp`` by name (folded), shared by the sessions of one cluster."""

    def __init__(self) -> None:
        self._views: dict[str, View] = {}
        self._lock = threading.Lock()

    def create(self, name: str, view: View, replace: bool) -> None:
        """Keep ``view`` as ``global_temp.name``; Spark's ``TEMP_TABLE_OR_VIEW_ALREADY_EXISTS``
        (the name folded, as Spark shows it) for a name taken, unless ``replace``."""
        key = name.casefold()
        with self._lock:
            if not replace and key in self._views:
                raise AnalysisError(f"cannot create the temporary view {quote(key)} because it already exists",
                                    condition="TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
                                    parameters={"relationName": quote(key)})
            self._views[key] = view

    def get(self, name: str) -> View | None:
        with self._lock:
            return self._views.get(name.casefold())

    def drop(self, name: str) -> bool:
        """Whether a global view of that name was there to drop."""
        with self._lock:
            return self._views.pop(name.casefold(), None) is not None

    def names(self) -> list[str]:
        """The views' names, sorted (as Spark lists them)."""
        with self._lock:
            return sorted(self._views)

    def for_sql(self) -> dict[str, View]:
        """The views under the names SQL finds them by (``planner.sql.global_views``)."""
        with self._lock:
            return {global_key(name): view for name, view in self._views.items()}

    def local_sources(self) -> set[str]:
        """The session-held rows (``createDataFrame``) the views read: a session closing
        hands these to the cluster's owner instead of releasing them, as a global view
        outlives the session that made it (a Spark Connect client's, say)."""
        with self._lock:
            plans = [view.relation.plan for view in self._views.values()]
        return {op.source_id for plan in plans for op in operators(plan) if isinstance(op, LocalSource)}


def is_global_database(name: str | None) -> bool:
    return name is not None and name.casefold() == GLOBAL_TEMP


def global_name(parts: Sequence[str]) -> str | None:
    """The view's name (folded) when ``parts`` name one in ``global_temp`` (``global_temp.v``,
    any case), else None."""
    if len(parts) == 2 and is_global_database(parts[0]):
        return parts[1].casefold()
    return None


def lookup(name: str, session: Executor, shared: GlobalTempViews) -> View | None:
    """What ``spark.table(name)`` reads in ``session``: a temporary view or table by its
    one-part name, a global view by ``global_temp.v`` (as a frame of ``session``); None for
    anything else."""
    parts = name_parts(name)
    if len(parts) == 1:
        return session.views.get(parts[0].casefold())
    found = global_name(parts)
    view = shared.get(found) if found is not None else None
    return None if view is None else frame_in(view, session)


def frame_in(view: View, session: Executor) -> DataFrame:
    """A global view as a frame of the session reading it, as Spark's ``spark.table`` gives
    one: its queries run, are tagged and interrupted, and find caches, in that session, not
    in the one that made the view."""
    relation = view.relation
    return DataFrame(relation.plan, relation.attrs, session)
