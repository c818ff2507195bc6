"""A task's error tells its caller what went wrong in terms the caller used: no generated SQL,
no hints listing columns, no paths the plan did not name."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator.taskplan import TaskPlan, encode_message
from sparkwire.coordinator.worker.disclosure import redact
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.logical.staged import Boundary
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import TaskFailed
from tests.coordinator.test_file_access import serve

CASES = [
    ('Binder Error: Referenced column "nosuch" not found in FROM clause!\n'
     'Candidate bindings: "secret_col"\n\nLINE 1: select nosuch from t',
     'Binder Error: Referenced column "nosuch" not found in FROM clause!'),
    ('Binder Error: Referenced column "a" not found. Did you mean "salary"?',
     'Binder Error: Referenced column "a" not found.'),
    ('IO Error: No files found that match the pattern "/etc/other.parquet"',
     'IO Error: No files found that match the pattern "<path>"'),
    ("Invalid Input Error: File '/data/named.parquet' too small; spill /var/tmp/duck/x.tmp",
     "Invalid Input Error: File '/data/named.parquet' too small; spill <path>"),
    ("ConnectionLost: worker at tcp://127.0.0.1:5 is gone; shm:///tmp/s/worker.sock",
     "ConnectionLost: worker at tcp://127.0.0.1:5 is gone; shm:///tmp/s/worker.sock"),
    ("Conversion Error: Could not convert string 'abc' to INT32",
     "Conversion Error: Could not convert string 'abc' to INT32"),
]


@pytest.mark.parametrize(("message", "expected"), CASES)
def test_redact(message: str, expected: str) -> None:
    assert redact(message, {"/data/named.parquet"}) == expected


def test_a_failing_scan_tells_neither_the_generated_sql_nor_the_real_columns(tmp_path: Path) -> None:
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"secret_salary": [1, 2]}), path)
    fragment = ParquetScan(splits=(FileSplit(path=str(path)),), columns=("salry",))
    plan = encode_message(TaskPlan(query_id="qbad", stage=0, task=0, fragment=fragment,
                                     output=Boundary(kind="result")))
    transport, worker, client = serve((tmp_path,))
    try:
        client.deliver(plan)
        with pytest.raises(TaskFailed) as info:
            client.read(PartitionKey("qbad", 0, 0, 0), 10).read_all()
        message = str(info.value)
        assert "salry" in message  # what the caller named, so it learns what went wrong
        assert "secret_salary" not in message and "LINE" not in message and "\n" not in message
    finally:
        worker.close()
        transport.close()
