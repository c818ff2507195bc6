"""The coverage report (``sparkwire coverage``): every public PySpark name is exactly one
of works, refused (with a reason from the one table) or missing; the table names only
PySpark's names; a refused name says why when reached; README's "Not supported" table is
the table's."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkwire.coordinator import coverage
from sparkwire.coordinator.cli import main
from sparkwire.planner.api import functions as F
from sparkwire.planner.api import pyspark_names, refused

pytest.importorskip("pyspark")

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture(scope="module")
def rows() -> list[coverage.OwnerCoverage]:
    return coverage.report()


def test_each_name_is_one_of_works_refused_missing(rows) -> None:
    assert [r.owner for r in rows] == list(coverage.PYSPARK_OWNERS)
    for row in rows:
        names = coverage.pyspark_names(row.owner)
        assert row.works | row.refused | row.missing == names
        assert not row.works & row.refused and not row.works & row.missing
        assert not row.refused & row.missing
        assert row.conflicts == frozenset(), f"{row.owner}: present and refused"
    functions = rows[0]
    assert {"sqrt", "round", "col"} <= functions.works and "udf" in functions.refused


def test_the_refusal_table_names_only_pyspark_names() -> None:
    for owner, names in refused.REFUSED.items():
        assert owner in coverage.PYSPARK_OWNERS
        assert set(names) <= coverage.pyspark_names(owner), owner


def test_the_not_supported_messages_know_pysparks_names() -> None:
    """``planner.api.pyspark_names`` (what "not supported" messages read) is PySpark's."""
    for owner, listed in (("functions", pyspark_names.FUNCTIONS), ("DataFrame", pyspark_names.DATAFRAME),
                          ("Column", pyspark_names.COLUMN), ("GroupedData", pyspark_names.GROUPED_DATA),
                          ("SparkSession", pyspark_names.SESSION)):
        assert listed == coverage.pyspark_names(owner), owner


def test_a_refused_name_says_why() -> None:
    with pytest.raises(AttributeError, match=r"^`udf` is not supported by sparkwire "
                                             r"\(PySpark's functions\.udf\): user code"):
        F.udf  # noqa: B018


class _Surface:
    """Stand-ins written the two ways a refusal can be: a stub and a real method."""

    def __init__(self) -> None:
        self.assigned = 1

    def stub(self) -> None:
        """Refuses."""
        raise NotImplementedError

    def real(self) -> int:
        if self.assigned:
            raise ValueError
        return 1


def test_stubs_and_instance_attributes_are_told_apart() -> None:
    assert coverage.is_stub(_Surface.stub) and not coverage.is_stub(_Surface.real)
    assert "assigned" in coverage.instance_attributes(_Surface)
    row = coverage.coverage("Column", _Surface, frozenset({"stub", "real", "assigned", "none"}))
    assert (row.works, row.missing) == ({"real", "assigned"}, {"stub", "none"})


def test_readme_shows_the_refusal_table() -> None:
    assert refused.markdown() in README.read_text()


def test_the_command_prints_the_report(capsys) -> None:
    assert main(["coverage"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["PySpark", "public", "works", "refused", "missing", "works%"]
    assert [line.split()[0] for line in lines[1:]] == list(coverage.PYSPARK_OWNERS)


def test_readme_states_the_report_s_numbers(rows) -> None:
    """README's coverage sentence is the report's, so a change that adds or loses a name
    (or breaks the report itself) cannot leave it stale."""
    text = " ".join(README.read_text().split())
    first, *others = rows
    assert (f"`{first.owner}`' {first.total} public names {len(first.works)} work, "
            f"{len(first.refused)} are refused and {len(first.missing)} are missing") in text
    for row in others:
        assert (f"`{row.owner}` {row.total}: "
                f"{len(row.works)}/{len(row.refused)}/{len(row.missing)}") in text
