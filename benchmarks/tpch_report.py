"""How a TPC-H or TPC-DS benchmark run is summed up and shown: totals and ratios, the
markdown table, the per-query and scaling plots.

Works only on the JSON-ready dictionaries ``benchmarks.interleave`` records (per query, per
system: ``median``, ``ok``, ``peak_rss_mib`` ...), so what is shown is what is written. A
total is a sum of medians over the queries that every compared system answered correctly in
every run: a system is never credited for a query it failed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from benchmarks.tpch_systems import SYSTEMS

Cells = dict[str, dict[str, dict[str, Any]]]  # query -> system -> recorded cell


def ratio(num: float | None, den: float | None) -> float | None:
    return round(num / den, 3) if num and den else None


def peak_rss(cells: Cells, system: str) -> dict[str, float]:
    """The highest peak of each of ``system``'s processes over every query."""
    peaks: dict[str, float] = {}
    for by_system in cells.values():
        for label, mib in by_system.get(system, {}).get("peak_rss_mib", {}).items():
            peaks[label] = max(peaks.get(label, 0.0), mib)
    return dict(sorted(peaks.items()))


def total(cells: Cells, system: str, counted: list[str], key: str = "median") -> float | None:
    """Sum of ``system``'s ``key`` (median seconds, ``cpu_s`` ...) over ``counted``; None when
    nothing is counted or a counted cell lacks it."""
    values = [cells[q][system].get(key) for q in counted]
    if not values or any(v is None for v in values):
        return None
    return round(sum(v for v in values if v is not None), 4)


def totals(cells: Cells, systems: list[str]) -> dict[str, Any]:
    """Per system: the sum of medians over the queries every system got right every time,
    that sum against DuckDB's (``x_duckdb``) and Spark SQL's against it (``spark_sql_speedup``)."""
    counted = [q for q, by_system in cells.items() if all(by_system[s]["ok"] for s in systems)]
    out: dict[str, dict[str, Any]] = {}
    for system in systems:
        rss = peak_rss(cells, system)
        out[system] = {"total_s": total(cells, system, counted),
                       "cpu_s": total(cells, system, counted, "cpu_s"),
                       "queries": len(counted), "peak_rss_mib": rss,
                       "peak_rss_sum_mib": round(sum(rss.values()), 1) if rss else None,
                       "failed_queries": sorted(q for q in cells if not cells[q][system]["ok"])}
    duck = out.get("duckdb", {}).get("total_s")
    spark = out.get("spark-sql", {}).get("total_s")
    for row in out.values():
        row["x_duckdb"] = ratio(row["total_s"], duck)
        row["spark_sql_speedup"] = ratio(spark, row["total_s"])
    return {"systems": out, "counted": counted}


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def counting(meta: dict[str, Any], results: dict[str, Any]) -> tuple[str, str]:
    """What a summary's totals stand on, in words: ``"3 runs"``, and ``"2 of 22 queries:
    q01, q05"`` or ``"91 of 99 queries (all but q06, q09, ...)"`` (the shorter list, named
    only when some are left out)."""
    counted, cells = results["counted"], results["queries"]
    runs = f"{meta['runs']} run{'s' if meta['runs'] != 1 else ''}"
    left_out = [q for q in cells if q not in counted]
    which = ""
    if counted and left_out:
        which = (f": {', '.join(counted)}" if len(counted) <= len(left_out)
                 else f" (all but {', '.join(left_out)})")
    return runs, f"{len(counted)} of {len(cells)} queries{which}"


def markdown(meta: dict[str, Any], results: dict[str, Any]) -> str:
    """The totals table, then one line per failure and wrong answer."""
    runs, which = counting(meta, results)
    lines = [f"{benchmark(meta)} SF{meta['scale']:g}, {meta['workers']} workers / threads per system, median "
             f"of {runs} after a warm-up, {os.cpu_count()} CPUs. Totals over the {which} every "
             "system answered correctly every time.", "",
             "| system | total s | × DuckDB | Spark SQL ÷ system | CPU s | peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|"]
    for system, row in results["systems"].items():
        lines.append(f"| {system} | {fmt(row['total_s'], 3)} | {fmt(row['x_duckdb'])} | "
                     f"{fmt(row['spark_sql_speedup'])} | {fmt(row.get('cpu_s'))} | "
                     f"{fmt(row['peak_rss_sum_mib'], 0)} |")
    lines += ["", "CPU s: user and system seconds of all of a system's processes (driver, "
              "workers, JVM) during its queries, summed over the same queries. Peak RSS: the sum "
              "over a system's processes of each one's highest peak during any query."]
    return "\n".join(lines + footer(meta, results["queries"]))


def benchmark(meta: dict[str, Any]) -> str:
    """What was run: ``TPC-H`` (results written before the name was recorded) or ``TPC-DS``."""
    return str(meta.get("benchmark", "TPC-H"))


def footer(meta: dict[str, Any], cells: Cells) -> list[str]:
    """How quiet the run could keep the machine, the queries a system does not plan yet (once
    each), then one line per failure and wrong answer."""
    lines = []
    if (quiet := meta.get("quiet")) is not None:
        lines += ["", f"Each execution started once the machine was quiet (under "
                  f"{quiet['quiet_below_cores']:g} cores busy for {quiet['window_s']} s): "
                  f"{quiet['waited_s']} s of waiting in all, {quiet['hit_limit']} of "
                  f"{quiet['waits']} waits gave up after {quiet['limit_s']} s."]
    unsupported: dict[str, dict[str, str]] = {}  # query -> system -> its first message
    for q, by_system in cells.items():
        for s, cell in by_system.items():
            for e in cell["errors"]:
                if e["kind"] == "unsupported":
                    unsupported.setdefault(q, {}).setdefault(s, e["message"].splitlines()[0][:240])
    if unsupported:
        lines += ["", f"Not supported yet ({len(unsupported)} quer{'y' if len(unsupported) == 1 else 'ies'}, "
                  "refused before running; not in the totals):"]
        lines += [f"- {q} {', '.join(by_system)}: {next(iter(by_system.values()))}"
                  for q, by_system in unsupported.items()]
    problems = [f"- {q} {s}, run {e['run']}: {e['kind']}: {e['message'].splitlines()[0][:160]}"
                for q, by_system in cells.items() for s, cell in by_system.items()
                for e in cell["errors"] if e["kind"] != "unsupported"]
    if problems:
        lines += ["", "Failures:", *problems]
    return lines


