"""``to_char``/``to_varchar(x, format)``: a value as text in a format, registered as calls
of their own and made ``date_format`` (dates, timestamps), ``base64``, ``hex`` or
``decode`` (binary) once the operand's type is known (``planner.logical.typed_to_char``),
as Spark's ``ToCharacterBuilder`` chooses; of a number (Spark's number format) refused there
for now. Checked against PySpark (``tests/spark/test_char_formats.py``)."""

from __future__ import annotations

from sparkwire.planner.logical.functions.base import plain

FUNCTIONS = (plain("to_char", 2), plain("to_varchar", 2))
