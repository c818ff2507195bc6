"""Every registered transport against the physical references, in one run.

``python -m benchmarks.transports [--quick] [--transport NAME ...]`` (also run by ``make bench``)
measures, in the same run, the references (``benchmarks.references``: memcpy, in-memory Arrow
IPC, raw TCP/Unix sockets, /dev/shm IPC, raw zero-copy ZeroMQ, stock Arrow Flight) and each
transport of ``available_transports()`` (``benchmarks.measurements``: one stream, several
streams, latency, per-batch overhead, shuffle; one that fails to import is skipped with its
reason), then, for each transport judged against memcpy, a socket or a library, rounds that
alternate its read with theirs (``paired``), and judges each transport by the project's
targets (``ratios``). Before and after, it probes how steady the CPU itself runs
(``benchmarks.steadiness``), the noise floor under every ratio. The transports run with
security off, as the references have none; each that authenticates or encrypts is then
measured again with it on (one stream, latency), so what CURVE and TLS cost is in the same
run. Results go to ``benchmarks/results/transports.json`` and ``transports.png``
(``benchmarks.report``); a markdown table is printed.

Every child process has a stdin lifeline and is terminated, then killed, on the way out;
every wait is bounded, and a watchdog kills a transport's children if it runs over, which
turns a stuck read into an error (``benchmarks.children``). Loopback only; ports are the OS's
choice. Every process that reads or serves a transport sets its allocators as a worker
process does (``benchmarks.common.as_worker_process``); this one does once its references,
which measure the machine on its default allocators, are done.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, replace
from typing import Any

from benchmarks.children import Child, Children
from benchmarks.common import as_worker_process, shared_security, write
from benchmarks.measure import (BATCH_BYTES, COLUMNS, READ_TIMEOUT, START_TIMEOUT, STREAMS, Config,
                                median_interval)
from benchmarks.measurements import (LocalProducer, RemoteProducer, latency, multi_stream,
                                     per_batch, shuffle, single_stream)
from benchmarks.references import REFERENCES, run_references
from benchmarks.report import markdown, plot
from benchmarks.steadiness import probe, steadiness
from sparkwire.coordinator.config import load_settings
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.registry import available_transports, create_transport, transport_class

PRODUCER = "benchmarks.producer"
MEMCPY_TARGET, TCP_TARGET, PER_BATCH_TARGET_US = 0.6, 0.6, 20.0
#: A transport's own share of raw TCP where it must do better than ``TCP_TARGET``.
TCP_TARGETS = {"zmq": 0.9}
#: What is measured again with security on (CURVE for zmq and shm's control path, TLS for
#: Flight): the rest of the run measures the transports' own cost, with security off, as the
#: raw references it is held against have none.
SECURED_STEPS = ("one stream", "latency")
#: The library a transport is built on, used bare (``benchmarks.references``: name prefix of
#: its 1- and STREAMS-stream rows), and the share of it the transport must reach: the price
#: of everything the transport adds (validation, flow control, framing).
LIBRARY_REFERENCES = {"zmq": ("zmq", 0.9), "flight": ("flight", 1.0)}
#: Rounds in which a transport's read alternates with a read of each reference it is judged
#: against (``paired``). A ratio of two best-of-3s taken a minute apart moved by 0.2 from one
#: run to the next, as this machine's speed drifts (memcpy 13 to 21 GB/s between days); the
#: median of ratios of reads seconds apart is what ``ratios`` judges. Nine rounds make the
#: 2nd and 8th smallest a 96 % confidence interval of that median (``median_interval``).
PAIRED_ROUNDS = 9
#: Seconds the machine's CPU is probed for (``benchmarks.steadiness``), before the
#: measurements and again after them.
PROBE_S = 10.0


# -- one transport --------------------------------------------------------------------------

def bench_transport(cfg: Config, name: str, steps: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Every measurement of one transport (or the named ``steps``); a failure is recorded in
    ``errors``, not raised, so one broken transport never costs the numbers of the others."""
    cls = transport_class(name)  # ConfigError (e.g. an import failure) -> skipped by the caller
    caps = cls.capabilities
    result: dict[str, Any] = {"transport": name, "capabilities": asdict(caps), "errors": {}}
    remote = caps.crosses_processes
    print(f"\n== {name} ({'producer in its own process' if remote else 'in process'})", flush=True)
    began = time.perf_counter()
    try:
        _measure(cfg, name, remote, result, began, steps)
    except Exception as exc:  # setting up failed: recorded, the other transports still run
        result["errors"]["setup"] = f"{type(exc).__name__}: {exc}"
        print(f"  setup: FAILED {result['errors']['setup']}", flush=True)
    return result


