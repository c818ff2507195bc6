from sparkwire.planner import api


def test_public_names_are_pinned() -> None:
    assert sorted(api.__all__) == [
        "Column",
        "DataFrame",
        "DataFrameReader",
        "Executor",
        "GroupedData",
        "ResultStream",
        "SortOrder",
        "Window",
        "WindowSpec",
        "create_dataframe",
        "functions",
        "sql_dataframe",
    ]
    for name in api.__all__:
        assert getattr(api, name) is not None

