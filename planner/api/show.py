"""The text ``show()`` prints, character for character as PySpark's (Spark's
``Dataset.showString``).

Spark prints each value as its ``CAST(... AS STRING)`` in the display form
(``ToPrettyString``): ``true``/``false``, a double or float as Java's ``toString``
(``1.0E7``, ``1.0E-5``, ``NaN``, ``Infinity``: the shortest digits that read back, in
plain form from 10^-3 up to 10^7 and in scientific form outside), a timestamp to the
second with its fraction's trailing zeros dropped, binary as ``[61 62]``, arrays
``[1, NULL]``, structs ``{1, a}``, maps ``{a -> 1}``, NULL as ``NULL`` at any depth. Cells
and the grid's names are cut to ``truncate`` characters (``...`` from 4 up), then padded to the
column's display width, in which an East Asian full-width character takes two places.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
import struct
from typing import Any

import pyarrow as pa

#: Characters that take two places on a terminal (Spark's ``Utils.fullWidthRegex``).
_FULL_WIDTH = re.compile("[\u1100-\u115F\u2E80-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE10-\uFE19"
                         "\uFE30-\uFE6F\uFF00-\uFF60\uFFE0-\uFFE6]")
#: Escapes of control characters in names and cells (Spark's ``escapeMetaCharacters``).
_ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f", "\b": "\\b",
                          "\v": "\\v", "\a": "\\a"})
_MIN_WIDTH = 3


def show_string(table: pa.Table, n: int, truncate: bool | int, vertical: bool) -> str:
    """The text PySpark's ``show(n, truncate, vertical)`` prints for the first ``n`` rows of
    ``table`` (which holds one more row when there are more to leave out): a grid ends in
    a newline (``print`` adds the blank line PySpark shows after it), the note on rows
    left out does not."""
    width = 20 if truncate is True else int(truncate)
    shown = table.slice(0, min(n, table.num_rows))  # Arrow's slice of no columns keeps n rows
    kinds = [f.type for f in table.schema]
    # the grid's names are cut as its cells are; the vertical form shows them whole
    names = [_cut(name.translate(_ESCAPES), 0 if vertical else width) for name in table.column_names]
    rows = [[_cut(shown_value(v, t).translate(_ESCAPES), width) for v, t in zip(row, kinds, strict=True)]
            for row in (zip(*(c.to_pylist() for c in shown.columns), strict=True)
                        if shown.num_columns else [()] * shown.num_rows)]  # rows of no columns
    text = _vertical(names, rows) if vertical else _grid(names, rows, right=width > 0)
    if vertical and not rows:
        return text + "(0 rows)"
    if table.num_rows > n:
        text += f"only showing top {n} row{'s' if n != 1 else ''}"
    return text


def _grid(names: list[str], rows: list[list[str]], right: bool) -> str:
    sizes = [max([_MIN_WIDTH, *(_width(r[i]) for r in [names, *rows])]) for i in range(len(names))]
    rule = "+" + "+".join("-" * s for s in sizes) + "+\n"

    def line(cells: list[str]) -> str:
        return "|" + "|".join(_pad(c, s, right) for c, s in zip(cells, sizes, strict=True)) + "|\n"

    return rule + line(names) + rule + "".join(line(r) for r in rows) + rule


def _vertical(names: list[str], rows: list[list[str]]) -> str:
    name_width = max([_MIN_WIDTH, *map(_width, names)])
    cell_width = max([_MIN_WIDTH, *(_width(c) for r in rows for c in r)])
    out = []
    for i, row in enumerate(rows):
        out.append(f"-RECORD {i}".ljust(name_width + cell_width + 5, "-") + "\n")
        out.extend(f" {_pad(name, name_width, False)} | {_pad(cell, cell_width, False)} \n"
                   for name, cell in zip(names, row, strict=True))
    return "".join(out)


def _cut(text: str, width: int) -> str:
    if width <= 0 or len(text) <= width:
        return text
    return text[:width] if width < 4 else text[:width - 3] + "..."


def _width(text: str) -> int:
    return len(text) + len(_FULL_WIDTH.findall(text))


def _pad(text: str, size: int, right: bool) -> str:
    fill = " " * (size - _width(text))
    return fill + text if right else text + fill


def shown_value(value: Any, t: pa.DataType) -> str:
    """A value as ``show()`` prints it (the module's rules), nested values too."""
    if value is None:
        return "NULL"
    if pa.types.is_struct(t):
        return "{" + ", ".join(shown_value(value[f.name], f.type) for f in t) + "}"
    if pa.types.is_map(t):
        return "{" + ", ".join(f"{shown_value(k, t.key_type)} -> {shown_value(v, t.item_type)}"
                               for k, v in value) + "}"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "[" + ", ".join(shown_value(v, t.value_type) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_float(value, single=pa.types.is_float32(t))
    if isinstance(value, bytes):
        return "[" + " ".join(f"{b:02X}" for b in value) + "]"
    if isinstance(value, dt.datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S").rjust(19, "0")
        return text + (f".{value.microsecond:06d}".rstrip("0") if value.microsecond else "")
    if isinstance(value, dt.date):
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    return str(value)


def java_float(value: float, single: bool = False) -> str:
    """Java's ``Double.toString`` (``Float.toString`` when ``single``)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    exact = decimal.Decimal(_shortest_single(value) if single else repr(value))
    sign, digits, _ = exact.as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = exact.adjusted()
    minus = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if power >= 0:
            whole, fraction = text[:power + 1].ljust(power + 1, "0"), text[power + 1:]
        else:
            whole, fraction = "0", "0" * (-power - 1) + text
        return f"{minus}{whole}.{fraction or '0'}"
    return f"{minus}{text[0]}.{text[1:] or '0'}E{power}"


def _shortest_single(value: float) -> str:
    """The fewest significant digits that read back as the same 32-bit float."""
    single = struct.unpack("f", struct.pack("f", value))[0]
    for precision in range(1, 10):
        text = f"{single:.{precision - 1}e}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            return text
    return repr(single)
