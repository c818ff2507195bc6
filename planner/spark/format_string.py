"""``format_string``'s Java ``Formatter`` patterns, the part sparkwire runs as Spark does.

Supported: ``%s`` and ``%d`` with the flags ``-`` (left-justify) and, for ``%d``, ``0``
(zero-pad), a width, and ``%%``. A NULL argument prints ``null`` (padded to the width), as
Java's Formatter prints it. Refused, naming the directive: everything else, among them
``%f``/``%e`` (Java rounds the decimal text HALF_UP, C's printf the binary value),
``%x``, ``%b``, argument indexes (``%1$s``) and ``%n``. ``%s`` of a float or double is
refused when the plan is typed (Java prints ``1.0E10`` where DuckDB prints
``10000000000.0``), and of a date or timestamp (Spark formats its internal number).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire.planner.errors import AnalysisError

_DIRECTIVE = re.compile(r"%(?P<flags>[-#+ 0,(<]*)(?P<width>\d+)?(?P<precision>\.\d+)?(?P<conv>.?)")


@dataclass(frozen=True)
class Directive:
    """One ``%`` directive: its printf text, and the text to print for a NULL."""

    printf: str
    null_printf: str
    conversion: str


def parse(pattern: str) -> list[str | Directive]:
    """Literal text and directives, in order."""
    parts: list[str | Directive] = []
    pos = 0
    for match in _DIRECTIVE.finditer(pattern):
        if match.start() > pos:
            parts.append(pattern[pos:match.start()])
        pos = match.end()
        flags, width, precision, conv = (match[g] or "" for g in ("flags", "width", "precision", "conv"))
        if conv == "%" and not (flags or width or precision):
            parts.append("%")
            continue
        allowed = {"s": "-", "d": "-0"}.get(conv)
        if allowed is None or any(f not in allowed for f in flags) or precision:
            raise AnalysisError(
                f"format_string directive {match[0]!r} in {pattern!r} is not supported by sparkwire "
                "(supported: %s and %d with a width and the flag '-', '0' for %d, and %%)"
            )
        parts.append(Directive(f"%{flags}{width}{conv}", f"%{flags.replace('0', '')}{width}s", conv))
    if pos < len(pattern):
        parts.append(pattern[pos:])
    return parts


def directives(pattern: str) -> list[Directive]:
    return [p for p in parse(pattern) if isinstance(p, Directive)]


def check_format(pattern: str) -> str:
    parse(pattern)
    return pattern
