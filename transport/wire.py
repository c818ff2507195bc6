"""The message protocol of sparkwire's socket transports, independent of the socket library.

A message is a list of frames. Frame 0 is a JSON header (at most ``MAX_HEADER_BYTES``,
validated field by field by the pydantic models below; nothing is unpickled or evaluated);
the frames after it are the payload, whose count the header's ``type`` fixes. A socket layer
may put routing frames in front (a ZeroMQ ROUTER's peer identity); this module never sees them.

Client → server::

    deliver {"type":"deliver","id":I}                              [task plan JSON bytes]
    cancel  {"type":"cancel","id":I,"query_id":Q}
    open    {"type":"open","id":I,"key":"Q/STAGE/TASK/PART","timeout":T,"credit":W}
    credit  {"type":"credit","id":I,"bytes":N}        the reader consumed N bytes: send more
    close   {"type":"close","id":I}                   the reader stopped early: release producer

Server → client::

    ok      {"type":"ok","id":I}                      deliver or cancel done
    error   {"type":"error","id":I|null,"code":C,"message":M}     final; id null: unparseable
    schema  {"type":"schema","id":I}                  [Arrow IPC schema message]
    batch   {"type":"batch","id":I,"charge":N}        [payload frames of the codec]
    end     {"type":"end","id":I}                     explicit end of stream
    ping    {"type":"ping"}                           alive and still working for you

Headers are JSON objects (key order free). ``id`` is chosen by the client, unique per
connection; a stream is named by its ``open``'s id
and answered by ``schema`` (or ``error``), then ``batch``… and ``end`` or ``error``. Errors
carry a ``transport.errors`` code and are rebuilt with ``error_from_code``.

The ``schema`` frame is ``Schema.serialize()``. A batch travels as its ``PayloadCodec``
(``transport.ipc``) packs it: the protocol never assumes that a batch's bytes are in its
frames. ``credit`` (W) and ``charge`` (N) are the flow control that ``transport.flow``
implements: a batch's charge, at least ``MIN_CHARGE``, counts against the reader's window W.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, ClassVar, Literal, Self, TypeAlias

import pyarrow as pa
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidationError,
)
from pydantic_core import from_json

from sparkwire.transport import limits
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import ProtocolError, as_library_error

MAX_HEADER_BYTES = 64 * 1024
MAX_PLAN_BYTES = limits.MAX_PLAN_BYTES
MAX_PAYLOAD_FRAMES = 256     # a batch's buffers, one frame each (transport.buffers)
MAX_MESSAGE_CHARS = 8 * 1024
MIN_CHARGE = 4096
MAX_TIMEOUT = 86_400.0

# An outgoing or incoming frame: anything with the buffer protocol that ZeroMQ can send.
Frame: TypeAlias = bytes | memoryview | pa.Buffer


def _valid(build: Callable[[], PartitionKey]) -> PartitionKey:
    """``PartitionKey``'s own checks, reported the way pydantic expects (``ValueError``)."""
    try:
        return build()
    except ProtocolError as exc:
        raise ValueError(str(exc)) from None


def _parse_key(value: object) -> PartitionKey:
    if isinstance(value, PartitionKey):  # checked again: a key can be built around its checks
        value = str(value)
    if not isinstance(value, str) or len(value) > 256:
        raise ValueError("a partition key is a string of at most 256 characters")
    return _valid(lambda: PartitionKey.parse(value))


def _check_query_id(value: str) -> str:
    return _valid(lambda: PartitionKey(value, 0, 0, 0)).query_id


_Id = Annotated[int, Field(ge=0, lt=1 << 63)]
_Bytes = Annotated[int, Field(gt=0, le=1 << 40)]
_Key = Annotated[PartitionKey, PlainValidator(_parse_key), PlainSerializer(str, return_type=str)]


class Header(BaseModel):
    """Frame 0 of every message; ``payload`` is the (min, max) count of frames after it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    payload: ClassVar[tuple[int, int]] = (0, 0)

    @classmethod
    def of(cls, **fields: Any) -> Self:
        """An outgoing header; a field no peer would accept is the caller's ``ProtocolError``."""
        try:
            return cls(**fields)
        except ValidationError as exc:
            raise ProtocolError(f"cannot send {cls.__name__.lower()}: {_describe(exc)}") from None


