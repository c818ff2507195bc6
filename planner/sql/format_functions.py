"""SQL calls of the JSON, URL and UTF-8 functions (``planner.logical.functions.jsons``,
``transcoding``): the node classes sqlglot parses them into, and the names it leaves
anonymous, merged into ``planner.sql.functions``' tables.

sqlglot reads ``get_json_object``'s path literal into its own ``JSONPath`` tree; ``spark_path``
writes that tree back as Spark's path text, which the registry then reads as Spark does.
Where sqlglot's reading loses what Spark wrote: a path not starting with ``$`` (NULL in
Spark) is read as a key of the root (``'a'`` as ``$.a``) and answered as that.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.sql.errors import SqlError

#: node class -> (the node's arguments, in order, that are the call's) and the registry's name
FORMAT_CLASSES: dict[type[exp.Expr], tuple[tuple[str, ...], str]] = {
    exp.JSONKeys: (("this",), "json_object_keys"),
    exp.Typeof: (("this",), "typeof"),
    exp.Soundex: (("this",), "soundex"),
    exp.Collation: (("this",), "collation"),
    exp.ParseUrl: (("this", "part_to_extract", "key"), "parse_url"),
    exp.ToBase32: (("this",), "to_base32"),
    exp.FromBase32: (("this",), "from_base32"),
    exp.JSONFormat: (("this",), "to_json"),
    exp.FromJson: (("this", "expression"), "from_json"),
    exp.ToChar: (("this", "format"), "to_char"),
}
#: The ones sqlglot leaves as anonymous calls, resolved by their own names.
FORMAT_NAMES = frozenset({
    "json_array_length", "schema_of_json", "url_encode", "url_decode", "try_url_decode",
    "is_valid_utf8", "make_valid_utf8", "validate_utf8", "try_validate_utf8", "quote",
    "jaro_winkler_similarity", "mask", "to_binary", "try_to_binary", "format_number", "try_parse_url",
    "to_number", "try_to_number",
    "conv", "hmac", "to_varchar",
})


def spark_path(node: exp.Expr) -> ex.Expr | None:
    """The path literal of ``get_json_object`` as Spark wrote it, or None where ``node`` is
    not sqlglot's reading of one (a column path stays a column)."""
    if not isinstance(node, exp.JSONPath):
        return None
    parts = node.expressions
    if not parts or not isinstance(parts[0], exp.JSONPathRoot):
        raise SqlError.at(node, f"the JSON path {node.sql(dialect='spark')} is not supported by sparkwire")
    text = "$"
    for part in parts[1:]:
        inner = part.this
        if isinstance(inner, exp.JSONPathWildcard):
            text += ".*" if isinstance(part, exp.JSONPathKey) else "[*]"
        elif isinstance(part, exp.JSONPathKey):
            text += f".{inner}" if "." not in str(inner) and "[" not in str(inner) else f"['{inner}']"
        elif isinstance(part, exp.JSONPathSubscript) and isinstance(inner, int):
            text += f"[{inner}]"
        else:
            raise SqlError.at(node, f"the JSON path {node.sql(dialect='spark')} is not supported by sparkwire")
    return ex.Lit(value=text)
