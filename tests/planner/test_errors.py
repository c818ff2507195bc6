"""Errors a PySpark user understands: PySpark names sparkwire lacks are "not supported by
sparkwire" (not a typo), and pydantic's validation text never reaches the user."""

from __future__ import annotations

import re

import pyarrow as pa
import pytest

from sparkwire.planner.api import functions as F
from sparkwire.planner.api import refused
from sparkwire.planner.errors import AnalysisError, plain_message
from sparkwire.planner.api.sources import create_dataframe


@pytest.fixture
def df(executor):
    return create_dataframe(executor, pa.table({"a": [1, None], "rdd_like": ["x", "y"]}))


@pytest.mark.parametrize(("get", "name", "owner"), [
    (lambda df: df.rdd, "rdd", "DataFrame"),
    (lambda df: df.mapInPandas, "mapInPandas", "DataFrame"),
    (lambda df: F.col("a").outer, "outer", "Column"),
    (lambda df: df.groupBy("a").applyInPandas, "applyInPandas", "GroupedData"),
    (lambda df: F.sentences, "sentences", "functions"),
])
def test_pyspark_names_we_lack_are_not_supported(df, get, name: str, owner: str) -> None:
    why = refused.reason(owner, name)
    with pytest.raises(AttributeError, match=f"^`{name}` is not supported by sparkwire "
                                             rf"\(PySpark's {owner}\.{name}\)"
                                             + ("$" if why is None else f": {re.escape(why)}$")):
        get(df)


def test_other_names_are_plain_attribute_errors(df) -> None:
    with pytest.raises(AttributeError, match="DataFrame has no attribute or column 'nope'"):
        df.nope
    assert isinstance(F.col("a").nope, F.Column)  # any other name is a struct field, as in PySpark
    with pytest.raises(AttributeError, match="functions has no attribute 'nope'"):
        F.nope
    assert not hasattr(df, "rdd") and getattr(F, "sentences", None) is None
    assert df.rdd_like.output_name == "rdd_like"  # columns still resolve as attributes


def test_validation_errors_read_plainly() -> None:
    for bad in ('a"b', ""):
        with pytest.raises(AnalysisError) as caught:
            F.col(bad)
        message = str(caught.value)
        assert message.startswith("invalid column name: identifier")
        for pydantic_text in ("validation error", "type=", "pydantic", "input_value"):
            assert pydantic_text not in message


def test_plain_message_keeps_field_and_reason() -> None:
    from pydantic import BaseModel, Field, ValidationError

    class M(BaseModel):
        n: int = Field(ge=1)

    with pytest.raises(ValidationError) as caught:
        M(n=0)
    assert plain_message(caught.value) == "n: Input should be greater than or equal to 1"
    assert plain_message(ValueError("just this")) == "just this"


def test_sql_names_what_sparkwire_lacks(executor, df) -> None:
    from sparkwire.planner.api.sources import sql_dataframe

    with pytest.raises(AnalysisError, match="(?i)sentences is not supported by sparkwire"):
        sql_dataframe(executor, "SELECT sentences(rdd_like, rdd_like) FROM t", {"t": df})
