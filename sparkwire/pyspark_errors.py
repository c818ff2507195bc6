"""Spark's error conditions on sparkwire's exceptions, and PySpark's exception classes too
when a program uses them.

A PySpark program catches ``pyspark.errors.AnalysisException`` or ``ArithmeticException``
and reads ``getCondition()``; run on sparkwire it must catch our errors the same way. Both
roots of our exception tree (``planner.errors.PlanError`` and
``transport.errors.SparkwireError``) take ``SparkCondition`` as a base, which gives every
error Spark's condition (``condition=`` or a message that leads with ``[CONDITION] ``),
message parameters and SQLSTATE, with PySpark's getters.

The PySpark class: ``__new__`` builds each instance as a subclass of both the sparkwire
class and PySpark's class for its condition (``ArithmeticException`` for
``DIVIDE_BY_ZERO``, ``NumberFormatException`` for ``CAST_INVALID_INPUT`` ..., else the
class's own ``pyspark_class``), one cached class per pair, so ``except`` clauses written for
either library catch it. That happens only once ``pyspark.errors`` is loaded: a program
that names one of its classes in an ``except`` clause has loaded it, and one that has not
loaded it (or cannot, PySpark not installed) gets today's classes without paying PySpark's
import (about 0.4 s) at its first error, nor a worker process at its first failed task.

This module imports nothing of sparkwire, so both roots may build on it (neither may import
the other's package, ``tests/test_layering.py``). SQLSTATEs and message templates are read,
when first asked for, from the condition tables PySpark ships (its JVM jar's
``error/error-conditions.json`` and its own ``pyspark/errors/error-conditions.json``),
found without importing PySpark.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import sys
import warnings
from typing import Any, ClassVar

__all__ = ["SparkCondition", "parameters_from", "sql_state"]

#: A condition leading a message: ``[DIVIDE_BY_ZERO] Division by zero...``.
_LEADING = re.compile(r"\[([A-Z][A-Z0-9_]*(?:\.[A-Z][A-Z0-9_]*)*)\] ")

#: PySpark's class for each condition's top level, where it is not the raising class's own
#: (the JVM exception PySpark's ``captured.convert_exception`` maps, per condition).
_CLASS_BY_CONDITION = {
    "PARSE_SYNTAX_ERROR": "ParseException",
    "PARSE_EMPTY_STATEMENT": "ParseException",
    "DIVIDE_BY_ZERO": "ArithmeticException",
    "INTERVAL_DIVIDED_BY_ZERO": "ArithmeticException",
    "ARITHMETIC_OVERFLOW": "ArithmeticException",
    "BINARY_ARITHMETIC_OVERFLOW": "ArithmeticException",
    "NUMERIC_VALUE_OUT_OF_RANGE": "ArithmeticException",
    "CAST_OVERFLOW": "ArithmeticException",
    "CAST_INVALID_INPUT": "NumberFormatException",
    "INVALID_ARRAY_INDEX": "ArrayIndexOutOfBoundsException",
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT": "ArrayIndexOutOfBoundsException",
    "INVALID_INDEX_OF_ZERO": "ArrayIndexOutOfBoundsException",
    "CANNOT_PARSE_TIMESTAMP": "DateTimeException",
    "DATETIME_FIELD_OUT_OF_BOUNDS": "DateTimeException",
    "USER_RAISED_EXCEPTION": "SparkRuntimeException",
    "SCALAR_SUBQUERY_TOO_MANY_ROWS": "SparkRuntimeException",
    "INVALID_CONF_VALUE": "IllegalArgumentException",
    "SQL_CONF_NOT_FOUND": "SparkNoSuchElementException",
    "CANNOT_MODIFY_STATIC_CONFIG": "AnalysisException",
    "CANNOT_MODIFY_CONFIG": "AnalysisException",
    "NOT_COLUMN_OR_STR": "PySparkTypeError",
    "NOT_EXPECTED_TYPE": "PySparkTypeError",
    "VALUE_NOT_PLAIN_COLUMN_REFERENCE": "PySparkValueError",
}
#: Our ANSI hint names sparkwire's setting too; Spark's templates spell it Spark's way.
_OUR_HINT = re.compile(r'If necessary set ("[^"]+")(?: \([^)]*\))? to "?false"? to bypass this error\.')
_PARAMETER = re.compile(r"<(\w+)>")


class SparkCondition(Exception):
    """Spark's condition and message parameters on an error, read with PySpark's getters;
    an instance is also of PySpark's class for it once ``pyspark.errors`` is loaded."""

    #: PySpark's class (a name in ``pyspark.errors``) for an error of this class whose
    #: condition does not name one; None: none (a planner bug has no PySpark counterpart).
    pyspark_class: ClassVar[str | None] = None
    #: The sparkwire class a combined class was made from (itself, for ours).
    _origin: ClassVar[type[SparkCondition] | None] = None

    def __new__(cls, *args: Any, condition: str | None = None,
                parameters: dict[str, str] | None = None) -> SparkCondition:
        name = cls.pyspark_name(condition or _leading(args))
        target = cls
        if name is not None and "pyspark.errors" in sys.modules and cls._origin is None:
            target = _combined(cls, name)
        return super().__new__(target, *args)

    @classmethod
    def pyspark_name(cls, condition: str | None) -> str | None:
        """PySpark's class for an error of this class with ``condition``."""
        return _CLASS_BY_CONDITION.get((condition or "").split(".")[0]) or cls.pyspark_class

    def __init__(self, *args: Any, condition: str | None = None,
                 parameters: dict[str, str] | None = None) -> None:
        Exception.__init__(self, *args)  # not PySpark's, which a combined class would reach next
        self.condition = condition or _leading(args)
        self._parameters = parameters
        # what PySpark's own methods (getQueryContext, logging) read
        self._errorClass = self.condition
        self._contexts: list[Any] = []

    def __str__(self) -> str:
        return Exception.__str__(self)  # ours, not PySpark's ``[CONDITION] ...`` rebuilt

    @property
    def _message(self) -> str:
        """The message without its leading ``[CONDITION] ``, as PySpark keeps it."""
        text = Exception.__str__(self)
        found = _LEADING.search(text)
        return text[found.end():] if found and found[1] == self.condition else text

    def getCondition(self) -> str | None:  # noqa: N802 - PySpark's name
        """Spark's error condition (``DIVIDE_BY_ZERO``, ``UNRESOLVED_COLUMN.WITH_SUGGESTION``),
        None where Spark has none for this failure."""
        return self.condition

    def getErrorClass(self) -> str | None:  # noqa: N802 - PySpark's name
        """``getCondition``'s name before Spark 4, deprecated there as here."""
        warnings.warn("Deprecated in 4.0.0, use getCondition instead.", FutureWarning, stacklevel=2)
        return self.condition

    def getMessageParameters(self) -> dict[str, str]:  # noqa: N802 - PySpark's name
        """The values Spark's message template was filled with: given where the error was
        raised, else read back from the message by the condition's template."""
        if self._parameters is None:
            self._parameters = parameters_from(self.condition, self._message) if self.condition else {}
        return dict(self._parameters)

    def getSqlState(self) -> str | None:  # noqa: N802 - PySpark's name
        return sql_state(self.condition)

    def getMessage(self) -> str:  # noqa: N802 - PySpark's name
        return f"[{self.condition}] {self._message}" if self.condition else self._message

    def getQueryContext(self) -> list[Any]:  # noqa: N802 - PySpark's name
        return self._contexts

    def getBreakingChangeInfo(self) -> dict[str, Any] | None:  # noqa: N802 - PySpark's name
        return None

    def __reduce__(self) -> tuple[Any, ...]:
        # a combined class has no importable name: rebuild from ours, which recombines
        return (_rebuild, (self._origin or type(self), self.args, self.condition, self._parameters))


