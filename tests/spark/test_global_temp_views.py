"""Global temporary views (issue 35) against real PySpark: ``createGlobalTempView`` and
``createOrReplaceGlobalTempView``, reading ``global_temp.v`` by ``table`` and SQL (never
unqualified), the catalog's answers for ``global_temp`` (listings, existence, columns,
caching, drops, the database that is none), ``spark.sql.globalTempDatabase``, and the views
shared by a session and the sessions made from it, through Spark Connect too.

Every answer, result or error condition with its parameters, is PySpark's; each engine gets
the same calls in the same order. Names start with ``gt_``: the sessions are shared with
other modules, and every view made here is dropped before the test ends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from tests.spark.compare import Remote

pytestmark = pytest.mark.connect  # the Spark Connect client is the third engine (compare.Remote)

DATA = pa.table({"x": pa.array([1, None, 3], pa.int32()), "s": ["a", "", None]})
OTHER = pa.table({"x": pa.array([7], pa.int32()), "s": ["z"]})

Call = Callable[[Any], Any]


def _answer(call: Call, engine: Any) -> Any:
    """What ``call`` gives on ``engine``, made comparable: rows (sorted, as tuples), a list of
    the catalog's named tuples (as tuples), a value, or an error's condition and parameters."""
    try:
        got = call(engine)
    except Exception as exc:  # noqa: BLE001 - an error is an answer, compared below
        condition = getattr(exc, "getCondition", lambda: None)()
        assert condition is not None, f"an error without Spark's condition: {exc!r}"
        return "error", condition, exc.getMessageParameters()  # type: ignore[attr-defined]
    if hasattr(got, "collect"):
        return "rows", sorted((tuple(r) for r in got.collect()), key=repr)
    if isinstance(got, list):
        return [tuple(t) for t in got if getattr(t, "name", "gt_").startswith("gt_")]
    return got


def _same(calls: dict[str, Call], spark: Any, ours: list[Any]) -> None:
    for label, call in calls.items():
        want = _answer(call, spark)
        for engine in ours:
            assert _answer(call, engine) == want, f"{label} on {engine}"


def _views(engine: Any) -> Any:
    """The views each engine starts with; returns the frame of ``OTHER`` to make more from."""
    df = engine.createDataFrame(DATA)
    df.createGlobalTempView("gt_v")
    df.createOrReplaceTempView("gt_local")
    df.createOrReplaceTempView("gt_both")
    df.createGlobalTempView("gt_both")
    return engine.createDataFrame(OTHER)


def test_global_views_read_created_and_listed_as_in_pyspark(spark, sessions) -> None:
    local = [s for s in sessions if not isinstance(s, Remote)]
    engines = [spark, *local]
    other = {id(engine): _views(engine) for engine in engines}
    try:
        _same({
            "create a name taken": lambda e: other[id(e)].createGlobalTempView("GT_V"),
            "create under two parts": lambda e: other[id(e)].createGlobalTempView("global_temp.gt_w"),
            "replace": lambda e: other[id(e)].createOrReplaceGlobalTempView("gt_r"),
            "table": lambda e: e.table("global_temp.gt_v"),
            "table quoted, any case": lambda e: e.table("`GLOBAL_TEMP`.`gt_R`"),
            "table unqualified": lambda e: e.table("gt_v"),
            "sql": lambda e: e.sql("SELECT gt_v.x, v.s FROM Global_Temp.gt_v, global_temp.gt_r v WHERE gt_v.x < 2"),
            "sql unqualified": lambda e: e.sql("SELECT * FROM gt_v"),
            "sql a local view qualified": lambda e: e.sql("SELECT * FROM global_temp.gt_local"),
            "listTables": lambda e: e.catalog.listTables("GLOBAL_TEMP", "gt_*"),
            "listViews": lambda e: e.catalog.listViews("global_temp", "gt_b*"),
            "tableExists in": lambda e: e.catalog.tableExists("gt_v", "global_temp"),
            "tableExists qualified": lambda e: e.catalog.tableExists("global_temp.GT_V"),
            "tableExists local qualified": lambda e: e.catalog.tableExists("global_temp.gt_local"),
            "tableExists unqualified": lambda e: e.catalog.tableExists("gt_v"),
            "getTable": lambda e: e.catalog.getTable("global_temp.gt_both"),
            "listColumns": lambda e: [tuple(c) for c in e.catalog.listColumns("global_temp.gt_v")],
            "listColumns in": lambda e: e.catalog.listColumns("gt_v", "global_temp"),
            "databaseExists": lambda e: e.catalog.databaseExists("global_temp"),
            "setCurrentDatabase": lambda e: e.catalog.setCurrentDatabase("global_temp"),
            "createDatabase": lambda e: e.catalog.createDatabase("global_temp"),
            "conf": lambda e: e.conf.get("spark.sql.globalTempDatabase"),
            "conf modifiable": lambda e: e.conf.isModifiable("spark.sql.globalTempDatabase"),
            "conf set": lambda e: e.conf.set("spark.sql.globalTempDatabase", "gt"),
            "cacheTable": lambda e: (e.catalog.cacheTable("global_temp.gt_v"), e.catalog.isCached("global_temp.gt_v")),
            "uncacheTable": lambda e: (e.catalog.uncacheTable("global_temp.gt_v"), e.catalog.isCached("global_temp.gt_v")),
            "dropTempView leaves global views": lambda e: (e.catalog.dropTempView("gt_v"),
                                                          e.catalog.tableExists("global_temp.gt_v")),
            "dropTempView of a name in both": lambda e: (e.catalog.dropTempView("gt_both"), e.catalog.tableExists("gt_both"),
                                                         e.catalog.tableExists("global_temp.gt_both")),
            "dropView": lambda e: (e.catalog.dropView("global_temp.gt_both"), e.catalog.dropView("global_temp.gt_both")),
            "dropTable": lambda e: (e.catalog.dropTable("global_temp.gt_r"), e.catalog.tableExists("global_temp.gt_r")),
            "dropGlobalTempView": lambda e: (e.catalog.dropGlobalTempView("GT_V"), e.catalog.dropGlobalTempView("gt_v")),
        }, spark, local)
    finally:
        for engine in engines:
            for name in ("gt_v", "gt_r", "gt_both"):
                engine.catalog.dropGlobalTempView(name)
            for name in ("gt_local", "gt_both"):
                engine.catalog.dropTempView(name)


def test_sessions_made_from_one_share_its_global_views(spark, sessions) -> None:
    """A view made by a new session is the parent's and a grandchild's, not another
    ``Session``'s (which in Spark would be another application), and outlives the session
    that made it; the local views stay each session's own."""
    parent, unrelated = sessions[0], sessions[1]
    ours = [parent.newSession()]
    ours.append(ours[0].newSession())
    children = {"pyspark": spark.newSession(), "sparkwire": ours[0]}
    for child in children.values():
        child.createDataFrame(DATA).createGlobalTempView("gt_shared")
        child.createDataFrame(DATA).createOrReplaceTempView("gt_mine")
    try:
        assert spark.newSession().newSession().catalog.tableExists("global_temp.gt_shared")
        assert ours[1].catalog.tableExists("global_temp.gt_shared")
        for session in ours:  # the view outlives the session that made it, its rows too
            session.stop()
        _same({
            "the parent reads it": lambda e: e.table("global_temp.gt_shared"),
            "the child's local view is its own": lambda e: (e.catalog.tableExists("gt_mine"),
                                                            e.catalog.tableExists("global_temp.gt_mine")),
        }, spark, [parent])
        assert not unrelated.catalog.tableExists("global_temp.gt_shared")
    finally:
        for session in ours:
            session.stop()
        assert spark.catalog.dropGlobalTempView("gt_shared") and parent.catalog.dropGlobalTempView("gt_shared")


