"""Identifiers in a plan: the one check every column, alias and struct field name passes.

Apart from ``planner.logical.expressions`` so the type-name grammar (``typenames``), which
expressions build on, can check struct field names with it too.
"""

from __future__ import annotations

import re

MAX_IDENTIFIER_LENGTH = 255
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_identifier(name: str) -> str:
    """Refuse names that could escape identifier quoting or confuse a terminal.

    Quoting alone would make a double quote harmless, but a plan that carries one is either
    a bug or an attack, so it is refused outright with a message naming the reason.
    """
    if not name:
        raise ValueError("identifier must not be empty")
    if len(name) > MAX_IDENTIFIER_LENGTH:
        raise ValueError(f"identifier longer than {MAX_IDENTIFIER_LENGTH} characters")
    if '"' in name or "`" in name:
        raise ValueError(f"identifier {name!r} contains a quote character")
    if _CONTROL.search(name):
        raise ValueError(f"identifier {name!r} contains a control character")
    return name
