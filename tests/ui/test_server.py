"""The live UI over HTTP, against the real server of a real session (``Session(ui=True)``):
queries, stages and tasks in ``/api``, ``/metrics`` read by Prometheus' own parser, live
events while a query runs, the token rules, the client bound, and nothing left after stop.
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from prometheus_client.parser import text_string_to_metric_families

from sparkwire import Session
from sparkwire import functions as F
from sparkwire.coordinator.config import UiSettings, load_settings
from sparkwire.coordinator.ui import Recorder, UiServer
from sparkwire.transport.errors import ConfigError, SparkwireError
from sparkwire.transport.security import write_private
from sparkwire.transport.tls import CLUSTER_SERVER_NAME, throwaway
from tests.ui.test_recorder import run_query

TABLE = pa.table({"k": [i % 5 for i in range(200)], "v": list(range(200))})


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with Session(workers=2, ui=True) as session:
        yield session


def get(url: str, headers: dict[str, str] | None = None) -> Any:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
        body = r.read()
        return json.loads(body) if r.headers["Content-Type"] == "application/json" else body.decode()


def run_grouped(session: Session) -> pa.Table:
    df = session.createDataFrame(TABLE)
    return df.groupBy("k").agg(F.sum("v").alias("s")).orderBy("k").toArrow()


def test_a_query_run_shows_with_its_stages_and_tasks(session: Session) -> None:
    result = run_grouped(session)
    metrics = session.last_metrics
    assert metrics is not None and session.ui_url is not None
    listed = get(session.ui_url + "api/queries")
    assert metrics.query_id in [q["id"] for q in listed]
    query = get(session.ui_url + f"api/query/{metrics.query_id}")
    assert query["state"] == "finished" and query["error"] is None
    # the coordinator's own count of the query is the oracle: per stage, tasks, rows, bytes
    assert [(s["id"], s["boundary"], s["tasks"], s["done"], s["rows"], s["bytes"])
            for s in query["stages"]] == [
        (m.stage, m.boundary, m.tasks, m.done, m.rows, m.bytes) for m in metrics.stages.values()]
    assert query["stages"][-1]["rows"] == result.num_rows
    assert query["bytes_in"] == dict(metrics.bytes_in)
    by_route: dict[str, int] = {}  # the edges' bytes, by route, are all the query read
    for edge in query["edges"]:
        by_route[edge["route"]] = by_route.get(edge["route"], 0) + edge["bytes"]
        assert edge["producer"] in query["stages"][edge["consumer"]]["inputs"]
    assert by_route == dict(metrics.bytes_in)
    assert len(query["task_runs"]) == sum(m.tasks for m in metrics.stages.values())
    assert {t["worker"] for t in query["task_runs"]} == set(metrics.tasks_per_worker)
    assert all(t["delivered"] <= t["ended"] and t["started"] <= t["ended"] for t in query["task_runs"])
    page = get(session.ui_url + f"query/{metrics.query_id}")
    assert 'id="gantt"' in page and "/app.js" in page
    workers = get(session.ui_url + "api/workers")
    assert {w["name"] for w in workers} == {*session.cluster.names.values()}
    assert all((w["live"], w["open"], w["queued"], w["losses"]) == (True, 0, 0, 0) for w in workers)
    assert {(w["slots"], w["memory_bound"]) for w in workers} == {
        (session.settings.worker.task_slots, int(session.settings.worker.memory))}


def test_a_joins_strategy_and_why_show_with_its_stage(session: Session) -> None:
    small = session.createDataFrame(pa.table({"k": [1, 2], "name": ["a", "b"]}))
    df = session.createDataFrame(TABLE).join(small, "k")
    planned = [note for stage in df.staged_plan().stages for note in stage.notes if " join: " in note]
    assert planned  # the planner's own words are the oracle
    df.toArrow()
    assert session.ui_url is not None and session.last_metrics is not None
    query = get(session.ui_url + f"api/query/{session.last_metrics.query_id}")
    assert [n for s in query["stages"] for n in s["notes"] if " join: " in n] == planned


def test_a_failed_query_shows_its_error(session: Session) -> None:
    df = session.createDataFrame(TABLE).select((F.col("v") / F.lit(0)).alias("q"))
    with pytest.raises(SparkwireError) as raised:
        df.toArrow()
    assert session.ui_url is not None
    failed = [q for q in get(session.ui_url + "api/queries") if q["state"] == "failed"]
    assert len(failed) == 1
    assert str(raised.value) in failed[0]["error"]


def test_metrics_parse_and_count_what_ran(session: Session) -> None:
    run_grouped(session)
    assert session.ui_url is not None
    before = get(session.ui_url + "api/queries")
    families = {f.name: f for f in text_string_to_metric_families(get(session.ui_url + "metrics"))}
    by_state = {s.labels["state"]: s.value for s in families["sparkwire_queries"].samples
                if s.name == "sparkwire_queries_total"}
    assert by_state["finished"] == sum(q["state"] == "finished" for q in before)
    assert by_state["failed"] == sum(q["state"] == "failed" for q in before)
    succeeded = families["sparkwire_tasks_succeeded"].samples[0].value
    assert succeeded == sum(q["done"] for q in before)
    assert {"sparkwire_bytes_out", "sparkwire_spill_bytes", "sparkwire_task_reruns",
            "sparkwire_tasks_failed", "sparkwire_bytes_in", "sparkwire_queries_running"} <= set(families)
    # per worker: the same rows as the workers page, the tasks adding up to the total
    workers = {w["name"]: w for w in get(session.ui_url + "api/workers")}
    for family, key in (("sparkwire_worker_tasks", "tasks"), ("sparkwire_worker_slots", "slots"),
                        ("sparkwire_worker_bytes_out", "bytes_out"), ("sparkwire_worker_live", "live"),
                        ("sparkwire_worker_memory_bound_bytes", "memory_bound")):
        assert {s.labels["worker"]: s.value for s in families[family].samples
                if not s.name.endswith("_created")} == {n: int(w[key]) for n, w in workers.items()}
    assert sum(w["tasks"] for w in workers.values()) == succeeded
    assert sum(w["bytes_out"] for w in workers.values()) == families["sparkwire_bytes_out"].samples[0].value


def test_live_events_arrive_while_a_query_runs(session: Session) -> None:
    assert session.ui is not None
    host, port = str(session.ui.server_address[0]), session.ui.server_address[1]
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.request("GET", "/api/events")
    response = connection.getresponse()
    assert response.status == 200 and response.headers["Content-Type"] == "text/event-stream"
    seen: list[dict[str, Any]] = []

    def read() -> None:
        event = None
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: ") and event == "query":
                seen.append(json.loads(line.removeprefix("data: ")))
                if seen[-1]["state"] != "running":
                    return

    reader = threading.Thread(target=read)
    reader.start()
    run_grouped(session)
    reader.join(10)
    connection.close()
    assert not reader.is_alive()
    metrics = session.last_metrics
    assert metrics is not None
    mine = [row for row in seen if row["id"] == metrics.query_id]
    assert mine[0]["state"] == "running" and mine[-1]["state"] == "finished"


def test_off_loopback_without_a_token_is_refused() -> None:
    before = set(threading.enumerate())
    with pytest.raises(ConfigError, match="refusing to serve the UI on 0.0.0.0 without a token"):
        Session(settings=load_settings(workers=1, ui={"host": "0.0.0.0", "port": 0}))
    # the cluster the session had made is closed again: none of its threads is left
    assert [t.name for t in set(threading.enumerate()) - before if t.is_alive()] == []
    with pytest.raises(ConfigError, match="at least 16 bytes"):
        UiServer(UiSettings(host="0.0.0.0", token="short"), Recorder(UiSettings()), list)


def test_off_loopback_without_tls_is_refused() -> None:
    """A token alone is not enough off loopback: it would cross the network in the clear.
    Refused before anything binds (no address but loopback is ever bound in these tests)."""
    with pytest.raises(ConfigError, match="refusing to serve the UI on 0.0.0.0 without TLS"):
        UiServer(UiSettings(host="0.0.0.0", token="a-token-of-enough-bytes"), Recorder(UiSettings()), list)


def test_without_a_token_only_a_loopback_host_name_is_served(session: Session) -> None:
    """A page on another site whose name was re-pointed at 127.0.0.1 (DNS rebinding)
    sends its own name as Host: refused."""
    assert session.ui_url is not None
    assert get(session.ui_url + "api/workers", {"Host": "localhost"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        get(session.ui_url + "api/workers", {"Host": "attacker.example:80"})
    assert refused.value.code == 401


def test_a_token_is_asked_for() -> None:
    token = "a-token-of-enough-bytes"
    with UiServer(UiSettings(port=0, token=token), Recorder(UiSettings()), list).start() as server:
        with pytest.raises(urllib.error.HTTPError) as refused:
            get(server.url + "api/queries")
        assert refused.value.code == 401
        assert get(server.url + "api/queries", {"Authorization": f"Bearer {token}"}) == []
        with urllib.request.urlopen(server.url + f"?token={token}", timeout=10) as page:
            cookie = page.headers["Set-Cookie"].split(";")[0]
        assert get(server.url + "api/workers", {"Cookie": cookie}) == []


def test_a_client_past_the_bound_is_refused_at_once() -> None:
    token = "a-token-of-enough-bytes"
    with UiServer(UiSettings(port=0, token=token, max_clients=1), Recorder(UiSettings()), list).start() as server:
        host, port = str(server.server_address[0]), server.server_address[1]
        stream = http.client.HTTPConnection(host, port, timeout=10)
        stream.request("GET", "/api/events", headers={"Authorization": f"Bearer {token}"})
        assert stream.getresponse().status == 200  # holds the one slot
        with pytest.raises(urllib.error.HTTPError) as busy:
            get(server.url + "api/queries", {"Authorization": f"Bearer {token}"})
        assert busy.value.code == 503
        stream.close()


def test_nothing_is_left_after_the_session_stops() -> None:
    before = set(threading.enumerate())
    session = Session(workers=1, ui=True)
    assert session.ui is not None and session.ui_url is not None
    host, port = str(session.ui.server_address[0]), session.ui.server_address[1]
    stream = http.client.HTTPConnection(host, port, timeout=10)
    stream.request("GET", "/api/events")  # a live stream the close must end
    assert stream.getresponse().status == 200
    session.stop()
    session.stop()  # twice is safe
    stream.close()
    with pytest.raises(OSError):
        socket.create_connection((host, port), timeout=2).close()
    assert [t.name for t in set(threading.enumerate()) - before
            if t.name == "sparkwire-ui" or "process_request_thread" in t.name] == []


def _https_get(server: UiServer, path: str, context: ssl.SSLContext, token: str) -> http.client.HTTPResponse:
    """``path`` over TLS, the server's certificate checked against ``context`` and the name
    the throwaway certificate is issued to (not 127.0.0.1's)."""
    host, port = str(server.server_address[0]), server.server_address[1]
    raw = socket.create_connection((host, port), timeout=10)
    tls = context.wrap_socket(raw, server_hostname=CLUSTER_SERVER_NAME)
    tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
                "Connection: close\r\n\r\n".encode())
    response = http.client.HTTPResponse(tls)
    response.begin()
    return response