def test_global_views_through_spark_connect(spark, sessions) -> None:
    """A client's global view is every client's and the server's session's, and the
    server's is the client's: read through the client by ``table`` and SQL as PySpark reads
    its own; errors come back with Spark's condition."""
    remotes = [s for s in sessions if isinstance(s, Remote)]
    if not remotes:
        pytest.skip("runs with the Spark Connect engine")
    client, server_side = remotes[0].client, sessions[1]
    client.createDataFrame(DATA).createGlobalTempView("gt_remote")
    server_side.createDataFrame(OTHER).createOrReplaceGlobalTempView("gt_served")
    spark.createDataFrame(DATA).createGlobalTempView("gt_remote")
    spark.createDataFrame(OTHER).createOrReplaceGlobalTempView("gt_served")
    try:
        _same({
            "read by table": lambda e: e.table("global_temp.gt_served"),
            "read by sql": lambda e: e.sql("SELECT * FROM global_temp.gt_remote UNION ALL SELECT * FROM global_temp.gt_served"),
            "create a name taken": lambda e: e.createDataFrame(OTHER).createGlobalTempView("gt_remote"),
            "replace": lambda e: e.createDataFrame(OTHER).createOrReplaceGlobalTempView("gt_remote"),
        }, spark, [client])
        assert server_side.table("global_temp.gt_remote").count() == 1
    finally:
        for catalog in (spark.catalog, server_side.catalog):
            catalog.dropGlobalTempView("gt_remote"), catalog.dropGlobalTempView("gt_served")
