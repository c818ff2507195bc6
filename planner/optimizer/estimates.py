"""Size and row estimates, for choosing join strategies and for ``explain``, from what is
known before anything runs.

A scan is as big as its columns' share of its files on disk and has the rows its footers
count (a scan of some row groups counts their share); a text scan is its files' sizes (of
100-byte rows); an in-memory source has its Arrow size and rows; a sample keeps its
fraction. Above the leaves the estimates are rough on purpose, and each guess is written
here: a filter keeps its predicate's guessed share (``planner.optimizer.selectivity``; one row at least), an aggregate
with keys half, a global aggregate one row, a limit at most ``n`` rows (of 100 bytes), a
window as many rows as its input, an equi-join what ``equi_join_rows`` says (a fact
table joined to a filtered dimension keeps the dimension's kept share) and is as wide as
both inputs' rows together, other joins and a union both inputs (a semi or anti join its
left, a cross join the product of rows), a generator four rows per input row. An
``Exchange`` is as big as the producer stage the caller says. Estimates decide between a
broadcast and a shuffle, never correctness.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import assert_never

from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.spark.parquet_meta import file_info, one_version
from sparkwire.planner.logical.ranges import range_rows
from sparkwire.planner.optimizer.selectivity import Spans, selectivity
from sparkwire.planner.logical.plan import (Aggregate, Exchange, Expand, Filter, Generate, Join, Keep,
                                            Limit, Operator, output_columns, ParquetWrite, Project,
                                            Repartition, RowSample, Sample, SetOperation, Sort,
                                            Window)
from sparkwire.planner.logical.sources import (CachedSource, CsvScan, JsonScan, LocalSource,
                                               ParquetScan, RangeSource)

_ROW_BYTES = 100
# A generated range's one bigint column.
_ID_BYTES = 8
# Rows a generator (explode) makes of each input row: a guess, as for filters.
_GENERATED_PER_ROW = 4
# A side at most this big (estimated bytes) is broadcast to a join; the executor may set another.
DEFAULT_BROADCAST_THRESHOLD = 10 * 1024 * 1024


def estimate_rows(op: Operator, exchanges: Mapping[int, int] | None = None) -> int:
    """Rows ``op`` is expected to produce; ``exchanges`` gives producer stages' estimates."""
    return _Rows(exchanges).rows(op)


class _Memo:
    """What one planning has estimated, by subtree (by id; the node kept alive)."""

    def __init__(self) -> None:
        self.bytes: dict[int, tuple[Operator, int]] = {}
        self.rows: dict[int, tuple[Operator, int]] = {}


_PLANNING: ContextVar[_Memo | None] = ContextVar("sparkwire_estimates", default=None)


@contextmanager
def planning() -> Iterator[None]:
    """Within, each subtree's size and rows are estimated once: planning a query asks for
    them again and again (every rule and every cut asks of the subtrees below it, and a
    join's size asks for its inputs' rows), 40 % of planning TPC-H Q8 before. Plans are
    immutable, so an answer holds for the whole planning; nested scopes share the outer's.
    Each Parquet footer is looked up once too (``parquet_meta.one_version``)."""
    if _PLANNING.get() is not None:
        yield
        return
    token = _PLANNING.set(_Memo())
    try:
        with one_version():
            yield
    finally:
        _PLANNING.reset(token)


def estimate_bytes(op: Operator) -> int:
    memo = _PLANNING.get()
    if memo is None:
        return _bytes(op)
    hit = memo.bytes.get(id(op))
    if hit is None:
        hit = memo.bytes[id(op)] = (op, _bytes(op))
    return hit[1]


