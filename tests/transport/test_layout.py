"""A batch as its own buffers in frames (``transport/layout.py``) through ``ipc.InlineCodec``,
without sockets: what travels which way, that nothing is copied, and that a hostile layout is
refused, never trusted."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparkwire.transport import ipc, layout
from sparkwire.transport.errors import ProtocolError, SparkwireError
from tests.transport.crafted import crafted
from tests.transport.remote_service import all_types_batch, large_plain_batch

CODEC = ipc.InlineCodec()
BIG = large_plain_batch()


def received(frames: list) -> list[memoryview]:
    """The frames as a ZeroMQ reader hands them over."""
    return [memoryview(frame) for frame in frames]


def addresses(batch: pa.RecordBatch, at_least: int = 0) -> set[int]:
    return {buf.address for col in batch.columns for buf in col.buffers()
            if buf is not None and buf.size >= at_least}


def test_a_large_batch_travels_as_its_own_buffers_without_copies():
    frames = CODEC.pack(BIG)
    assert len(frames) > 2
    assert sum(len(memoryview(f)) for f in frames[2:]) > BIG.nbytes // 2  # most bytes zero-copy
    got = CODEC.unpack(received(frames), BIG.schema)
    assert got.equals(BIG) and got.schema.equals(BIG.schema)
    large = addresses(BIG, layout.LARGE)
    assert large and large <= addresses(got)  # the reader's buffers are the producer's memory


@pytest.mark.parametrize("start, length", [(7, None), (1, 99_981), (50_001, 3)])
def test_slices_arrive_unchanged_and_small_ones_carry_only_their_rows(start, length):
    sliced = BIG.slice(start, length)
    frames = CODEC.pack(sliced)
    assert CODEC.unpack(received(frames), sliced.schema).equals(sliced)
    if sliced.num_rows < 100:
        assert len(frames) == 1 and len(memoryview(frames[0])) < 64 << 10


def test_a_sliced_struct_inside_a_sliced_struct_keeps_its_offsets():
    inner = pa.array([{"a": i, "b": {"c": str(i)}} for i in range(30_000)]).slice(3)
    outer = pa.StructArray.from_arrays([inner, pa.array(range(len(inner)))], ["in", "n"]).slice(5)
    batch = pa.record_batch({"s": outer})
    frames = layout.pack(batch)
    assert frames is not None
    assert CODEC.unpack(received(frames), batch.schema).to_pylist() == batch.to_pylist()


def test_dictionaries_views_and_unions_travel_as_arrow_ipc():
    (batch,) = pa.Table.from_batches([all_types_batch()] * 5_000).combine_chunks().to_batches()
    frames = CODEC.pack(batch)
    assert len(frames) == 1
    assert CODEC.unpack(received(frames), batch.schema).equals(batch)


def test_a_buffer_zeromq_placed_off_alignment_is_copied_once():
    layout_frame, small, *large = CODEC.pack(BIG)
    shifted = memoryview(b"\0" + bytes(small))[1:]
    assert pa.py_buffer(shifted).address % 8
    got = CODEC.unpack([memoryview(layout_frame), shifted, *received(large)], BIG.schema)
    assert got.equals(BIG)
    assert all(buf.address % 8 == 0 for col in got.columns for buf in col.buffers() if buf)


@pytest.mark.parametrize("name, case", [(n, c) for n, c in crafted().items()
                                        if layout.pack(c) is not None])
def test_crafted_batches_sent_as_buffers_are_refused(name, case):
    with pytest.raises(ProtocolError):
        CODEC.unpack(received(layout.pack(case)), case.schema)


def test_layouts_that_do_not_fit_the_schema_are_refused():
    frames = received(CODEC.pack(BIG))
    with pytest.raises(ProtocolError, match="does not fit"):
        CODEC.unpack([frames[0][:-8], *frames[1:]], BIG.schema)
    with pytest.raises(ProtocolError, match="outside frame"):
        CODEC.unpack(frames[:-1], BIG.schema)
    with pytest.raises(ProtocolError, match="travels as Arrow IPC"):
        CODEC.unpack(frames, all_types_batch().schema)


SMALL_PLAIN = large_plain_batch(200)


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_mutated_layouts_are_refused_or_sound(data):
    frames = layout.pack(SMALL_PLAIN)
    assert frames is not None
    words = bytearray(frames[0])
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(words) // 8 - 1)) * 8
        value = data.draw(st.one_of(st.integers(-2, 70_000), st.integers(-2**63, 2**63 - 1)))
        words[at:at + 8] = value.to_bytes(8, "little", signed=True)
    try:
        batch = CODEC.unpack(received([bytes(words), *frames[1:]]), SMALL_PLAIN.schema)
    except SparkwireError:
        return
    batch.validate(full=True)  # what gets through is sound
