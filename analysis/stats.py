"""Confidence intervals and tests over seeds (replicates).

* `mean_interval`: Student t-interval of a mean.
* `paired_difference` / `welch_difference`: mean difference a - b with its interval and the p-value
  of a paired t-test (the same seeds on both sides: common random numbers) or of Welch's t-test.
* `ratio_interval`: mean(a) / mean(b) with a delta-method interval (paired: from the per-seed
  residuals a_i - R b_i; unpaired: from both variances, Welch degrees of freedom).
* `holm`: Holm's step-down adjustment of a family of p-values.

Fewer than two values give NaN intervals and p-values: one seed says nothing about spread.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NAN = float("nan")


def _t():
    # Imported on first use: scipy.stats takes ~0.5 s to import, and bad input should not wait.
    from scipy import stats

    return stats


@dataclass(frozen=True)
class Interval:
    n: int
    estimate: float
    low: float
    high: float
    sd: float = NAN  # standard deviation of the values (mean_interval only)


@dataclass(frozen=True)
class Difference:
    test: str  # "paired t" or "Welch t"
    n: int  # pairs (paired) or the smaller sample (Welch)
    estimate: float  # mean of a - b
    low: float
    high: float
    p: float


def _clean(values) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array[np.isfinite(array)]


def mean_interval(values, confidence: float = 0.95) -> Interval:
    x = _clean(values)
    n = x.size
    if n == 0:
        return Interval(0, NAN, NAN, NAN)
    mean = float(np.mean(x))
    if n < 2:
        return Interval(n, mean, NAN, NAN)
    sd = float(np.std(x, ddof=1))
    half = float(_t().t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return Interval(n, mean, mean - half, mean + half, sd)


def _degenerate_p(estimate: float) -> float:
    # No spread at all: the difference is exactly `estimate` on every seed.
    return 1.0 if estimate == 0 else 0.0


def paired_difference(a, b, confidence: float = 0.95) -> Difference:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    d = a[keep] - b[keep]
    interval = mean_interval(d, confidence)
    if interval.n < 2:
        return Difference("paired t", interval.n, interval.estimate, NAN, NAN, NAN)
    if interval.sd == 0:
        p = _degenerate_p(interval.estimate)
    else:
        p = float(_t().ttest_rel(a[keep], b[keep]).pvalue)
    return Difference("paired t", interval.n, interval.estimate, interval.low, interval.high, p)


def _welch(a: np.ndarray, b: np.ndarray):
    va, vb = np.var(a, ddof=1) / a.size, np.var(b, ddof=1) / b.size
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)) if se > 0 else NAN
    return se, df


def welch_difference(a, b, confidence: float = 0.95) -> Difference:
    a, b = _clean(a), _clean(b)
    n = min(a.size, b.size)
    estimate = float(np.mean(a) - np.mean(b)) if n > 0 else NAN
    if n < 2:
        return Difference("Welch t", n, estimate, NAN, NAN, NAN)
    se, df = _welch(a, b)
    if se == 0:
        return Difference("Welch t", n, estimate, estimate, estimate, _degenerate_p(estimate))
    half = float(_t().t.ppf(0.5 + confidence / 2, df)) * se
    p = float(_t().ttest_ind(a, b, equal_var=False).pvalue)
    return Difference("Welch t", n, estimate, estimate - half, estimate + half, p)


def ratio_interval(a, b, paired: bool, confidence: float = 0.95) -> Interval:
    """mean(a) / mean(b). Paired: a[i] and b[i] share a seed."""
    if paired:
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        keep = np.isfinite(a) & np.isfinite(b)
        a, b = a[keep], b[keep]
    else:
        a, b = _clean(a), _clean(b)
    n = min(a.size, b.size)
    if n == 0 or np.mean(b) == 0:
        return Interval(n, NAN, NAN, NAN)
    mean_b = float(np.mean(b))
    ratio = float(np.mean(a)) / mean_b
    if n < 2:
        return Interval(n, ratio, NAN, NAN)
    if paired:
        se = float(np.std(a - ratio * b, ddof=1)) / math.sqrt(n) / abs(mean_b)
        df = n - 1
    else:
        va, vb = np.var(a, ddof=1) / a.size, ratio**2 * np.var(b, ddof=1) / b.size
        se = math.sqrt(va + vb) / abs(mean_b)
        df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)) if se > 0 else 1
    half = float(_t().t.ppf(0.5 + confidence / 2, df)) * se
    return Interval(n, ratio, ratio - half, ratio + half)


def holm(pvalues) -> np.ndarray:
    """Holm-adjusted p-values (NaN stays NaN and does not count toward the family)."""
    p = np.asarray(pvalues, dtype=float)
    adjusted = np.full(p.shape, NAN)
    valid = np.flatnonzero(np.isfinite(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = order.size
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted
