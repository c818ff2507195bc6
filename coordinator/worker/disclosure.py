"""What a task's error may tell the caller: what the caller itself named, nothing more.

A task's error travels to a remote reader. DuckDB's messages carry the generated SQL (``LINE
1: ...``, every file and column of the fragment), hints listing real columns (``Candidate
bindings``, ``Did you mean``), and Python errors may carry paths of the worker's disk. So
only the first line of a message is kept, and every absolute path in it that the plan did not
name becomes ``<path>``; what the caller named (its files, its column names in the first
line) stays, so the error still says what went wrong.
"""

from __future__ import annotations

import re
from collections.abc import Collection

_PATH = re.compile(r"(?<![\w.:/])/[^\s'\",:;()\[\]{}]+")  # not the // of an address
_HINT = re.compile(r"\s*(Candidate bindings:|Did you mean).*$", re.IGNORECASE)
_MAX_MESSAGE = 1000


def redact(message: str, named: Collection[str]) -> str:
    """``message`` cut to its first line, without hints or paths the plan did not name."""
    first = message.strip().split("\n", 1)[0]
    first = _HINT.sub("", first)
    first = _PATH.sub(lambda m: m[0] if m[0] in named else "<path>", first)
    return first[:_MAX_MESSAGE]
