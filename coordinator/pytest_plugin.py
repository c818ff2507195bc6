"""pytest plugin (entry point ``pytest11``): sparkwire in a user's own test suite.

    def test_my_pipeline(sparkwire_session):
        df = sparkwire_session.createDataFrame(my_table)
        assert df.groupBy("k").count().toArrow().num_rows == 3

The fixture is an in-process cluster over the memory transport, one per test, closed after
it. ``--sparkwire-transport NAME`` or a ``sparkwire_transport`` fixture override picks
another transport; ``--sparkwire-workers N`` the cluster size.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sparkwire.coordinator.session import Session


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("sparkwire")
    group.addoption("--sparkwire-transport", default="memory",
                    help="transport for the sparkwire_session fixture (default: memory)")
    group.addoption("--sparkwire-workers", type=int, default=2,
                    help="workers in the sparkwire_session cluster (default: 2)")


@pytest.fixture
def sparkwire_transport(request: pytest.FixtureRequest) -> str:
    """Override this fixture to run a test module on another transport."""
    return str(request.config.getoption("--sparkwire-transport"))


@pytest.fixture
def sparkwire_session(request: pytest.FixtureRequest, sparkwire_transport: str) -> Iterator[Session]:
    workers = int(request.config.getoption("--sparkwire-workers"))
    with Session(workers=workers, transport=sparkwire_transport) as session:
        yield session
