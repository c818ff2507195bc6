"""A batch as its own Arrow buffers, one ZeroMQ frame each: no serialisation copy.

``ipc.InlineCodec`` writes a batch into one contiguous IPC buffer before the socket sends it.
That write is a memcpy of every byte into fresh pages, and on this machine it was the largest
cost of the zmq transport after the kernel's own socket copies (12 % of all CPU of a 1 GiB
stream). ``BufferCodec`` instead hands ZeroMQ the batch's buffers as they are (``copy=False``)
and the reader rebuilds each column from the received frames with ``Array.from_buffers``,
pointing into them: the only copies left are the kernel's.

Payload frames::

    [IPC message]                                   small batch, or one this codec cannot lay out
    [layout, packed, buffer, buffer, ...]           the batch's buffers

``layout`` is int64 words in the machine's byte order (little-endian on x86-64 and arm64), per column ``length, offset`` and then, per buffer of
its type (``DataType.num_buffers``), ``frame, start, size``: the bytes ``start:start+size`` of
payload frame ``frame`` (``-1``: no buffer, e.g. no validity bitmap). Buffers under ``BIG``
bytes are copied together into ``packed`` (frame 1; copying them costs less than a frame);
larger ones are frames of their own, at most ``MAX_BUFFER_FRAMES``.

Only flat columns take this path (fixed-width, boolean, decimal, (large) string and binary):
their buffers are what ``num_buffers`` says. Nested, dictionary, view and extension columns,
batches under ``ZERO_COPY_FROM`` bytes, and slices whose buffers are much larger than the
slice (sending the whole buffer would move bytes nobody reads) travel as one IPC message.

The reader trusts nothing in the layout: counts, frame numbers and ranges are checked before a
buffer is made, ``from_buffers`` checks sizes against lengths, and the batch is validated in
full (``ipc.validated``) before anyone reads it.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Sequence

import pyarrow as pa

from sparkwire.transport.errors import ProtocolError
from sparkwire.transport.ipc import read_ipc, validated, write_ipc
from sparkwire.transport.wire import MAX_PAYLOAD_FRAMES, Frame

BIG = 64 << 10                 # a buffer at least this large is a frame of its own
ZERO_COPY_FROM = 256 << 10     # smaller batches are one IPC message: a copy is cheaper than the walk
MAX_BUFFER_FRAMES = MAX_PAYLOAD_FRAMES - 2   # beyond this, buffers are packed (copied) too
_ALIGN = 64                    # Arrow's alignment, for buffers in the packed frame
_WORDS = 8
_NONE = (-1, 0, 0)


def flat(t: pa.DataType) -> bool:
    """Types whose buffers are exactly ``num_buffers``, with no children."""
    return bool(pa.types.is_primitive(t) or pa.types.is_decimal(t) or pa.types.is_null(t)
                or pa.types.is_fixed_size_binary(t) or pa.types.is_string(t)
                or pa.types.is_large_string(t) or pa.types.is_binary(t)
                or pa.types.is_large_binary(t))


def _worth_it(batch: pa.RecordBatch) -> bool:
    held = batch.get_total_buffer_size()
    if held < ZERO_COPY_FROM:
        return False
    used = batch.nbytes  # exact for slices, but about 2 us a column: taken once
    return held <= used + used // 4 + BIG and _layout_words(batch.schema) is not None


class BufferCodec:
    """A batch's buffers as frames, sent as they are; see the module docstring."""

    def pack(self, batch: pa.RecordBatch) -> list[Frame]:
        if not _worth_it(batch):
            return [write_ipc(batch)]
        layout, packed = array("q"), bytearray()
        frames: list[Frame] = []
        for column in batch.columns:
            layout.extend((len(column), column.offset))
            for buffer in column.buffers():
                if buffer is None:
                    layout.extend(_NONE)
                elif buffer.size >= BIG and len(frames) < MAX_BUFFER_FRAMES:
                    frames.append(buffer)
                    layout.extend((len(frames) + 1, 0, buffer.size))
                else:
                    packed.extend(bytes(-len(packed) % _ALIGN))
                    layout.extend((1, len(packed), buffer.size))
                    packed.extend(memoryview(buffer))
        return [layout.tobytes(), bytes(packed), *frames]

    def unpack(self, frames: Sequence[Frame], schema: pa.Schema) -> pa.RecordBatch:
        if len(frames) == 1:
            return read_ipc(frames[0], schema)
        words = _words(frames[0], schema)
        buffers = [f if isinstance(f, pa.Buffer) else pa.py_buffer(f) for f in frames[1:]]
        columns, at = [], 0
        for field in schema:
            length, offset = words[at], words[at + 1]
            at += 2
            parts = []
            for _ in range(field.type.num_buffers):
                parts.append(_buffer(buffers, *words[at:at + 3]))
                at += 3
            if length < 0 or offset < 0:
                raise ProtocolError(f"column {field.name!r}: negative length or offset")
            try:
                columns.append(pa.Array.from_buffers(field.type, length, parts, -1, offset))
            except (pa.ArrowException, ValueError, OverflowError) as exc:
                raise ProtocolError(f"column {field.name!r}: {str(exc)[:300]}") from None
        try:
            batch = pa.RecordBatch.from_arrays(columns, schema=schema)
        except (pa.ArrowException, ValueError) as exc:
            raise ProtocolError(f"malformed batch layout: {str(exc)[:300]}") from None
        return validated(batch)

    def discard(self, frames: Sequence[Frame]) -> None:
        """Frames are plain memory; dropping them frees them."""


def _words(data: Frame, schema: pa.Schema) -> list[int]:
    """The layout's words, if there are as many as ``schema`` needs and its columns are flat."""
    want = _layout_words(schema)
    if want is None:
        raise ProtocolError("a buffer layout for a schema with nested or dictionary columns")
    raw = memoryview(data).cast("B")
    if len(raw) != want * _WORDS:
        raise ProtocolError(f"a buffer layout of {len(raw)} bytes; the schema needs {want * _WORDS}")
    words = array("q")
    words.frombytes(raw)
    return words.tolist()


@functools.lru_cache(maxsize=256)
def _layout_words(schema: pa.Schema) -> int | None:
    """How many layout words a batch of ``schema`` has; None if a column is not flat. Once
    per schema, not per batch."""
    if not all(flat(field.type) for field in schema):
        return None
    return sum(2 + 3 * int(field.type.num_buffers) for field in schema)


def _buffer(buffers: list[pa.Buffer], frame: int, start: int, size: int) -> pa.Buffer | None:
    """Payload frame ``frame``'s bytes ``start:start+size`` (frame 0 is the layout)."""
    if frame == -1:
        return None
    if not 1 <= frame <= len(buffers) or start < 0 or size < 0:
        raise ProtocolError(f"buffer in frame {frame} at {start} of {size} bytes: no such frame")
    source = buffers[frame - 1]
    if start + size > source.size:
        raise ProtocolError(f"buffer at {start} of {size} bytes overruns its {source.size}-byte frame")
    return source.slice(start, size)
