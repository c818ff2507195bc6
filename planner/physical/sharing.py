"""Rows the plan computes twice are computed once, where a stage can read them instead.

The aggregate cut (``rules.reduction``) filters a scan by the keys of a subtree that the
plan also joins, so the cutter closes that subtree twice. Two shapes, both the way Spark
reuses an exchange when a plan holds one subtree twice:

- **Broadcast and shuffled** (``share_broadcasts``): in TPC-H Q21, the orders of one
  nation's late suppliers cut the two other reads of ``lineitem`` before they are shuffled;
  the subtree is closed once broadcast as its keys and once hash-partitioned whole, and both
  stages compute the same joins (two tasks of 80-150 ms each at SF1). The broadcast stage
  goes: its consumers read every partition of the other stage (``Exchange.whole``, as a
  broadcast is read) and project what the broadcast carried.
- **Broadcast and computed again in one task** (``reuse_broadcasts``): in TPC-H Q4 the
  quarter's orders are broadcast as keys to cut ``lineitem``, and the one-task stage that
  counts them scans and filters ``orders`` again once the cut arrives (Q20's ``forest``
  part suppliers, Q17's parts, alike). The broadcast carries the subtree's rows whole and
  that stage reads them; a stage left only projecting a broadcast is folded into its
  readers.
"""

from __future__ import annotations

from sparkwire.planner.optimizer.estimates import estimate_bytes
from sparkwire.planner.logical.expressions import Column, NamedExpr
from sparkwire.planner.logical.plan import (Exchange, Operator, operators, output_columns, Project,
                                            transform_up)
from sparkwire.planner.logical.sources import FILE_SCANS, FileSplit
from sparkwire.planner.logical.staged import Stage


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
        if (fragment := _plain(dropped)) is None:
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
    """``dropped``'s readers reading ``kept`` whole through ``dropped``'s projection."""
    assert isinstance(dropped.fragment, Project)
    whole = Exchange(stage=kept.id, columns=tuple(output_columns(kept.fragment)), whole=True)
    result = _drop(stages, dropped, Project(input=whole, columns=dropped.fragment.columns))
    kept_id = kept.id - (kept.id > dropped.id)
    result[kept_id] = result[kept_id].model_copy(update={
        "notes": (*kept.notes, "also read whole, in place of a broadcast of the same rows")})
    return result


def _drop(stages: list[Stage], dropped: Stage, read: Operator) -> list[Stage]:
    """``stages`` without ``dropped``: its readers compute ``read`` (the same rows) where they
    read it, and the stages after it are renumbered."""
    def rewrite(node: Operator) -> Operator:
        return read if isinstance(node, Exchange) and node.stage == dropped.id else node

    def renumber(node: Operator) -> Operator:
        if isinstance(node, Exchange) and node.stage > dropped.id:
            return node.model_copy(update={"stage": node.stage - 1})
        return node

    return [stage.model_copy(update={
                "id": stage.id - (stage.id > dropped.id),
                "fragment": transform_up(transform_up(stage.fragment, rewrite), renumber)})
            for stage in stages if stage.id != dropped.id]


def reuse_broadcasts(stages: list[Stage], threshold: int) -> list[Stage]:
    """``stages`` where each one-task stage that computes the subtree a broadcast stage
    projects reads the broadcast instead, the broadcast widened to the subtree's columns
    (while the subtree is at most ``threshold`` bytes); then without stages that only
    project a broadcast."""
    while (found := _recomputed(stages, threshold)) is not None:
        stages = _widen(stages, *found)
    while (forwarding := _forwarding(stages)) is not None:
        stages = _drop(stages, forwarding, forwarding.fragment)
    return stages


def _plain(stage: Stage) -> Project | None:
    """The fragment of a broadcast stage that projects plain columns, else None."""
    fragment = stage.fragment
    if (stage.output.kind != "broadcast" or stage.keep is not None or not isinstance(fragment, Project)
            or not all(isinstance(c.expr, Column) for c in fragment.columns)):
        return None
    return fragment


def _recomputed(stages: list[Stage], threshold: int) -> tuple[Stage, Stage] | None:
    """A broadcast stage projecting plain columns of a subtree, and a later one-task stage
    computing that subtree; the subtree's columns not clashing with the projection's names."""
    for broadcast in stages:
        if (fragment := _plain(broadcast)) is None or isinstance(fragment.input, Exchange):
            continue
        body = fragment.input
        names = {c.name: c.expr for c in fragment.columns}
        if (any(names.get(n, Column(name=n)) != Column(name=n) for n in output_columns(body))
                or estimate_bytes(body) > threshold):
            continue
        for reader in stages[broadcast.id + 1:]:
            if reader.tasks == 1 and reader.keep is None and any(
                    type(n) is type(body) and n == body for n in operators(reader.fragment)):
                return broadcast, reader
    return None


def _widen(stages: list[Stage], broadcast: Stage, reader: Stage) -> list[Stage]:
    """``broadcast`` carrying its subtree's columns too; its readers projecting what it
    carried before; ``reader`` reading the subtree's rows from it."""
    fragment = broadcast.fragment
    assert isinstance(fragment, Project)
    body, before = fragment.input, fragment.columns
    taken = {c.name for c in before}
    columns = (*before, *(NamedExpr(name=n, expr=Column(name=n)) for n in output_columns(body) if n not in taken))
    carried = tuple(c.name for c in columns)

    def read(names: list[str]) -> Project:
        return Project(input=Exchange(stage=broadcast.id, columns=carried),
                       columns=tuple(NamedExpr(name=n, expr=Column(name=n)) for n in names))

    def reads(node: Operator) -> Operator:
        if isinstance(node, Exchange) and node.stage == broadcast.id:
            return read(list(node.columns))
        return node

    def computes(node: Operator) -> Operator:
        return read(output_columns(body)) if type(node) is type(body) and node == body else node

    result = []
    for stage in stages:
        if stage.id == broadcast.id:
            stage = stage.model_copy(update={
                "fragment": fragment.model_copy(update={"columns": columns}),
                "notes": (*stage.notes, "also carries its subtree's rows whole, for a one-task stage")})
        elif stage.id > broadcast.id:
            stage = stage.model_copy(update={"fragment": transform_up(stage.fragment, reads)})
        if stage.id == reader.id:  # one task: it computed the whole subtree, as read now
            fragment_read = transform_up(stage.fragment, computes)
            stage = stage.model_copy(update={
                "fragment": fragment_read, "splits": _own_splits(fragment_read, stage.splits),
                "notes": (*stage.notes, "reads a broadcast's rows, not computing them again")})
        result.append(stage)
    return result


def _own_splits(fragment: Operator, splits: tuple[tuple[FileSplit, ...], ...]) -> tuple[tuple[FileSplit, ...], ...]:
    """Each task's ``splits`` that the file scans of ``fragment`` still read."""
    read = {split for node in operators(fragment) if isinstance(node, FILE_SCANS) for split in node.splits}
    return tuple(tuple(s for s in task if s in read) for task in splits)


def _forwarding(stages: list[Stage]) -> Stage | None:
    """A one-task broadcast stage that only projects the broadcast of an earlier stage."""
    for stage in stages:
        node: Operator | None = _plain(stage) if stage.tasks == 1 else None
        while isinstance(node, Project) and all(isinstance(c.expr, Column) for c in node.columns):
            node = node.input
        if isinstance(node, Exchange) and not node.whole and stages[node.stage].output.kind == "broadcast":
            return stage
    return None
