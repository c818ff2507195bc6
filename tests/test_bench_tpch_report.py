"""The TPC-H and TPC-DS benchmarks' totals and summary (``benchmarks.tpch_report``) on
made-up cells: a total counts only queries every system answered, CPU seconds included; a
query sparkwire refuses to plan is listed as not supported."""

from __future__ import annotations

from typing import Any

from benchmarks.tpch_report import markdown, totals


def cell(wall: float, cpu: float, ok: bool = True) -> dict[str, Any]:
    return {"ok": ok, "median": wall if ok else None, "cpu_s": cpu if ok else None,
            "peak_rss_mib": {"driver": 100.0}, "errors": [] if ok else [
                {"run": 1, "kind": "wrong", "message": "3 rows, expected 4"}]}


def test_totals_and_summary_count_what_every_system_answered() -> None:
    cells = {"q01": {"duckdb": cell(1.0, 1.5), "sparkwire-zmq": cell(1.5, 2.5)},
             "q02": {"duckdb": cell(1.0, 1.0), "sparkwire-zmq": cell(9.0, 9.0, ok=False)}}
    results = {"queries": cells, **totals(cells, ["duckdb", "sparkwire-zmq"])}
    zmq = results["systems"]["sparkwire-zmq"]
    assert (zmq["total_s"], zmq["cpu_s"], zmq["x_duckdb"]) == (1.5, 2.5, 1.5)
    assert zmq["failed_queries"] == ["q02"]
    meta = {"scale": 1.0, "workers": 2, "runs": 1, "quiet": {
        "quiet_below_cores": 0.15, "window_s": 0.1, "limit_s": 10.0, "waits": 4,
        "waited_s": 1.0, "hit_limit": 1}}
    text = markdown(meta, results)
    assert "Totals over the 1 of 2 queries: q01 every system" in text
    assert "| sparkwire-zmq | 1.500 | 1.50 | - | 2.50 | 100 |" in text
    assert "1 of 4 waits gave up after 10.0 s" in text
    assert "- q02 sparkwire-zmq, run 1: wrong: 3 rows, expected 4" in text


def test_a_query_sparkwire_does_not_plan_is_listed_once_not_dropped() -> None:
    refused = {"ok": False, "median": None, "cpu_s": None, "peak_rss_mib": {}, "errors": [
        {"run": r, "kind": "unsupported", "message": "SqlError: a subquery here is not supported "
         "by sparkwire: 'EXISTS(...)' (near line 4, column 2)"} for r in ("warm-up", 1)]}
    cells = {"q01": {"duckdb": cell(1.0, 1.0), "sparkwire-memory": cell(2.0, 2.0)},
             "q10": {"duckdb": cell(1.0, 1.0), "sparkwire-memory": refused,
                     "sparkwire-zmq": refused}}
    cells["q01"]["sparkwire-zmq"] = cell(2.0, 2.0)
    cells["q02"] = {s: cell(1.0, 1.0) for s in ("duckdb", "sparkwire-memory", "sparkwire-zmq")}
    results = {"queries": cells, **totals(cells, ["duckdb", "sparkwire-memory", "sparkwire-zmq"])}
    text = markdown({"benchmark": "TPC-DS", "scale": 1.0, "workers": 2, "runs": 1}, results)
    assert text.startswith("TPC-DS SF1, 2 workers")
    assert "Totals over the 2 of 3 queries (all but q10) every system" in text
    assert ("Not supported yet (1 query, refused before running; not in the totals):\n"
            "- q10 sparkwire-memory, sparkwire-zmq: SqlError: a subquery here is not supported "
            "by sparkwire: 'EXISTS(...)' (near line 4, column 2)") in text
    assert "Failures:" not in text
