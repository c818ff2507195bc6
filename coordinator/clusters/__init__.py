"""Clusters: where workers live. ``local`` (objects in this process), ``process`` (local
worker processes), ``spark`` (tasks of a background Spark job); ``hosting`` is what an
out-of-process worker runs and ``registrar`` how Spark-hosted workers announce themselves.
"""