def system_colors(systems: list[str]) -> dict[str, Any]:
    """One colour per system, the same in every plot."""
    import matplotlib

    palette = matplotlib.colormaps["tab10"]
    return {s: palette(SYSTEMS.index(s) % 10 if s in SYSTEMS else 9) for s in systems}


def plot(meta: dict[str, Any], results: dict[str, Any], path: Path) -> None:
    """Per-query grouped bars (log scale; a cross where a system failed) and the totals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells, systems = results["queries"], list(results["systems"])
    colors = system_colors(systems)
    queries = list(cells)
    many = len(queries) > 30  # TPC-DS: 99 queries in a readable width, names turned
    fig, (left, right) = plt.subplots(1, 2, figsize=(min(max(10, 1.0 * len(queries) + 5), 32), 5),
                                      gridspec_kw={"width_ratios": [max(3, len(queries) // 3), 1]})
    width = 0.8 / len(systems)
    failed: list[tuple[float, str]] = []
    for k, system in enumerate(systems):
        xs = [i + (k - (len(systems) - 1) / 2) * width for i in range(len(queries))]
        medians = [cells[q][system]["median"] for q in queries]
        left.bar([x for x, m in zip(xs, medians) if m], [m for m in medians if m], width,
                 color=colors[system], label=system)
        failed += [(x, system) for x, q in zip(xs, queries) if not cells[q][system]["ok"]]
    left.set_yscale("log")
    bottom = left.get_ylim()[0]
    for x, system in failed:
        left.scatter([x], [bottom * 1.15], marker="x", color=colors[system], zorder=3)
    left.set_xticks(range(len(queries)), queries, **({"rotation": 90, "fontsize": 6} if many else {}))
    left.set_xlim(-0.6, len(queries) - 0.4)
    left.set_ylabel("seconds (median, log scale)")
    left.set_title("Per query (× : failed, timed out or wrong)")
    left.legend(fontsize=7, ncol=2)
    rows = results["systems"]
    totals = [rows[s]["total_s"] or 0.0 for s in systems]  # None: no query counted
    right.bar(range(len(systems)), totals, color=[colors[s] for s in systems])
    for i, total in enumerate(totals):
        right.annotate(f"{total:.2f}", (i, total), ha="center", va="bottom", fontsize=7)
    right.set_xticks(range(len(systems)), systems, rotation=45, ha="right", fontsize=8)
    right.set_ylabel("seconds")
    right.set_title(f"Total over {len(results['counted'])} queries")
    fig.suptitle(f"{benchmark(meta)} SF{meta['scale']:g}: sparkwire vs Spark SQL and DuckDB "
                 f"({meta['workers']} workers, {os.cpu_count()} CPUs, median of {meta['runs']})")
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


# -- scaling --------------------------------------------------------------------------------

def scaling(per_scale: dict[float, Cells], systems: list[str]) -> dict[str, Any]:
    """Totals per scale factor over the queries every system got right at every scale, so
    the lines compare the same work."""
    queries = set.intersection(*(set(cells) for cells in per_scale.values()))
    counted = sorted(q for q in queries
                     if all(cells[q][s]["ok"] for cells in per_scale.values() for s in systems))
    ordered = sorted(per_scale.items())
    return {"scales": sorted(per_scale), "counted": counted,
            "totals": {s: {f"{scale:g}": total(cells, s, counted) for scale, cells in ordered}
                       for s in systems},
            "medians": {f"{scale:g}": {q: {s: cells[q][s]["median"] for s in systems}
                                       for q in cells} for scale, cells in ordered}}


def scaling_markdown(summary: dict[str, Any]) -> str:
    scales = [f"{s:g}" for s in summary["scales"]]
    lines = [f"Scaling: total seconds over {len(summary['counted'])} queries", "",
             "| system | " + " | ".join(f"SF{s}" for s in scales) + " |",
             "|---|" + "---:|" * len(scales)]
    for system, by_scale in summary["totals"].items():
        lines.append(f"| {system} | " + " | ".join(fmt(by_scale[s], 3) for s in scales) + " |")
    return "\n".join(lines)


def plot_scaling(meta: dict[str, Any], summary: dict[str, Any], path: Path) -> None:
    """Total seconds against scale factor, log-log: a slope of 1 is linear scaling."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = system_colors(list(summary["totals"]))
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for system, by_scale in summary["totals"].items():
        totals = [by_scale[f"{s:g}"] or float("nan") for s in summary["scales"]]  # 0: no queries
        ax.plot(summary["scales"], totals, marker="o", color=colors[system], label=system)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(summary["scales"], [f"SF{s:g}" for s in summary["scales"]])
    ax.set_xlabel("scale factor")
    ax.set_ylabel("total seconds (sum of medians, log)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"TPC-H scaling, {len(summary['counted'])} queries, {meta['workers']} workers, "
                 f"{os.cpu_count()} CPUs")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
