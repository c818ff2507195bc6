"""``make bench``: every benchmark, each writing JSON and a PNG to ``benchmarks/results/``."""

from benchmarks import sort, tpch, transports

if __name__ == "__main__":
    # SF1 on every system, then SF0.1 and SF10 for the scaling plot; a wrong answer fails
    # ``make bench``, but only after the other benchmarks have run.
    wrong = tpch.main(["--scaling"])
    sort.main()
    transports.main([])
    raise SystemExit(wrong)
