"""The worker runtime: the service that accepts task plans (``service``) and the queue that
admits them fairly (``admission``), the fragment compiler (the ``compile`` package: operators
to one DuckDB query), the locked-down DuckDB runner (``engine``), output partitioning
(``partitioning``), the partition store (``store``) that spills (``spill``), the shares of
the worker's memory (``memory``), the checks on the files a plan names (``files``), what a
task's error may disclose (``disclosure``) and the Parquet writer (``writer``).
"""
