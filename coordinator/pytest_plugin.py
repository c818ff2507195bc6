"""pytest plugin (entry point ``pytest11``): sparkwire in a user's own test suite.

    def test_my_pipeline(sparkwire_session):
        df = sparkwire_session.createDataFrame(my_table)
        assert df.groupBy("k").count().toArrow().num_rows == 3

The fixture is an in-process cluster over the memory transport, one per test, closed after
it. Its settings come from the usual places (``coordinator.config``): ``SPARKWIRE_CONFIG``
and ``SPARKWIRE_…`` env vars (``SPARKWIRE_ANSI=false``, ``SPARKWIRE_TRANSPORT__KIND=zmq``,
``SPARKWIRE_WORKERS=3`` ...), then these options, which win: ``--sparkwire-transport NAME``
(or overriding the ``sparkwire_transport`` fixture) picks the transport,
``--sparkwire-workers N`` the cluster size (2 when neither it nor ``SPARKWIRE_WORKERS``
says).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from sparkwire.coordinator.session import Session

#: The fixture's cluster size when nothing else sets one: small, for fast tests.
DEFAULT_WORKERS = 2


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sparkwire")
    group.addoption("--sparkwire-transport", default=None,
                    help="transport for the sparkwire_session fixture (default: "
                    "SPARKWIRE_TRANSPORT__KIND, else memory)")
    group.addoption("--sparkwire-workers", type=int, default=None,
                    help=f"workers in the sparkwire_session cluster (default: SPARKWIRE_WORKERS, "
                    f"else {DEFAULT_WORKERS})")


@pytest.fixture
def sparkwire_transport(request: pytest.FixtureRequest) -> str | None:
    """The transport name for ``sparkwire_session``; None: the configured one. Override
    this fixture to run a test module on another transport."""
    option = request.config.getoption("--sparkwire-transport")
    return None if option is None else str(option)


@pytest.fixture
def sparkwire_session(
    request: pytest.FixtureRequest, sparkwire_transport: str | None,
) -> Iterator[Session]:
    """A sparkwire ``Session`` for one test, closed after it: settings from
    ``SPARKWIRE_CONFIG`` and ``SPARKWIRE_…`` env vars, overridden by the
    ``--sparkwire-…`` options and the ``sparkwire_transport`` fixture."""
    workers = request.config.getoption("--sparkwire-workers")
    if workers is None and "SPARKWIRE_WORKERS" not in os.environ:
        workers = DEFAULT_WORKERS
    with Session(workers=workers, transport=sparkwire_transport) as session:
        yield session
