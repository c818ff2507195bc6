"""The fixed result types of the JSON, URL and UTF-8 functions
(``planner.logical.functions.jsons``, ``transcoding``), as Spark types them;
``planner.logical.types`` merges them into its table of fixed results."""

from __future__ import annotations

import pyarrow as pa

FORMAT_RESULT: dict[str, pa.DataType] = {
    **dict.fromkeys(("get_json_object", "schema_of_json", "url_encode", "url_decode",
                     "try_url_decode", "make_valid_utf8", "validate_utf8", "try_validate_utf8",
                     "quote", "typeof", "to_json", "mask"), pa.string()),
    "json_array_length": pa.int32(),
    "json_object_keys": pa.list_(pa.field("element", pa.string())),
    "is_valid_utf8": pa.bool_(),
    **dict.fromkeys(("to_binary", "try_to_binary"), pa.binary()),
    "jaro_winkler_similarity": pa.float64(),
    **dict.fromkeys(("soundex", "format_number", "to_base32"), pa.string()),
    "from_base32": pa.binary(),
    "conv": pa.string(),
    "hmac": pa.binary(),
    **dict.fromkeys(("to_char", "to_varchar"), pa.string()),
    "collation": pa.string(),
    "json_tuple_value": pa.string(),
    **dict.fromkeys(("parse_url", "try_parse_url"), pa.string()),
    **dict.fromkeys(("vector_inner_product", "vector_cosine_similarity", "vector_l2_distance", "vector_norm"),
                    pa.float32()),
    "vector_normalize": pa.list_(pa.field("element", pa.float32())),
}
