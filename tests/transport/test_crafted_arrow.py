"""A hostile producer's batches are refused by the reader before anything touches them.

Every transport that carries batches between processes validates what it receives; twelve
crafted batches (``crafted.py``) must each fail the read with ``ProtocolError``, and the same
client and server then still stream a good partition.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import ProtocolError
from sparkwire.transport.registry import create_transport
from sparkwire.transport.stream import PartitionReader
from tests.credentials import SECURITY
from tests.transport.crafted import crafted

CASES = crafted()
GOOD = pa.record_batch({"c": pa.array(["fine", None, "also fine"])})


class HostileService:
    """Serves crafted case ``q<i>`` as partition 0 of query ``q<i>``, and ``good`` honestly."""

    def submit(self, plan: bytes) -> None:
        pass

    def cancel(self, query_id: str) -> None:
        pass

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        batch = GOOD if key.query_id == "good" else list(CASES.values())[int(key.query_id[1:])]
        return PartitionReader(batch.schema, iter([batch]))


@pytest.fixture
def hostile(transport):
    if not transport.capabilities.crosses_processes:
        pytest.skip(f"{transport.name} stays in one process: its batches are the caller's own")
    server = transport.serve(HostileService())
    # Another instance reads, so that no transport hands the batch over in memory.
    with create_transport(transport.name, security=SECURITY) as reader_side:
        yield reader_side.connect(server.address)
    server.close()


def test_crafted_batches_are_refused_and_the_server_keeps_serving(hostile):
    refused = []
    for index, name in enumerate(CASES):
        with pytest.raises(ProtocolError) as info:
            hostile.read(PartitionKey(f"q{index}", 0, 0, 0), 5).read_all()
        refused.append((name, str(info.value)))
        good = hostile.read(PartitionKey("good", 0, 0, 0), 5).read_all()
        assert good.to_batches()[0].equals(GOOD), name
    assert len(refused) == 12
