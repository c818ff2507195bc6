"""A DataFrame's result as the protocol's responses: Arrow IPC batches, the first with the schema.

Each ``ArrowBatch`` payload is a whole Arrow IPC stream (schema and one record batch), as
Spark's server writes them, with its row count and the offset of its first row, which the
client checks. A batch is cut to about ``BATCH_BYTES`` (Spark's
``spark.connect.grpc.arrow.maxBatchSize`` is 4 MiB) so no message nears gRPC's size limit.
Batches are produced as the result streams (``DataFrame.toBatches``), so the server holds at
most one at a time; closing the iterator early cancels the query. A result of no rows is one
empty batch, as Spark's server sends it: the client reads a result without any batch as
missing (``collect()`` fails).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql.connect.proto import base_pb2

from sparkwire.coordinator.connect.types import to_proto
from sparkwire.planner.api.dataframe import DataFrame

BATCH_BYTES = 4 << 20
Response = base_pb2.ExecutePlanResponse


def result_responses(df: DataFrame, check: Callable[[], None]) -> Iterator[Response]:
    """One response per (cut) batch, the first also carrying the schema (a field beside the
    batch, not one of the response kinds: each response is a send the handler waits for and
    a ``ReleaseExecute`` the client sends back, so a tiny query's result is one response,
    not two); ``check`` runs before the query starts and between batches (it raises to
    stop). An empty result is one empty batch, as Spark's server sends it."""
    schema: Any = to_proto(df.schema)
    check()
    offset = 0
    batches = df.toBatches()
    try:
        for batch in batches:
            for piece in _pieces(batch):
                yield Response(schema=schema, arrow_batch=Response.ArrowBatch(
                    row_count=piece.num_rows, data=_ipc(piece), start_offset=offset))
                schema, offset = None, offset + piece.num_rows
            check()
        if offset == 0:
            empty = pa.record_batch([pa.array([], f.type) for f in df.arrow_schema], schema=df.arrow_schema)
            yield Response(schema=schema, arrow_batch=Response.ArrowBatch(
                row_count=0, data=_ipc(empty), start_offset=0))
    finally:
        if isinstance(batches, Generator):  # a stream stopped early cancels its query
            batches.close()


def _pieces(batch: pa.RecordBatch) -> Iterator[pa.RecordBatch]:
    if batch.num_rows == 0:
        return
    rows = max(1, batch.num_rows * BATCH_BYTES // max(batch.nbytes, 1))
    for start in range(0, batch.num_rows, rows):
        yield batch.slice(start, rows)


def _ipc(batch: pa.RecordBatch) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return bytes(sink.getvalue().to_pybytes())
