"""The public names of PySpark's API (PySpark 4.3.0), so that a name sparkwire lacks is
reported as not supported instead of as a typo (``planner.api.unsupported``).

Generated from PySpark's classes and ``pyspark.sql.functions``; data, not code.
"""

from __future__ import annotations

from typing import Final


#: ``pyspark.sql.DataFrame``
DATAFRAME: Final = frozenset({
    "agg", "alias", "approxQuantile", "asTable", "cache", "checkpoint", "coalesce",
    "colRegex", "collect", "columns", "corr", "count", "cov", "createGlobalTempView",
    "createOrReplaceGlobalTempView", "createOrReplaceTempView", "createTempView",
    "crossJoin", "crosstab", "cube", "describe", "distinct", "drop", "dropDuplicates",
    "dropDuplicatesWithinWatermark", "drop_duplicates", "dropna", "dtypes", "exceptAll",
    "executionInfo", "exists", "explain", "fillna", "filter", "first", "foreach",
    "foreachPartition", "freqItems", "groupBy", "groupby", "groupingSets", "head", "hint",
    "inputFiles", "intersect", "intersectAll", "isEmpty", "isLocal", "isStreaming", "join",
    "lateralJoin", "limit", "localCheckpoint", "mapInArrow", "mapInPandas", "melt",
    "mergeInto", "metadataColumn", "na", "nearestByJoin", "observe", "offset", "orderBy",
    "pandas_api", "persist", "plot", "printSchema", "randomSplit", "rdd",
    "registerTempTable", "repartition", "repartitionById", "repartitionByRange", "replace",
    "rollup", "sameSemantics", "sample", "sampleBy", "scalar", "schema", "select",
    "selectExpr", "semanticHash", "show", "sort", "sortWithinPartitions", "sparkSession",
    "stat", "storageLevel", "subtract", "summary", "tail", "take", "to", "toArrow", "toDF",
    "toJSON", "toLocalIterator", "toPandas", "transform", "transpose", "union", "unionAll",
    "unionByName", "unpersist", "unpivot", "where", "withColumn", "withColumnRenamed",
    "withColumns", "withColumnsRenamed", "withMetadata", "withWatermark", "write",
    "writeStream", "writeTo", "zip", "zipWithIndex",
})


#: ``pyspark.sql.Column``
COLUMN: Final = frozenset({
    "alias", "asc", "asc_nulls_first", "asc_nulls_last", "astype", "between", "bitwiseAND",
    "bitwiseOR", "bitwiseXOR", "cast", "contains", "desc", "desc_nulls_first",
    "desc_nulls_last", "dropFields", "endswith", "eqNullSafe", "getField", "getItem",
    "ilike", "isNaN", "isNotNull", "isNull", "isin", "like", "name", "otherwise", "outer",
    "over", "rlike", "startswith", "substr", "transform", "try_cast", "when", "withField",
})


#: ``pyspark.sql.GroupedData``
GROUPED_DATA: Final = frozenset({
    "agg", "apply", "applyInArrow", "applyInPandas", "applyInPandasWithState", "avg",
    "cogroup", "count", "max", "mean", "min", "pivot", "sum", "transformWithState",
    "transformWithStateInPandas",
})


#: ``pyspark.sql.SparkSession``
SESSION: Final = frozenset({
    "Builder", "active", "addArtifact", "addArtifacts", "addTag", "builder", "catalog",
    "clearProgressHandlers", "clearTags", "client", "conf", "copyFromLocalToFs",
    "createDataFrame", "dataSource", "emptyDataFrame", "getActiveSession", "getTags",
    "interruptAll", "interruptOperation", "interruptTag", "newSession", "profile", "range",
    "read", "readStream", "registerProgressHandler", "removeProgressHandler", "removeTag",
    "sparkContext", "sql", "stop", "streams", "table", "tvf", "udf", "udtf", "version",
})


