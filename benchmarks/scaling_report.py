"""How a worker sweep (``benchmarks.scaling``) is summed up, judged and shown: totals per
system and worker count, ratios against DuckDB with as many threads, the targets of issue 33
as pass/fail lines, the markdown summary and the speedup plot.

Works only on the JSON-ready cells ``benchmarks.interleave.interleave`` records, keyed by
``system@workers``, so a result file can be summed up and drawn again without rerunning
(``python -m benchmarks.scaling --replot``). As in ``benchmarks.tpch_report``, a total is
over the queries that every system got right at every worker count, so each curve sums the
same work and no point is credited for a query it failed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.tpch_report import Cells, counting, fmt, footer, ratio, system_colors, total

REFERENCE = "duckdb"
MIB = 1024 * 1024


def label(system: str, workers: int) -> str:
    """The key of ``system`` with ``workers`` workers (DuckDB: threads) in a sweep's cells."""
    return f"{system}@{workers}"


def _point(cells: Cells, key: str, counted: list[str]) -> dict[str, Any]:
    """One system at one worker count: totals over ``counted``, the peak over every query."""
    rows = [by_label[key] for by_label in cells.values()]
    moved = [cells[q][key].get("bytes_in") for q in counted]
    peaks = [r["peak_rss_tree_mib"] for r in rows if r.get("peak_rss_tree_mib")]
    return {"wall_s": total(cells, key, counted), "cpu_s": total(cells, key, counted, "cpu_s"),
            "cpu_between_s": total(cells, key, counted, "cpu_between_s"),
            "tasks": total(cells, key, counted, "tasks"),
            "stages": total(cells, key, counted, "stages"),
            "pieces": total(cells, key, counted, "pieces"),
            "boundary_bytes": total(cells, key, counted, "boundary_bytes"),
            "read_bytes": (sum(sum(m.values()) for m in moved if m is not None)
                           if counted and all(m is not None for m in moved) else None),
            "peak_rss_mib": max(peaks) if peaks else None}


def summarize(cells: Cells, systems: list[str], workers: list[int]) -> dict[str, Any]:
    """Per system, per worker count (as a string: JSON keys are): wall and CPU seconds, the
    work sparkwire did (tasks, stages, pieces and bytes written across stage boundaries,
    bytes read by tasks), the peak RSS of the whole tree, each against DuckDB with as many threads
    (``x_duckdb``, ``cpu_x_duckdb``, ``rss_x_duckdb``), and against the system's own fewest
    workers (``speedup``: wall there ÷ wall here; ``cpu_growth``: CPU here ÷ CPU there)."""
    keys = [label(s, w) for s in systems for w in workers]
    counted = [q for q, by_label in cells.items() if all(by_label[k]["ok"] for k in keys)]
    points = {s: {str(w): _point(cells, label(s, w), counted) for w in workers} for s in systems}
    first = str(min(workers))
    for system, by_workers in points.items():
        for w, point in by_workers.items():
            reference = points.get(REFERENCE, {}).get(w, {})
            point["x_duckdb"] = ratio(point["wall_s"], reference.get("wall_s"))
            point["cpu_x_duckdb"] = ratio(point["cpu_s"], reference.get("cpu_s"))
            point["rss_x_duckdb"] = ratio(point["peak_rss_mib"], reference.get("peak_rss_mib"))
            point["speedup"] = ratio(by_workers[first]["wall_s"], point["wall_s"])
            point["cpu_growth"] = ratio(point["cpu_s"], by_workers[first]["cpu_s"])
    return {"workers": workers, "counted": counted, "systems": points}


# -- targets --------------------------------------------------------------------------------

Points = dict[str, dict[str, dict[str, Any]]]  # system -> workers -> point


@dataclass(frozen=True)
class Target:
    """One target of issue 33 on each sparkwire system: ``value`` of a summary's points for
    a system (None where the run did not measure what it needs) against ``limit``."""

    run: str  # the run the issue sets it for, as words
    cpus: int
    scale: float
    what: str
    limit: float
    value: Callable[[Points, str], float | None]
    at_least: bool = False


def _at(points: Points, system: str, workers: int, field: str) -> Any:
    return points.get(system, {}).get(str(workers), {}).get(field)


def _growth(low: int, high: int) -> Callable[[Points, str], float | None]:
    return lambda p, s: ratio(_at(p, s, high, "cpu_s"), _at(p, s, low, "cpu_s"))


def _against_duckdb(workers: int, field: str) -> Callable[[Points, str], float | None]:
    return lambda p, s: _at(p, s, workers, field)


def _speedup(low: int, high: int) -> Callable[[Points, str], float | None]:
    return lambda p, s: ratio(_at(p, s, low, "wall_s"), _at(p, s, high, "wall_s"))


