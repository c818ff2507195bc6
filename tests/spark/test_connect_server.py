"""The Spark Connect server's own rules, through the stock PySpark remote client: who may
call (a bearer token; TLS, which off loopback is required) and the client sessions (each
its own views and config, bounded, released by ``spark.stop()``).

TLS is tested with a real TLS server on loopback, its certificate a throwaway CA's made
for the test; the stock client trusts only the system's roots, so the one change to it is
a channel builder trusting that CA (its connection string, token and all, is parsed by
PySpark's own builder).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import duckdb
import grpc
import pyarrow as pa
import pytest

from sparkwire.connect import ConnectServer, serve
from sparkwire.coordinator import Session
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.security import Security

TOKEN = "a-token-of-at-least-sixteen-bytes"
NUMBERS = pa.table({"n": pa.array([3, 1, 4, 1, 5, 9, 2, 6], pa.int64())})


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with Session(workers=1) as made:
        yield made


@pytest.fixture(scope="module")
def tls_server(session: Session) -> Iterator[ConnectServer]:
    with serve(session, security=Security(secret=TOKEN)) as running:
        yield running


def _client(server: ConnectServer, params: str = "", trust: bool = True) -> Any:
    """A stock remote session on ``server``: ``params`` added to the connection string;
    ``trust``: trusting the server's CA (a TLS server only), else the stock builder as is."""
    from pyspark.sql.connect.client import DefaultChannelBuilder
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    url = f"sc://{server.host}:{server.port}/" + params
    if not (trust and server.tls):
        return RemoteSession.builder.remote(url).create()

    class Trusting(DefaultChannelBuilder):  # type: ignore[misc]
        def toChannel(self) -> grpc.Channel:  # noqa: N802 - PySpark's name
            assert server.tls_roots is not None
            credentials = grpc.ssl_channel_credentials(root_certificates=server.tls_roots)
            if self.token is not None:
                credentials = grpc.composite_channel_credentials(
                    credentials, grpc.access_token_call_credentials(self.token))
            return self._secure_channel(self.endpoint, credentials)

    builder = Trusting(url, channelOptions=[("grpc.ssl_target_name_override", server.server_name)])
    return RemoteSession.builder.channelBuilder(builder).create()


def _total(client: Any) -> int:
    return int(client.createDataFrame(NUMBERS).selectExpr("sum(n * n) AS s").collect()[0]["s"])


def _refusal(client: Any) -> Any:
    """The exception the client's first call raises, its retries off."""
    from pyspark.errors.exceptions.connect import SparkConnectGrpcException

    client.client.set_retry_policies([])
    try:
        with pytest.raises(SparkConnectGrpcException) as caught:
            _total(client)
    finally:
        client.client.close()
    return caught.value


EXPECTED = duckdb.sql("SELECT sum(n * n) FROM NUMBERS").fetchall()[0][0]


def test_tls_with_the_right_token_runs(tls_server: ConnectServer) -> None:
    assert tls_server.address.endswith(";use_ssl=true")
    client = _client(tls_server, f";use_ssl=true;token={TOKEN}")
    try:
        assert _total(client) == EXPECTED
    finally:
        client.stop()


@pytest.mark.parametrize("params", [";use_ssl=true;token=wrong-token-wrong-token", ";use_ssl=true"],
                         ids=["wrong token", "no token"])
def test_a_wrong_or_missing_token_is_unauthenticated(tls_server: ConnectServer, params: str) -> None:
    refused = _refusal(_client(tls_server, params))
    assert refused.getGrpcStatusCode() == grpc.StatusCode.UNAUTHENTICATED
    assert "token" in str(refused)


def test_a_plain_connection_to_a_tls_server_is_refused(tls_server: ConnectServer) -> None:
    refused = _refusal(_client(tls_server, trust=False))  # sc://127.0.0.1:PORT/: no TLS
    assert refused.getGrpcStatusCode() == grpc.StatusCode.UNAVAILABLE


