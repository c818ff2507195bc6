"""Spark's own rules that the driver and the worker both follow: session time zones, datetime
patterns, the Java regex dialect, ``format_string``, Hive partition directories, Parquet
file discovery and footers, the JSON schema Spark infers.

The bottom layer of the planner: it imports nothing of sparkwire but ``planner.errors``, so
the worker can follow Spark without loading the planner above it.
"""
