"""Logical rewrites and what they need to know before anything runs: ``rules.RULES`` (one
pure pass per module, in order), row and size estimates, filter selectivity.

Reads the logical layer; the physical layer reads its estimates.
"""