def test_on_loopback_without_tls_a_token_is_still_checked(session: Session) -> None:
    with serve(session, security=Security(secret=TOKEN, tls=False)) as server:
        assert server.host == "localhost" and not server.tls  # gRPC's local credentials
        client = _client(server, f";token={TOKEN}")
        try:
            assert _total(client) == EXPECTED
        finally:
            client.stop()
        refused = _refusal(_client(server, ";token=wrong-token-wrong-token"))
        assert refused.getGrpcStatusCode() == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize(("security", "match"), [
    (None, "without security"),
    (Security(enabled=False), "without security"),
    (Security(secret=TOKEN, tls=False), "without TLS"),
    (Security(tls=True), "token"),
], ids=["none", "off", "token without TLS", "TLS without token"])
def test_off_loopback_it_refuses_to_start_without_token_and_tls(
        session: Session, security: Security | None, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        serve(session, host="0.0.0.0", security=security)


@pytest.fixture(scope="module")
def plain_server(session: Session) -> Iterator[ConnectServer]:
    with serve(session) as running:
        yield running


def test_each_client_session_has_its_own_views_and_config(plain_server: ConnectServer) -> None:
    from pyspark.errors import AnalysisException

    one, two = _client(plain_server), _client(plain_server)
    try:
        one.createDataFrame(NUMBERS).createOrReplaceTempView("numbers")
        one.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        two.conf.set("spark.sql.session.timeZone", "America/Lima")
        assert one.conf.get("spark.sql.session.timeZone") == "Asia/Tokyo"
        assert one.sql("SELECT sum(n * n) AS s FROM numbers").collect()[0]["s"] == EXPECTED
        with pytest.raises(AnalysisException):
            two.sql("SELECT * FROM numbers").columns
        assert len(plain_server.service.sessions) == 2
    finally:
        one.stop()
        two.stop()
    assert len(plain_server.service.sessions) == 0  # stop() released both


def test_a_session_beyond_the_maximum_is_refused_until_one_stops(session: Session) -> None:
    with serve(session, sessions=1) as server:
        first = _client(server)
        assert _total(first) == EXPECTED
        refused = _refusal(_client(server))
        assert refused.getGrpcStatusCode() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "maximum of 1 sessions" in str(refused)
        first.stop()
        second = _client(server)
        assert _total(second) == EXPECTED
        second.stop()


def test_an_idle_session_is_closed_and_its_id_refused(session: Session) -> None:
    with serve(session, idle_s=0.2) as server:
        idle = _client(server)
        assert _total(idle) == EXPECTED
        time.sleep(0.3)
        other = _client(server)
        assert _total(other) == EXPECTED  # the server looks for idle sessions on any call
        assert len(server.service.sessions) == 1
        refused = _refusal(idle)
        assert refused.getCondition() == "INVALID_HANDLE.SESSION_CLOSED"
        other.stop()


def test_a_relation_is_translated_once_while_its_session_stays_as_it_was(session: Session) -> None:
    """``ClientSession.frame``: the same relation (same plan id and bytes) is the same frame,
    until a ``conf.set``, a view or a persisted frame could change its meaning; one without
    a plan id (two DataFrames built alike) is translated apart; at most ``MOST_TRANSLATED``."""
    from pyspark.sql.connect.proto import relations_pb2 as rel

    from sparkwire.coordinator.connect.operations import Operations
    from sparkwire.coordinator.connect.sessions import ClientSession
    from sparkwire.coordinator.connect.translated import MOST_TRANSLATED

    def numbered(plan_id: int) -> rel.Relation:
        return rel.Relation(common=rel.RelationCommon(plan_id=plan_id), range=rel.Range(end=3, step=1))

    with session.newSession() as own:
        client = ClientSession(own, Operations(own))
        first = client.frame(numbered(1))
        assert client.frame(numbered(1)) is first
        unnumbered = rel.Relation(range=rel.Range(end=3, step=1))
        assert client.frame(unnumbered) is not client.frame(unnumbered)
        own.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        after_conf = client.frame(numbered(1))
        assert after_conf is not first and client.frame(numbered(1)) is after_conf
        own.createDataFrame(NUMBERS).createOrReplaceTempView("numbers")
        assert client.frame(numbered(1)) is not after_conf
        for plan_id in range(2, MOST_TRANSLATED + 2):
            client.frame(numbered(plan_id))
        assert len(client.translated) == MOST_TRANSLATED
        assert client.frame(numbered(2)) is client.frame(numbered(2))
        assert [r["id"] for r in client.frame(numbered(1)).collect()] == [0, 1, 2]


def test_a_frame_run_again_sees_the_views_and_config_of_now(plain_server: ConnectServer) -> None:
    """A client DataFrame run twice is analyzed again by Spark's server, so a view replaced
    or a time zone set in between is seen; the kept translation must not hide either."""
    from pyspark.sql.connect import functions as F

    client = _client(plain_server)
    try:
        client.createDataFrame(NUMBERS).createOrReplaceTempView("numbers")
        df = client.table("numbers").selectExpr("sum(n * n) AS s")
        zone = client.range(1).select(F.current_timezone().alias("z"))
        assert df.collect()[0]["s"] == EXPECTED
        assert zone.collect()[0]["z"] == client.conf.get("spark.sql.session.timeZone")
        fewer = NUMBERS.slice(0, 2)
        client.createDataFrame(fewer).createOrReplaceTempView("numbers")
        client.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
        assert df.collect()[0]["s"] == duckdb.sql("SELECT sum(n * n) FROM fewer").fetchall()[0][0]
        assert zone.collect()[0]["z"] == "Asia/Tokyo"
    finally:
        client.stop()
