"""Spark's number formats of ``to_number``/``try_to_number`` (``ToNumberParser``), read once
when the plan is built: the decimal type a format gives and the RE2 pattern an input must
match, both the driver's (the result type) and the worker's (the parse).

A format is ``[MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [PR|MI|S]``, in any case. Its digits are
the precision, those after the point the scale. An input, spaces around it trimmed, holds:

- the sign where the format has one: ``S`` takes ``+`` or ``-``, ``MI`` a ``-``, ``PR``
  angle brackets around a negative number; each optional;
- ``$`` where the format has it (required);
- before the point at most as many digits as the format (exactly as many where it starts
  with ``0``), in as many comma-separated groups as the format's or fewer, each no longer
  than the format's group it lines up with from the right (``234``, ``1,2`` and ``1,234``
  match ``9,999``; ``1234`` and ``12,34`` do not), as Spark answers;
- after the point at most the format's digits; the point itself optional; some digit.

Anything else is Spark's ``INVALID_FORMAT.MISMATCH_INPUT`` (``to_number``) or NULL
(``try_to_number``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire.planner.errors import AnalysisError

_TOKENS = re.compile(r"MI|PR|[09]+|[,G]|[.D]|\$|S")
MAX_PRECISION = 38


@dataclass(frozen=True)
class NumberFormat:
    """A format read: the result's ``precision`` and ``scale``, and the input ``pattern``,
    whose six groups are the opening angle bracket, the sign before, the digits before the
    point (with their commas), those after it, the sign after, the closing bracket."""

    precision: int
    scale: int
    pattern: str


def _invalid(text: str, why: str) -> AnalysisError:
    return AnalysisError(f"[INVALID_FORMAT] The format is invalid: '{text}'. {why}")


def _before(groups: list[str]) -> str:
    """The digits before the point: as many groups as the format's or fewer, matched to its
    rightmost ones, each no longer than its match (exact when the format starts with ``0``)."""
    if not groups:
        return ""
    if groups[0].startswith("0"):
        return ",".join(f"[0-9]{{{len(g)}}}" for g in groups)
    options = [",".join(f"[0-9]{{1,{len(g)}}}" for g in groups[len(groups) - j:])
               for j in range(1, len(groups) + 1)]
    return "(?:" + "|".join(options) + ")?"


def parse(text: str) -> NumberFormat:
    """The format ``text``, or Spark's reason it is invalid."""
    upper = text.upper()
    tokens = _TOKENS.findall(upper)
    if "".join(tokens) != upper or not tokens:
        raise _invalid(text, "It may hold only 0, 9, G ',', D '.', $, S, MI and PR.")
    lead = tokens.pop(0) if tokens[0] in ("S", "MI") else ""
    trail = tokens.pop() if tokens and tokens[-1] in ("S", "MI", "PR") else ""
    if lead and trail:
        raise _invalid(text, "At most one sign (S, MI or PR) is allowed.")
    dollar = bool(tokens) and tokens[0] == "$"
    body = tokens[1:] if dollar else tokens
    point = [i for i, t in enumerate(body) if t in (".", "D")]
    if len(point) > 1:
        raise _invalid(text, "At most one . or D is allowed in the number format.")
    whole, fraction = (body[:point[0]], body[point[0] + 1:]) if point else (body, [])
    if any(t in ("$", "S", "MI", "PR") for t in body):
        raise _invalid(text, "Currency characters must appear before digits, and a sign at either end.")
    if any(not t[0].isdigit() for t in fraction):
        raise _invalid(text, "Only digits may follow the decimal point.")
    groups = "".join("," if t in (",", "G") else t for t in whole).split(",")
    if any(not g for g in groups[1:] if len(groups) > 1) or (len(groups) > 1 and not groups[0]):
        raise _invalid(text, "There must be a 0 or 9 on each side of a grouping separator.")
    groups = [g for g in groups if g]
    scale = sum(len(t) for t in fraction)
    precision = sum(len(g) for g in groups) + scale
    if precision == 0 or precision > MAX_PRECISION:
        raise _invalid(text, f"It must hold from 1 to {MAX_PRECISION} digits.")
    signs = {"S": "([+-])?", "MI": "(-)?", "": "()", "PR": "()"}
    currency = r"\$" if dollar else ""
    after = rf"(?:\.([0-9]{{0,{scale}}}))?" if point else "()"
    opening, closing = ("(<)?", "(>)?") if trail == "PR" else ("()", "()")
    pattern = f"^{opening}{signs[lead]}{currency}({_before(groups)}){after}{signs[trail]}{closing}$"
    return NumberFormat(precision, scale, pattern)
