"""sparkwire's planner, a folder per layer; imports run downward only (``tests/test_layering.py``)::

    api/        the PySpark surface: DataFrame, Column, functions, Window, readers, writers
    sql/        SQL text to logical plans, through the same analyzer and functions
    pipeline    the one path every query takes: analyze, optimize (RULES), cut
    physical/   the stage cutter: boundaries, placement, join strategy, splits
    optimizer/  RULES, the logical rewrites, and the estimates they read
    logical/    expressions, operators, types, the analyzer, the staged plan's models
    spark/      Spark's rules both the driver and the worker follow (time zones, patterns ...)
    errors, limits   the exception tree and the hard bounds on a plan

The planner imports neither ``transport`` nor ``coordinator``; what it needs from a running
cluster is the ``api.executor.Executor`` protocol, which the coordinator's Session implements.
This package imports nothing; ``planner.api`` exports the PySpark surface.
"""
