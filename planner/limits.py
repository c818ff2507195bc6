"""Hard bounds on a plan, in one place: the models that validate a task plan on a worker
and the planner that builds one on the driver read them from here.

A plan beyond any bound is refused before it runs: ``PlanRejected`` on a worker (the plan
may come from anyone who can reach it), an ``AnalysisError`` or ``PlanError`` naming the
limit on the driver. The bounds are far above what a real query needs (TPC-H at SF10 on 64
workers uses 256 partitions, 40 stages and a few hundred nodes) and far below what
exhausts a worker: 5,000,000 output partitions cost 1.2 GiB before this bound.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel

from sparkwire.planner.errors import AnalysisError

#: Output partitions of one task (a shuffle's fan-out).
MAX_PARTITIONS: Final = 4096
#: Tasks of one stage, and the largest task index a task plan may name.
MAX_TASKS: Final = 4096
#: Stages of one query, and the largest stage id a task plan may name.
MAX_STAGES: Final = 1024
#: Producer partitions one task reads.
MAX_INPUTS: Final = 65536
#: Values of one ``IN`` list.
MAX_IN_LIST: Final = 65536
#: Partition and order keys of one window.
MAX_WINDOW_KEYS: Final = 64
#: Keys of one ``GROUPING SETS``/``ROLLUP``/``CUBE`` (their grouping id is a bigint's bits,
#: as Spark's), and grouping sets of one ``Expand`` (each multiplies the rows: a ``CUBE`` of
#: 12 keys has 4096).
MAX_GROUPING_KEYS: Final = 63
MAX_GROUPING_SETS: Final = 4096
#: Rows a lag/lead or a frame bound reaches, buckets of an ntile (Spark's are ints).
MAX_WINDOW_OFFSET: Final = 2**31 - 1
#: Operators and expressions of one plan (JSON objects of a task plan).
MAX_PLAN_NODES: Final = 200_000
#: Nesting depth of a plan: operators over operators, expressions inside expressions.
MAX_PLAN_DEPTH: Final = 192  # below the 200 levels pydantic's JSON parser allows


def check_in_list(values: int) -> None:
    """Refuse an ``IN`` list longer than ``MAX_IN_LIST``, naming the limit."""
    if values > MAX_IN_LIST:
        raise AnalysisError(f"an IN list of {values} values exceeds the limit of {MAX_IN_LIST}")


#: What nests a level deeper in JSON: a model or a tuple (a list of models, or of values).
_NESTING = (BaseModel, tuple)


def plan_depth(node: BaseModel) -> int:
    """How deep ``node`` nests as JSON (a model or a tuple of them is one level), computed
    without recursion: the depth a worker measures before it parses a task plan."""
    stack: list[tuple[BaseModel | tuple[object, ...], int]]
    deepest, stack = 0, [(node, 1)]
    while stack:
        item, level = stack.pop()
        if level > deepest:
            deepest = level
        values = item.__dict__.values() if isinstance(item, BaseModel) else item
        stack.extend((value, level + 1) for value in values if isinstance(value, _NESTING))
    return deepest

#: Nesting of one type name (``array<map<string,array<int64>>>`` nests 3 deep).
MAX_TYPE_DEPTH: Final = 16
#: Characters of one type name, and fields of one struct type.
MAX_TYPE_NAME_LENGTH: Final = 8192
MAX_STRUCT_FIELDS: Final = 512
#: Characters or elements one value a call makes may have (``lpad``, ``repeat``,
#: ``array_repeat``, ``sequence`` ...: ``coordinator.worker.compile.sizes``). Spark's bound
#: is 2^31. This one holds for a call of constants, made once; one made for each row, a vector
#: of 2,048 rows at once, gets a lower bound from its worker's memory (``row_value_bytes``).
MAX_VALUE_LENGTH: Final = 1 << 20
