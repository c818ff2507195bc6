"""Digests and encodings of ``pyspark.sql.functions``, re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.encodings``."""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.api.functions.unary import of_one_column

__all__ = ["base64", "bin", "from_base32", "hex", "md5", "sha", "sha1", "sha2", "to_base32", "unbase64",
           "unhex"]

md5 = of_one_column("md5")
sha1 = of_one_column("sha1")
sha = of_one_column("sha")
base64 = of_one_column("base64")
unbase64 = of_one_column("unbase64")
hex = of_one_column("hex")  # noqa: A001 - PySpark's name
unhex = of_one_column("unhex")
bin = of_one_column("bin")  # noqa: A001 - PySpark's name


to_base32 = of_one_column("to_base32")
from_base32 = of_one_column("from_base32")


def sha2(col: ColumnOrName, numBits: int) -> Column:  # noqa: N803 - PySpark's name
    """PySpark's API refuses a bit length SQL's ``sha2`` would answer NULL for."""
    if numBits not in (0, 224, 256, 384, 512):
        raise AnalysisError(f"sha2's numBits has to be one of [0, 224, 256, 384, 512], got {numBits}")
    return call("sha2", to_column(col).expr, lit(numBits).expr)
