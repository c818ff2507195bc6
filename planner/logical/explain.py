"""Plans as indented text, for ``DataFrame.explain()`` and the CLI."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import assert_never

from sparkwire.planner.logical.plan import (Aggregate, children, Exchange, Expand, Filter, Generate, Join,
                                            Keep, Limit, Operator, ParquetWrite, Project,
                                            Repartition, RowSample, Sample, SetOperation, Sort,
                                            Window)
from sparkwire.planner.logical.sources import (CachedSource, CsvScan, JsonScan, LocalSource,
                                               ParquetScan, RangeSource)
from sparkwire.planner.logical.staged import Boundary, StagedPlan
from sparkwire.planner.logical.render import identifier, named, sort_key, sql, window_function

_SHOWN_FILES = 3


def explain_staged(plan: StagedPlan, actual_rows: Mapping[int, int] | None = None,
                   adapted: Mapping[int, tuple[int, Sequence[str]]] | None = None) -> str:
    """Stages with their operators, estimated rows, the planner's notes (join strategies
    and why) and, after a run, the rows each stage actually produced and, for a stage
    planned again at its barrier (``adapted``: its tasks as run, and what was done), why."""
    header = f"{len(plan.stages)} stage(s), result columns [{_names(plan.columns)}]"
    lines = [f"== Staged plan: {header} =="]
    for stage in plan.stages:
        rows = f" rows≈{stage.estimated_rows}"
        if actual_rows is not None and stage.id in actual_rows:
            rows += f" actual={actual_rows[stage.id]}"
        lines.append(f"Stage {stage.id}: tasks={stage.tasks} output={boundary(stage.output)}{rows}")
        lines.extend(f"  -- {note}" for note in stage.notes)
        if adapted is not None and stage.id in adapted and adapted[stage.id][1]:
            tasks, notes = adapted[stage.id]
            lines.extend(f"  -- adaptive ({tasks} task(s) run): {note}" for note in notes)
        lines.extend(_tree(stage.fragment, depth=1))
    return "\n".join(lines)


def explain_logical(plan: Operator, title: str = "Logical plan") -> str:
    return "\n".join([f"== {title} ==", *_tree(plan, depth=0)])


def boundary(b: Boundary) -> str:
    if b.kind in ("shuffle", "range"):
        keys = ", ".join(sql(k) for k in b.keys)
        return f"{b.kind}(keys=[{keys}], partitions={b.partitions})"
    if b.kind == "result":
        return "result"
    return f"{b.kind}(partitions={b.partitions})"


def _tree(op: Operator, depth: int) -> list[str]:
    lines = ["  " * depth + _line(op)]
    for child in children(op):
        lines.extend(_tree(child, depth + 1))
    return lines


def _line(op: Operator) -> str:
    match op:
        case ParquetScan():
            return _scan_line(op)
        case LocalSource():
            return f"LocalSource {op.source_id} chunks={op.chunks} [{_names(op.columns)}]"
        case RangeSource():
            slices = "" if op.partitions is None else f" partitions={op.partitions}"
            return f"Range ({op.start}, {op.end}, step={op.step}){slices} [id]"
        case Exchange():
            return f"Exchange stage={op.stage}{' whole' if op.whole else ''} [{_names(op.columns)}]"
        case Filter():
            return f"Filter {sql(op.predicate)}"
        case Project():
            return "Project " + ", ".join(named(c) for c in op.columns)
        case Aggregate():
            keys = ", ".join(named(k) for k in op.keys)
            aggs = ", ".join(named(a) for a in op.aggregates)
            return f"Aggregate{' local' if op.local else ''} keys=[{keys}] aggregates=[{aggs}]"
        case Sort():
            keys = ", ".join(sort_key(k) for k in op.keys)
            return f"Sort [{keys}]" + ("" if op.limit is None else f" limit={op.limit}")
        case Limit():
            return ("Limit" if op.n is None else f"Limit {op.n}") + (f" offset={op.offset}" if op.offset else "")
        case Sample():
            return f"Sample {op.rows} rows"
        case Generate():
            name = f"{'pos' if op.position else ''}explode{'_outer' if op.outer else ''}"
            return f"Generate {name}({sql(op.expr)}) AS ({_names(op.names)})"
        case Expand():
            return _expand_line(op)
        case RowSample():
            lower = f" lower={op.lower}" if op.lower else ""
            return f"RowSample fraction={op.fraction}{lower} seed={op.seed}"
        case CachedSource():
            return f"CachedSource {op.cache_id} chunks={op.chunks} [{_names(op.columns)}]"
        case Keep():
            return f"Keep as {op.cache_id}"
        case Repartition():
            how = "coalesce" if op.coalesce else "repartition"
            keys = f" by [{', '.join(sql(k) for k in op.keys)}]" if op.keys else ""
            return f"{how.capitalize()} {op.partitions}{keys}"
        case ParquetWrite():
            return f"ParquetWrite {op.directory!r} job={op.job} [{_names(op.names)}]"
        case CsvScan() | JsonScan():
            kind = "CsvScan" if isinstance(op, CsvScan) else "JsonScan"
            return f"{kind} [{_names(op.columns)}] files={len(op.splits)}"
        case Join():
            return _join_line(op)
        case SetOperation():
            return f"{op.kind.capitalize()}{' all' if op.all else ''}"
        case Window():
            return _window_line(op)
        case _:
            assert_never(op)


def _join_line(op: Join) -> str:
    parts = [f"Join {op.how}"]
    if op.left_keys:
        pairs = zip(op.left_keys, op.right_keys, strict=True)
        parts.append("keys=[" + ", ".join(f"{sql(a)} = {sql(b)}" for a, b in pairs) + "]")
    if op.condition is not None:
        parts.append(f"condition={sql(op.condition)}")
    if op.null_aware:
        parts.append("null-aware")
    return " ".join(parts)


def _expand_line(op: Expand) -> str:
    """The keys, then each grouping set as the keys it keeps (``()``: the grand total)."""
    keys = ", ".join(named(k) for k in op.keys)
    width = len(op.keys)
    sets = ", ".join(
        "(" + ", ".join(identifier(k.name) for i, k in enumerate(op.keys)
                        if not s >> (width - 1 - i) & 1) + ")"
        for s in op.sets
    )
    return f"Expand keys=[{keys}] sets=[{sets}] id={identifier(op.grouping_id)}"


def _window_line(op: Window) -> str:
    parts = ["Window"]
    if op.partition_by:
        parts.append("partition=[" + ", ".join(sql(k) for k in op.partition_by) + "]")
    if op.order_by:
        parts.append("order=[" + ", ".join(sort_key(k) for k in op.order_by) + "]")
    items = ", ".join(
        f"{window_function(f.function, f.frame)} AS {identifier(f.name)}" for f in op.functions
    )
    parts.append(f"[{items}]")
    return " ".join(parts)


def _scan_line(op: ParquetScan) -> str:
    files = list(dict.fromkeys(PurePath(s.path).name for s in op.splits))
    shown = ", ".join(files[:_SHOWN_FILES]) + (", ..." if len(files) > _SHOWN_FILES else "")
    listed = [s.row_groups for s in op.splits if s.row_groups is not None]
    groups = f" row_groups={sum(map(len, listed))}" if len(listed) == len(op.splits) else ""
    return (
        f"ParquetScan [{_names(op.columns)}] files={len(files)} splits={len(op.splits)}"
        f"{groups} ({shown})"
    )


def _names(columns: tuple[str, ...]) -> str:
    return ", ".join(identifier(c) for c in columns)
