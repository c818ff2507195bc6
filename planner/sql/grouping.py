"""``GROUP BY``'s items as group keys and, where it has any, grouping sets.

Spark's forms: plain keys, ``ROLLUP(...)``, ``CUBE(...)``, ``GROUPING SETS (...)`` (a set is
a key, a parenthesised list of keys, or ``()``), ``WITH ROLLUP`` / ``WITH CUBE`` after plain
keys, and an element of ``ROLLUP``/``CUBE`` that is a parenthesised list of keys, which
come and go together. Several items cross: ``GROUP BY a, ROLLUP(b, c)`` groups by ``(a, b,
c)``, ``(a, b)`` and ``(a)``. The keys are every distinct expression, in the order they
first appear; the sets are planned by ``planner.logical.grouping_sets``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.grouping_sets import GroupingSet, crossed, cube, rollup
from sparkwire.planner.sql.expressions import unsupported


def group_by(
    group: exp.Group | None, resolve: Callable[[exp.Expr], ex.Expr],
) -> tuple[list[ex.Expr], list[GroupingSet] | None]:
    """The keys, each resolved by ``resolve``, and the grouping sets as positions among
    them; None for a plain ``GROUP BY`` (or none)."""
    if group is None:
        return [], None
    keys: list[ex.Expr] = []

    def position(node: exp.Expr) -> int:
        key = resolve(node)
        if key not in keys:
            keys.append(key)
        return keys.index(key)

    def members(node: exp.Expr) -> list[int]:
        """A key, or a parenthesised list of keys that come and go together."""
        if isinstance(node, exp.Tuple):
            return [position(e) for e in node.expressions]
        if isinstance(node, exp.Rollup | exp.Cube | exp.GroupingSets):
            raise unsupported(node, f"{node.key.upper()} inside another grouping")
        return [position(node.unnest() if isinstance(node, exp.Paren) else node)]

    parts: list[list[GroupingSet]] = []
    plain: list[int] = []
    for item in group.expressions:
        if isinstance(item, exp.Rollup | exp.Cube):
            groups = [members(e) for e in item.expressions]
            parts.append(_combined(groups, rollup if isinstance(item, exp.Rollup) else cube))
        elif isinstance(item, exp.GroupingSets):
            parts.append([frozenset(members(e)) for e in item.expressions])
        else:
            plain += members(item)
    if group.args.get("rollup") or group.args.get("cube"):  # GROUP BY a, b WITH ROLLUP
        parts.append(_combined([[p] for p in plain], rollup if group.args.get("rollup") else cube))
        plain = []
    if group.args.get("all") or group.args.get("grouping_sets") or group.args.get("totals"):
        raise unsupported(group, "this form of GROUP BY")
    if not parts:
        return keys, None
    return keys, crossed([[frozenset(plain)], *parts])


def _combined(groups: Sequence[list[int]],
              form: Callable[[Sequence[int]], list[GroupingSet]]) -> list[GroupingSet]:
    """``ROLLUP``/``CUBE`` over groups of keys: the form over the groups' positions, each
    group then standing for its keys."""
    return [frozenset(k for g in chosen for k in groups[g]) for chosen in form(range(len(groups)))]
