import ast
from pathlib import Path

import planner

PLANNER = Path(planner.__file__).parent


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
        "create_dataframe",
        "explain_logical",
        "explain_staged",
        "functions",
        "plan_stages",
    ]
    for name in planner.__all__:
        assert getattr(planner, name) is not None


def test_planner_imports_neither_transport_nor_coordinator() -> None:
    for path in PLANNER.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] not in {"transport", "coordinator"}, f"{path.name}: {module}"
