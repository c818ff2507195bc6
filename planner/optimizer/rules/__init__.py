"""Logical rewrites: one pure function per module, applied in the order of ``RULES``.

Each rule takes a logical plan and returns an equivalent one; the order lives here and
nowhere else (sqlglot's optimizer is the model). Rules run after analysis, so names are
resolved and unique; they must keep every operator's output columns as they are.
"""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.logical.plan import Operator
from sparkwire.planner.optimizer.rules.columns import prune_columns
from sparkwire.planner.optimizer.rules.disjunctions import derive_side_filters
from sparkwire.planner.optimizer.rules.expand import aggregate_before_expand
from sparkwire.planner.optimizer.rules.filters import merge_filters
from sparkwire.planner.optimizer.rules.joins import left_join_to_anti, outer_to_inner
from sparkwire.planner.optimizer.rules.limits import merge_limits
from sparkwire.planner.optimizer.rules.moments import statistics_as_sums
from sparkwire.planner.optimizer.rules.precount import count_before_join
from sparkwire.planner.optimizer.rules.projects import merge_projects
from sparkwire.planner.optimizer.rules.pushdown import push_filters
from sparkwire.planner.optimizer.rules.reduction import reduce_semi_join_inputs
from sparkwire.planner.optimizer.rules.semijoins import push_semi_joins
from sparkwire.planner.optimizer.rules.shared_filters import filter_shared
from sparkwire.planner.optimizer.rules.transitivity import copy_semi_joins

Rule = Callable[[Operator], Operator]

RULES: tuple[Rule, ...] = (
    merge_filters,
    outer_to_inner,
    derive_side_filters,
    push_filters,
    filter_shared,
    prune_columns,
    left_join_to_anti,
    push_semi_joins,
    copy_semi_joins,
    reduce_semi_join_inputs,
    merge_projects,
    count_before_join,
    statistics_as_sums,
    aggregate_before_expand,
    merge_limits,
)


def optimize(plan: Operator, rules: tuple[Rule, ...] = RULES) -> Operator:
    for rule in rules:
        plan = rule(plan)
    return plan
