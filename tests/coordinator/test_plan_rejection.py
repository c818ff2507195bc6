"""Task plans arriving with anything outside the models are refused and nothing runs."""

from __future__ import annotations

import json

import pytest

from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.taskplan import (
    MAX_MEMBERS, InputPartition, Members, TaskPlan, encode_message, encode_tasks,
)
from sparkwire.coordinator.worker.service import Worker
from sparkwire.planner.logical.expressions import Call, Column, Lit
from sparkwire.planner.limits import (
    MAX_IN_LIST, MAX_INPUTS, MAX_PARTITIONS, MAX_PLAN_DEPTH, MAX_PLAN_NODES, MAX_STAGES, MAX_TASKS,
)
from sparkwire.planner.logical.plan import Exchange, Filter
from sparkwire.planner.logical.staged import Boundary
from sparkwire.transport.errors import PlanRejected
from sparkwire.transport.memory import MemoryTransport


def valid_plan() -> dict:
    fragment = Filter(input=Exchange(stage=0, columns=("a",)),
                      predicate=Call(fn="gt", args=(Column(name="a"), Lit(value=1))))
    source = InputPartition(address="mem://elsewhere", stage=0, task=0, partition=0)
    plan = TaskPlan(query_id="q1", stage=1, task=0, fragment=fragment, inputs=(source,),
                    output=Boundary(kind="result"))
    return json.loads(encode_message(plan))


def nested(depth: int) -> dict:
    expr: dict = {"kind": "column", "name": "a"}
    for _ in range(depth):
        expr = {"kind": "call", "fn": "neg", "args": [expr]}
    return expr


def mutate(path: list, value: object) -> bytes:
    plan = valid_plan()
    node = plan
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return json.dumps(plan).encode()


CASES = {
    "unknown operator": (mutate(["fragment", "op"], "shell"), "fragment"),
    "function outside the allow-list": (mutate(["fragment", "predicate", "fn"], "read_csv"), "fn"),
    "wrongly typed field": (mutate(["stage"], "one"), "stage"),
    "identifier breaking out of quoting": (
        mutate(["fragment", "input", "columns"], ['a" FROM x; DROP TABLE y; --']), "quote"),
    "nesting past the limit": (mutate(["fragment", "predicate"], nested(MAX_PLAN_DEPTH)), "depth"),
    "unknown field": (mutate(["extra"], 1), "extra"),
    "future version": (mutate(["version"], 99), "version"),
    "not JSON": (b"\x00\x01 not json", "JSON"),
    "bad query id": (mutate(["query_id"], "../../etc"), "query_id"),
    "an unknown time zone": (mutate(["time_zone"], "Mars/Olympus"), "time_zone"),
    "a time zone that is a path": (mutate(["time_zone"], "../../../etc/passwd"), "time_zone"),
    "an offset past 18 hours": (mutate(["time_zone"], "+19:00"), "time_zone"),
    "a zone argument outside the zones": (mutate(["fragment", "predicate"], {
        "kind": "call", "fn": "from_utc_timestamp",
        "args": [{"kind": "column", "name": "a"}, {"kind": "literal", "value": "'; DROP TABLE t; --"}],
    }), "unknown time zone"),
    "a read stage without inputs": (mutate(["inputs"], []), "reads stages"),
    "a boolean for the version": (mutate(["version"], True), "version"),
    "a float for an integer": (mutate(["stage"], 1.0), "stage"),
    "a string for a number": (mutate(["fragment", "input", "stage"], "0"), "stage"),
    "partitions past the limit": (mutate(["output", "partitions"], MAX_PARTITIONS + 1), "partitions"),
    "a task index past the limit": (mutate(["task"], MAX_TASKS), "task"),
    "a stage id past the limit": (mutate(["stage"], MAX_STAGES), "stage"),
    "too many inputs": (mutate(["inputs"], [valid_plan()["inputs"][0]] * (MAX_INPUTS + 1)), "inputs"),
    "an IN list past the limit": (mutate(["fragment", "predicate"], {
        "kind": "call", "fn": "in",
        "args": [{"kind": "column", "name": "a"}, *([{"kind": "literal", "value": 1}] * (MAX_IN_LIST + 1))],
    }), "args"),
    "more nodes than the limit, each shallow": (mutate(["fragment", "predicate"], {
        "kind": "call", "fn": "and", "args": [{"kind": "column", "name": "a"}] * MAX_PLAN_NODES,
    }), "nodes"),
    "inputs from a stage not read": (mutate(["inputs", 0, "stage"], 3), "reads stages"),
    "a producer that is not a member": (mutate(["inputs", 0, "address"], "tcp://10.1.2.3:22"),
                                        "not members of the cluster"),
    "members of the wrong type": (json.dumps({"version": 1, "kind": "members", "members": "mem://x"}).encode(),
                                  "members"),
    "a batch with one bad plan among good ones": (encode_tasks(
        [json.dumps(valid_plan()).encode(), mutate(["stage"], "one"), json.dumps(valid_plan()).encode()]),
        "plans.1.stage"),
    "a batch whose plans are not a list": (b'{"version": 1, "kind": "tasks", "plans": {"a": 1}}', "plans"),
    "an empty batch": (encode_tasks([]), "plans"),
    "a kind that is a list": (b'{"version": 1, "kind": ["tasks"], "plans": []}', "invalid task plan"),
    "a batched plan nesting past the limit": (
        encode_tasks([mutate(["fragment", "predicate"], nested(MAX_PLAN_DEPTH))]), "depth"),
    "more members than the limit": (encode_message(Members(members=("mem://x",))).replace(
        b'["mem://x"]', json.dumps(["mem://x"] * (MAX_MEMBERS + 1)).encode()), "members"),
}


@pytest.fixture
def worker_client():
    transport = MemoryTransport()
    worker = Worker("w0", load_settings(workers=1), transport.connect)
    server = transport.serve(worker)
    client = transport.connect(server.address)
    client.deliver(encode_message(Members(members=("mem://elsewhere",))))
    yield worker, client
    client.close()
    worker.close()
    transport.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_plan_is_refused_and_nothing_runs(worker_client, case):
    worker, client = worker_client
    data, needle = CASES[case]
    with pytest.raises(PlanRejected, match=needle):
        client.deliver(data)
    assert worker.store.partitions_held() == 0
    assert len(worker._queue) == 0 and not worker._running and not worker.completed


def test_the_valid_plan_is_accepted(worker_client):
    worker, client = worker_client
    client.deliver(json.dumps(valid_plan()).encode())
    assert worker.store.partitions_held() == 1  # its result partition


def test_a_batch_queues_its_plans_in_order(worker_client):
    worker, client = worker_client
    plans = [valid_plan() for _ in range(3)]
    for task, plan in enumerate(plans):
        plan["task"] = task
    client.deliver(encode_tasks([json.dumps(plan).encode() for plan in plans]))
    assert worker.store.partitions_held() == 3
    assert [t.plan.task for t in worker._queue.close()] == [0, 1, 2]