#: ``pyspark.sql.functions``
FUNCTIONS: Final = frozenset({
    "abs", "acos", "acosh", "add_months", "aes_decrypt", "aes_encrypt", "aggregate",
    "any_value", "approxCountDistinct", "approx_count_distinct", "approx_percentile",
    "array", "array_agg", "array_append", "array_compact", "array_contains",
    "array_distinct", "array_except", "array_insert", "array_intersect", "array_join",
    "array_max", "array_min", "array_position", "array_prepend", "array_remove",
    "array_repeat", "array_size", "array_sort", "array_union", "arrays_overlap",
    "arrays_zip", "arrow_udf", "arrow_udtf", "asc", "asc_nulls_first", "asc_nulls_last",
    "ascii", "asin", "asinh", "assert_true", "atan", "atan2", "atanh", "avg", "base64",
    "bin", "bit_and", "bit_count", "bit_get", "bit_length", "bit_or", "bit_xor",
    "bitmap_and_agg", "bitmap_bit_position", "bitmap_bucket_number", "bitmap_construct_agg",
    "bitmap_count", "bitmap_or_agg", "bitwiseNOT", "bitwise_not", "bool_and", "bool_or",
    "broadcast", "bround", "btrim", "bucket", "call_function", "call_udf", "cardinality",
    "cbrt", "ceil", "ceiling", "char", "char_length", "character_length", "chr", "coalesce",
    "col", "collate", "collation", "collect_list", "collect_set", "collect_union", "column",
    "concat", "concat_ws", "contains", "conv", "convert_timezone", "corr", "cos", "cosh",
    "cot", "count", "countDistinct", "count_distinct", "count_if", "count_min_sketch",
    "counter_diff", "covar_pop", "covar_samp", "crc32", "create_map", "csc", "cume_dist",
    "curdate", "current_catalog", "current_database", "current_date", "current_path",
    "current_schema", "current_time", "current_timestamp", "current_timezone",
    "current_user", "date_add", "date_diff", "date_format", "date_from_unix_date",
    "date_part", "date_sub", "date_trunc", "dateadd", "datediff", "datepart", "day",
    "dayname", "dayofmonth", "dayofweek", "dayofyear", "days", "decode", "degrees",
    "dense_rank", "desc", "desc_nulls_first", "desc_nulls_last", "e", "element_at", "elt",
    "encode", "endswith", "equal_null", "every", "exists", "exp", "explode",
    "explode_outer", "expm1", "expr", "extract", "factorial", "filter", "find_in_set",
    "first", "first_value", "flatten", "floor", "forall", "format_number", "format_string",
    "from_base32", "from_csv", "from_json", "from_unixtime", "from_utc_timestamp",
    "from_xml", "get", "get_json_object", "getbit", "greatest", "grouping", "grouping_id",
    "hash", "hex", "histogram_numeric", "hll_sketch_agg", "hll_sketch_estimate",
    "hll_union", "hll_union_agg", "hmac", "hour", "hours", "hypot", "ifnull", "ilike",
    "initcap", "inline", "inline_outer", "input_file_block_length",
    "input_file_block_start", "input_file_name", "instr", "is_valid_utf8",
    "is_valid_variant", "is_variant_null", "isnan", "isnotnull", "isnull",
    "jaro_winkler_similarity", "java_method", "json_array_length", "json_object_keys",
    "json_tuple", "kll_merge_agg_bigint", "kll_merge_agg_double", "kll_merge_agg_float",
    "kll_sketch_agg_bigint", "kll_sketch_agg_double", "kll_sketch_agg_float",
    "kll_sketch_get_n_bigint", "kll_sketch_get_n_double", "kll_sketch_get_n_float",
    "kll_sketch_get_quantile_bigint", "kll_sketch_get_quantile_double",
    "kll_sketch_get_quantile_float", "kll_sketch_get_rank_bigint",
    "kll_sketch_get_rank_double", "kll_sketch_get_rank_float", "kll_sketch_merge_bigint",
    "kll_sketch_merge_double", "kll_sketch_merge_float", "kll_sketch_to_string_bigint",
    "kll_sketch_to_string_double", "kll_sketch_to_string_float", "kurtosis", "lag", "last",
    "last_day", "last_value", "lcase", "lead", "least", "left", "length", "levenshtein",
    "like", "listagg", "listagg_distinct", "lit", "ln", "localtimestamp", "locate", "log",
    "log10", "log1p", "log2", "lower", "lpad", "ltrim", "make_date", "make_dt_interval",
    "make_interval", "make_time", "make_timestamp", "make_timestamp_ltz",
    "make_timestamp_ntz", "make_valid_utf8", "make_ym_interval", "map_concat",
    "map_contains_key", "map_entries", "map_filter", "map_from_arrays", "map_from_entries",
    "map_keys", "map_values", "map_zip_with", "mask", "max", "max_by", "md5", "mean",
    "median", "min", "min_by", "minute", "mode", "monotonically_increasing_id", "month",
    "monthname", "months", "months_between", "named_struct", "nanvl", "negate", "negative",
    "next_day", "now", "nth_value", "ntile", "nullif", "nullifzero", "nvl", "nvl2",
    "octet_length", "overlay", "pandas_udf", "parse_json", "parse_url", "percent_rank",
    "percentile", "percentile_approx", "pi", "pmod", "posexplode", "posexplode_outer",
    "position", "positive", "pow", "power", "printf", "product", "quarter", "quote",
    "radians", "raise_error", "rand", "randn", "random", "randstr", "rank", "reduce",
    "reflect", "regexp", "regexp_count", "regexp_extract", "regexp_extract_all",
    "regexp_instr", "regexp_like", "regexp_replace", "regexp_substr", "regr_avgx",
    "regr_avgy", "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx",
    "regr_sxy", "regr_syy", "repeat", "replace", "reverse", "right", "rint", "rlike",
    "round", "row_number", "rpad", "rtrim", "schema_of_csv", "schema_of_json",
    "schema_of_variant", "schema_of_variant_agg", "schema_of_xml", "sec", "second",
    "sentences", "sequence", "session_user", "session_window", "sha", "sha1", "sha2",
    "shiftLeft", "shiftRight", "shiftRightUnsigned", "shiftleft", "shiftright",
    "shiftrightunsigned", "shuffle", "sign", "signum", "sin", "sinh", "size", "skewness",
    "slice", "some", "sort_array", "soundex", "spark_partition_id", "split", "split_part",
    "sqrt", "st_asbinary", "st_geogfromwkb", "st_geomfromwkb", "st_setsrid", "st_srid",
    "stack", "startswith", "std", "stddev", "stddev_pop", "stddev_samp", "str_to_map",
    "string_agg", "string_agg_distinct", "struct", "substr", "substring", "substring_index",
    "sum", "sumDistinct", "sum_distinct", "tan", "tanh", "theta_difference",
    "theta_intersection", "theta_intersection_agg", "theta_sketch_agg",
    "theta_sketch_estimate", "theta_union", "theta_union_agg", "time_bucket", "time_diff",
    "time_from_micros", "time_from_millis", "time_from_seconds", "time_to_micros",
    "time_to_millis", "time_to_seconds", "time_trunc", "timestamp_add", "timestamp_diff",
    "timestamp_micros", "timestamp_millis", "timestamp_nanos", "timestamp_seconds",
    "toDegrees", "toRadians", "to_base32", "to_binary", "to_char", "to_csv", "to_date",
    "to_json", "to_number", "to_time", "to_timestamp", "to_timestamp_ltz",
    "to_timestamp_ntz", "to_unix_timestamp", "to_utc_timestamp", "to_varchar",
    "to_variant_object", "to_xml", "transform", "transform_keys", "transform_values",
    "translate", "trim", "trunc", "try_add", "try_aes_decrypt", "try_avg", "try_divide",
    "try_element_at", "try_make_interval", "try_make_timestamp", "try_make_timestamp_ltz",
    "try_make_timestamp_ntz", "try_mod", "try_multiply", "try_parse_json", "try_parse_url",
    "try_reflect", "try_subtract", "try_sum", "try_to_binary", "try_to_date",
    "try_to_number", "try_to_time", "try_to_timestamp", "try_url_decode",
    "try_validate_utf8", "try_variant_array_append", "try_variant_get",
    "try_variant_insert", "try_variant_set", "tuple_difference_double",
    "tuple_difference_integer", "tuple_difference_theta_double",
    "tuple_difference_theta_integer", "tuple_intersection_agg_double",
    "tuple_intersection_agg_integer", "tuple_intersection_double",
    "tuple_intersection_integer", "tuple_intersection_theta_double",
    "tuple_intersection_theta_integer", "tuple_sketch_agg_double",
    "tuple_sketch_agg_integer", "tuple_sketch_estimate_double",
    "tuple_sketch_estimate_integer", "tuple_sketch_summary_double",
    "tuple_sketch_summary_integer", "tuple_sketch_theta_double",
    "tuple_sketch_theta_integer", "tuple_union_agg_double", "tuple_union_agg_integer",
    "tuple_union_double", "tuple_union_integer", "tuple_union_theta_double",
    "tuple_union_theta_integer", "typeof", "ucase", "udf", "udtf", "unbase64", "unhex",
    "uniform", "unix_date", "unix_micros", "unix_millis", "unix_nanos", "unix_seconds",
    "unix_timestamp", "unwrap_udt", "upper", "url_decode", "url_encode", "user", "uuid",
    "validate_utf8", "var_pop", "var_samp", "variance", "variant_array_append",
    "variant_delete", "variant_get", "variant_insert", "variant_set", "variant_strip_nulls",
    "vector_avg", "vector_cosine_similarity", "vector_inner_product", "vector_l2_distance",
    "vector_norm", "vector_normalize", "vector_sum", "version", "weekday", "weekofyear",
    "when", "width_bucket", "window", "window_time", "xpath", "xpath_boolean",
    "xpath_double", "xpath_float", "xpath_int", "xpath_long", "xpath_number", "xpath_short",
    "xpath_string", "xxhash64", "year", "years", "zeroifnull", "zip_with",
})
