"""The statistics helpers on cases with known answers."""
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from analysis import stats


def test_mean_interval_is_students_t():
    values = [1.0, 2.0, 4.0, 7.0]
    interval = stats.mean_interval(values)
    low, high = scipy_stats.t.interval(0.95, 3, loc=3.5, scale=np.std(values, ddof=1) / 2)
    assert (interval.n, interval.estimate) == (4, 3.5)
    assert (interval.low, interval.high) == pytest.approx((low, high))
    one = stats.mean_interval([5.0])
    assert one.estimate == 5.0 and math.isnan(one.low) and math.isnan(one.high)


def test_differences_without_spread():
    same = stats.paired_difference([1, 2, 3], [1, 2, 3])
    assert same.estimate == 0 and same.p == 1.0 and (same.low, same.high) == (0, 0)
    shifted = stats.paired_difference([2, 3, 4], [1, 2, 3])
    assert shifted.estimate == 1 and shifted.p == 0.0
    welch = stats.welch_difference([2, 2], [1, 1])
    assert welch.estimate == 1 and welch.p == 0.0


def test_welch_matches_scipy():
    a, b = [1.0, 2.5, 3.0, 4.5], [2.0, 4.0, 6.5]
    diff = stats.welch_difference(a, b)
    assert diff.p == pytest.approx(scipy_stats.ttest_ind(a, b, equal_var=False).pvalue)
    assert diff.low < diff.estimate < diff.high


def test_ratio_and_holm():
    ratio = stats.ratio_interval([2.0, 4.0, 6.0], [1.0, 2.0, 3.0], paired=True)
    assert ratio.estimate == 2.0 and ratio.low == ratio.high == 2.0  # exactly proportional
    assert math.isnan(stats.ratio_interval([1.0], [0.0], paired=False).estimate)
    adjusted = stats.holm([0.01, 0.04, float("nan"), 0.03])
    assert adjusted[0] == pytest.approx(0.03) and adjusted[3] == pytest.approx(0.06)
    assert adjusted[1] == pytest.approx(0.06) and math.isnan(adjusted[2])
