"""Equi-join row estimates (``planner.optimizer.estimates.equi_join_rows``) from the footers' key
ranges: a fact table joined to a filtered dimension keeps the dimension's kept share."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.planner.optimizer.estimates import estimate_bytes, estimate_rows
from sparkwire.planner.logical.expressions import Call, Column, Lit
from sparkwire.planner.logical.plan import Filter, Join
from sparkwire.planner.logical.sources import FileSplit, ParquetScan
from sparkwire.planner.optimizer.selectivity import selectivity

FACT = pa.table({"fk": pa.array([i % 100 for i in range(10_000)], pa.int64()),
                 "q": pa.array(range(10_000), pa.int64())})
DIM = pa.table({"dk": pa.array(range(100), pa.int64()), "name": pa.array([f"n{i % 7}" for i in range(100)])})
EQ = Call(fn="eq", args=(Column(name="name"), Lit(value="n3")))


@pytest.fixture
def scans(write_parquet):
    fact = ParquetScan(splits=(FileSplit(path=str(write_parquet("fact.parquet", 5000, FACT))),), columns=("fk", "q"))
    dim = ParquetScan(splits=(FileSplit(path=str(write_parquet("dim.parquet", 100, DIM))),), columns=("dk", "name"))
    return fact, dim


def join(left, right, how="inner", left_key="fk", right_key="dk"):
    return Join(left=left, right=right, how=how, left_keys=(Column(name=left_key),),
                right_keys=(Column(name=right_key),))


def test_a_fact_joined_to_a_filtered_dimension_keeps_its_share(scans):
    fact, dim = scans
    assert estimate_rows(join(fact, dim)) == 10_000  # every fact row meets its one dimension row
    kept = int(100 * selectivity(EQ))
    assert estimate_rows(join(fact, Filter(input=dim, predicate=EQ))) == 10_000 * kept // 100
    assert estimate_bytes(join(fact, Filter(input=dim, predicate=EQ))) < estimate_bytes(fact)


def test_a_dimension_joined_to_a_filtered_one_keeps_that_share(scans, write_parquet):
    """``fact JOIN (dim JOIN sub ON dim.g = sub.sk)``: dim's keys are unique in dim, so each
    fact row meets at most one row, kept with the share of dim the filtered sub keeps."""
    fact, dim = scans
    grouped = pa.table({"dk": pa.array(range(100), pa.int64()), "g": pa.array([i % 10 for i in range(100)])})
    sub = pa.table({"sk": pa.array(range(10), pa.int64()), "name": pa.array([f"n{i}" for i in range(10)])})
    dims = ParquetScan(splits=(FileSplit(path=str(write_parquet("dims.parquet", 100, grouped))),),
                       columns=("dk", "g"))
    subs = ParquetScan(splits=(FileSplit(path=str(write_parquet("subs.parquet", 10, sub))),),
                       columns=("sk", "name"))
    joined = join(dims, Filter(input=subs, predicate=EQ), left_key="g", right_key="sk")
    share = estimate_rows(joined) / 100
    assert 0 < share < 1
    assert estimate_rows(join(fact, joined)) == int(10_000 * estimate_rows(joined) // 100)


def test_a_semi_join_on_a_dimensions_key_keeps_its_share(scans):
    """A semi join keeps at most its left rows; on a filtered dimension's unique key, the
    share of the dimension the filter keeps."""
    fact, dim = scans
    kept = Filter(input=dim, predicate=EQ)
    assert estimate_rows(join(fact, kept, "semi")) == int(10_000 * estimate_rows(kept) / 100)
    assert estimate_rows(join(fact, fact, "semi", right_key="fk")) == 10_000  # not a key: all


def test_keys_not_unique_on_the_right_use_containment(scans):
    fact, _ = scans
    # fk holds 100 values over 10,000 rows each side: every row meets 100 partners
    assert estimate_rows(join(fact, fact, right_key="fk")) == 10_000 * 10_000 // 100


def test_an_outer_join_keeps_at_least_its_preserved_side(scans):
    fact, dim = scans
    assert estimate_rows(join(Filter(input=dim, predicate=EQ), fact, "left", "dk", "fk")) >= estimate_rows(
        Filter(input=dim, predicate=EQ))
    assert estimate_rows(join(fact, Filter(input=dim, predicate=EQ), "left")) == 10_000


def test_computed_keys_give_the_larger_side(scans):
    fact, dim = scans
    computed = Join(left=fact, right=dim, how="inner", left_keys=(Call(fn="add", args=(Column(name="fk"), Lit(value=1))),),
                    right_keys=(Column(name="dk"),))
    assert estimate_rows(computed) == 10_000


def test_a_chain_of_joins_is_estimated_in_linear_time(scans, monkeypatch):
    """Each join asks its inputs for rows and distinct values; without a memo per question
    a chain of joins asked the footers exponentially often (TPC-H Q8 planned in 0.36 s)."""
    import sparkwire.planner.optimizer.estimates as estimates

    fact, dim = scans
    plan = fact
    for i in range(10):
        plan = join(plan, dim.model_copy(update={"columns": ("dk", "name")}))
    reads = []
    real = estimates.file_info
    monkeypatch.setattr(estimates, "file_info", lambda path: reads.append(path) or real(path))
    estimate_rows(plan)
    assert len(reads) < 200  # 2**10 and more without the memo


def test_within_a_planning_each_subtree_is_estimated_once(scans, monkeypatch):
    """A chain of joins asks for its subtrees' sizes and rows again and again; within
    ``planning()`` each is computed once, and the answers are the ones computed afresh."""
    from sparkwire.planner.optimizer import estimates

    fact, dim = scans
    chain = fact
    for _ in range(8):
        chain = join(chain, Filter(input=dim, predicate=EQ))
    fresh = estimate_bytes(chain), estimate_rows(chain)
    computed: list[int] = []
    compute = estimates._bytes
    monkeypatch.setattr(estimates, "_bytes", lambda op: computed.append(id(op)) or compute(op))
    with estimates.planning():
        assert (estimate_bytes(chain), estimate_rows(chain)) == fresh
        assert estimate_bytes(chain) == fresh[0]
    assert len(computed) == len(set(computed))
    computed.clear()
    estimate_bytes(chain)  # outside a planning nothing is kept
    assert len(computed) > len(set(computed))