def _rebuild(cls: type[SparkCondition], args: tuple[Any, ...], condition: str | None,
             parameters: dict[str, str] | None) -> SparkCondition:
    return cls(*args, condition=condition, parameters=parameters)


def _leading(args: tuple[Any, ...]) -> str | None:
    if args and isinstance(args[0], str) and (found := _LEADING.search(args[0])):
        return found[1]
    return None


#: (sparkwire class, PySpark class name) -> the class with both as bases, made once (two
#: threads racing make two equivalent classes; one is kept).
_COMBINED: dict[tuple[type[SparkCondition], str], type[SparkCondition]] = {}


def _combined(cls: type[SparkCondition], name: str) -> type[SparkCondition]:
    """``cls`` with PySpark's class ``name`` as a second base, named as ``cls``."""
    found = _COMBINED.get((cls, name))
    if found is None:
        spark_class = getattr(sys.modules["pyspark.errors"], name)
        made = type(cls.__name__, (cls, spark_class), {
            "__module__": cls.__module__, "__qualname__": cls.__qualname__, "_origin": cls,
        })
        found = _COMBINED.setdefault((cls, name), made)
    return found


@functools.cache
def _conditions() -> dict[str, Any]:
    """Spark's condition tables as PySpark ships them: the JVM's (in its jar) and PySpark's
    own; empty without PySpark."""
    import glob  # here: only a program that asks for a SQLSTATE or parameters pays for them
    import json
    import zipfile

    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return {}
    root = list(spec.submodule_search_locations)[0]
    table: dict[str, Any] = {}
    own = os.path.join(root, "errors", "error-conditions.json")
    if os.path.exists(own):
        with open(own, encoding="utf-8") as file:
            table.update(json.load(file))
    for jar in glob.glob(os.path.join(root, "jars", "spark-common-utils_*.jar")):
        with zipfile.ZipFile(jar) as archive:
            table.update(json.loads(archive.read("error/error-conditions.json")))
    return table


def sql_state(condition: str | None) -> str | None:
    """Spark's SQLSTATE of ``condition``, where PySpark's tables are at hand."""
    if condition is None:
        return None
    entry = _conditions().get(condition.split(".")[0], {})
    state = entry.get("sqlState")
    return state if isinstance(state, str) else None


@functools.cache
def _template(condition: str) -> re.Pattern[str] | None:
    """Spark's message template of ``condition`` as a pattern with a group per parameter."""
    top, _, sub = condition.partition(".")
    entry = _conditions().get(top)
    if entry is None:
        return None
    text = "\n".join(entry.get("message", []))
    if sub:
        sub_entry = entry.get("subClass", {}).get(sub)
        if sub_entry is None:
            return None
        text = f"{text} {chr(10).join(sub_entry.get('message', []))}"
    pieces = _PARAMETER.split(text.strip())
    pattern = "".join(
        re.escape(piece) if i % 2 == 0 else f"(?P<{piece}>.*?)" for i, piece in enumerate(pieces))
    return re.compile(pattern, re.DOTALL)


def parameters_from(condition: str, message: str) -> dict[str, str]:
    """The parameters Spark's template of ``condition`` was filled with to read ``message``;
    empty where the message does not follow the template (or no table is at hand). Our ANSI
    hint, which Spark's templates either lack or spell with Spark's key only, is tried both
    ways."""
    template = _template(condition)
    if template is None:
        return {}
    spark_hint = _OUR_HINT.sub(r'If necessary set \1 to "false" to bypass this error.', message)
    for text in (message, spark_hint, _OUR_HINT.sub("", message)):
        if (found := template.fullmatch(text.strip())) is not None:
            return {key: value for key, value in found.groupdict().items()}
    return {}