_TWO = "2 cores, SF1, 22 queries"
_SIXTEEN = "16 cores, SF10, 22 queries"
#: The most sparkwire may take against DuckDB with as many threads, wall or CPU, per run:
#: the lines drawn on the plot's ratios.
X_DUCKDB = {_TWO: 1.3, _SIXTEEN: 1.5}
TARGETS = (
    Target(_TWO, 2, 1.0, "CPU s at 16 workers ÷ at 2", 1.15, _growth(2, 16)),
    Target(_TWO, 2, 1.0, "CPU s at 2 workers ÷ DuckDB's", X_DUCKDB[_TWO],
           _against_duckdb(2, "cpu_x_duckdb")),
    Target(_TWO, 2, 1.0, "wall s at 2 workers ÷ DuckDB's", X_DUCKDB[_TWO],
           _against_duckdb(2, "x_duckdb")),
    Target(_SIXTEEN, 16, 10.0, "wall s at 16 workers ÷ DuckDB's", X_DUCKDB[_SIXTEEN],
           _against_duckdb(16, "x_duckdb")),
    Target(_SIXTEEN, 16, 10.0, "speedup from 4 to 16 workers", 3.0, _speedup(4, 16), at_least=True),
    Target(_SIXTEEN, 16, 10.0, "peak RSS at 16 workers ÷ DuckDB's", 3.0,
           _against_duckdb(16, "rss_x_duckdb")),
)


