"""``transport.buffers``: a batch as its own buffers, rebuilt from the frames without a copy."""

from __future__ import annotations

from array import array

import numpy as np
import pyarrow as pa
import pytest

from sparkwire.transport.buffers import BIG, MAX_BUFFER_FRAMES, BufferCodec
from sparkwire.transport.errors import ProtocolError
from tests.transport.remote_service import all_types_batch, large_flat_batch

CODEC = BufferCodec()


def _received(frames: list) -> list[memoryview]:
    """What a socket hands the reader: read-only views of copies of the sent frames."""
    return [memoryview(bytes(memoryview(frame))) for frame in frames]


def test_every_flat_type_arrives_as_buffers_and_is_rebuilt_unchanged():
    big = large_flat_batch()
    assert big.num_columns >= 20
    for batch in (big, big.slice(7, big.num_rows - 20)):  # a slice: columns with offsets
        frames = CODEC.pack(batch)
        assert len(frames) > 2, "a large plain batch takes the buffer path"
        got = CODEC.unpack(_received(frames), batch.schema)
        assert got.equals(batch) and got.schema.equals(batch.schema)


def test_large_buffers_are_sent_as_they_are_and_read_in_place():
    batch = pa.record_batch({"a": pa.array(np.arange(1 << 17)), "s": ["x" * 9] * (1 << 17)})
    frames = CODEC.pack(batch)
    sent = {buf.address for buf in batch.column(0).buffers() + batch.column(1).buffers() if buf}
    big = [frame for frame in frames[2:]]
    assert big and {frame.address for frame in big} <= sent  # the producer's own memory
    received = _received(frames)
    got = CODEC.unpack(received, batch.schema)
    views = [pa.py_buffer(view) for view in received[2:]]
    inside = [any(v.address <= buf.address < v.address + v.size for v in views)
              for col in got.columns for buf in col.buffers() if buf is not None and buf.size >= BIG]
    assert inside and all(inside)


@pytest.mark.parametrize("batch", [
    all_types_batch(),                                                      # small, nested, dictionaries
    pa.record_batch({"l": pa.array([[1, 2]] * 100_000)}),                   # large but nested
    pa.record_batch({"a": pa.array(np.arange(1 << 20))}).slice(10, 1000),   # a small view of a large buffer
], ids=["small", "nested", "wasteful-slice"])
def test_other_batches_travel_as_one_ipc_message(batch):
    frames = CODEC.pack(batch)
    assert len(frames) == 1
    assert CODEC.unpack(_received(frames), batch.schema).equals(batch)


def test_more_buffers_than_frames_are_packed():
    columns = MAX_BUFFER_FRAMES + 10
    batch = pa.record_batch([pa.array(np.arange(BIG // 8)) for _ in range(columns)],
                            names=[f"c{i}" for i in range(columns)])
    frames = CODEC.pack(batch)
    assert len(frames) == 2 + MAX_BUFFER_FRAMES
    assert CODEC.unpack(_received(frames), batch.schema).equals(batch)


def _layout_with(frames: list, index: int, value: int) -> list:
    words = array("q")
    words.frombytes(bytes(frames[0]))
    words[index] = value
    return [words.tobytes(), *frames[1:]]


BATCH = pa.record_batch({"a": pa.array(np.arange(1 << 16)), "s": [None, "yy"] * (1 << 15)})


@pytest.mark.parametrize("index,value", [
    (0, 1 << 20),     # a length beyond the buffers
    (0, -1),          # a negative length
    (1, 1 << 40),     # an offset beyond the buffers
    (5, 99),          # a frame that does not exist
    (6, 1 << 30),     # a start beyond its frame
    (7, -8),          # a negative size
    (18, 1),          # the string offsets point outside the values
], ids=["length", "negative-length", "offset", "frame", "start", "size", "offsets"])
def test_a_lying_layout_is_a_protocol_error(index, value):
    frames = CODEC.pack(BATCH)
    with pytest.raises(ProtocolError):
        CODEC.unpack(_received(_layout_with(frames, index, value)), BATCH.schema)


def test_a_layout_that_does_not_fit_the_schema_is_a_protocol_error():
    frames = CODEC.pack(BATCH)
    with pytest.raises(ProtocolError, match="needs"):
        CODEC.unpack(_received([frames[0][:-8], *frames[1:]]), BATCH.schema)
    nested = pa.schema([("a", pa.list_(pa.int64())), ("s", pa.string())])
    with pytest.raises(ProtocolError, match="nested"):
        CODEC.unpack(_received(frames), nested)