def _measure(cfg: Config, name: str, remote: bool, result: dict[str, Any], began: float,
             only: tuple[str, ...] | None) -> None:
    """Start the producers (and consumers) once, then run each step into ``result``; a step
    after the watchdog fired is marked not run rather than left to time out."""
    with ExitStack() as stack:
        transport = stack.enter_context(
            create_transport(name, security=load_settings().transport.security))
        children = Children(stack, PRODUCER, cfg.deadline, name) if remote else None
        consumers: list[Child] | None = None
        if children is not None:
            # Producers and consumers start together: on a busy machine each takes seconds
            # to import pyarrow, and they need not wait for each other.
            shuffles = only is None or "shuffle" in only
            spawned = [children.start(f"{name} producer {i}", ["--role", "serve", "--transport", name,
                                                                   "--dir", children.scratch])
                       for i in range(cfg.shuffle_width if shuffles else 1)]
            consumers = [children.start(f"{name} consumer {j}",
                                        ["--role", "consume", "--transport", name, "--partition",
                                         str(j), "--timeout", str(READ_TIMEOUT)])
                         for j in range(cfg.shuffle_width if shuffles else 0)]
            producers: list[Any] = [RemoteProducer(c.recv(START_TIMEOUT)["address"]) for c in spawned]
            for consumer in consumers:
                consumer.send({"addresses": [p.address for p in producers]})
        else:
            producers = [LocalProducer(transport, stack) for _ in range(cfg.shuffle_width)]
        client = transport.connect(producers[0].address)
        stack.callback(client.close)
        print(f"  producers up ({time.perf_counter() - began:.1f}s)", flush=True)
        steps: list[tuple[str, Callable[[], dict[str, Any]]]] = [
            ("one stream", lambda: single_stream(cfg, client)),
            (f"{STREAMS} streams", lambda: multi_stream(cfg, transport, client, producers[0].address)),
            ("latency", lambda: latency(cfg, client)),
            ("per batch", lambda: per_batch(cfg, client, not remote)),
            ("shuffle", lambda: shuffle(cfg, transport, producers, consumers)),
        ]
        against = judged_against(name, result["capabilities"])
        if against:
            steps.append(("paired", lambda: paired(cfg, against, client, transport,
                                                   producers[0].address)))
        for step, fn in steps:
            if only is not None and step not in only:
                continue
            if children is not None and children.expired:
                result["errors"][step] = f"not run: the watchdog stopped {name} after {cfg.deadline:g}s"
                continue
            started = time.perf_counter()
            try:
                result.update(fn())
                print(f"  {step}: {describe(result, step)} ({time.perf_counter() - started:.1f}s)",
                      flush=True)
            except Exception as exc:  # recorded, and the run still reports the rest
                result["errors"][step] = f"{type(exc).__name__}: {exc}"
                print(f"  {step}: FAILED {result['errors'][step]}", flush=True)


def describe(result: dict[str, Any], step: str) -> str:
    """One line of progress for ``step``, so a long run shows its numbers as they come."""
    if step == "one stream":
        return (f"{result['single']['gbps']:.2f} GB/s, "
                f"reader peak RSS +{result['reader_peak_rss_mib']:.0f} MiB")
    if step.endswith("streams"):
        return f"{result['streams']['gbps']:.2f} GB/s"
    if step == "latency":
        d, r = result["deliver"], result["read_1row"]
        return (f"deliver {d['p50_us']:.0f}/{d['p99_us']:.0f} us, "
                f"1-row read {r['p50_us']:.0f}/{r['p99_us']:.0f} us (p50/p99)")
    if step == "per batch":
        return f"{result['per_batch']['us']:.2f} us/batch"
    if step == "paired":
        return ", ".join(f"/ {key} {p['median']:.3f}" for key, p in result["paired"].items())
    s = result["shuffle"]
    return f"{s['producers']}x{s['consumers']} {s['gbps']:.2f} GB/s"


