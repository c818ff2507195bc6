"""``QueryCoordinator``: the calls to a cluster's workers that every query shares, and the
entry point that runs a staged plan (``execute``) as an ``execution.QueryResult``.

It owns what outlives one query: the fan-out of calls to the workers (``delivery.FanOut``),
the status channel the driver feeds (``status.StatusChannel``), what each worker was told of
the membership, and the query-wide cancel. A worker lost while a query's plans are first
delivered starts that query over under a new id; later losses are the query's to recover.
Nothing here knows which transport carries the calls.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

from sparkwire.coordinator import delivery
from sparkwire.coordinator.adaptive import Policy, barriers
from sparkwire.coordinator.clusters.base import Cluster
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.execution import QueryResult
from sparkwire.coordinator.metrics import Progress, QueryObserver
from sparkwire.coordinator.scheduler import Scheduler
from sparkwire.coordinator.status import StatusChannel
from sparkwire.coordinator.taskplan import MAX_ATTEMPTS, Members, encode_message
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import (PlanRejected, QueryError, SparkwireError, TaskFailed,
                                       Timeout, TransportError)

# Failures that running again cannot cure, whether or not a worker was lost meanwhile: a
# task that failed on its data or plan, a plan a worker refused. No wait for news of a loss.
_FINAL = (QueryError, PlanRejected)


class QueryCoordinator(Closeable):
    """Runs queries on ``cluster``: the calls to its workers (``delivery.FanOut``) and the
    status channel its driver feeds (``status.StatusChannel``), shared by every query."""

    def __init__(self, cluster: Cluster, settings: Settings) -> None:
        self.cluster = cluster
        self.settings = settings
        self._members_lock = threading.Lock()
        # What each worker was last told of the membership, and the cluster's losses then.
        self._told: dict[str, tuple[frozenset[str], int]] = {}
        # The queries not closed yet, with their job tags: what ``interrupt`` may stop.
        self._running: dict[str, tuple[QueryResult, frozenset[str]]] = {}
        self._running_lock = threading.Lock()
        self._calls = delivery.FanOut()
        #: Told what every query on this cluster does (``coordinator.ui``); None: nobody.
        self.observer: QueryObserver | None = None
        self.statuses = StatusChannel(cluster.losses, shutdown=settings.timeouts.shutdown)
        cluster.driver.take_statuses(self.statuses.put)

    def execute(self, plan: StagedPlan, progress: Progress | None = None,
                tags: frozenset[str] = frozenset()) -> QueryResult:
        """Run ``plan``, under the caller's job ``tags`` (``interrupt``). A worker lost while
        the plans are being delivered means starting over under a new query id (nothing has
        run that matters yet); once started, losses are recovered task by task
        (``QueryResult``)."""
        for start in range(1, MAX_ATTEMPTS + 1):
            losses = self.cluster.losses()
            policy = self.policy()
            held = barriers(plan, policy) if policy is not None else None
            scheduler = Scheduler(plan, self.live_workers(), self.cluster.driver_address, held)
            result = QueryResult(self, uuid.uuid4().hex[:16], plan, scheduler, progress, losses,
                                 policy, tags)
            with self._running_lock:  # from before it starts: starting can take the whole query
                self._running[result.query_id] = (result, tags)
            try:
                result.start()
            except SparkwireError as exc:
                result.close()
                if isinstance(exc, _FINAL) or start == MAX_ATTEMPTS or not result.worker_lost():
                    raise
                continue
            except BaseException:
                result.close()
                raise
            return result
        raise AssertionError("unreachable")

    def policy(self) -> Policy | None:
        """What adaptive execution reads of the settings; None when it is off."""
        s = self.settings
        if not s.adaptive:
            return None
        return Policy(task_bytes=s.task_bytes, broadcast_threshold=s.broadcast_threshold,
                      skew_factor=s.skew_factor, skew_bytes=s.skew_bytes)

    def deliver(self, address: str, message: Members | bytes, what: str) -> None:
        """Deliver a notice, or an encoded message, to the worker at ``address``."""
        data = message if isinstance(message, bytes) else encode_message(message)
        try:
            self.cluster.client(address).deliver(data)
        except (TransportError, Timeout) as exc:
            name = self.cluster.names.get(address, address)
            raise TaskFailed(f"cannot deliver {what} to worker {name} ({address}): {exc}") from exc

    def deliver_each(self, messages: dict[str, list[tuple[bytes, str]]]) -> None:
        """Each worker's messages, in order, to all workers at once (``FanOut.at_once``)."""
        def deliver(address: str) -> None:
            for message, what in messages[address]:
                self.deliver(address, message, what)

        self._calls.at_once(list(messages), deliver)

    def _tell_members(self) -> None:
        """Tell each live worker the cluster's members (``taskplan.Members``) when they
        changed since it was last told: a worker reads producer partitions from members only."""
        members = frozenset([*self.cluster.addresses, self.cluster.driver_address])
        told = (members, self.cluster.losses())
        dead = set(self.cluster.dead())
        signer, names = self.cluster.membership, tuple(sorted(members))
        with self._members_lock:
            for address in self.cluster.addresses:
                if address not in dead and self._told.get(address) != told:
                    notice = signer.notice(names) if signer is not None else Members(members=names)
                    self.deliver(address, notice, "the members")
                    self._told[address] = told
            for gone in self._told.keys() - members:
                del self._told[gone]

    def live_workers(self) -> list[str]:
        """Replace the workers the cluster can, tell every worker the members; the live
        ones. Before a query, and after a loss."""
        self.cluster.ensure_workers()
        self._tell_members()
        dead = set(self.cluster.dead())
        return [address for address in self.cluster.addresses if address not in dead]

    def interrupt(self, chosen: Callable[[str, frozenset[str]], bool],
                  reason: Callable[[str], str]) -> list[str]:
        """Interrupt the running queries ``chosen(query_id, tags)`` picks (PySpark's
        ``interruptAll``/``interruptTag``/``interruptOperation``); the ids of those that were
        still running. Each fails with ``QueryCancelled`` and is cancelled on every worker."""
        with self._running_lock:
            picked = [result for query_id, (result, tags) in self._running.items()
                      if chosen(query_id, tags)]
        return [result.query_id for result in picked
                if result.interrupt(reason(result.query_id))]

    def finished(self, query_id: str) -> None:
        """The query closed: it can no longer be interrupted."""
        with self._running_lock:
            self._running.pop(query_id, None)

    def cancel(self, query_id: str) -> None:
        """Cancel the query on every worker and the driver at once, waiting at most the
        ``cancel`` timeout: one round trip for all, where it was one per worker in turn at the
        end of every query. A worker that cannot be reached, or is slow to answer, holds up
        none of the others and is left behind (logged): it is dead, or its cancel arrives
        late and frees the query's partitions then."""
        self._calls.within([*self.cluster.addresses, self.cluster.driver_address],
                           lambda address: self.cluster.client(address).cancel(query_id),
                           self.settings.timeouts.cancel)

    def close(self) -> None:
        """Stop the status channel and the calls' threads; idempotent. Queries still open
        cancel on the caller's thread from then on."""
        self.statuses.close()
        self._calls.close()
