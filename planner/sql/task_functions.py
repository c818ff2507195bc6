"""SQL calls of the functions that read the task or draw random values (``rand(1)`` ...,
``planner.logical.functions.task_values``): the node classes sqlglot parses them into
(``random`` it reads as ``Rand``), and the names it leaves anonymous, merged into
``planner.sql.functions``' tables."""

from __future__ import annotations

from sqlglot import exp

#: node class -> (the seed, when given) and the registry's name
TASK_CLASSES: dict[type[exp.Expr], tuple[tuple[str, ...], str]] = {
    exp.Rand: (("this",), "rand"),
    exp.Randn: (("this",), "randn"),
    exp.Uniform: (("this", "expression", "gen"), "uniform"),
    exp.Randstr: (("this", "generator"), "randstr"),
    exp.Shuffle: (("this",), "shuffle"),  # sqlglot parses no seed: shuffle(a, 1) is refused
}
#: The ones sqlglot leaves as anonymous calls, resolved by their own names.
TASK_NAMES = frozenset({"monotonically_increasing_id", "spark_partition_id"})
