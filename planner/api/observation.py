"""``Observation`` and ``df.observe``: named metrics of a DataFrame, read after an action.

Spark computes the metrics inside the action's own plan (a ``CollectMetrics`` node) and
``Observation.get`` waits for that action to finish. sparkwire's plans carry no side
channel for values beside the result, so the metrics are one aggregate query of the
observed frame, built (and so checked: metrics must be aggregates or literals, as Spark
requires) by ``observe`` and run by the first ``get``, whose answer is kept, as Spark keeps
the first action's. The values are Spark's for a frame that reads the same rows each time
and an action that read all of them; an action that stops early (``limit``, ``first``)
would have shown Spark fewer rows, and a frame that draws random values other ones.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol

from sparkwire.planner.api.rows import Row
from sparkwire.planner.errors import AnalysisError


class _Metrics(Protocol):
    """The aggregate of the metrics, as ``observe`` built it."""

    def collect(self) -> list[Row]: ...


class Observation:
    """Named metrics of one DataFrame (``df.observe(observation, *metrics)``), read with
    ``get`` as a dict of each metric's name to its value."""

    def __init__(self, name: str | None = None) -> None:
        if name is not None and not isinstance(name, str):
            raise AnalysisError(f"an Observation's name must be a string, got {type(name).__name__}",
                                condition="NOT_EXPECTED_TYPE",
                                parameters={"arg_name": "name", "expected_type": "str",
                                            "arg_type": type(name).__name__})
        if name == "":
            raise AnalysisError("an Observation's name must not be empty",
                                condition="VALUE_NOT_NON_EMPTY_STR",
                                parameters={"arg_name": "name", "arg_value": name})
        self.name = name if name is not None else str(uuid.uuid4())
        self._metrics: _Metrics | None = None
        self._values: dict[str, Any] | None = None

    def attach(self, metrics: _Metrics) -> None:
        """Observe ``metrics`` (one row of aggregates); an Observation observes one frame."""
        if self._metrics is not None:
            raise AnalysisError("an Observation can be used with one DataFrame only",
                                condition="REUSE_OBSERVATION")
        self._metrics = metrics

    @property
    def get(self) -> dict[str, Any]:
        """The metrics by name, computed at the first ``get`` and kept."""
        if self._metrics is None:
            raise AnalysisError("observe a DataFrame with this Observation before get",
                                condition="NO_OBSERVE_BEFORE_GET")
        if self._values is None:
            self._values = self._metrics.collect()[0].asDict()
        return self._values
