"""``make bench``: every benchmark, each writing JSON and a PNG to ``benchmarks/results/``."""

from benchmarks import queries, transports

if __name__ == "__main__":
    queries.main()
    transports.main([])
