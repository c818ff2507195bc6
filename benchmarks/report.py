"""How a transport benchmark run is shown: the markdown table printed and the PNG plot.

Reads only the result dictionaries ``benchmarks.transports`` writes to JSON, so what is shown
is exactly what is recorded; a measurement that failed shows as ``-`` and its error.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

from benchmarks.measure import STREAMS, Config
from benchmarks.steadiness import SLOW


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _dig(result: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """``result[k1][k2]...``, or ``{}`` where a measurement is missing."""
    for key in keys:
        result = result.get(key, {})
    return result


def markdown(cfg: Config, references: dict[str, dict[str, Any]], transports: list[dict[str, Any]],
             skipped: list[dict[str, Any]], targets: list[dict[str, Any]],
             machine: dict[str, Any]) -> str:
    """Transports, then references, then the project's ratios and whether each is met, on
    a machine this steady (``benchmarks.steadiness``)."""
    w = cfg.shuffle_width
    lines = [f"Transports, {cfg.size >> 20} MiB per measurement, 8 MiB batches, best of "
             f"{cfg.repeats}, {os.cpu_count()} CPUs (GB = 10^9 B):", "",
             f"| transport | 1 stream GB/s | {STREAMS} streams GB/s | shuffle {w}x{w} GB/s | "
             "deliver p50 / p99 us | 1-row read p50 / p99 us | per batch us | reader peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in transports:
        d, r = t.get("deliver", {}), t.get("read_1row", {})
        lines.append(
            f"| {t['transport']} | {_fmt(t.get('single', {}).get('gbps'))} | "
            f"{_fmt(t.get('streams', {}).get('gbps'))} | {_fmt(t.get('shuffle', {}).get('gbps'))} | "
            f"{_fmt(d.get('p50_us'), 0)} / {_fmt(d.get('p99_us'), 0)} | "
            f"{_fmt(r.get('p50_us'), 0)} / {_fmt(r.get('p99_us'), 0)} | "
            f"{_fmt(t.get('per_batch', {}).get('us'))} | {_fmt(t.get('reader_peak_rss_mib'), 0)} |")
    for s in skipped:
        lines.append(f"| {s['transport']} | skipped: {s['reason']} |||||||")
    for t in transports:
        lines += [f"\n**{t['transport']} {step} failed:** {error}" for step, error in t["errors"].items()]
    secured = [t for t in transports if "secured" in t]
    if secured:
        lines += ["", "With security on (CURVE for zmq and shm's control path, TLS for Flight):", "",
                  "| transport | 1 stream GB/s | of security off | deliver p50 / p99 us | "
                  "1-row read p50 / p99 us |", "|---|---:|---:|---:|---:|"]
    for t in secured:
        on, off = t["secured"].get("single", {}).get("gbps"), t.get("single", {}).get("gbps")
        d, r = t["secured"].get("deliver", {}), t["secured"].get("read_1row", {})
        lines.append(f"| {t['transport']} | {_fmt(on)} | {_fmt(on / off if on and off else None)} | "
                     f"{_fmt(d.get('p50_us'), 0)} / {_fmt(d.get('p99_us'), 0)} | "
                     f"{_fmt(r.get('p50_us'), 0)} / {_fmt(r.get('p99_us'), 0)} |")
    lines += ["", "| reference | GB/s (best) | median |", "|---|---:|---:|"]
    for r in references.values():
        extra = "".join(f", {k.removesuffix('_gbps')} {v:.2f}" for k, v in r.items()
                        if k.endswith("_gbps") and k not in ("median_gbps",))
        lines.append(f"| {r['label']}{' (' + extra[2:] + ')' if extra else ''} | "
                     f"{_fmt(r.get('gbps'))} | {_fmt(r.get('median_gbps'))} |")
    lines += ["", "A ratio to a reference is the median of rounds that alternate the two reads, "
              "with a confidence interval of that median (its coverage in brackets); where the "
              "target lies inside the interval, the verdict is within this machine's noise. "
              f"The CPU itself, probed for {machine['probe_seconds']:.0f} s around the run "
              f"(benchmarks.steadiness), ran below {SLOW} of its full speed in "
              f"{machine['slow_share']:.0%} of {machine['samples']} samples, at "
              f"{machine['median']:.2f} of it in the median sample and {machine['p5']:.2f} "
              "in the 5th percentile.", "",
              "| ratio | median | interval | target | met |", "|---|---:|---:|---:|:---:|"]
    for t in targets:
        met = {True: "yes", False: "**no**", None: "-"}[t["met"]]
        if t.get("interval"):
            met += "" if t["decided"] else ", within noise"
            low, high = t["interval"]
            spread = f"{low:.2f}-{high:.2f} ({t['coverage']:.0%})"
        else:
            spread = ""
        lines.append(f"| {t['name']} | {_fmt(t['value'], 3)} | {spread} | {t['target']} | {met} |")
    return "\n".join(lines)


def plot(cfg: Config, references: dict[str, dict[str, Any]], transports: list[dict[str, Any]],
         targets: list[dict[str, Any]], path: Path) -> None:
    """Throughput bars against the references' lines (top left), round-trip latencies (top
    right), and each ratio against its target (below)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(13, 10))
    grid = fig.add_gridspec(2, 2, width_ratios=[3, 2], height_ratios=[5, 4])
    left, right = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
    _ratios(fig.add_subplot(grid[1, :]), targets)
    w = cfg.shuffle_width
    series = [(("single",), "1 stream"), (("streams",), f"{STREAMS} streams"),
              (("shuffle",), f"shuffle {w}x{w}"), (("secured", "single"), "1 stream, security on")]
    names = [t["transport"] for t in transports]
    width = 0.8 / len(series)
    for k, (keys, label) in enumerate(series):
        values = [_dig(t, keys).get("gbps", 0.0) for t in transports]
        left.bar([i + (k - 1.5) * width for i in range(len(names))], values, width, label=label)
    styles = itertools.cycle(["-", "--", ":", "-."])
    colors = itertools.cycle(["black", "tab:red", "tab:purple", "tab:brown", "tab:gray", "tab:olive",
                              "tab:cyan", "tab:pink", "tab:orange"])
    for r in references.values():
        left.axhline(r["gbps"], linestyle=next(styles), color=next(colors), linewidth=1,
                     label=f"{r['label']}: {r['gbps']:.1f}")
    left.set_xticks(range(len(names)), names)
    left.set_yscale("log")
    left.set_ylabel("GB/s (best, log scale)")
    left.set_title(f"Partition throughput, {cfg.size >> 20} MiB, 8 MiB batches")
    left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2)
    for k, (key, label) in enumerate([("deliver", "deliver() tiny plan"), ("read_1row", "open+read 1 row")]):
        xs = [i + (k - 0.5) * 0.4 for i in range(len(names))]
        p50 = [t.get(key, {}).get("p50_us", 0.0) for t in transports]
        p99 = [t.get(key, {}).get("p99_us", 0.0) for t in transports]
        right.bar(xs, p50, 0.4, label=f"{label}, p50")
        right.scatter(xs, p99, marker="_", s=200, color="black", zorder=3,
                      label="p99" if k == 0 else None)
    right.set_xticks(range(len(names)), names)
    right.set_yscale("log")
    right.set_ylabel("microseconds (log scale)")
    right.set_title("Small-message round trip")
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2)
    fig.suptitle(f"sparkwire transports vs physical references ({os.cpu_count()} CPUs"
                 f"{', quick' if cfg.quick else ''})")
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


def _ratios(axes: Any, targets: list[dict[str, Any]]) -> None:
    """One bar per ratio with a target, the confidence interval of its median as a whisker,
    the target as a tick; green where met. The per-batch overhead (microseconds, lower is
    better) is left to the table."""
    shown = [t for t in targets if t["value"] is not None and t["target"].startswith(">=")]
    ys = range(len(shown))
    axes.barh(ys, [t["value"] for t in shown],
              color=["tab:green" if t["met"] else "tab:red" for t in shown])
    for y, t in zip(ys, shown):
        if t.get("interval"):
            axes.plot(t["interval"], [y, y], color="black", linewidth=1)
        axes.plot([float(t["target"].split()[-1])] * 2, [y - 0.4, y + 0.4], color="black", linewidth=2)
    axes.set_yticks(list(ys), [t["name"] for t in shown], fontsize=7)
    axes.invert_yaxis()
    axes.set_xscale("log")
    axes.set_xlabel("ratio (log scale): bar = median of paired rounds, line = its confidence "
                    "interval, tick = target; green = met")
    axes.set_title("Ratios against the targets")
