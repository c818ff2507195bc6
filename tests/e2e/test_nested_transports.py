"""Results of nested types (arrays, maps, structs) cross every transport: a query whose
stages exchange lists and whose result holds an array, a map and a struct, on 3 workers
with small chunks, checked against Python's own answer."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import functions as F
from sparkwire.coordinator import Session
from sparkwire.transport.registry import available_transports

KEYS = ["a", "b", None, "a", "c", "b", "a", ""]
ARRAYS = [[1, 2], [], None, [3, None], [4], [5, 5, 6], [7], [None]]
DATA = pa.table({"k": KEYS, "arr": pa.array(ARRAYS, pa.list_(pa.int64()))})


def _expected() -> dict[str | None, tuple[list[int], int, dict[str, object]]]:
    groups: dict[str | None, list[int | None]] = {}
    for k, arr in zip(KEYS, ARRAYS, strict=True):
        groups.setdefault(k, []).extend(arr or [None])  # explode_outer: one NULL row
    return {
        k: (sorted(v for v in vs if v is not None), len(vs), {"key": k, "rows": len(vs)})
        for k, vs in groups.items()
    }


@pytest.mark.slow
@pytest.mark.parametrize("transport", sorted(available_transports()))
def test_nested_results_cross_the_transport(transport: str) -> None:
    with Session(workers=3, transport=transport, local_chunk_rows=2) as session:
        df = session.createDataFrame(DATA)
        exploded = df.select("k", F.explode_outer("arr").alias("v"))
        grouped = exploded.groupBy("k").agg(
            F.sort_array(F.collect_list("v")).alias("vs"), F.count("*").alias("n"))
        out = grouped.select(
            "k", "vs", F.create_map(F.lit("n"), F.col("n")).alias("m"),
            F.struct(F.col("k").alias("key"), F.col("n").alias("rows")).alias("st"),
        ).toArrow()
    assert out.schema.field("vs").type == pa.list_(pa.field("element", pa.int64()))
    got = {r["k"]: (r["vs"], dict(r["m"])["n"], r["st"]) for r in out.to_pylist()}
    assert got == {k: (vs, n, st) for k, (vs, n, st) in _expected().items()}
