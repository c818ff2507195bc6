"""``df.sample``, ``df.repartition`` and ``df.coalesce``: operators the stage cutter turns
into what the user asked for (``RowSample`` runs in each task; ``Repartition`` becomes a
shuffle or a coalesce boundary, ``planner.physical.stages``).

Spark's rules kept: ``sample`` takes PySpark's positional forms and a ``fraction`` in
[0, 1]; without a seed each call draws a new one. Spark's sampled rows cannot be
reproduced (its generator and partitioning are its own): sparkwire keeps each row with
probability ``fraction``, decided by a hash of the seed, the row's position in its task and
its values, so a seeded sample is the same on the same cluster. ``coalesce(n)`` never adds
tasks; ``repartition(n)`` without columns hashes every column (Spark deals rows round-robin:
the counts per task differ, not the rows); ``repartition("k")`` makes a partition per
core of the cluster (Spark: ``spark.sql.shuffle.partitions``). Sampling with replacement is not supported.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.frame import Frame
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.functions import ColumnOrName
from sparkwire.planner.limits import MAX_PARTITIONS
from sparkwire.planner.logical.plan import Repartition, RowSample

#: The frame sampled or repartitioned, returned as the same class (``planner.api.frame``).
FrameT = TypeVar("FrameT", bound=Frame)


def sample(df: FrameT, with_replacement: bool | float | None, fraction: float | None,
           seed: int | None) -> FrameT:
    if isinstance(with_replacement, float | int) and not isinstance(with_replacement, bool):
        # sample(0.1) / sample(0.1, 7) / sample(0.1, seed=7), as PySpark reads them
        if fraction is not None:
            seed = fraction  # type: ignore[assignment]
        with_replacement, fraction = None, with_replacement
    if with_replacement:
        raise AnalysisError("sample(withReplacement=True) is not supported by sparkwire")
    if isinstance(fraction, bool) or not isinstance(fraction, float | int) or not 0 <= fraction <= 1:
        raise AnalysisError(f"sample's fraction must be a number in [0, 1], got {fraction!r}")
    if seed is None:
        seed = random.getrandbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63:
        raise AnalysisError(f"sample's seed must be a 64-bit int, got {seed!r}")
    return df._derive(RowSample(input=df._plan, fraction=float(fraction), seed=seed), df._attrs)


def repartition(df: FrameT, partitions: int | ColumnOrName,
                cols: Sequence[ColumnOrName]) -> FrameT:
    if isinstance(partitions, bool):
        raise AnalysisError(f"repartition takes a number of partitions or columns, got {partitions!r}")
    if not isinstance(partitions, int):
        cols = (partitions, *cols)
        partitions = min(df._executor.cores, MAX_PARTITIONS)
    items = list(cols[0]) if len(cols) == 1 and isinstance(cols[0], list | tuple) else list(cols)
    keys = tuple(df._named(F.to_column(c), "repartition")[1] for c in items)
    return df._derive(Repartition(input=df._plan, partitions=_count(partitions), keys=keys),
                      df._attrs)


def coalesce(df: FrameT, partitions: int) -> FrameT:
    return df._derive(Repartition(input=df._plan, partitions=_count(partitions), coalesce=True),
                      df._attrs)


def _count(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_PARTITIONS:
        raise AnalysisError(
            f"the number of partitions must be an int in [1, {MAX_PARTITIONS}], got {n!r}"
        )
    return n