def _bytes(op: Operator) -> int:
    match op:
        case ParquetScan():
            return sum(_split_bytes(path, groups, op.columns) for path, groups in _read(op))
        case LocalSource():
            return op.bytes
        case RangeSource():
            return range_rows(op) * _ID_BYTES
        case Exchange():
            return 0
        case Filter():
            return int(estimate_bytes(op.input) * selectivity(op.predicate, _spans(op.input)))
        case Project() | Sort() | Window():
            return estimate_bytes(op.input)
        case Aggregate():
            return estimate_bytes(op.input) // 2 if op.keys else _ROW_BYTES
        case Limit():
            below = max(0, estimate_bytes(op.input) - op.offset * _ROW_BYTES)
            return below if op.n is None else min(below, op.n * _ROW_BYTES)
        case Sample():
            return min(estimate_bytes(op.input), op.rows * _ROW_BYTES)
        case Generate():
            return estimate_bytes(op.input) * _GENERATED_PER_ROW
        case Expand():
            return estimate_bytes(op.input) * len(op.sets)
        case RowSample():
            return int(estimate_bytes(op.input) * op.fraction)
        case CachedSource():
            return op.rows * _ROW_BYTES
        case Repartition() | Keep():
            return estimate_bytes(op.input)
        case ParquetWrite():
            return _ROW_BYTES
        case CsvScan() | JsonScan():
            return text_bytes(op)
        case Join() if op.left_keys and op.how not in ("semi", "anti"):
            rows = _Rows(None)
            left, right = rows.rows(op.left), rows.rows(op.right)
            width = estimate_bytes(op.left) / max(left, 1) + estimate_bytes(op.right) / max(right, 1)
            return int(rows.join(op, left, right) * width)
        case Join(how="semi" | "anti"):  # some of the left rows, no right columns
            rows = _Rows(None)
            return int(estimate_bytes(op.left) * rows.rows(op) / max(rows.rows(op.left), 1))
        case Join() | SetOperation():
            return estimate_bytes(op.left) + estimate_bytes(op.right)
        case _:
            assert_never(op)


def equi_join_rows(left: Operator, right: Operator, pairs: Sequence[tuple[str, str]],
                   exchanges: Mapping[int, int] | None = None) -> int:
    """Rows of ``left`` joined to ``right`` on ``left.a = right.b`` for each ``(a, b)``.

    When ``right``'s keys are unique in its unfiltered input (as many distinct values as
    rows: a primary key), each left row meets at most one row, kept with the share of that
    input ``right``'s filters keep: a fact table joined to a filtered dimension shrinks by
    that share. Otherwise the textbook containment estimate: ``rows(left) * rows(right)``
    over the larger number of distinct values on either side of each key pair."""
    return _Rows(exchanges).equi_join(left, right, pairs)


def proven_unique(op: Operator, columns: Sequence[str]) -> bool:
    """Whether the footers show ``columns`` unique in the table ``op`` reads them from (as
    many integer values in their spans as rows); a string key's distinct values are
    unknown, so a join on it may multiply rows where its estimate says it cannot (TPC-DS
    q24's ``s_zip = ca_zip``)."""
    return _Rows(None).keyed_share(op, columns, proven=True) is not None


def distinct_values(op: Operator, column: str, exchanges: Mapping[int, int] | None = None) -> int:
    """How many distinct values ``column`` of ``op`` holds: at most ``op``'s rows, and for
    an integer column of a scan at most its ``max - min + 1`` (from the footers), followed
    down through filters and renaming-free projections; unknown means as many as rows."""
    return _Rows(exchanges).distinct(op, column)


def distinct_combinations(op: Operator, columns: Sequence[str]) -> int:
    """Distinct combinations of ``columns`` in ``op``: the product of each column's
    ``distinct_values``, at most ``op``'s rows."""
    rows = _Rows(None)
    combinations = 1
    for column in columns:
        combinations *= rows.distinct(op, column)
    return min(combinations, rows.rows(op))


