"""Moving data between Spark and sparkwire without gathering it on the driver."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

from sparkwire.transport.errors import SparkwireError, Timeout


def is_spark_dataframe(data: Any) -> bool:
    """Duck-typed, so nothing imports pyspark unless the user already has."""
    return type(data).__module__.startswith("pyspark.sql") and hasattr(data, "write")


def export_spark_dataframe(df: Any, directory: Path, timeout: float) -> Path:
    """Have Spark's executors write ``df`` as Parquet under ``directory``; bounded by ``timeout``.

    The write is a Spark job: it needs free task slots. When every slot is held (for example
    by sparkwire's own workers on a small cluster) it cannot start, so it runs under its own
    job group and is cancelled with a clear error when ``timeout`` passes.
    """
    path = directory / f"spark-{uuid.uuid4().hex[:12]}"
    sc = df.sparkSession.sparkContext
    group = f"sparkwire-export-{path.name}"
    failure: list[BaseException] = []

    def write() -> None:
        sc.setJobGroup(group, "sparkwire: export a Spark DataFrame", interruptOnCancel=True)
        try:
            df.write.parquet(str(path))
        except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=write, name=group, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        sc.cancelJobGroup(group)
        thread.join(30)
        raise Timeout(
            f"Spark could not write the DataFrame within {timeout:g}s; are all task slots "
            "busy (sparkwire workers hold one slot each)?"
        )
    if failure:
        raise SparkwireError(f"Spark failed to write the DataFrame: {failure[0]}") from failure[0]
    return path