def test_tls_serves_https_only(tmp_path: Path) -> None:
    """With ``ui.tls_cert``/``ui.tls_key`` a client that trusts the certificate gets the
    JSON and a ``Secure`` cookie over HTTPS; plain HTTP and a client that does not trust it
    get nothing, and the server goes on serving, while a client that never finishes a
    handshake waits on its own thread. A key others may read is refused."""
    material = throwaway()
    cert, key, ca = tmp_path / "ui.pem", tmp_path / "ui.key", tmp_path / "ca.pem"
    cert.write_bytes(material.cert)
    ca.write_bytes(material.ca)
    write_private(key, material.key)
    token = "a-token-of-enough-bytes"
    settings = UiSettings(port=0, token=token, tls_cert=cert, tls_key=key)
    recorder = Recorder(settings)
    run_query(recorder, "q1")
    with UiServer(settings, recorder, list).start() as server:
        assert server.url.startswith("https://127.0.0.1:")
        with pytest.raises((http.client.HTTPException, OSError)):  # plain HTTP: no page
            get(server.url.replace("https://", "http://") + "api/queries")
        with pytest.raises(ssl.SSLCertVerificationError):  # the system's roots do not sign it
            _https_get(server, "/api/queries", ssl.create_default_context(), token)
        trusting = ssl.create_default_context(cafile=str(ca))
        # a client that connects and never says hello holds one request thread, not accept
        idle = socket.create_connection((str(server.server_address[0]), server.server_address[1]), timeout=10)
        response = _https_get(server, "/api/queries", trusting, token)
        assert response.status == 200
        assert [q["id"] for q in json.loads(response.read())] == ["q1"]
        page = _https_get(server, f"/?token={token}", trusting, token)
        assert page.status == 200 and page.headers["Set-Cookie"].endswith("; Secure")
        idle.close()
    key.chmod(0o644)
    with pytest.raises(ConfigError, match="owner only"):
        UiServer(settings, recorder, list)
    with pytest.raises(ValueError, match="go together"):
        UiSettings(tls_cert=cert)
