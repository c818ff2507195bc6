"""``make bench``: every benchmark, each writing JSON and a PNG to ``benchmarks/results/``."""

from benchmarks import (connect_overhead, fixed_costs, hosts, reliability, scaling, sort, tpcds, tpch,
                        transports, ui_overhead)

if __name__ == "__main__":
    # SF1 on every system, then SF0.1 and SF10 (one timed run: SF10 is slow) for the
    # scaling plot; TPC-DS SF1 (one timed run: Spark SQL's pass over the 99 is long); TPC-H
    # SF1 again over 1 to 16 workers; the per-worker fixed costs (a query's
    # end, driver threads, an idle worker's memory); the Spark Connect path's overhead on
    # the tiny query; the live UI's cost to a tiny query; the large shuffles on simulated
    # hosts; a wrong answer (or a crash, hang or wrong answer in the reliability run) fails
    # ``make bench``, after the others ran. The transports come last: they set this
    # process's allocators as a worker's.
    wrong = tpch.main(["--scaling", "--scaling-runs", "1"])
    wrong = tpcds.main(["--runs", "1"]) or wrong
    wrong = scaling.main([]) or wrong
    fixed_costs.main([])
    connect_overhead.main([])
    ui_overhead.main([])
    sort.main()
    wrong = hosts.main([]) or wrong
    unreliable = reliability.main([])
    transports.main([])
    raise SystemExit(wrong or unreliable)
