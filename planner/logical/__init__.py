"""The logical plan: typed expressions, relational operators, the staged plan that carries
them to workers, Spark's typing rules, and the analyzer that turns user names into plan
columns.

Imports only ``planner.spark`` and the planner's base modules (``errors``, ``limits``). The
worker reads the plan models from here and nothing above.
"""
