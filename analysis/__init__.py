"""clustersim analysis: tables with confidence intervals, plots and an HTML report from the HDF5
results of `clustersim sweep` (see analysis/README.md).

    from analysis import load
    results = load("out/default.h5")          # finished, resumed, or still running
    results.ok.groupby("scheduler.policy").jct_mean.mean()
"""
from .results import AnalysisError, Results, load

__all__ = ["AnalysisError", "Results", "load"]
