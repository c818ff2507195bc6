"""``session.catalog``: PySpark's ``Catalog`` over the session's named DataFrames.

sparkwire has one database, ``default`` in the catalog ``spark_catalog``, as a Spark
session without a metastore has. It holds two kinds of name, which ``session.sql`` and
``session.table`` read alike:

- temporary views (``df.createOrReplaceTempView``): ``tableType`` ``TEMPORARY``, no
  namespace, as Spark lists them;
- tables over Parquet paths (``catalog.createTable(name, path=...)``): ``EXTERNAL`` in
  ``default``, read where they lie, for the session's life (there is no metastore to keep
  them in); a managed table (no path) is refused.

Caching a name caches its DataFrame (``planner.api.caching``). Answers come as PySpark's
``Table``, ``Column`` and ``Database`` named tuples have them, field for field. Spark's
``global_temp`` database of views shared between sessions is a layer over this one
(``coordinator.catalog_global``).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol

from sparkwire.coordinator import catalog_functions, catalog_tables
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.quoting import name_parts
from sparkwire.planner.api.sources import DataFrameReader
from sparkwire.planner.api.unsupported import not_supported
from sparkwire.planner.api.executor import View
from sparkwire.planner.errors import AnalysisError, PlanError
from sparkwire.planner.logical.analyzer import quote

CATALOG = "spark_catalog"
DATABASE = "default"
#: Where Spark looks for an unqualified name, as its ``TABLE_OR_VIEW_NOT_FOUND`` says.
_SEARCH_PATH = f"[`system`.`builtin`, `system`.`session`, `{CATALOG}`.`{DATABASE}`]"


class Table(NamedTuple):
    name: str
    catalog: str | None
    namespace: list[str] | None
    description: str | None
    tableType: str
    isTemporary: bool


class Column(NamedTuple):
    name: str
    description: str | None
    dataType: str
    nullable: bool
    isPartition: bool
    isBucket: bool
    isCluster: bool


class Database(NamedTuple):
    name: str
    catalog: str | None
    description: str | None
    locationUri: str


class CatalogMetadata(NamedTuple):
    name: str
    description: str | None


class CatalogSession(Protocol):
    read: DataFrameReader

    @property
    def views(self) -> Mapping[str, View]: ...

    def register_view(self, name: str, view: View) -> None: ...

    def drop_view(self, name: str) -> bool: ...

    def is_cached(self, df: DataFrame) -> bool: ...

    def clear_caches(self) -> None: ...


class Catalog:
    """The session's names, through PySpark's ``Catalog`` methods."""

    def __init__(self, session: CatalogSession) -> None:
        self._session = session
        #: a table's name (folded) -> its Parquet path and DataFrame (a view that took
        #: its name since is no table)
        self._tables: dict[str, tuple[str, DataFrame]] = {}

    # -- catalogs and databases --------------------------------------------------------
    def currentCatalog(self) -> str:  # noqa: N802 - PySpark's name
        return CATALOG

    def setCurrentCatalog(self, catalogName: str) -> None:  # noqa: N802, N803 - PySpark's names
        """Only ``spark_catalog``, the one catalog there is."""
        if catalogName.casefold() != CATALOG:
            raise AnalysisError(f"sparkwire has one catalog, {CATALOG!r}, not {catalogName!r}",
                                condition="CATALOG_NOT_FOUND", parameters={"catalogName": quote(catalogName)})

    def listCatalogs(self, pattern: str | None = None) -> list[CatalogMetadata]:  # noqa: N802
        return [CatalogMetadata(CATALOG, None)] if matches(CATALOG, pattern) else []

    def createDatabase(self, dbName: str, ifNotExists: bool = False,  # noqa: N802, N803
                       properties: Mapping[str, str] | None = None) -> None:
        """Only ``default`` exists, and only with ``ifNotExists`` is naming it no error
        (Spark's ``SCHEMA_ALREADY_EXISTS``); another database would need a metastore to
        keep it, and is refused."""
        if dbName.casefold() != DATABASE:
            raise AnalysisError(not_supported("createDatabase of a database but default", "Catalog"))
        if not ifNotExists:
            raise AnalysisError(f"the database {quote(dbName)} already exists", condition="SCHEMA_ALREADY_EXISTS",
                                parameters={"schemaName": f"{quote(CATALOG)}.{quote(DATABASE)}"})

    def dropDatabase(self, dbName: str, ifExists: bool = False, cascade: bool = False) -> None:  # noqa: N802, N803
        """``default`` cannot be dropped (Spark's ``UNSUPPORTED_FEATURE.DROP_DATABASE``);
        any other does not exist (``SCHEMA_NOT_FOUND`` unless ``ifExists``)."""
        if dbName.casefold() == DATABASE:
            raise AnalysisError("cannot drop the default database", condition="UNSUPPORTED_FEATURE.DROP_DATABASE",
                                parameters={"database": quote(DATABASE)})
        if not ifExists:
            self._database(dbName)

    def currentDatabase(self) -> str:  # noqa: N802 - PySpark's name
        return DATABASE

    def setCurrentDatabase(self, dbName: str) -> None:  # noqa: N802, N803 - PySpark's names
        self._database(dbName)

    def databaseExists(self, dbName: str) -> bool:  # noqa: N802, N803 - PySpark's names
        return dbName.casefold() == DATABASE

    def getDatabase(self, dbName: str) -> Database:  # noqa: N802, N803 - PySpark's names
        self._database(dbName)
        return Database(DATABASE, CATALOG, "default database", "")

    def listDatabases(self, pattern: str | None = None) -> list[Database]:  # noqa: N802 - PySpark's name
        return [self.getDatabase(DATABASE)] if matches(DATABASE, pattern) else []

    # -- tables and views --------------------------------------------------------------
    def listTables(self, dbName: str | None = None,  # noqa: N802, N803 - PySpark's names
                   pattern: str | None = None) -> list[Table]:
        """The tables of ``default``, then the temporary views, each by name (Spark's order)."""
        if dbName is not None:
            self._database(dbName)
        names = sorted(self._session.views, key=lambda n: (not self._is_table(n), n))
        return [self.getTable(n) for n in names if matches(n, pattern)]

    def tableExists(self, tableName: str, dbName: str | None = None) -> bool:  # noqa: N802, N803
        return self._name(tableName, dbName) in self._session.views

    def getTable(self, tableName: str) -> Table:  # noqa: N802, N803 - PySpark's names
        name = self._found(tableName)
        if self._is_table(name):
            return Table(name, CATALOG, [DATABASE], None, "EXTERNAL", False)
        return Table(name, None, [], None, "TEMPORARY", True)

    def listColumns(self, tableName: str, dbName: str | None = None) -> list[Column]:  # noqa: N802, N803
        df = self._frame(tableName if dbName is None else self._name(tableName, dbName))
        return [Column(f.name, None, f.dataType.simpleString(), f.nullable, False, False, False)
                for f in df.schema.fields]

    def createTable(self, tableName: str, path: str | None = None,  # noqa: N802, N803
                    source: str | None = None, schema: Any = None, description: str | None = None,
                    **options: str) -> DataFrame:
        """An ``EXTERNAL`` table over the Parquet files at ``path`` (a file, directory or
        glob, with Hive partitions, as ``read.parquet`` reads them), returned as its
        DataFrame. Spark's ``TABLE_OR_VIEW_ALREADY_EXISTS`` for a name taken."""
        if path is None:
            raise AnalysisError(not_supported("createTable without a path (a managed table)", "Catalog"))
        if (source or "parquet").casefold() != "parquet" or schema is not None or options:
            raise AnalysisError(not_supported("createTable of anything but Parquet files", "Catalog"))
        name = self._name(tableName, None)
        if name in self._session.views:
            raise AnalysisError(f"table or view {tableName!r} already exists",
                                condition="TABLE_OR_VIEW_ALREADY_EXISTS",
                                parameters={"relationName": f"{quote(CATALOG)}.{quote(DATABASE)}.{quote(name)}"})
        df = self._session.read.parquet(path)
        self._session.register_view(name, df)
        self._tables[name] = (path, df)
        return df

    def createExternalTable(self, tableName: str, path: str | None = None,  # noqa: N802, N803
                            source: str | None = None, schema: Any = None, **options: str) -> DataFrame:
        """``createTable``'s name before Spark 4."""
        return self.createTable(tableName, path, source, schema, **options)

    def listViews(self, dbName: str | None = None,  # noqa: N802, N803 - PySpark's names
                  pattern: str | None = None) -> list[Table]:
        """The temporary views (there are no persistent ones), by name."""
        if dbName is not None:
            self._database(dbName)
        names = sorted(n for n in self._session.views if not self._is_table(n) and matches(n, pattern))
        return [self.getTable(n) for n in names]

    def dropTable(self, tableName: str, ifExists: bool = False, purge: bool = False) -> None:  # noqa: N802, N803
        """Forget a table made by ``createTable`` (its files stay where they are, as an
        external table's do in Spark), or a temporary view of that name, as Spark drops one."""
        name = self._name(tableName, None)
        if self._is_table(name):
            del self._tables[name]
        if not self._session.drop_view(name) and not ifExists:
            raise not_found(tableName)

    def dropView(self, viewName: str, ifExists: bool = False) -> None:  # noqa: N802, N803
        """Drop the temporary view of that name, as Spark's ``dropView`` finds temporary
        views first (there are no persistent ones here); Spark's ``TABLE_OR_VIEW_NOT_FOUND``
        for a name that is none, unless ``ifExists``."""
        if not self.dropTempView(viewName) and not ifExists:
            raise not_found(viewName)

    def getCreateTableString(self, tableName: str, asSerde: bool = False) -> str:  # noqa: N802, N803
        """Spark's ``SHOW CREATE TABLE`` of a table (``coordinator.catalog_tables``); of a
        temporary view, Spark's refusal. ``asSerde`` changes nothing: no table here is Hive's."""
        name = self._found(tableName)
        if not self._is_table(name):
            raise AnalysisError(f"SHOW CREATE TABLE is not supported on a temporary view {quote(name)}",
                                condition="UNSUPPORTED_SHOW_CREATE_TABLE.ON_TEMPORARY_VIEW",
                                parameters={"tableName": quote(name)})
        path, df = self._tables[name]
        return catalog_tables.create_table_string(name, path, df)

    def getTableProperties(self, tableName: str) -> dict[str, str]:  # noqa: N802, N803
        """A table's ``option.path``, as Spark keeps it; a temporary view has none."""
        name = self._found(tableName)
        return catalog_tables.table_properties(self._tables[name][0]) if self._is_table(name) else {}

    def listPartitions(self, tableName: str) -> list[catalog_tables.TablePartition]:  # noqa: N802, N803
        """The Hive partitions a table reads now (``coordinator.catalog_tables``)."""
        name = self._table(tableName, "'Catalog.listPartitions'")
        return catalog_tables.partitions(*self._tables[name])

    def recoverPartitions(self, tableName: str) -> None:  # noqa: N802, N803 - PySpark's names
        """Reads the table's directory again, partitions added since included: Spark puts
        them in its metastore; sparkwire, which reads every file the path holds, lists
        them again (``refreshTable``)."""
        self.refreshTable(self._table(tableName, "'recoverPartitions()'"))

    def refreshByPath(self, path: str) -> None:  # noqa: N802 - PySpark's name
        """Reads again every table whose files lie at or under ``path``."""
        root = os.path.abspath(path)
        for name, (where, _) in list(self._tables.items()):
            if self._is_table(name) and os.path.commonpath([root, os.path.abspath(where)]) == root:
                self.refreshTable(name)

    def analyzeTable(self, tableName: str, noScan: bool = False) -> None:  # noqa: N802, N803
        """Accepted, and nothing to do: the planner's estimates read the Parquet footers
        at every query (``planner.spark.parquet_meta``), where Spark keeps statistics in its
        metastore only when asked."""
        self._table(tableName, "'Catalog.analyzeTable'")

    def truncateTable(self, tableName: str) -> None:  # noqa: N802, N803 - PySpark's names
        """Refused as Spark refuses it: every table here is external (its files are not
        the catalog's to delete), and a view is no table."""
        name = self._table(tableName, "'Catalog.truncateTable'")
        raise AnalysisError(f"Operation not allowed: TRUNCATE TABLE on external tables: {quote(name)}")

    # -- functions (``coordinator.catalog_functions``) --------------------------------------
    def listFunctions(self, dbName: str | None = None,  # noqa: N802, N803 - PySpark's names
                      pattern: str | None = None) -> list[catalog_functions.Function]:
        if dbName is not None:
            self._database(dbName)
        return catalog_functions.listed(pattern)

    def functionExists(self, functionName: str, dbName: str | None = None) -> bool:  # noqa: N802, N803
        if dbName is not None:
            self._database(dbName)
        return catalog_functions.exists(functionName)

    def getFunction(self, functionName: str) -> catalog_functions.Function:  # noqa: N802, N803
        return catalog_functions.get(functionName)

    def dropTempView(self, viewName: str) -> bool:  # noqa: N802, N803 - PySpark's names
        """Whether a temporary view of that name was dropped (a table is not one)."""
        name = viewName.casefold()
        return not self._is_table(name) and self._session.drop_view(name)

    def refreshTable(self, tableName: str) -> None:  # noqa: N802, N803 - PySpark's names
        """Reads the table's files again from the next query on (new files included)."""
        name = self._found(tableName)
        if self._is_table(name):
            df = self._session.read.parquet(self._tables[name][0])
            self._session.register_view(name, df)
            self._tables[name] = (self._tables[name][0], df)

    # -- caching -----------------------------------------------------------------------
    def cacheTable(self, tableName: str, storageLevel: object = None) -> None:  # noqa: N802, N803
        df = self._frame(tableName)
        df.cache() if storageLevel is None else df.persist(storageLevel)

    def uncacheTable(self, tableName: str) -> None:  # noqa: N802, N803 - PySpark's names
        self._frame(tableName).unpersist()

    def isCached(self, tableName: str) -> bool:  # noqa: N802, N803 - PySpark's names
        return self._session.is_cached(self._frame(tableName))

    def clearCache(self) -> None:  # noqa: N802 - PySpark's name
        self._session.clear_caches()

    # -- names -------------------------------------------------------------------------
    def _name(self, table: str, database: str | None) -> str:
        """A name in ``default``, with or without its database (``default.t``)."""
        head, _, tail = table.rpartition(".")
        if head:
            database = head.split(".")[-1]
        if database is not None:
            self._database(database)
        return (tail or table).strip("`").casefold()

    def _found(self, table: str) -> str:
        name = self._name(table, None)
        if name not in self._session.views:
            raise not_found(table)
        return name

    def _table(self, table: str, operation: str) -> str:
        """The name of a table (not a view), else Spark's refusal for ``operation``."""
        name = self._found(table)
        if not self._is_table(name):
            raise AnalysisError(f"{operation} expects a table but {quote(name)} is a view.",
                                condition="EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE",
                                parameters={"viewName": quote(name), "operation": operation})
        return name

    def _is_table(self, name: str) -> bool:
        return name in self._tables and self._session.views.get(name) is self._tables[name][1]

    def _frame(self, table: str) -> DataFrame:
        view = self._session.views[self._found(table)]
        if not isinstance(view, DataFrame):
            raise PlanError(f"the view {table!r} is no DataFrame")
        return view

    def _database(self, name: str) -> None:
        if name.casefold() != DATABASE:
            raise AnalysisError(f"sparkwire has one database, {DATABASE!r}, not {name!r}",
                                condition="SCHEMA_NOT_FOUND",
                                parameters={"schemaName": f"{quote(CATALOG)}.{quote(name)}"})


def not_found(table: str, search_path: str = _SEARCH_PATH) -> AnalysisError:
    """Spark's ``TABLE_OR_VIEW_NOT_FOUND`` for a name the session does not have, quoted part
    by part (``global_temp.v``: ```global_temp`.`v```)."""
    relation = ".".join(quote(part) for part in name_parts(table))
    return AnalysisError(f"unknown table or view {table!r}", condition="TABLE_OR_VIEW_NOT_FOUND",
                         parameters={"relationName": relation, "searchPath": search_path})


def matches(name: str, pattern: str | None) -> bool:
    """Spark's ``LIKE``-style listing pattern: ``*`` any text, ``|`` alternatives."""
    if pattern is None:
        return True
    return any(fnmatch.fnmatchcase(name, p.strip().casefold()) for p in pattern.split("|"))
