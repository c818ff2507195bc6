"""One stage for rows the plan both broadcasts and reads by partition.

The aggregate cut (``rules.reduction``) filters a scan by the keys of a subtree that the
plan also joins: in TPC-H Q21, the orders of one nation's late suppliers cut the two other
reads of ``lineitem`` before they are shuffled. The cutter then closes that subtree twice,
once broadcast as its keys and once hash-partitioned whole, and both stages compute the
same joins (two tasks of 80-150 ms each at SF1). Here the broadcast stage goes: its
consumers read every partition of the other stage (``Exchange.whole``, as a broadcast is
read) and project what the broadcast carried. Spark reuses an exchange the same way when a
plan holds one subtree twice.
"""

from __future__ import annotations

from sparkwire.planner.expressions import Column
from sparkwire.planner.plan import Exchange, Operator, Project, operators, output_columns, transform_up
from sparkwire.planner.staged import Stage


def share_broadcasts(stages: list[Stage]) -> list[Stage]:
    """``stages`` (in dependency order, ids their positions) without each broadcast stage
    whose rows a later stage computes under other columns (see the module docstring)."""
    while (found := _shareable(stages)) is not None:
        stages = _replace(stages, *found)
    return stages


def _readers(stages: list[Stage], stage: int) -> list[Stage]:
    return [s for s in stages if any(isinstance(n, Exchange) and n.stage == stage
                                     for n in operators(s.fragment))]


def _shareable(stages: list[Stage]) -> tuple[Stage, Stage] | None:
    """A broadcast stage projecting plain columns of a subtree that a later stage of the
    same tasks and splits computes, and that stage; read by none of the broadcast's readers
    already, and produced before all of them."""
    for dropped in stages:
        fragment = dropped.fragment
        if (dropped.output.kind != "broadcast" or dropped.keep is not None
                or not isinstance(fragment, Project)
                or not all(isinstance(c.expr, Column) for c in fragment.columns)):
            continue
        readers = _readers(stages, dropped.id)
        for kept in stages[dropped.id + 1:]:
            body = kept.fragment.input if isinstance(kept.fragment, Project) else kept.fragment
            if (body != fragment.input or kept.output.kind in ("broadcast", "result")
                    or kept.keep is not None or (kept.tasks, kept.splits) != (dropped.tasks, dropped.splits)
                    or not {c.expr.name for c in fragment.columns} <= set(output_columns(kept.fragment))):  # type: ignore[union-attr]
                continue
            if readers and all(r.id > kept.id and r not in _readers(stages, kept.id) for r in readers):
                return dropped, kept
    return None


def _replace(stages: list[Stage], dropped: Stage, kept: Stage) -> list[Stage]:
    """``dropped``'s readers reading ``kept`` whole through ``dropped``'s projection; the
    stages after ``dropped`` renumbered."""
    assert isinstance(dropped.fragment, Project)
    whole = Exchange(stage=kept.id, columns=tuple(output_columns(kept.fragment)), whole=True)
    shared = Project(input=whole, columns=dropped.fragment.columns)

    def renumber(node: Operator) -> Operator:
        if isinstance(node, Exchange) and node.stage > dropped.id:
            return node.model_copy(update={"stage": node.stage - 1})
        return node

    def rewrite(node: Operator) -> Operator:
        return shared if isinstance(node, Exchange) and node.stage == dropped.id else node

    result = []
    for stage in stages:
        if stage.id == dropped.id:
            continue
        fragment = transform_up(transform_up(stage.fragment, rewrite), renumber)
        notes = stage.notes
        if stage.id == kept.id:
            notes = (*notes, "also read whole, in place of a broadcast of the same rows")
        result.append(stage.model_copy(update={
            "id": stage.id - (stage.id > dropped.id), "fragment": fragment, "notes": notes}))
    return result
