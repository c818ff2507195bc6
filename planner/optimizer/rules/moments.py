"""Statistical aggregates as sums of powers, so they aggregate in two phases like ``avg``.

``stddev``, ``variance``, ``skewness``, ``kurtosis``, the covariances, ``corr`` and the
linear regressions (``regr_*``) are
functions of a group's count and power sums (``sum(x)``, ``sum(x*x)`` ... ``sum(x*y)``,
in doubles). Those are plain ``sum``/``count`` calls, which the stage cutter already splits
into per-task partials merged after the shuffle (``planner.physical.aggregates``): a group's
rows never cross the network, only five numbers per group and task. The central moments
follow from them (``m2 = S2 - S1²/n``, ``m3``, ``m4`` by the binomial expansion), and each
result as Spark's ``CentralMomentAgg`` and ``Covariance`` compute it from theirs, with
Spark 4's NULL where it would divide by zero (``spark.sql.legacy.statisticalAggregate``
off): no rows, one row for the sample forms, ``m2 = 0`` for ``skewness``/``kurtosis``, a
constant column for ``corr``. NaN in gives NaN out, as in Spark.

Why not Spark's own merge of (n, mean, M2 ...) partials: merging them needs the merged mean
inside each term, which a single SQL aggregate cannot have. Power sums in doubles lose
precision when a group's mean is large against its spread (relative error about
``2⁻⁵² · (mean/stddev)^k``, k = 2 for variances, 3 and 4 for skewness and kurtosis); they are
exact for integers and for decimals of a few digits (every TPC-DS statistic), and within
1e-9 of Spark on ordinary data. A central moment within the power sums' rounding of zero
(``|m2| < n · 1e-15 · S2``) is zero, so a constant column of fractions still has a
``stddev`` of 0 and a NULL ``skewness``, as Spark's.
"""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.logical.expressions import (
    PAIR_AGGREGATES,
    AggCall,
    Call,
    Case,
    Cast,
    Expr,
    Lit,
    ScalarFunction,
)
from sparkwire.planner.logical.plan import Aggregate, Operator, transform_up
from sparkwire.planner.logical.tree import transform

#: Rounding of the power sums under which a central moment counts as zero (a few ulps a row).
_ROUNDING = 1e-15


def statistics_as_sums(plan: Operator) -> Operator:
    def rewrite(node: Operator) -> Operator:
        if not isinstance(node, Aggregate):
            return node
        aggregates = tuple(a.model_copy(update={"expr": transform(a.expr, _expanded)})
                           for a in node.aggregates)
        return node if aggregates == node.aggregates else node.model_copy(update={"aggregates": aggregates})

    return transform_up(plan, rewrite)


def _call(fn: ScalarFunction, *args: Expr) -> Expr:
    return Call(fn=fn, args=args)


def _num(value: float) -> Expr:
    return Lit(value=value)


def _add(*terms: Expr) -> Expr:
    total = terms[0]
    for term in terms[1:]:
        total = _call("add", total, term)
    return total


def _mul(*factors: Expr) -> Expr:
    product = factors[0]
    for factor in factors[1:]:
        product = _call("mul", product, factor)
    return product


def _sub(a: Expr, b: Expr) -> Expr:
    return _call("sub", a, b)


def _div(a: Expr, b: Expr) -> Expr:
    return _call("div", a, b)


def _positive(value: Expr) -> Expr:
    """``value`` where it is above zero (NaN included, as it sorts above every number),
    else NULL: a divisor that cannot divide by zero, and gives Spark's NULL where it would."""
    return Case(branches=((_call("gt", value, _num(0.0)), value),))


class _Sums:
    """The power sums of ``x`` (a double), of the rows where it is not NULL."""

    def __init__(self, x: Expr) -> None:
        self.x = x
        self.n = Cast(expr=AggCall(fn="count", arg=x), to="float64")
        self.rows = _positive(self.n)

    def sum(self, *factors: Expr) -> Expr:
        return AggCall(fn="sum", arg=_mul(*factors))

    def mean(self) -> Expr:
        return _div(self.sum(self.x), self.rows)

    def comoment(self, y: Expr) -> Expr:
        """Σ(x - x̄)(y - ȳ) = Σxy - Σx·Σy/n (``m2`` when ``y`` is ``x``), zero within rounding."""
        raw = _sub(self.sum(self.x, y), _div(_mul(self.sum(self.x), self.sum(y)), self.rows))
        noise = _mul(self.n, _num(_ROUNDING), _call("sqrt", _mul(self.sum(self.x, self.x), self.sum(y, y))))
        return Case(branches=((_call("lt", _call("abs", raw), noise), _num(0.0)),), otherwise=raw)

    def m3(self) -> Expr:
        """Σ(x - x̄)³ = S3 - 3x̄S2 + 2n·x̄³."""
        x, mean = self.x, self.mean()
        return _add(self.sum(x, x, x), _mul(_num(-3.0), mean, self.sum(x, x)),
                    _mul(_num(2.0), self.n, mean, mean, mean))

    def m4(self) -> Expr:
        """Σ(x - x̄)⁴ = S4 - 4x̄S3 + 6x̄²S2 - 3n·x̄⁴."""
        x, mean = self.x, self.mean()
        return _add(self.sum(x, x, x, x), _mul(_num(-4.0), mean, self.sum(x, x, x)),
                    _mul(_num(6.0), mean, mean, self.sum(x, x)),
                    _mul(_num(-3.0), self.n, mean, mean, mean, mean))


