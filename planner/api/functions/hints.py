"""``F.broadcast(df)``: the DataFrame hinted to be broadcast in its next join
(``df.hint("broadcast")``, ``planner.api.frame_extras``). It takes a DataFrame, which this
package may not import (it sits below the DataFrame's layers), so it asks for the one
method it calls."""

from __future__ import annotations

from typing import Protocol, Self, TypeVar

__all__ = ["broadcast"]


class _Hintable(Protocol):
    def hint(self, name: str, *parameters: object) -> Self: ...


D = TypeVar("D", bound=_Hintable)


def broadcast(df: D) -> D:
    """``df`` marked for broadcasting, as PySpark's ``broadcast``."""
    return df.hint("broadcast")
