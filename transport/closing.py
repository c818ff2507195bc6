"""``Closeable``: every server, client, reader, cluster and session is a context manager
whose ``close()`` is idempotent; this mixin gives them the context-manager half."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class Closeable:
    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