def judge(summary: dict[str, Any], meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target on every sparkwire system of the summary: its value, ``pass``, ``fail``
    or ``not measured``, and whether this run is the one the target is set for (its CPUs,
    its scale and all 22 queries counted): elsewhere a verdict only shows the direction."""
    verdicts = []
    for target in TARGETS:
        for system in summary["systems"]:
            if system == REFERENCE:
                continue
            value = target.value(summary["systems"], system)
            met = value is not None and (value >= target.limit if target.at_least
                                         else value <= target.limit)
            verdicts.append({
                "run": target.run, "what": target.what, "system": system, "value": value,
                "limit": target.limit, "at_least": target.at_least,
                "verdict": "not measured" if value is None else "pass" if met else "fail",
                "applies": (meta.get("cpus") == target.cpus and meta.get("scale") == target.scale
                            and len(summary["counted"]) == 22)})
    return verdicts


# -- markdown -------------------------------------------------------------------------------

def _table(summary: dict[str, Any], cell: Callable[[dict[str, Any]], str]) -> list[str]:
    workers = summary["workers"]
    lines = ["| system | " + " | ".join(str(w) for w in workers) + " |",
             "|---|" + "---:|" * len(workers)]
    for system, by_workers in summary["systems"].items():
        lines.append(f"| {system} | " + " | ".join(cell(by_workers[str(w)]) for w in workers) + " |")
    return lines


def _with_ratio(value: float | None, against: float | None, digits: int = 2) -> str:
    return fmt(value, digits) + ("" if against is None else f" ({against:.2f})")


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value / MIB:.{0 if value >= 10 * MIB else 1}f}"


def _verdicts(verdicts: list[dict[str, Any]], meta: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for run in dict.fromkeys(v["run"] for v in verdicts):
        these = [v for v in verdicts if v["run"] == run]
        here = (f"this run: {meta.get('cpus')} CPUs, SF{meta.get('scale'):g}, "
                f"{len(meta.get('counted', []))} queries")
        applies = "" if these[0]["applies"] else ", not the run they are set for"
        lines += ["", f"Targets for {run} ({here}{applies}):", ""]
        for what in dict.fromkeys(v["what"] for v in these):
            judged = [v for v in these if v["what"] == what]
            sign = "≥" if judged[0]["at_least"] else "≤"
            if all(v["value"] is None for v in judged):
                lines.append(f"- NOT MEASURED: {what} ({sign} {judged[0]['limit']:g}): this "
                             "run lacks a worker count it needs")
                continue
            lines += [f"- {v['verdict'].upper()} {v['system']}: {what} {fmt(v['value'])} "
                      f"({sign} {v['limit']:g})" for v in judged]
    return lines


def _growth_lines(cells: Cells, summary: dict[str, Any], most: int = 3) -> list[str]:
    """The queries whose CPU grew most from the fewest workers to the most, per system: where
    to look first."""
    low, high = min(summary["workers"]), max(summary["workers"])
    if low == high:
        return []
    lines = ["", f"CPU growth from {low} to {high} workers, the {most} largest per system:", ""]
    for system in summary["systems"]:
        grown = sorted(((ratio(cells[q][label(system, high)]["cpu_s"],
                               cells[q][label(system, low)]["cpu_s"]) or 0.0, q)
                        for q in summary["counted"]), reverse=True)[:most]
        lines.append(f"- {system}: " + ", ".join(f"{q} ×{g:.2f}" for g, q in grown))
    return lines


def markdown(meta: dict[str, Any], results: dict[str, Any]) -> str:
    """The sweep's tables, the targets' verdicts, where CPU grew most, then each failure."""
    counted, cells = results["counted"], results["queries"]
    runs, which = counting(meta, results)
    lines = [f"TPC-H SF{meta['scale']:g} over {', '.join(map(str, results['workers']))} workers, "
             f"DuckDB with as many threads, median of {runs} after a warm-up, {meta['cpus']} CPUs. "
             f"Totals over the {which} every system answered correctly at every worker count; "
             "in parentheses, × DuckDB with as many threads.", "", "Wall seconds:", "",
             *_table(results, lambda p: _with_ratio(p["wall_s"], p["x_duckdb"], 3)),
             "", "CPU seconds, all processes of the system:", "",
             *_table(results, lambda p: _with_ratio(p["cpu_s"], p["cpu_x_duckdb"])),
             "", "Speedup over the fewest workers (wall there ÷ wall here):", "",
             *_table(results, lambda p: fmt(p["speedup"])),
             "", "sparkwire's work: tasks, MiB written across stage boundaries, MiB read by "
             "tasks (a broadcast once per reading task):", "",
             *_table({**results, "systems": {s: p for s, p in results["systems"].items()
                                             if s != REFERENCE}},
                     lambda p: f"{fmt(p['tasks'], 0)} · {_mib(p['boundary_bytes'])} · "
                               f"{_mib(p['read_bytes'])}"),
             "", "CPU seconds between a system's queries (its idle workers, and work left "
             "over after a query, while the others ran theirs):", "",
             *_table(results, lambda p: fmt(p["cpu_between_s"])),
             "", "Peak RSS MiB of the whole process tree (the highest of any query):", "",
             *_table(results, lambda p: _with_ratio(p["peak_rss_mib"], p["rss_x_duckdb"], 0)),
             *_verdicts(results["targets"], {**meta, "counted": counted}),
             *_growth_lines(cells, results)]
    lines += ["", "CPU seconds count user and system time of the driver and every worker "
              "process, threads and reaped children included, over each timed call."]
    return "\n".join(lines + footer(meta, cells))


# -- plot -----------------------------------------------------------------------------------

def plot(meta: dict[str, Any], results: dict[str, Any], path: Path) -> None:
    """Four panels against workers (log 2): wall seconds with each system's ideal (its
    fewest workers' time divided evenly), speedup, CPU seconds, and × DuckDB (wall solid,
    CPU dashed) with the issue's limits."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workers, points = results["workers"], results["systems"]
    colors = system_colors(list(points))
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5))
    (wall, speedup), (cpu, against) = axes

    def curve(ax: Any, system: str, field: str, **style: Any) -> list[float]:
        ys = [points[system][str(w)][field] for w in workers]
        ys = [math.nan if y is None else y for y in ys]
        ax.plot(workers, ys, **{"marker": "o", "color": colors[system], **style})
        return ys

    for system in points:
        walls = curve(wall, system, "wall_s", label=system)
        wall.plot(workers, [walls[0] * workers[0] / w for w in workers], ":",
                  color=colors[system], alpha=0.5)
        curve(speedup, system, "speedup", label=system)
        curve(cpu, system, "cpu_s", label=system)
        if system != REFERENCE:
            curve(against, system, "x_duckdb", label=f"{system} wall")
            curve(against, system, "cpu_x_duckdb", linestyle="--", marker="s",
                  fillstyle="none", label=f"{system} CPU")
    speedup.plot(workers, [w / workers[0] for w in workers], ":", color="grey", label="ideal")
    for run, limit in X_DUCKDB.items():
        against.axhline(limit, color="grey", linewidth=0.8, linestyle=":")
        against.annotate(f"target, {run.split(',')[0]}", (workers[0], limit), fontsize=7,
                         color="grey", va="bottom")
    against.axhline(1.0, color=colors.get(REFERENCE, "black"), linewidth=1.0)
    titles = {wall: "wall seconds (dotted: ideal, the fewest workers' time shared)",
              speedup: "speedup over the fewest workers (dotted: ideal)",
              cpu: "CPU seconds, all processes",
              against: "× DuckDB with as many threads (solid wall, dashed CPU)"}
    for ax, title in titles.items():
        ax.set_xscale("log", base=2)
        ax.set_xticks(workers, [str(w) for w in workers])
        ax.minorticks_off()
        if ax is wall:
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}"))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}"))
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel("workers (DuckDB: threads)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"TPC-H SF{meta['scale']:g} over workers: totals of {len(results['counted'])} "
                 f"queries, {meta['cpus']} CPUs, median of {meta['runs']}")
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