def _double(e: Expr) -> Expr:
    return Cast(expr=e, to="float64")


def _both(x: Expr, y: Expr) -> Expr:
    """``x`` as a double where ``y`` is not NULL: a pair counts only when both are there."""
    return Case(branches=((_call("is_null", y), Lit(value=None, type="float64")),), otherwise=_double(x))


def _expanded(node: Expr) -> Expr | None:
    if not isinstance(node, AggCall) or node.arg is None:
        return None
    fn = node.fn
    if fn.startswith("regr_") and node.other is not None:
        return _regression(fn, _Sums(_both(node.other, node.arg)), _Sums(_both(node.arg, node.other)))
    if fn in PAIR_AGGREGATES and node.other is not None:
        x, y = _both(node.arg, node.other), _both(node.other, node.arg)
        pairs, ys = _Sums(x), _Sums(y)
        ck = pairs.comoment(y)
        if fn == "covar_pop":
            return _div(ck, pairs.rows)
        if fn == "covar_samp":
            return _div(ck, _positive(_sub(pairs.n, _num(1.0))))
        assert fn == "corr"
        spread = _mul(_call("sqrt", _positive(pairs.comoment(x))), _call("sqrt", _positive(ys.comoment(y))))
        return _div(ck, spread)
    if fn not in _SINGLE:
        return None
    sums = _Sums(_double(node.arg))
    m2 = sums.comoment(sums.x)
    return _SINGLE[fn](sums, m2)


def _regression(fn: str, xs: _Sums, ys: _Sums) -> Expr:
    """Spark's ``regr_*(y, x)`` over the pairs (``xs``, ``ys``: the sums of x and y where both
    are there): Sxx, Syy and Sxy are their comoments, NULL for no pairs; the slope is Sxy/Sxx,
    NULL where x does not vary; R² is 1 where only y does not vary."""
    if fn == "regr_count":
        return AggCall(fn="count", arg=xs.x)
    if fn in ("regr_avgx", "regr_avgy"):
        return (xs if fn == "regr_avgx" else ys).mean()
    sxx, syy, sxy = xs.comoment(xs.x), ys.comoment(ys.x), xs.comoment(ys.x)
    some = _call("gt", xs.n, _num(0.0))
    if fn in ("regr_sxx", "regr_syy", "regr_sxy"):
        return Case(branches=((some, {"regr_sxx": sxx, "regr_syy": syy, "regr_sxy": sxy}[fn]),))
    slope = _div(sxy, _positive(sxx))
    if fn == "regr_slope":
        return slope
    if fn == "regr_intercept":
        return _sub(ys.mean(), _mul(slope, xs.mean()))
    assert fn == "regr_r2"
    unset = Lit(value=None, type="float64")
    return Case(branches=((_call("le", sxx, _num(0.0)), unset), (_call("le", syy, _num(0.0)), _num(1.0))),
                otherwise=_div(_mul(sxy, sxy), _mul(sxx, syy)))


def _variance(sample: bool, root: bool) -> Callable[[_Sums, Expr], Expr]:
    def build(sums: _Sums, m2: Expr) -> Expr:
        divisor = _positive(_sub(sums.n, _num(1.0))) if sample else sums.rows
        value = _div(m2, divisor)
        return _call("sqrt", value) if root else value
    return build


def _skewness(sums: _Sums, m2: Expr) -> Expr:
    """√n · m3 / m2^1.5."""
    spread = _positive(m2)
    return _div(_mul(_call("sqrt", sums.n), sums.m3()), _mul(spread, _call("sqrt", spread)))


def _kurtosis(sums: _Sums, m2: Expr) -> Expr:
    """n · m4 / m2² - 3 (the excess kurtosis)."""
    spread = _positive(m2)
    return _sub(_div(_mul(sums.n, sums.m4()), _mul(spread, spread)), _num(3.0))


_SINGLE: dict[str, Callable[[_Sums, Expr], Expr]] = {
    "stddev": _variance(sample=True, root=True),
    "std": _variance(sample=True, root=True),
    "stddev_samp": _variance(sample=True, root=True),
    "stddev_pop": _variance(sample=False, root=True),
    "variance": _variance(sample=True, root=False),
    "var_samp": _variance(sample=True, root=False),
    "var_pop": _variance(sample=False, root=False),
    "skewness": _skewness,
    "kurtosis": _kurtosis,
}
