"""``make bench``: every benchmark, each writing JSON and a PNG to ``benchmarks/results/``."""

from benchmarks import queries, sort, transports

if __name__ == "__main__":
    queries.main()
    sort.main()
    transports.main([])
