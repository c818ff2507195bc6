"""Errors for the parts of PySpark's API sparkwire does not have.

A PySpark user who reaches for ``df.rdd`` or ``F.levenshtein`` should learn that sparkwire
lacks it, not that the name looks like a typo: an attribute lookup that fails on a
``DataFrame``, ``Column``, ``GroupedData``, ``Session`` or the ``functions`` module says
"`<name>` is not supported by sparkwire" when PySpark has that name
(``planner.api.pyspark_names``), with the reason where sparkwire refuses it on purpose
(``planner.api.refused``), and the usual ``AttributeError`` otherwise. Both are
``AttributeError``, so ``hasattr`` and ``getattr(obj, name, default)`` keep working.
"""

from __future__ import annotations

from collections.abc import Collection

from sparkwire.planner.api.refused import reason


def not_supported(name: str, where: str) -> str:
    """The message for a PySpark feature sparkwire lacks: ``where`` names its owner; a
    name refused on purpose says why."""
    message = f"`{name}` is not supported by sparkwire (PySpark's {where}.{name})"
    why = reason(where, name)
    return message if why is None else f"{message}: {why}"


def missing_attribute(
    owner: str, name: str, pyspark: Collection[str], pyspark_owner: str | None = None,
) -> AttributeError:
    """The error for ``owner.name`` not found: not supported when PySpark's counterpart
    (``pyspark_owner``, by default the same name) has the name."""
    if name in pyspark:
        return AttributeError(not_supported(name, pyspark_owner or owner))
    return AttributeError(f"{owner} has no attribute {name!r}")