class _Addressed(Header):
    """A message about one call or stream, named by the id its client chose."""

    id: _Id


class Deliver(_Addressed):
    payload: ClassVar[tuple[int, int]] = (1, 1)
    type: Literal["deliver"] = "deliver"


class Cancel(_Addressed):
    type: Literal["cancel"] = "cancel"
    query_id: Annotated[str, AfterValidator(_check_query_id)]


class Open(_Addressed):
    type: Literal["open"] = "open"
    key: _Key
    timeout: Annotated[float, Field(ge=0, le=MAX_TIMEOUT)]
    credit: Annotated[int, Field(ge=MIN_CHARGE, le=1 << 40)]


class Credit(_Addressed):
    type: Literal["credit"] = "credit"
    bytes: _Bytes


class Close(_Addressed):
    type: Literal["close"] = "close"


class Ok(_Addressed):
    type: Literal["ok"] = "ok"


class Error(Header):
    type: Literal["error"] = "error"
    id: _Id | None
    code: Annotated[str, Field(pattern=r"^[a-z_]{1,64}$")]
    message: Annotated[str, Field(max_length=MAX_MESSAGE_CHARS)]


class Schema(_Addressed):
    payload: ClassVar[tuple[int, int]] = (1, 1)
    type: Literal["schema"] = "schema"


class Batch(_Addressed):
    payload: ClassVar[tuple[int, int]] = (1, MAX_PAYLOAD_FRAMES)
    type: Literal["batch"] = "batch"
    charge: _Bytes


class End(_Addressed):
    type: Literal["end"] = "end"


class Ping(Header):
    type: Literal["ping"] = "ping"


Request = Deliver | Cancel | Open | Credit | Close
Reply = Ok | Error | Schema | Batch | End | Ping
_REQUEST: TypeAdapter[Request] = TypeAdapter(Annotated[Request, Field(discriminator="type")])
_REPLY: TypeAdapter[Reply] = TypeAdapter(Annotated[Reply, Field(discriminator="type")])


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc']) or 'header'}: {first['msg']}"


def _parse(adapter: TypeAdapter[Any], frames: Sequence[Frame]) -> tuple[Any, list[Frame]]:
    if not frames:
        raise ProtocolError("empty message")
    if len(frames[0]) > MAX_HEADER_BYTES:
        raise ProtocolError(f"header of {len(frames[0])} bytes exceeds {MAX_HEADER_BYTES}")
    try:
        header = adapter.validate_json(bytes(frames[0]))
    except ValidationError as exc:
        raise ProtocolError(f"malformed header: {_describe(exc)}") from None
    low, high = header.payload
    if not low <= len(frames) - 1 <= high:
        raise ProtocolError(f"{header.type} takes {low}..{high} payload frames, got {len(frames) - 1}")
    if isinstance(header, Deliver) and len(frames[1]) > MAX_PLAN_BYTES:
        raise ProtocolError(f"task plan exceeds {MAX_PLAN_BYTES} bytes")
    return header, list(frames[1:])


def parse_request(frames: Sequence[Frame]) -> tuple[Request, list[Frame]]:
    """Validate a client's message; raises ``ProtocolError`` saying what is wrong."""
    return _parse(_REQUEST, frames)


def parse_reply(frames: Sequence[Frame]) -> tuple[Reply, list[Frame]]:
    """Validate a server's message; raises ``ProtocolError`` saying what is wrong."""
    return _parse(_REPLY, frames)


def salvage_id(frames: Sequence[Frame]) -> int | None:
    """The id of a malformed request, when its header starts like JSON with one, so that its
    error reaches the caller waiting for it (read as partial JSON: it may be cut short)."""
    try:
        header = from_json(bytes(frames[0][:4096]), allow_partial=True)
    except (ValueError, IndexError):
        return None
    found = header.get("id") if isinstance(header, dict) else None
    return found if type(found) is int and 0 <= found < 1 << 63 else None


def encode(header: Header, *payload: Frame) -> list[Frame]:
    return [header.model_dump_json().encode(), *payload]


def error_reply(request_id: int | None, exc: BaseException) -> list[Frame]:
    """The ``error`` message for anything a service raised (see ``as_library_error``)."""
    error = as_library_error(exc)
    return encode(Error(id=request_id, code=error.code, message=str(error)[:MAX_MESSAGE_CHARS]))
