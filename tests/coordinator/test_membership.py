"""A worker reads producer partitions only from the cluster's members: a plan naming any
other address is refused before anything connects, and the coordinator tells workers the
members again when they change."""

from __future__ import annotations

import socket

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.taskplan import InputPartition, Members, TaskPlan, encode_message
from sparkwire.planner.logical.plan import Exchange
from sparkwire.planner.logical.staged import Boundary
from sparkwire.transport.errors import PlanRejected


def _reading_from(address: str) -> bytes:
    source = InputPartition(address=address, stage=0, task=0, partition=0)
    return encode_message(TaskPlan(query_id="q1", stage=1, task=0, fragment=Exchange(stage=0, columns=("a",)),
                                   inputs=(source,), output=Boundary(kind="result")))


@pytest.mark.parametrize("kind", ["zmq", "flight"])
def test_a_plan_naming_a_stranger_is_refused_and_nothing_dials_it(kind: str) -> None:
    """A real listening socket stands in for a service behind the firewall: a worker told
    to read from it refuses the plan, and the socket sees no connection."""
    with socket.create_server(("127.0.0.1", 0)) as bait, Session(workers=1, transport=kind) as session:
        bait.settimeout(0.5)
        session.createDataFrame(pa.table({"a": [1]})).toArrow()  # the members are told
        scheme = "tcp" if kind == "zmq" else "grpc+tls"
        stranger = f"{scheme}://127.0.0.1:{bait.getsockname()[1]}"
        worker = session.cluster.client(session.cluster.addresses[0])
        with pytest.raises(PlanRejected, match="not members of the cluster"):
            worker.deliver(_reading_from(stranger))
        with pytest.raises(TimeoutError):
            bait.accept()
        # a member is fine: the same plan reading from the driver is accepted
        worker.deliver(_reading_from(session.cluster.driver_address))
        worker.cancel("q1")


def test_a_worker_never_told_the_members_refuses_every_input(sparkwire_session: Session) -> None:
    from sparkwire.coordinator.worker.service import Worker
    from sparkwire.transport.memory import MemoryTransport

    with MemoryTransport() as transport:
        worker = Worker("w0", sparkwire_session.settings, transport.connect)
        try:
            address = transport.serve(worker).address
            with pytest.raises(PlanRejected, match="not members"):
                worker.submit(_reading_from(address))
            worker.submit(encode_message(Members(members=(address,))))
            worker.submit(_reading_from(address))
        finally:
            worker.close()


def test_only_the_coordinator_can_redefine_the_membership() -> None:
    """Any member holds the cluster's credentials; a membership notice it sends, unsigned,
    signed by another key, or a genuine one replayed, is refused, and the worker still
    refuses the address it named."""
    from sparkwire.coordinator.membership import MembershipSigner

    with Session(workers=1, transport="zmq") as session:
        assert session.range(4).count() == 4  # the members are told
        stranger = "tcp://127.0.0.1:9"
        worker = session.cluster.client(session.cluster.addresses[0])
        members = (*session.cluster.addresses, session.cluster.driver_address, stranger)
        with pytest.raises(PlanRejected, match="must be signed by the coordinator"):
            worker.deliver(encode_message(Members(members=members)))
        forged = MembershipSigner().notice(members).model_copy(update={"sequence": 2**40})
        with pytest.raises(PlanRejected, match="not signed by the coordinator"):
            worker.deliver(encode_message(forged))
        tampered = session.cluster.membership.notice(members[:-1])
        tampered = tampered.model_copy(update={"members": members})
        with pytest.raises(PlanRejected, match="not signed by the coordinator"):
            worker.deliver(encode_message(tampered))
        genuine = session.cluster.membership.notice(members[:-1])
        worker.deliver(encode_message(genuine))
        with pytest.raises(PlanRejected, match="older than the last one taken"):
            worker.deliver(encode_message(genuine))  # replayed
        with pytest.raises(PlanRejected, match="not members of the cluster"):
            worker.deliver(_reading_from(stranger))
        assert session.range(5).count() == 5


@pytest.mark.slow
def test_a_replaced_worker_is_told_the_new_members(tmp_path) -> None:
    """After a worker process dies and is replaced under a new address, every worker hears
    of it before the next query places a task, so shuffles across the new member work."""
    import os
    import signal

    with Session(workers=2, transport="zmq", task_bytes=0, broadcast_threshold=0) as session:
        left = session.createDataFrame(pa.table({"k": list(range(100)), "v": list(range(100))}))
        right = session.createDataFrame(pa.table({"k": list(range(0, 200, 2)), "w": list(range(100))}))

        def joined() -> int:
            return left.join(right, "k").count()

        assert joined() == 50
        os.kill(session.cluster.announcements[1].pid, signal.SIGKILL)
        session.cluster._procs[1].wait(10)
        assert joined() == 50
        assert session.cluster.alive() == [True, True]
