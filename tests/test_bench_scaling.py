"""The worker sweep's summary and verdicts (``benchmarks.scaling_report``) on made-up cells,
and the sweep's command line (``benchmarks.scaling``): what the lead reads off a run must be
the arithmetic the issue's targets are stated in."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.scaling import Sweep, parse, replot, worker_counts
from benchmarks.scaling_report import judge, label, markdown, summarize

DUCK, ZMQ = "duckdb", "sparkwire-zmq"


def cell(wall: float, cpu: float, *, ok: bool = True, rss: float = 100.0,
         sparkwire: bool = True) -> dict[str, Any]:
    work = ({"tasks": 4, "stages": 2, "boundary_bytes": 2 << 20,
             "bytes_in": {"local": 1 << 20, "zmq": 3 << 20}} if sparkwire else
            {"tasks": None, "stages": None, "boundary_bytes": None, "bytes_in": None})
    return {"ok": ok, "median": wall if ok else None, "cpu_s": cpu if ok else None,
            "cpu_between_s": 0.01, "peak_rss_tree_mib": rss, "errors": [], **work}


def sweep_cells() -> dict[str, dict[str, dict[str, Any]]]:
    """Two queries answered everywhere, a third that zmq failed at 16 workers."""
    def query(zmq16: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {label(DUCK, 2): cell(1.0, 2.0, rss=300.0, sparkwire=False),
                label(DUCK, 16): cell(0.5, 2.2, rss=400.0, sparkwire=False),
                label(ZMQ, 2): cell(1.2, 2.4, rss=900.0), label(ZMQ, 16): zmq16}
    return {"q01": query(cell(1.0, 2.6, rss=2000.0)), "q05": query(cell(1.0, 2.6)),
            "q09": query(cell(9.0, 9.0, ok=False, rss=5000.0))}


def test_totals_count_only_queries_answered_everywhere() -> None:
    summary = summarize(sweep_cells(), [DUCK, ZMQ], [2, 16])
    assert summary["counted"] == ["q01", "q05"]
    zmq2, zmq16 = summary["systems"][ZMQ]["2"], summary["systems"][ZMQ]["16"]
    assert (zmq2["wall_s"], zmq2["cpu_s"], zmq16["cpu_s"]) == (2.4, 4.8, 5.2)
    assert zmq2["x_duckdb"] == 1.2 and zmq2["cpu_x_duckdb"] == 1.2
    assert zmq16["x_duckdb"] == 2.0  # 2.0 s against DuckDB's 1.0 s with 16 threads
    assert zmq16["speedup"] == 1.2 and zmq16["cpu_growth"] == pytest.approx(1.083, abs=1e-3)
    assert (zmq2["tasks"], zmq2["boundary_bytes"], zmq2["read_bytes"]) == (8, 4 << 20, 8 << 20)
    # the peak is the highest of any query, a failed one too: it used the memory
    assert zmq16["peak_rss_mib"] == 5000.0 and zmq16["rss_x_duckdb"] == 12.5
    assert summary["systems"][DUCK]["16"]["tasks"] is None


def test_targets_judge_each_transport_and_say_where_they_apply() -> None:
    summary = summarize(sweep_cells(), [DUCK, ZMQ], [2, 16])
    verdicts = {v["what"]: v for v in judge(summary, {"cpus": 2, "scale": 1.0})}
    assert {v["system"] for v in verdicts.values()} == {ZMQ}  # DuckDB is the reference
    growth = verdicts["CPU s at 16 workers ÷ at 2"]
    assert (growth["value"], growth["verdict"]) == (1.083, "pass")
    assert verdicts["CPU s at 2 workers ÷ DuckDB's"]["verdict"] == "pass"  # 1.2 <= 1.3
    assert verdicts["wall s at 16 workers ÷ DuckDB's"]["verdict"] == "fail"  # 2.0 > 1.5
    assert verdicts["speedup from 4 to 16 workers"]["verdict"] == "not measured"
    assert not growth["applies"]  # 2 of 22 queries counted


def test_the_summary_prints_a_line_per_verdict() -> None:
    cells = sweep_cells()
    meta = {"scale": 1.0, "runs": 1, "cpus": 2, "quiet": {
        "quiet_below_cores": 0.15, "window_s": 0.1, "limit_s": 10.0, "waits": 24,
        "waited_s": 3.0, "hit_limit": 0}}
    summary = summarize(cells, [DUCK, ZMQ], [2, 16])
    text = markdown(meta, {"queries": cells, **summary, "targets": judge(summary, meta)})
    assert f"- PASS {ZMQ}: CPU s at 16 workers ÷ at 2 1.08 (≤ 1.15)" in text
    assert f"- FAIL {ZMQ}: wall s at 16 workers ÷ DuckDB's 2.00 (≤ 1.5)" in text
    assert "| sparkwire-zmq | 2.400 (1.20) | 2.000 (2.00) |" in text
    assert "| sparkwire-zmq | 8 · 4.0 · 8.0 | 8 · 4.0 · 8.0 |" in text
    assert "q05 ×1.08" in text


def test_replot_draws_a_result_file_again(tmp_path: Path) -> None:
    cells = sweep_cells()
    meta = {"scale": 1.0, "runs": 1, "cpus": 2, "quiet": {
        "quiet_below_cores": 0.15, "window_s": 0.1, "limit_s": 10.0, "waits": 0,
        "waited_s": 0.0, "hit_limit": 0}}
    summary = summarize(cells, [DUCK, ZMQ], [2, 16])
    path = tmp_path / "scaling-sf1.json"
    results = {"queries": cells, **summary, "targets": judge(summary, meta)}
    path.write_text(json.dumps({"meta": meta, "results": results}))
    replot(path)
    assert path.with_suffix(".png").stat().st_size > 0
    assert path.with_suffix(".md").read_text() == markdown(meta, results) + "\n"


def test_worker_counts_are_sorted_and_positive() -> None:
    assert worker_counts("16,1, 4,1") == (1, 4, 16)
    for bad in ("0,2", "two", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            worker_counts(bad)


def test_duckdb_is_always_swept_and_the_sweep_goes_by_workers() -> None:
    sweep = parse(["--systems", "sparkwire-zmq", "--workers", "2,1", "--queries", "q01"])
    assert isinstance(sweep, Sweep)
    assert sweep.systems == (DUCK, ZMQ)
    assert [c.label for c in sweep.contenders()] == ["duckdb@1", "sparkwire-zmq@1",
                                                     "duckdb@2", "sparkwire-zmq@2"]
    assert [c.workers for c in sweep.contenders()] == [1, 1, 2, 2]
    with pytest.raises(SystemExit):
        parse(["--systems", "spark-sql"])  # no PySpark on the 16-core machine
