"""The closed allow-lists of function names a plan may carry: scalar, aggregate and window
functions. A name outside them fails a plan's validation (``planner.logical.expressions``)
before a worker compiles anything; each family module of ``planner.logical.functions`` and its
worker builder in ``coordinator.worker.compile`` adds its names here."""

from __future__ import annotations

from typing import Literal

ScalarFunction = Literal[
    # arithmetic
    "add",
    "sub",
    "mul",
    "div",
    # exact decimal quotient: (a, b, scale) with a and b cast to their decimal types
    "decimal_div",
    # avg of a decimal: (sum cast to its decimal type, count, scale), exact (planner.logical.typed)
    "decimal_avg",
    "mod",
    "neg",
    # a value DuckDB computes wider (an integer sum) as Spark's integer type (worker.compile.integers)
    "exact_integer",
    # comparison
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    # logic and null handling
    "and",
    "or",
    "not",
    "is_null",
    "is_not_null",
    "isnan",
    "try_double",
    "in",
    "between",
    "coalesce",
    # strings
    "like",
    "substring",
    "concat",
    "trim",
    "ltrim",
    "rtrim",
    # dates
    "date_add",
    "date_sub",
    "add_months",
    # a few scalar helpers users reach for in filters
    "abs",
    "trunc",
    "lower",
    "upper",
    "length",
    "year",
    "month",
    "day",
    # strings (planner.logical.functions.strings)
    "substr",
    "concat_ws",
    "lpad",
    "rpad",
    "regexp_replace",
    "regexp_extract",
    "rlike",
    "instr",
    "locate",
    "initcap",
    "format_string",
    "startswith",
    "endswith",
    "contains",
    "eq_null_safe",
    # more strings (planner.logical.functions.texts, worker.compile.calls_texts)
    "left", "right", "repeat", "reverse", "ascii", "chr", "char", "octet_length", "bit_length",
    "char_length", "character_length", "btrim", "translate", "overlay", "split_part",
    "substring_index", "levenshtein", "printf", "ilike", "regexp_like", "regexp", "regexp_count",
    "regexp_extract_all", "regexp_substr", "regexp_instr", "elt", "find_in_set", "lcase", "ucase",
    "replace", "position", "encode", "decode", "uuid",
    # the task's identity and randomness (planner.logical.functions.task_values, worker.compile.calls_task)
    "rand", "randn", "monotonically_increasing_id", "spark_partition_id", "uniform", "randstr", "shuffle",
    # withField and dropFields, written out by the analyzer (planner.logical.struct_updates)
    "update_fields",
    # NULL functions and try_ arithmetic (planner.logical.functions.nulls, worker.compile.calls_nulls)
    "nvl", "nvl2", "nullif", "ifnull", "nullifzero", "zeroifnull", "equal_null",
    "try_add", "try_subtract", "try_multiply", "try_divide", "try_mod",
    # dates and times (planner.logical.functions.dates)
    "current_date",
    "current_timestamp",
    "datediff",
    "months_between",
    "date_format",
    "to_date",
    "to_timestamp",
    "to_timestamp_ltz",
    "to_timestamp_ntz",
    "try_to_date",
    "try_to_timestamp",
    "from_utc_timestamp",
    "to_utc_timestamp",
    "unix_timestamp",
    "from_unixtime",
    "current_timezone",
    "date_trunc",
    "trunc_date",
    "hour",
    "minute",
    "second",
    "dayofweek",
    "dayofyear",
    "weekofyear",
    "quarter",
    "last_day",
    "next_day",
    # the later date and time functions (planner.logical.functions.calendar, worker.compile.calls_calendar)
    "dayofmonth", "dayname", "monthname", "weekday", "dayofweek_iso", "second_fraction",
    "date_part", "datepart", "extract", "make_date", "make_timestamp", "make_timestamp_ltz",
    "make_timestamp_ntz", "unix_date", "unix_seconds", "unix_millis", "unix_micros",
    "timestamp_seconds", "timestamp_millis", "timestamp_micros", "date_diff",
    "date_from_unix_date", "to_unix_timestamp", "now", "localtimestamp", "nanvl", "convert_timezone",
    # units between and added to timestamps (planner.logical.functions.timestamp_units)
    "timestampdiff", "timestampadd",
    # math (planner.logical.functions.numeric)
    "round",
    "bround",
    "round_double",  # round/bround of a double: the analyzer picks them (analyzer._typed_calls)
    "bround_double",
    "floor_double",  # floor/ceil of a double or float: the analyzer picks them too
    "ceil_double",
    "floor",
    "ceil",
    "ceiling",
    "sqrt",
    "pow",
    "log",
    "ln",
    "log10",
    "log2",
    "log1p",
    "exp",
    "signum",
    "greatest",
    "least",
    "pmod",
    # trigonometry and the other elementary functions (planner.logical.functions.elementary)
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "cot", "sec", "csc", "hypot", "degrees", "radians", "cbrt", "expm1",
    "rint", "sign", "pi", "e", "factorial", "negative", "positive", "width_bucket",
    # bitwise functions (planner.logical.functions.bits); the shifts typed as integer arithmetic
    "shiftleft", "shiftright", "shiftrightunsigned", "bitwise_not", "bit_count", "bit_get",
    "getbit",
    # Column.bitwiseAND/OR/XOR and SQL's & | ^ (planner.logical.functions.bits)
    "bitwise_and", "bitwise_or", "bitwise_xor",
    # digests and encodings (planner.logical.functions.encodings)
    "md5", "sha1", "sha", "sha2", "base64", "unbase64", "hex", "unhex", "bin",
    # arrays, maps and structs (planner.logical.collection_types, worker.compile.calls_collections)
    "split",
    "array",
    "array_contains",
    "size",
    "element_at",
    "get_item",
    "map_value",
    "get_field",
    "named_struct",
    "array_distinct",
    "sort_array",
    "array_sort",
    "create_map",
    "map_keys",
    "map_values",
    # more arrays and maps (planner.logical.functions.arrays and maps, planner.logical.array_types,
    # worker.compile.calls_arrays and calls_maps)
    "array_size", "cardinality", "array_compact", "array_max", "array_min", "flatten",
    "array_append", "array_prepend", "array_position", "array_remove", "array_repeat",
    "arrays_overlap", "array_union", "array_intersect", "array_except", "get", "try_element_at",
    "slice", "array_insert", "arrays_zip", "sequence", "array_join",
    "map_contains_key", "map_entries", "map_from_arrays", "map_from_entries", "map_concat",
    "str_to_map",
    # higher-order functions of a Lambda (planner.logical.lambdas, worker.compile.calls_lambdas)
    "transform", "filter", "exists", "forall", "aggregate", "reduce", "zip_with", "map_filter",
    "transform_keys", "transform_values", "map_zip_with",
    # failing the query on purpose (planner.logical.functions.assertions): (error class, message)
    # and (condition, message), typed void as Spark's; compiled to DuckDB's error()
    "raise_error",
    "assert_true",
    # what the session says (planner.logical.functions.session_info): (Spark's name, value)
    "session_value",
    # json_tuple's value of one top-level key, the last of a repeated one
    # (planner.logical.functions.json_tuples, worker.compile.calls_json_tuples)
    "json_tuple_value",
    # a URL's parts as java.net.URI reads them (planner.logical.functions.urls, worker.compile.calls_urls)
    "parse_url", "try_parse_url",
    # text read in Spark's number format (planner.logical.functions.number_formats)
    "to_number", "try_to_number",
    # a string's collation, always UTF8_BINARY (planner.logical.functions.collations)
    "collation",
    # vectors of floats (planner.logical.functions.vectors, worker.compile.calls_vectors)
    "vector_inner_product", "vector_cosine_similarity", "vector_l2_distance", "vector_norm",
    "vector_normalize",
    # the make_timestamp family, NULL where it fails (planner.logical.functions.try_calendar)
    "try_make_timestamp", "try_make_timestamp_ltz", "try_make_timestamp_ntz",
    # Spark's TIME type (planner.logical.functions.times, worker.compile.calls_times)
    "make_time", "to_time", "try_to_time", "current_time", "time_diff", "time_trunc",
    "time_to_micros", "time_to_millis", "time_to_seconds", "time_from_micros", "time_from_millis",
    "time_from_seconds",
    # a time of day on a date, a wall clock: a TIME cast to a timestamp (time_types.on_current_date)
    "time_on_date",
    # JSON, URL and UTF-8 functions (planner.logical.functions.jsons, transcoding;
    # worker.compile.calls_json, calls_transcoding)
    "get_json_object", "json_array_length", "json_object_keys", "schema_of_json", "to_json", "from_json",
    "url_encode", "url_decode", "try_url_decode", "is_valid_utf8", "make_valid_utf8",
    "validate_utf8", "try_validate_utf8", "quote", "typeof", "jaro_winkler_similarity", "mask",
    "to_binary", "try_to_binary",
    # spelling values as text (planner.logical.functions.spellings, worker.compile.calls_spellings)
    "soundex", "format_number",
    # base32 (planner.logical.functions.encodings, worker.compile.calls_encodings)
    "to_base32", "from_base32",
    # base conversion (planner.logical.functions.radix, worker.compile.calls_radix)
    "conv",
    # keyed digests (planner.logical.functions.macs, worker.compile.calls_hmac)
    "hmac",
    # to_char of dates and binary, made another call once typed (planner.logical.typed_to_char)
    "to_char", "to_varchar",
]
AggregateFunction = Literal[
    "sum", "count", "avg", "min", "max", "count_distinct", "any_value", "quantile", "first",
    "last",
    "collect_list", "collect_set", "approx_count_distinct", "count_if", "sum_distinct",
    "stddev", "stddev_samp", "stddev_pop", "std", "variance", "var_samp", "var_pop",
    "skewness", "kurtosis", "covar_samp", "covar_pop", "corr",
    "regr_count", "regr_avgx", "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy", "regr_slope",
    "regr_intercept", "regr_r2",
    "percentile_approx",
    "bit_and", "bit_or", "bit_xor",
    # the later aggregates (planner.logical.functions.summaries)
    "bool_and", "bool_or", "every", "some", "product", "max_by", "min_by", "median", "percentile",
    # planner.logical.functions.aggregate_forms: mode, and try_sum/try_avg until typed
    "mode", "try_sum", "try_avg",
    # the merge halves of collect_list / collect_set (planner.physical.aggregates)
    "merge_lists", "merge_sets",
    # strings joined by a delimiter (planner.logical.functions.listaggs)
    "listagg", "listagg_distinct",
    # element-wise over float vectors (planner.logical.functions.vectors)
    "vector_sum", "vector_avg",
]
#: The names Spark prints for an aggregate called by another name than its own (Spark's
#: ``FUNC_ALIAS``: ``first_value(x)`` is ``first``, named ``first_value(x)``), and the
#: spelling of ``mode(x, true)`` (``planner.logical.render``).
AggregateAlias = Literal["first_value", "last_value", "approx_percentile", "try_sum", "try_avg",
                         "deterministic_mode", "string_agg"]
#: Functions that exist only over a window (``planner.logical.windowing``): ranking and offsets.
WindowFunction = Literal[
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "nth_value",
    # cumulative counters as deltas, expanded by the analyzer (planner.logical.counter_diffs)
    "counter_diff",
]
#: The aggregates of two columns (``other`` is the second): covariances, correlation and the
#: linear regressions (``regr_*(y, x)``, ``other`` being x).
PAIR_AGGREGATES = frozenset({"covar_samp", "covar_pop", "corr", "regr_count", "regr_avgx",
                             "regr_avgy", "regr_sxx", "regr_syy", "regr_sxy", "regr_slope",
                             "regr_intercept", "regr_r2"})
#: The aggregates taking a value and the column ordering it (``other``): ``max_by``, ``min_by``.
ORDERED_PICKS = frozenset({"max_by", "min_by"})
#: The aggregates joining strings with a ``separator``, ordered by ``other`` where given.
LISTAGGS = frozenset({"listagg", "listagg_distinct"})
#: Percentages one ``percentile_approx`` may ask for.
MAX_PERCENTAGES = 1024