def judged_against(name: str, caps: dict[str, Any]) -> dict[int, list[str]]:
    """The references (by name in ``REFERENCES``) a transport's reads over 1 and ``STREAMS``
    streams are judged against: memcpy (1 stream) if it is zero-copy across processes, raw
    TCP if it crosses hosts, and the library it is built on."""
    prefix = LIBRARY_REFERENCES.get(name, ("", 0.0))[0]
    against: dict[int, list[str]] = {}
    for streams in (1, STREAMS):
        keys = ["memcpy"] if streams == 1 and caps["zero_copy"] and caps["crosses_processes"] else []
        keys += [f"tcp_{streams}"] if caps["crosses_hosts"] else []
        keys += [f"{prefix}_{streams}"] if prefix and f"{prefix}_{streams}" in REFERENCES else []
        if keys:
            against[streams] = keys
    return against


def paired(cfg: Config, against: dict[int, list[str]], client: Any, transport: Any,
           address: str) -> dict[str, Any]:
    """``PAIRED_ROUNDS`` rounds of one timed read of the transport, then one of each
    reference it is judged against, over the same streams; per reference the rounds' ratios
    and their median. Each side's timed read follows a full-size read of its own (a
    reference's first round is discarded as its warm-up), so neither is timed cold. The references run in this
    process, set as a worker's by then: none of them allocates from Arrow's pool, and glibc's
    worker settings keep more freed heap for raw ZeroMQ's 2 MiB frames than its defaults."""
    once, twice = replace(cfg, repeats=1), replace(cfg, repeats=2)
    ratios: dict[str, list[float]] = {key: [] for keys in against.values() for key in keys}
    for _ in range(PAIRED_ROUNDS):
        for streams, keys in against.items():
            own = (single_stream(twice, client, memory=False)["single"] if streams == 1 else
                   multi_stream(twice, transport, client, address)["streams"])["rates"][-1]
            for key in keys:
                ratios[key].append(own / REFERENCES[key](once)["gbps"])
    return {"paired": {key: {"ratios": values, "median": statistics.median(values)}
                       for key, values in ratios.items()}}


# -- targets and the run --------------------------------------------------------------------

