"""``DataFrame.to(schema)``: the frame's columns matched to ``schema`` by name, as Spark's
``Dataset.to`` reconciles them (top-level columns):

- columns are found by name in any case, put in the schema's order and named as it names
  them; a column the schema leaves out is dropped; one it names that the frame lacks is
  NULL where the schema lets it be (Spark 4.3's behaviour, beyond its documentation), else
  fails;
- a column of another type is cast where Spark's store assignment allows (ANSI's
  ``canANSIStoreAssign``): a number to a number (a value that does not fit fails the
  query, as ANSI casts do), anything atomic to a string, a date or timestamp to another;
  other pairs fail, as do nested types that differ (reconciling their inner fields is
  not supported yet);
- a nullable column into a field the schema says is never NULL fails.
"""

from __future__ import annotations

from typing import Any

from sparkwire.planner.errors import AnalysisError

_NUMBERS = frozenset({"tinyint", "smallint", "int", "bigint", "float", "double"})
_TIMES = frozenset({"date", "timestamp", "timestamp_ntz"})
_NESTED = ("array<", "map<", "struct<")


def matched_columns(current: Any, schema: Any) -> list[tuple[str | None, str | None, str]]:
    """For each field of ``schema``: the frame's column (None: a NULL), the type to cast it
    to (None: it has it) and the name to give it."""
    by_name = {field.name.casefold(): field for field in current.fields}
    matched: list[tuple[str | None, str | None, str]] = []
    for field in schema.fields:
        have = by_name.get(field.name.casefold())
        if have is None and field.nullable:
            matched.append((None, field.dataType.simpleString(), field.name))
            continue
        if have is None:
            raise AnalysisError(f"[UNRESOLVED_COLUMN.WITH_SUGGESTION] to(): the frame has no column "
                                f"{field.name!r} (it has {', '.join(f.name for f in current.fields)})")
        if have.nullable and not field.nullable:
            raise AnalysisError(f"[NULLABLE_COLUMN_OR_FIELD] to(): the column {have.name!r} is nullable "
                                "but the schema says it is never NULL")
        got, want = have.dataType.simpleString(), field.dataType.simpleString()
        if got != want and not _assignable(got, want):
            raise AnalysisError(f"[CANNOT_UP_CAST_DATATYPE] to(): cannot cast {have.name!r} from "
                                f"{got} to {want}")
        matched.append((have.name, None if got == want else want, field.name))
    return matched


def _assignable(got: str, want: str) -> bool:
    if got.startswith(_NESTED) or want.startswith(_NESTED):
        return False
    kind = lambda name: "number" if name in _NUMBERS or name.startswith("decimal") else name  # noqa: E731
    if kind(got) == kind(want) == "number":
        return True
    if want == "string":
        return True
    return got in _TIMES and want in _TIMES
