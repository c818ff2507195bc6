"""``collation``: every string sparkwire holds is ``UTF8_BINARY`` (Arrow's strings compare
by their UTF-8 bytes, as Spark's default collation does), so a string's collation is
``SYSTEM.BUILTIN.UTF8_BINARY``, as Spark names it; of anything but a string it is refused,
as Spark refuses it (``planner.logical.typed_calls``). ``collate`` is refused
(``planner.api.refused``): DuckDB's collations are not Spark's ICU ones.
"""

from __future__ import annotations

from sparkwire.planner.logical.functions.base import plain

FUNCTIONS = (plain("collation"),)
