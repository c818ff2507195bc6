"""Twelve batches that lie about their buffers, the way a hostile producer would send them.

Each is a valid batch whose IPC bytes were patched (offsets, indices, UTF-8), then read back
without validation, so a producer hands it to its transport as it would any batch.
"""

from __future__ import annotations

import struct

import pyarrow as pa


def _patched(batch: pa.RecordBatch, old: bytes, new: bytes) -> pa.RecordBatch:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    data = sink.getvalue().to_pybytes()
    assert data.count(old) == 1, (old, data.count(old))
    return pa.ipc.open_stream(pa.py_buffer(data.replace(old, new))).read_next_batch()


def i32(*v: int) -> bytes:
    return struct.pack(f"<{len(v)}i", *v)


def i64(*v: int) -> bytes:
    return struct.pack(f"<{len(v)}q", *v)


def crafted() -> dict[str, pa.RecordBatch]:
    s = pa.record_batch({"c": pa.array(["hello", "world"])})          # offsets 0, 5, 10
    ls = pa.record_batch({"c": pa.array(["hello", "world"], pa.large_string())})
    b = pa.record_batch({"c": pa.array([b"hello", b"world"], pa.binary())})
    d = pa.record_batch({"c": pa.DictionaryArray.from_arrays(pa.array([1, 0, 1], pa.int32()),
                                                             pa.array(["qq", "rr"]))})
    li = pa.record_batch({"c": pa.array([[7, 8], [9]], pa.list_(pa.int64()))})  # offsets 0,2,3
    return {
        "string offsets past the data": _patched(s, i32(0, 5, 10), i32(0, 5, 100000)),
        "string negative length": _patched(s, i32(0, 5, 10), i32(0, 9, 4)),
        "string negative first offset": _patched(s, i32(0, 5, 10), i32(-50000, 5, 10)),
        "string invalid utf-8": _patched(s, b"hellowor", b"hell\xff\xfeor"),
        "large string offsets past the data": _patched(ls, i64(0, 5, 10), i64(0, 5, 1 << 40)),
        "binary offsets past the data": _patched(b, i32(0, 5, 10), i32(0, 5, 70000)),
        "dictionary index out of range": _patched(d, i32(1, 0, 1), i32(1, 0, 99999)),
        "dictionary negative index": _patched(d, i32(1, 0, 1), i32(1, -7, 1)),
        "list offsets past the child": _patched(li, i32(0, 2, 3), i32(0, 2, 90000)),
        "list negative length": _patched(li, i32(0, 2, 3), i32(0, 3, 1)),
        "list negative first offset": _patched(li, i32(0, 2, 3), i32(-40000, 2, 3)),
        "large string invalid utf-8": _patched(ls, b"hellowor", b"hel\xc0\xafwor"),
    }
