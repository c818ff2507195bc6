"""A record batch as its own buffers, one ZeroMQ frame per large buffer, rebuilt without copies.

Writing a batch as one Arrow IPC buffer (``RecordBatch.serialize``) copies every byte once
before the socket sees it, at about 2 GB/s here: slower than loopback TCP. Instead the
producer sends a batch's buffers as they are (``copy=False``: ZeroMQ reads the Arrow memory
itself), and the reader wraps each received frame in a ``pyarrow.Buffer`` and rebuilds the
arrays around them with ``Array.from_buffers``. A batch's payload frames are::

    [layout, small, large_0, large_1, ...]

- ``layout``: int64 words in the schema's depth-first order of nodes (a column, then its
  children): ``length, null_count, offset`` and, per buffer of the node's type,
  ``frame, start, size`` (``frame`` -1 for an absent buffer, e.g. no validity bitmap). The
  schema fixes the number of nodes and buffers, so the word count is known before reading.
- ``small``: buffers under ``LARGE`` bytes copied together, each at an 8-byte boundary
  (ZeroMQ copies frames that small anyway);
- ``large_i``: one buffer each, sent zero-copy; at most ``MAX_LARGE`` of them, the rest go
  into ``small``.

Only plain layouts travel this way (``_plain_type``): fixed-width, boolean, binary and
string types, lists, structs and maps thereof; a batch whose buffers hold much more than its
rows (a small slice of a larger batch), dictionaries, unions, views, run-end and extension
types go as Arrow IPC instead (``ipc.write_ipc``, which cuts slices to what
they need). The reader trusts nothing: every word is range-checked, every buffer must lie in
its frame, and the rebuilt batch is validated in full by the caller (``ipc.validated``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from sparkwire.transport.errors import ProtocolError
from sparkwire.transport.wire import MAX_PAYLOAD_FRAMES, Frame

LARGE = 64 << 10  # pyzmq copies smaller frames anyway (zmq.COPY_THRESHOLD)
MAX_LARGE = MAX_PAYLOAD_FRAMES - 2
_ALIGN = 8  # Arrow's kernels and DuckDB read values at their natural alignment
_NODE = 3  # length, null_count, offset
_REF = 3  # frame, start, size
_MAX_LENGTH = 1 << 40
_SLACK = 64 << 10  # a batch may hold this many bytes beyond its rows and still go as buffers

_NESTED = (pa.types.is_list, pa.types.is_large_list, pa.types.is_fixed_size_list,
           pa.types.is_struct, pa.types.is_map)
_LEAVES = (pa.types.is_primitive, pa.types.is_null, pa.types.is_decimal,
           pa.types.is_fixed_size_binary, pa.types.is_binary, pa.types.is_string,
           pa.types.is_large_binary, pa.types.is_large_string)


def _plain_type(t: pa.DataType) -> bool:
    if isinstance(t, pa.BaseExtensionType):
        return False
    if any(test(t) for test in _NESTED):
        return all(_plain_type(t.field(i).type) for i in range(t.num_fields))
    return any(test(t) for test in _LEAVES)


@functools.lru_cache(maxsize=256)
def _nodes(schema: pa.Schema) -> tuple[tuple[pa.DataType, ...], int] | None:
    """The schema's node types in depth-first order and its layout's word count, or ``None``
    when a type is not plain (see the module docstring)."""
    types: list[pa.DataType] = []

    def walk(t: pa.DataType) -> None:
        types.append(t)
        for i in range(t.num_fields):
            walk(t.field(i).type)

    for field in schema:
        if not _plain_type(field.type):
            return None
        walk(field.type)
    return tuple(types), sum(_NODE + _REF * t.num_buffers for t in types)


def _flatten(batch: pa.RecordBatch) -> list[tuple[pa.Array, int]]:
    """Every node of ``batch`` depth-first, each with the number of elements it must show
    before its own first one.

    pyarrow shows a struct's children already cut to the struct's slice (``field``), but the
    rebuilt struct applies its offset to its children itself: a child of a struct at offset
    ``k`` is sent as from ``k`` elements earlier. List children are shown as stored.
    """
    nodes: list[tuple[pa.Array, int]] = []

    def walk(array: pa.Array, before: int) -> None:
        nodes.append((array, before))
        if pa.types.is_struct(array.type):
            for i in range(array.type.num_fields):
                walk(array.field(i), array.offset)
        elif array.type.num_fields:
            walk(array.values, 0)

    for column in batch.columns:
        walk(column, 0)
    return nodes


def pack(batch: pa.RecordBatch) -> list[Frame] | None:
    """``batch`` as layout, small and large frames, or ``None`` if it must go as Arrow IPC."""
    if _nodes(batch.schema) is None:
        return None
    if batch.get_total_buffer_size() > 2 * batch.nbytes + _SLACK:  # a slice of something larger
        return None
    words: list[int] = []
    small = bytearray()
    large: list[pa.Buffer] = []
    for array, before in _flatten(batch):
        words += (len(array) + before, -1 if before else array.null_count, array.offset - before)
        for buffer in array.buffers()[:array.type.num_buffers]:
            if buffer is None:
                words += (-1, 0, 0)
            elif buffer.size >= LARGE and len(large) < MAX_LARGE:
                large.append(buffer)
                words += (1 + len(large), 0, buffer.size)
            else:
                small += bytes(-len(small) % _ALIGN)
                words += (1, len(small), buffer.size)
                small += memoryview(buffer)
    return [np.array(words, dtype="<i8").tobytes(), small, *large]


def unpack(frames: Sequence[Frame], schema: pa.Schema) -> pa.RecordBatch:
    """The batch of ``pack``'s frames, its buffers those frames' memory (not yet validated in
    full: see ``ipc.validated``). Anything inconsistent raises ``ProtocolError``."""
    found = _nodes(schema)
    if found is None:
        raise ProtocolError("buffer frames for a schema that travels as Arrow IPC")
    types, count = found
    if len(frames) < 2 or len(frames[0]) != count * 8:
        raise ProtocolError(f"a buffer layout of {len(frames[0]) if frames else 0} bytes and "
                            f"{len(frames)} frames does not fit the schema")
    words = np.frombuffer(frames[0], dtype="<i8").tolist()
    data = [_aligned(pa.py_buffer(frame)) for frame in frames[1:]]
    position = 0

    def take(n: int) -> list[int]:
        nonlocal position
        position += n
        return words[position - n:position]

    def build(index: int) -> tuple[pa.Array, int]:
        t = types[index]
        length, null_count, offset = take(_NODE)
        if not (0 <= length <= _MAX_LENGTH and -1 <= null_count <= length
                and 0 <= offset <= _MAX_LENGTH):
            raise ProtocolError(f"node {index}: length {length}, nulls {null_count}, "
                                f"offset {offset} out of range")
        buffers = [_buffer(data, *take(_REF)) for _ in range(t.num_buffers)]
        children, index = [], index + 1
        for _ in range(t.num_fields):
            child, index = build(index)
            children.append(child)
        try:
            return pa.Array.from_buffers(t, length, buffers, null_count, offset,
                                         children or None), index
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise ProtocolError(f"node {index}: {str(exc)[:300]}") from None

    columns, index = [], 0
    for _ in schema:
        column, index = build(index)
        columns.append(column)
    try:
        return pa.RecordBatch.from_arrays(columns, schema=schema)
    except (pa.ArrowException, ValueError) as exc:
        raise ProtocolError(f"inconsistent columns: {str(exc)[:300]}") from None


def _buffer(data: list[pa.Buffer], frame: int, start: int, size: int) -> pa.Buffer | None:
    """The buffer a layout reference names, after checking that it lies in its frame."""
    if frame == -1:
        return None
    if not (1 <= frame <= len(data) and 0 <= start and 0 <= size
            and start + size <= data[frame - 1].size):
        raise ProtocolError(f"buffer {start}+{size} outside frame {frame}")
    return data[frame - 1].slice(start, size)


def _aligned(buffer: pa.Buffer) -> pa.Buffer:
    """``buffer``, copied only if ZeroMQ placed it off an 8-byte boundary (small messages
    share the receive buffer of their connection)."""
    if buffer.address % _ALIGN == 0:
        return buffer
    copy = pa.allocate_buffer(buffer.size)
    memoryview(copy)[:] = memoryview(buffer)
    return copy
