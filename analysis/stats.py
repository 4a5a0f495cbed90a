"""Confidence intervals and tests over seeds (replicates).

* `mean_interval`: Student t-interval of a mean.
* `paired_difference` / `welch_difference`: mean difference a - b with its interval and the p-value
  of a paired t-test (the same seeds on both sides: common random numbers) or of Welch's t-test.
* `ratio_interval`: mean(a) / mean(b) with a delta-method interval (paired: from the per-seed
  residuals a_i - R b_i; unpaired: from both variances, Welch degrees of freedom).
* `bounded_interval`: the t-interval of a mean, intersected with the values the metric can take
  (a utilisation in [0, 1], a delay >= 0): the mean lies in that range, so the clipped interval
  covers it at least as often as the t-interval does.
* `share_interval`: a 0/1 flag over seeds as a share, with its Wilson score interval (never
  outside [0, 1]).
* `log_ratio`: mean(a)/mean(b) done on the log scale: the geometric mean of the per-seed ratios
  a_i / b_i, its interval from the t-interval of the mean log ratio (paired; Welch on the logs
  when unpaired) and the p-value of that same t-test, so the interval excludes 1 exactly when
  p < 1 - confidence. Positive values only (NaN otherwise).
* `identical(values)`: whether replicates gave the very same value (pseudo-replicates).
* `holm`: Holm's step-down adjustment of a family of p-values.

Fewer than two values give NaN intervals and p-values: one seed says nothing about spread.
"""
from __future__ import annotations

import math
import types
import warnings
from dataclasses import dataclass

import numpy as np

NAN = float("nan")


def _t():
    # Imported on first use: scipy.stats takes ~0.5 s to import, and bad input should not wait.
    from scipy import stats

    return _Quiet(stats)


class _Quiet:
    """scipy.stats whose tests raise no RuntimeWarning (near-identical samples lose precision in
    scipy's moments; the degenerate cases are decided here before scipy is asked)."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        attribute = getattr(self._module, name)
        if not isinstance(attribute, types.FunctionType):
            return attribute  # distributions (t, norm) and constants as they are

        def call(*args, **kwargs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return attribute(*args, **kwargs)

        return call


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


def bounded_interval(values, confidence: float = 0.95, low_bound: float | None = None,
                     high_bound: float | None = None) -> Interval:
    """The t-interval of the mean, clipped to [low_bound, high_bound] (None: unbounded)."""
    interval = mean_interval(values, confidence)
    low, high = interval.low, interval.high
    if np.isfinite(low) and low_bound is not None:
        low = max(low, low_bound)
    if np.isfinite(high) and high_bound is not None:
        high = min(high, high_bound)
    return Interval(interval.n, interval.estimate, low, high, interval.sd)


def share_interval(values, confidence: float = 0.95) -> Interval:
    """The share of seeds whose 0/1 flag is set, with its Wilson score interval."""
    x = _clean(values)
    n = x.size
    if n == 0:
        return Interval(0, NAN, NAN, NAN)
    share = float(np.mean(x != 0))
    z = float(_t().norm.ppf(0.5 + confidence / 2))
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    sd = float(np.std(x != 0, ddof=1)) if n > 1 else NAN
    # The Wilson interval holds the share; rounding could put a bound a hair past it (at 0 or 1).
    return Interval(n, share, min(share, max(0.0, centre - half)), max(share, min(1.0, centre + half)), sd)


def identical(values) -> bool:
    """Two or more replicates, all with exactly the same value."""
    x = _clean(values)
    return x.size >= 2 and bool(np.all(x == x[0]))


@dataclass(frozen=True)
class Ratio:
    test: str  # "paired t on log ratios", "Welch t on logs", or "" when undefined
    n: int
    estimate: float  # geometric mean of a_i / b_i (paired), or of a over that of b
    low: float
    high: float
    p: float


def _samples(a, b, paired: bool):
    """The finite values of a and b: paired, the seeds where both are finite (a[i] and b[i]
    share a seed); else each side's own finite values."""
    if paired:
        a = np.asarray(a, dtype=float)
        b = np.asarray(b, dtype=float)
        keep = np.isfinite(a) & np.isfinite(b)
        return a[keep], b[keep]
    return _clean(a), _clean(b)


def log_ratio(a, b, paired: bool, confidence: float = 0.95) -> Ratio:
    """a / b on the log scale (see the module's docstring); NaN where a value is not positive."""
    a, b = _samples(a, b, paired)
    n = min(a.size, b.size)
    if n == 0 or np.any(a <= 0) or np.any(b <= 0):
        return Ratio("", n, NAN, NAN, NAN, NAN)
    if paired:
        logs = np.log(a) - np.log(b)
        interval = mean_interval(logs, confidence)
        estimate = math.exp(interval.estimate)
        if interval.n < 2:
            return Ratio("paired t on log ratios", n, estimate, NAN, NAN, NAN)
        if interval.sd == 0:
            return Ratio("paired t on log ratios", n, estimate, estimate, estimate,
                         _degenerate_p(interval.estimate))
        p = float(_t().ttest_1samp(logs, 0.0).pvalue)
        return Ratio("paired t on log ratios", n, estimate, math.exp(interval.low), math.exp(interval.high), p)
    diff = welch_difference(np.log(a), np.log(b), confidence)
    estimate = math.exp(diff.estimate)
    return Ratio("Welch t on logs", n, estimate, math.exp(diff.low) if np.isfinite(diff.low) else NAN,
                 math.exp(diff.high) if np.isfinite(diff.high) else NAN, diff.p)


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
    a, b = _samples(a, b, paired)
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
