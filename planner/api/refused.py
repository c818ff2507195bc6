"""The parts of PySpark's API sparkwire refuses on purpose, each with its reason: one table,
read by three readers so they cannot drift apart:

- ``planner.api.unsupported``: ``F.udf`` raises "`udf` is not supported by sparkwire
  (PySpark's functions.udf): <reason>";
- ``coordinator.coverage``: counts these names as *refused*, apart from the ones that work
  and the ones simply missing (not written yet);
- README's "Not supported" table, which ``coverage --markdown`` prints and a test holds
  README to.

A name belongs here only when there is a reason it will not come soon (no JVM, no RDD,
a binary format only Spark reads, results DuckDB cannot reproduce exactly); a name merely
not written yet stays out, so the coverage report shows it as missing work. Owners are the
names ``planner.api.pyspark_names`` lists PySpark's public names under.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class Refusal:
    """One reason, and the names it refuses, by owner (``functions``, ``DataFrame`` ...)."""

    reason: str
    names: Mapping[str, frozenset[str]]
    #: what README shows instead of the names, where they are many (``hll_*`` ...)
    summary: str | None = None


def _prefixed(*prefixes: str, among: frozenset[str]) -> frozenset[str]:
    return frozenset(n for n in among if n.startswith(prefixes))


def _table() -> tuple[Refusal, ...]:
    from sparkwire.planner.api.pyspark_names import FUNCTIONS

    sketches = _prefixed("hll_", "kll_", "theta_", "tuple_", "bitmap_", among=FUNCTIONS)
    variant = _prefixed("variant_", "try_variant_", among=FUNCTIONS) | {
        "parse_json", "try_parse_json", "is_variant_null", "is_valid_variant",
        "schema_of_variant", "schema_of_variant_agg", "to_variant_object",
    }
    return (
        Refusal(
            "user code (Python UDFs and UDTFs, pandas and Arrow functions) would run inside "
            "the workers, whose plans are data checked against an allow-list, never code",
            {
                "functions": frozenset({"udf", "udtf", "pandas_udf", "arrow_udf", "arrow_udtf",
                                        "call_udf", "unwrap_udt"}),
                "DataFrame": frozenset({"mapInPandas", "mapInArrow", "foreach", "foreachPartition"}),
                "GroupedData": frozenset({"apply", "applyInPandas", "applyInArrow",
                                          "applyInPandasWithState", "cogroup",
                                          "transformWithState", "transformWithStateInPandas"}),
                "SparkSession": frozenset({"udf", "udtf", "dataSource", "profile"}),
                "Catalog": frozenset({"registerFunction"}),
            },
        ),
        Refusal(
            "there is no JVM: no RDDs, SparkContext, Java reflection or Spark Connect client",
            {
                "functions": frozenset({"java_method", "reflect", "try_reflect"}),
                "DataFrame": frozenset({"rdd", "pandas_api"}),
                "SparkSession": frozenset({"sparkContext", "client", "addArtifact",
                                           "addArtifacts", "copyFromLocalToFs"}),
            },
        ),
        Refusal(
            "structured streaming: sparkwire runs batch queries",
            {
                "functions": frozenset({"session_window"}),
                "DataFrame": frozenset({"writeStream", "withWatermark",
                                        "dropDuplicatesWithinWatermark"}),
                "SparkSession": frozenset({"readStream", "streams"}),
            },
        ),
        Refusal(
            "sketches are Apache DataSketches' binary formats, which only Spark reads; a "
            "sketch written here could not be merged with Spark's",
            {"functions": sketches | {"count_min_sketch"}},
            "functions: `hll_*`, `kll_*`, `theta_*`, `tuple_*`, `bitmap_*`, `count_min_sketch`",
        ),
        Refusal("the variant type is not supported yet (DuckDB's JSON differs from it)",
                {"functions": frozenset(variant)},
                "functions: `parse_json`, `try_parse_json`, `variant_*`, `try_variant_*`, "
                "`is_variant_null`, `is_valid_variant`, `schema_of_variant`, "
                "`schema_of_variant_agg`, `to_variant_object`"),
        Refusal("XML and XPath are not supported (DuckDB has no XML reader)",
                {"functions": _prefixed("xpath", among=FUNCTIONS)
                 | {"from_xml", "to_xml", "schema_of_xml"}},
                "functions: `from_xml`, `to_xml`, `schema_of_xml`, `xpath*`"),
        Refusal("geospatial types are not supported yet",
                {"functions": _prefixed("st_", among=FUNCTIONS)}, "functions: `st_*`"),
        Refusal(
            "catalog tables written in place (DataFrameWriterV2's `writeTo`, `MERGE INTO`) "
            "need a table format and a metastore to commit to; sparkwire's tables are Parquet "
            "files read where they lie: write them with `df.write.parquet`",
            {"DataFrame": frozenset({"writeTo", "mergeInto"})},
        ),
        Refusal(
            "Spark's Murmur3 and xxHash64 over its own row layout, and CRC-32: DuckDB has none "
            "of them, and a hash that differs from Spark's silently breaks whatever joins or "
            "buckets by it",
            {"functions": frozenset({"hash", "xxhash64", "crc32"})},
        ),
        Refusal(
            "partition transforms exist only for the tables `DataFrameWriterV2` (`writeTo`) "
            "creates, which sparkwire has not",
            {"functions": frozenset({"years", "months", "days", "hours", "bucket"})},
        ),
        Refusal(
            "`time_bucket` buckets timestamps (Spark 4.3 refuses a TIME there): its origin and "
            "interval bucket size need interval types, which sparkwire's plans have not yet",
            {"functions": frozenset({"time_bucket"})},
        ),
        Refusal(
            "interval types are not supported (sparkwire's plans have no interval type yet)",
            {"functions": frozenset({"make_interval", "make_dt_interval", "make_ym_interval",
                                     "try_make_interval"})},
        ),
        Refusal(
            "nanosecond timestamps (Spark's `timestamp_ltz(9)`) are not supported: sparkwire's "
            "timestamps count microseconds, as Spark's default ones do",
            {"functions": frozenset({"unix_nanos", "timestamp_nanos"})},
        ),
        Refusal(
            "AES is none of DuckDB's functions, and the workers load no extensions; "
            "aes_encrypt's default GCM mode draws a random IV, so its output could not match "
            "Spark's anyway",
            {"functions": frozenset({"aes_encrypt", "aes_decrypt", "try_aes_decrypt"})},
        ),
        Refusal(
            "Spark's `histogram_numeric` is Ben-Haim and Tom-Tov's streaming histogram: it "
            "merges the nearest bins as rows and partial results arrive, so its bins depend "
            "on the order and the partitioning Spark happened to have, an answer no other "
            "engine reproduces",
            {"functions": frozenset({"histogram_numeric"})},
        ),
        Refusal(
            "Spark's `sentences` splits text with the JDK's `BreakIterator` for a locale: its "
            "own rule tables (and a dictionary for Thai), not Unicode's default segmentation "
            "that other engines implement, so its sentences and words could not match exactly",
            {"functions": frozenset({"sentences"})},
        ),
        Refusal(
            "correlated subqueries from the DataFrame API: a sparkwire DataFrame resolves each "
            "column where it is written, so the subquery's frame cannot name a column of the "
            "query that will use it; write the correlated query in SQL (`session.sql`), whose "
            "planner decorrelates it (`df.scalar()` and `df.exists()` work uncorrelated)",
            {"Column": frozenset({"outer"}), "DataFrame": frozenset({"lateralJoin"})},
        ),
        Refusal(
            "PySpark's classic (non-Connect) session has none either: it raises "
            "`ONLY_SUPPORTED_WITH_SPARK_CONNECT` or `CLASSIC_OPERATION_NOT_SUPPORTED_ON_DF`; "
            "sparkwire reports a query's progress to `Session(progress=...)` and its metrics "
            "in `session.last_metrics`",
            {"DataFrame": frozenset({"executionInfo"}),
             "SparkSession": frozenset({"registerProgressHandler", "removeProgressHandler",
                                        "clearProgressHandlers"})},
        ),
        Refusal(
            "a table argument (`df.asTable()`) only feeds a Python UDTF, which sparkwire's "
            "workers cannot run (see user code above)",
            {"DataFrame": frozenset({"asTable"})},
        ),
        Refusal(
            "plotting draws with plotly on the driver from rows PySpark samples or aggregates "
            "by its own rules; `df.toPandas().plot` draws the same data without them",
            {"DataFrame": frozenset({"plot"})},
        ),
        Refusal(
            "column metadata and hidden metadata columns: sparkwire's attributes carry a name "
            "and a type only, so metadata could not follow a column through every operator "
            "as Spark's attribute references carry it, and its sources expose no hidden "
            "columns (Spark's `_metadata` of file sources)",
            {"DataFrame": frozenset({"withMetadata", "metadataColumn"})},
        ),
        Refusal(
            "Spark's collations (`UTF8_LCASE`, `UNICODE`, `UNICODE_CI`, locales with `_AI`/`_CI`) "
            "compare and hash strings by ICU's collation keys; DuckDB's collations (`NOCASE`, "
            "`NOACCENT`, ICU by locale) order and equate strings differently, so a collated "
            "comparison, grouping or join could not match exactly (`collation` of a string is "
            "always `SYSTEM.BUILTIN.UTF8_BINARY` and works)",
            {"functions": frozenset({"collate"})},
        ),
        Refusal(
            "Spark reads and writes CSV values with the Univocity parser under its CSV source's "
            "options (quote and `\\` escape, `nullValue`, PERMISSIVE partial records, type "
            "inference that prefers dates, Java's number and ISO-8601 timestamp text); DuckDB "
            "parses CSV only as files, with its own dialect and error handling, and has no CSV "
            "function of a value: Univocity's splitting and Spark's value parsing and writing "
            "would have to be rebuilt rule by rule in the worker's SQL to give Spark's fields",
            {"functions": frozenset({"from_csv", "to_csv", "schema_of_csv"})},
        ),
        Refusal(
            "Spark's input file blocks are byte ranges its scan cuts by `maxSplitBytes`, which "
            "depends on the total input size and the cluster's default parallelism, and the "
            "file name is a task-local value set only while a file scan feeds the row; "
            "sparkwire splits Parquet by row groups and its sources expose no hidden file "
            "column (as for metadata columns above), so neither could match Spark's",
            {"functions": frozenset({"input_file_name", "input_file_block_start",
                                     "input_file_block_length"})},
        ),
    )


#: Every refusal, in README's order.
REFUSALS: tuple[Refusal, ...] = _table()


def _by_name() -> Mapping[str, Mapping[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for refusal in REFUSALS:
        for owner, names in refusal.names.items():
            for name in names:
                if name in table.setdefault(owner, {}):
                    raise ValueError(f"{owner}.{name} is refused twice")
                table[owner][name] = refusal.reason
    return MappingProxyType({owner: MappingProxyType(names) for owner, names in table.items()})


#: owner -> name -> the reason it is refused.
REFUSED: Mapping[str, Mapping[str, str]] = _by_name()


def reason(owner: str, name: str) -> str | None:
    """Why ``owner.name`` is refused, or None when it is not (it works, or is missing)."""
    return REFUSED.get(owner, {}).get(name)


def markdown() -> str:
    """README's "Not supported" table: a row per reason, its names by owner."""
    lines = ["| reason | names |", "| --- | --- |"]
    for refusal in REFUSALS:
        names = refusal.summary or "; ".join(
            f"{owner}: " + ", ".join(f"`{n}`" for n in sorted(refusal.names[owner], key=str.lower))
            for owner in refusal.names
        )
        lines.append(f"| {refusal.reason} | {names} |")
    return "\n".join(lines)
