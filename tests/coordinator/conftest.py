"""Fixtures of the coordinator's tests."""

from __future__ import annotations

import pytest

from sparkwire.coordinator.execution import QueryResult


@pytest.fixture
def started_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the queries started from here on, in order, including those that fail
    before their result exists (a session's ``last_metrics`` only knows the others)."""
    queries: list[str] = []
    start = QueryResult.start

    def started(result: QueryResult) -> None:
        queries.append(result.query_id)
        start(result)

    monkeypatch.setattr(QueryResult, "start", started)
    return queries
