"""A real local Spark (``local[2,4]``: two slots, and a failed task is tried up to 4 times,
as on a cluster), shared by the Spark tests: starting the JVM is slow.

One JVM holds one SparkContext, and tests/hosts runs a standalone one that stops whatever
local one is active: so the fixture hands out the active local session, made again when it
was stopped, and the last one is stopped when the test session ends."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def _stop_spark_at_exit() -> Iterator[None]:
    yield
    from pyspark import SparkContext

    if SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()


@pytest.fixture
def spark(_stop_spark_at_exit: None) -> object:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2,4]")
        .appName("sparkwire-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.python.worker.reuse", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


@pytest.fixture(scope="session")
def _sparkwire_sessions() -> Iterator[list[object]]:
    from sparkwire.coordinator import Session

    with Session(workers=1) as one, Session(workers=3) as three:
        yield [one, three]


@pytest.fixture(scope="session")
def _remote(_sparkwire_sessions: list[object]) -> Iterator[object]:
    """The third engine (``compare.Remote``): PySpark's Spark Connect client on a server on
    the 3-worker session, made once, when a module marked ``connect`` first asks."""
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    from sparkwire.connect import serve
    from tests.spark.compare import Remote

    with serve(_sparkwire_sessions[1]) as server:  # type: ignore[arg-type]
        client = RemoteSession.builder.remote(server.address).create()
        yield Remote(client)
        client.stop()


@pytest.fixture(scope="module")
def sessions(request: pytest.FixtureRequest, _sparkwire_sessions: list[object]) -> list[object]:
    """sparkwire sessions with 1 and 3 in-process workers, for the API comparisons
    (``tests/spark/compare.py``): the same program runs on each; in a module marked
    ``connect`` (``pytestmark = pytest.mark.connect``), also through Spark Connect."""
    if request.node.get_closest_marker("connect") is None:
        return _sparkwire_sessions
    return [*_sparkwire_sessions, request.getfixturevalue("_remote")]


@pytest.fixture(scope="module")
def local_sessions(_sparkwire_sessions: list[object]) -> list[object]:
    """The sparkwire sessions alone, never the Spark Connect client: for the tests of a
    ``connect`` module that drive sparkwire's own API (its exception types, its messages,
    its session objects) rather than compare a PySpark program's answer."""
    return _sparkwire_sessions
