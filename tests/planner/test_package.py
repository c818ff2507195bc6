from sparkwire import planner


def test_public_names_are_pinned() -> None:
    assert sorted(planner.__all__) == [
        "AnalysisError",
        "Column",
        "DataFrame",
        "DataFrameReader",
        "Executor",
        "GroupedData",
        "PlanError",
        "ResultStream",
        "SortOrder",
        "Window",
        "WindowSpec",
        "create_dataframe",
        "explain_logical",
        "explain_staged",
        "functions",
        "plan_stages",
        "sql_dataframe",
    ]
    for name in planner.__all__:
        assert getattr(planner, name) is not None