def ratios(references: dict[str, dict[str, Any]], transports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The project's targets: zero-copy cross-process vs memcpy, socket transports vs raw TCP,
    in-process per-batch overhead, chosen by capability so that a new transport is judged
    too; and a transport vs the library it is built on, used bare (``LIBRARY_REFERENCES``).
    A ratio to a reference is the median of the paired rounds (``paired``), with a
    confidence interval of that median; it is decided when the interval lies on one side
    of the target, and within the noise when the target is inside it. All with
    security off, as the references have none; what it costs is shown apart."""
    rows = []

    def ratio(name: str, value: float | None, target: float, higher_is_better: bool = True,
              rounds: list[float] | None = None) -> None:
        def good(x: float) -> bool:
            return x >= target if higher_is_better else x < target

        row = {"section": "ratio", "name": name, "value": value,
               "target": f"{'>=' if higher_is_better else '<'} {target:g}",
               "met": None if value is None else good(value), "paired_rounds": rounds}
        if rounds:
            # Decided: the whole interval lies on one side of the target, so another run of
            # this machine would most likely judge it the same way.
            low, high, coverage = median_interval(rounds)
            row.update(interval=[low, high], coverage=coverage, decided=good(low) == good(high))
        rows.append(row)

    for t in transports:
        caps, name = t["capabilities"], t["transport"]
        prefix, library_target = LIBRARY_REFERENCES.get(name, ("", 0.0))
        for streams, keys in judged_against(name, caps).items():
            for key in keys:
                p = t.get("paired", {}).get(key)
                label = (f"raw TCP, {streams} stream{'s' * (streams > 1)}" if key.startswith("tcp_")
                         else "memcpy" if key == "memcpy"
                         else references.get(key, {}).get("label", key))
                target = (MEMCPY_TARGET if key == "memcpy" else library_target
                          if prefix and key.startswith(prefix) else TCP_TARGETS.get(name, TCP_TARGET))
                ratio(f"{name} / {label}", p["median"] if p else None, target,
                      rounds=p["ratios"] if p else None)
        if not caps["crosses_processes"]:
            ratio(f"{name} per-batch overhead, us", t.get("per_batch", {}).get("us"),
                  PER_BATCH_TARGET_US, higher_is_better=False)
    return rows


def run(cfg: Config, only: list[str] | None = None) -> tuple[list[dict[str, Any]], str, bool]:
    """The rows of the JSON, the markdown table, and whether every measurement succeeded."""
    started = time.perf_counter()
    rates = probe(PROBE_S)
    references, failures = run_references(cfg)
    as_worker_process()  # after the references: they measure the machine, on its defaults
    transports, skipped = [], []
    for name in sorted(available_transports()):
        if only and name not in only:
            continue
        try:
            transport_class(name)
        except ConfigError as exc:
            skipped.append({"section": "skipped", "transport": name, "reason": str(exc)})
            print(f"\n== {name}: SKIPPED, it does not import: {exc}", flush=True)
            continue
        with shared_security(enabled=False):
            result = bench_transport(cfg, name)
        failures += [f"{name} {step}: {error}" for step, error in result["errors"].items()]
        transports.append(result)
    for result in transports:
        caps = result["capabilities"]
        if caps["crosses_processes"] and (caps["authenticates"] or caps["uses_tls"]):
            print(f"\n== {result['transport']}, security on", flush=True)
            with shared_security(enabled=True):
                secured = bench_transport(cfg, result["transport"], SECURED_STEPS)
            failures += [f"{result['transport']} secured {step}: {error}"
                         for step, error in secured["errors"].items()]
            result["secured"] = {key: secured[key] for key in ("single", "deliver", "read_1row", "errors")
                                 if key in secured}
    machine = {"section": "machine", "probe_seconds": 2 * PROBE_S,
               **steadiness(rates + probe(PROBE_S))}
    targets = ratios(references, transports)
    table = markdown(cfg, references, transports, skipped, targets, machine)
    rows = ([{"section": "config", **asdict(cfg), "batch_bytes": BATCH_BYTES, "columns": COLUMNS,
              "streams": STREAMS, "seconds": time.perf_counter() - started}, machine]
            + [{"section": "reference", **r} for r in references.values()]
            + [{"section": "transport", **t} for t in transports] + skipped + targets)
    return rows, table, not failures


def main(argv: list[str] | None = None) -> None:
    """Run, write JSON + PNG, print the table; exit 1 if any measurement failed."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.transports",
                                     description="Transports against memcpy and raw sockets.")
    parser.add_argument("--quick", action="store_true", help="128 MiB instead of 1 GiB, fewer calls")
    parser.add_argument("--transport", action="append", help="only this transport (repeatable)")
    args = parser.parse_args(argv)
    cfg = Config.make(args.quick)
    started = time.perf_counter()
    rows, table, ok = run(cfg, args.transport)
    references = {r["name"]: r for r in rows if r["section"] == "reference"}
    transports = [r for r in rows if r["section"] == "transport"]
    targets = [r for r in rows if r["section"] == "ratio"]
    path = write("transports", rows, lambda p: plot(cfg, references, transports, targets, p),
                 {"security": "off; on for each transport's 'secured' measurements"})
    print("\n" + table)
    print(f"\nwrote {path} and {path.with_suffix('.png')} in {time.perf_counter() - started:.0f}s")
    if not ok:
        print("some measurements FAILED (see above and the 'errors' in the JSON)", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