class _Rows:
    """Row estimates for one question, each subtree's computed once: a join's estimate asks
    for its inputs' rows and distinct values, which ask for theirs, so without the memo a
    chain of joins costs exponential time (TPC-H Q8's eight tables: 0.5 s)."""

    def __init__(self, exchanges: Mapping[int, int] | None) -> None:
        self.exchanges = exchanges or {}
        planning = _PLANNING.get()  # a planning's answers hold where no stage is known yet
        self._memo: dict[int, tuple[Operator, int]] = (
            planning.rows if planning is not None and not self.exchanges else {})

    def rows(self, node: Operator) -> int:
        hit = self._memo.get(id(node))
        if hit is None:
            hit = self._memo[id(node)] = (node, self._compute(node))
        return hit[1]

    def _compute(self, node: Operator) -> int:
        rows = self.rows
        match node:
            case ParquetScan():
                return sum(_split_rows(path, groups) for path, groups in _read(node))
            case LocalSource():
                return node.rows
            case RangeSource():
                return range_rows(node)
            case Exchange():
                return self.exchanges.get(node.stage, 0)
            case Filter():  # a filter over rows keeps one at least: zero would say "empty"
                below = rows(node.input)
                return max(1, int(below * selectivity(node.predicate, _spans(node.input)))) if below else 0
            case Project() | Sort() | Window():
                return rows(node.input)
            case Aggregate():
                below = rows(node.input)
                return (max(1, below // 2) if below else 0) if node.keys else 1
            case Limit():
                below = max(0, rows(node.input) - node.offset)
                return below if node.n is None else min(below, node.n)
            case Sample():
                return min(rows(node.input), node.rows)
            case Generate():
                return rows(node.input) * _GENERATED_PER_ROW
            case Expand():
                return rows(node.input) * len(node.sets)
            case RowSample():
                return int(rows(node.input) * node.fraction)
            case CachedSource():
                return node.rows
            case Repartition() | Keep():
                return rows(node.input)
            case ParquetWrite():
                return 1
            case CsvScan() | JsonScan():
                return text_bytes(node) // _ROW_BYTES
            case Join(how="semi"):
                return self.semi(node, rows(node.left))
            case Join(how="anti"):
                return rows(node.left)
            case Join(how="cross"):
                return rows(node.left) * rows(node.right)
            case Join():
                return self.join(node, rows(node.left), rows(node.right))
            case SetOperation():
                return rows(node.left) + rows(node.right)
            case _:
                assert_never(node)


    def join(self, join: Join, left: int, right: int) -> int:
        """An equi-join's rows (``equi_join``), an outer join at least its preserved
        sides'; without column keys, as many as the larger side."""
        pairs = [(a.name, b.name) for a, b in zip(join.left_keys, join.right_keys, strict=True)
                 if isinstance(a, Column) and isinstance(b, Column)]
        if not pairs:
            return max(left, right)
        rows = self.equi_join(join.left, join.right, pairs)
        if join.how in ("left", "full"):
            rows = max(rows, left)
        if join.how in ("right", "full"):
            rows = max(rows, right)
        return rows

    def equi_join(self, left: Operator, right: Operator, pairs: Sequence[tuple[str, str]]) -> int:
        left_rows, right_rows = self.rows(left), self.rows(right)
        kept = self.keyed_share(right, [b for _, b in pairs])
        if kept is not None:
            return int(left_rows * kept)
        divisor = 1
        for a, b in pairs:
            divisor *= max(self.distinct(left, a), self.distinct(right, b), 1)
        return left_rows * right_rows // min(divisor, max(left_rows, right_rows, 1))

    def keyed_share(self, side: Operator, keys: Sequence[str], proven: bool = False) -> float | None:
        """When ``keys`` are unique in the table they come from (as many distinct values
        as rows: a primary key), the share of that table's rows ``side`` keeps; else None.
        ``proven``: only where the footers show it (integer spans), not where the count of
        distinct values is unknown and so taken as the rows."""
        sources = [_source(side, key) for key in keys]
        found = [s for s in sources if s is not None]
        if found and len(found) == len(sources) and all(s[0] is found[0][0] for s in found):
            base, names = found[0][0], [s[1] for s in found]
        else:
            base, names = _unfiltered(side), list(keys)
        base_rows = self.rows(base)
        keyed = 1
        for name in names:
            span = self.span(base, name)
            if span is None and proven:
                return None
            keyed *= max(min(span, base_rows) if span is not None else base_rows, 1)
        if keyed >= base_rows > 0:
            return self.rows(side) / base_rows
        return None

    def semi(self, join: Join, left: int) -> int:
        """A semi join on the unique keys of the right side's table keeps the share of that
        table the right side keeps (``partsupp`` semi-joined to the ``part`` rows named
        ``forest``, TPC-H Q20); on other keys, as many as its left rows."""
        keys = [b.name for b in join.right_keys if isinstance(b, Column)]
        if len(keys) != len(join.right_keys) or not keys or join.condition is not None:
            return left
        kept = self.keyed_share(join.right, keys)
        return left if kept is None else min(left, int(left * kept))

    def distinct(self, op: Operator, column: str) -> int:
        """At most ``op``'s rows; for an integer column of a scan, at most its span."""
        rows = self.rows(op)
        span = self.span(op, column)
        return rows if span is None else max(1, min(rows, span))

    @staticmethod
    def span(op: Operator, column: str) -> int | None:
        """``max - min + 1`` of an integer column of a scan, from the footers; else None."""
        source = _source(op, column)
        if source is None or not isinstance(scan := source[0], ParquetScan):
            return None
        name = source[1]
        ranges = [file_info(s.path).int_ranges.get(name) for s in scan.splits]
        known = [r for r in ranges if r is not None]
        if not ranges or len(known) < len(ranges):
            return None
        return max(r[1] for r in known) - min(r[0] for r in known) + 1


def _read(scan: ParquetScan) -> list[tuple[str, tuple[int, ...] | None]]:
    """The files and row groups a scan reads, each once: a co-located join's scan lists a
    file once per task whose key range it overlaps (``FileSplit.keys``)."""
    return list(dict.fromkeys((s.path, s.row_groups) for s in scan.splits))


def _source(op: Operator, column: str) -> tuple[Operator, str] | None:
    """The scan ``column`` of ``op`` comes from, unfiltered, and its name there; None if it
    is computed. Through joins too: the key of a dimension joined to another that filters
    it (TPC-H Q21's ``supplier`` of one nation) keeps the share of its own table."""
    node, name = op, column
    while True:
        match node:
            case Filter() | Sort() | Limit() | Sample() | RowSample() | Repartition() | Keep():
                node = node.input
            case Window() if name in output_columns(node.input):
                node = node.input
            case Project():
                source = next((c.expr for c in node.columns if c.name == name), None)
                if not isinstance(source, Column):
                    return None
                node, name = node.input, source.name
            case Join():
                node = node.left if name in output_columns(node.left) else node.right
            case ParquetScan() | LocalSource() | CachedSource():
                return node, name
            case _:
                return None


def _spans(op: Operator) -> Spans:
    """The value range of a column of ``op`` over the files of the scan it comes from, where
    every file's statistics give one (``ParquetFileInfo.value_ranges``); each column looked
    up once, as the terms of one predicate ask for the same column."""

    @functools.cache
    def span(column: str) -> tuple[float, float] | None:
        source = _source(op, column)
        if source is None or not isinstance(scan := source[0], ParquetScan) or not scan.splits:
            return None
        name = source[1]
        ranges = [file_info(s.path).value_ranges.get(name) for s in scan.splits]
        known = [r for r in ranges if r is not None]
        if len(known) < len(ranges):
            return None
        return min(r[0] for r in known), max(r[1] for r in known)

    return span


def _unfiltered(op: Operator) -> Operator:
    """``op`` without the filters (and the projections over them) on top of its source."""
    node = op
    while isinstance(node, Filter | Project):
        node = node.input
    return node if isinstance(node, ParquetScan | LocalSource | CachedSource) else op


def text_bytes(scan: CsvScan | JsonScan) -> int:
    """A text scan's size: its files' sizes (0 for a file gone since planning)."""
    total = 0
    for split in scan.splits:
        try:
            total += os.path.getsize(split.path)
        except OSError:
            pass
    return total


def _split_rows(path: str, row_groups: tuple[int, ...] | None) -> int:
    counts = file_info(path).row_group_rows
    return sum(counts) if row_groups is None else sum(counts[i] for i in row_groups)


def _split_bytes(path: str, row_groups: tuple[int, ...] | None, columns: tuple[str, ...]) -> int:
    """The split's share of its file, and of that the read columns' share."""
    info = file_info(path)
    size = info.bytes
    total_columns = sum(info.column_bytes.values())
    if total_columns:
        size = size * sum(info.column_bytes.get(c, 0) for c in columns) // total_columns
    total = sum(info.row_group_rows)
    if row_groups is None or not total:
        return size
    return size * sum(info.row_group_rows[i] for i in row_groups) // total
