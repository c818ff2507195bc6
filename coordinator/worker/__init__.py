"""The worker runtime: the service that accepts task plans (``service``), the fragment
compiler (the ``compile`` package: operators to one DuckDB query), the locked-down DuckDB
runner (``engine``), output partitioning (``partitioning``) and the partition store
(``store``).
"""
