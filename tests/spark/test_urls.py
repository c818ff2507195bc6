"""``parse_url`` and ``try_parse_url`` against real PySpark: one table of URLs (user info,
ports, IPv4 and IPv6 hosts, registry-based authorities, opaque and relative URLs, empty
authorities and paths, escapes good and malformed, non-ASCII text, invalid characters,
repeated query keys, NULL) and one select of every part, a key and a part given as a
column, in the DataFrame API and SQL text; one Spark job. ``parse_url`` of an invalid URL
fails as Spark's under ANSI."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import functions as F
from tests.spark.compare import assert_same

pytestmark = pytest.mark.connect  # its programs also run through Spark Connect (compare.Remote)

_URLS = [
    "http://user:pw@spark.apache.org:80/path/a.html?query=1&q=2#Ref", "https://spark.apache.org/path?query=1",
    "mailto:someone@example.com", "file:///tmp/x.txt", "http://my_host.com/p", "http://1.2.3.4:8080/",
    "http://[::1]:80/a", "inva lid://x", "http://", "/relative/path?x=1", "http://a.b.1/", "http://host:99999999999/",
    "http://h/%zz", "http://h/%41?b=%20#f%2F", "http://h/é?ü=1#frag", "", None, "//host/p", "http://h/p?a=1&a=2&b&a=3",
    "x:", ":x", "http://h/p#a#b", "http://1.2.3.256/", "http://1.2.3.4.com:/x", "http://@h/", "http://u@h@i/",
    "http://-a.com/", "http://a-.com/", "http://a..b/", "http://h.:1/", "HTTP://H/P?Q=1", "http://h/p?q=[1]",
    "http://h/p[1]", "ftp://[2001:db8::7]/c=GB?objectClass?one", "http://h/a b", "http://h?x#", "s+a.b-c://h",
    "http://h:80x/", "http://:80/", "news:comp.lang.java", "urn:isbn:096139210x", "../a/b?c#d",
]
URLS = pa.table({
    "u": pa.array(_URLS),
    "part": pa.array((["HOST", "PATH", "QUERY", "REF", "PROTOCOL", "FILE", "AUTHORITY", "USERINFO", "host", None]
                      * 5)[:len(_URLS)]),
})
_PARTS = ("HOST", "PATH", "QUERY", "REF", "PROTOCOL", "FILE", "AUTHORITY", "USERINFO", "OTHER")


def parts(api, df):
    F_ = api.F
    return df.select(
        "u", *(F_.try_parse_url("u", F_.lit(p)).alias(p) for p in _PARTS),
        F_.try_parse_url("u", F_.lit("QUERY"), F_.lit("a")).alias("qa"),
        F_.try_parse_url("u", F_.lit("QUERY"), F_.lit("q=")).alias("qq"),
        F_.try_parse_url("u", F_.lit("HOST"), F_.lit("a")).alias("host_key"),
        F_.try_parse_url("u", "part").alias("by_column"),
        F_.expr("try_parse_url(u, 'QUERY', 'query') AS sql_key"), F_.expr("try_parse_url(u, part) AS sql_part"),
    )


@pytest.mark.slow
def test_url_parts_match_pyspark(spark, sessions) -> None:
    assert_same(parts, [URLS], spark, sessions)


def test_parse_url_of_a_valid_url_and_of_an_invalid_one(sessions) -> None:
    df = sessions[0].createDataFrame(URLS)
    assert [r[0] for r in df.where(F.col("u").startswith("https")).select(F.parse_url("u", F.lit("HOST"))).collect()] \
        == ["spark.apache.org"]
    with pytest.raises(Exception, match=r"INVALID_URL.*inva lid://x"):
        df.select(F.parse_url("u", F.lit("HOST"))).collect()
