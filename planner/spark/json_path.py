"""Spark's JSON paths (``get_json_object``), read by the planner and the worker alike.

Spark's ``JsonPathParser`` takes ``$`` followed by steps: ``.name`` (up to the next ``.`` or
``[``), ``['name']`` and ``[n]`` (an array index); ``*`` steps (``.*``, ``[*]``) are
wildcards. A path it cannot parse makes every answer NULL, which ``steps`` reports as
``None``. Wildcards gather matches into a new array, a shape DuckDB's ``json_extract`` does
not give (it answers a list), so they are refused by the caller.

``duckdb_path`` spells parsed steps as DuckDB's JSONPath with every key quoted, so a key
holding ``.``, ``[`` or a space means the key, never more steps.
"""

from __future__ import annotations

import re

#: One step: a key (str) or an array index (int); ``WILDCARD`` for ``*``.
Step = str | int
WILDCARD = "*"
_STEP = re.compile(r"\.([^.\[]+)|\['([^']*)'\]|\[(\d+)\]|\[\*\]")


def steps(path: str) -> list[Step] | None:
    """The steps of ``path``, or None where Spark's parser refuses it (every answer NULL)."""
    if not path.startswith("$"):
        return None
    found: list[Step] = []
    pos = 1
    while pos < len(path):
        match = _STEP.match(path, pos)
        if match is None:
            return None
        key, quoted, index = match.groups()
        if index is not None:
            found.append(int(index))
        elif match[0] == "[*]" or key == WILDCARD:
            found.append(WILDCARD)
        else:
            found.append(key if key is not None else quoted)
        pos = match.end()
    return found


def has_wildcard(path: str) -> bool:
    parsed = steps(path)
    return parsed is not None and WILDCARD in parsed


def duckdb_path(parsed: list[Step]) -> str:
    """DuckDB's JSONPath of wildcard-free steps, keys quoted (``$."a b"[0]``)."""
    parts = ["$"]
    for step in parsed:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif '"' in step or "\\" in step:
            raise ValueError(f"a JSON path key holding a quote or a backslash: {step!r}")
        else:
            parts.append(f'."{step}"')
    return "".join(parts)
