"""The functions that read the session rather than a row: ``current_database`` (and
``current_schema``), ``current_catalog``, ``current_user`` (``user``, ``session_user``),
``current_path`` and ``version``. Each is ``session_value(name, value)``: named ``name()`` as Spark names it
(``current_database()`` is ``current_schema()``), its value fixed when the plan is built,
as Spark's analyzer folds them into literals.

- the catalog and database are the only ones sparkwire has (``coordinator.catalog``);
- the user is the operating-system user running the driver, as Spark's is;
- ``current_path()`` is Spark's default SQL path: the builtin and session functions, then
  the current database, which is the only one sparkwire has;
- ``version()`` is Spark's ``"<version> <revision>"``: the PySpark version whose semantics
  sparkwire follows, and ``sparkwire-<its version>`` where Spark puts its git revision, so
  code that reads the first word finds the Spark version and a person sees what ran.
"""

from __future__ import annotations

import getpass
import importlib.metadata

from sparkwire.planner.logical.expressions import Call, Expr, Lit
from sparkwire.planner.logical.functions.base import Function

#: The catalog and database every name lives in (``coordinator.catalog`` names the same).
CATALOG = "spark_catalog"
DATABASE = "default"
#: The Spark version whose semantics (and PySpark API) sparkwire follows.
SPARK_VERSION = "4.3.0"


def _session(name: str, shown: str, value: str) -> Function:
    def build() -> Expr:
        return Call(fn="session_value", args=(Lit(value=shown), Lit(value=value)))

    return Function(name, build, 0, 0)


def _user() -> str:
    return getpass.getuser()


def _version() -> str:
    return f"{SPARK_VERSION} sparkwire-{importlib.metadata.version('sparkwire')}"


FUNCTIONS = (
    _session("current_database", "current_schema", DATABASE),
    _session("current_schema", "current_schema", DATABASE),
    _session("current_catalog", "current_catalog", CATALOG),
    *(_session(name, name, _user()) for name in ("current_user", "user", "session_user")),
    _session("version", "version", _version()),
    _session("current_path", "current_path", f"system.builtin,system.session,{CATALOG}.{DATABASE}"),
)
