"""The `clustersim-analyze` command (installed into build/bin by CMake; see analysis/README.md)."""
from __future__ import annotations

import argparse
import os
import sys
import traceback

from .results import AnalysisError

PROG = "clustersim-analyze"


def _report_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Summary tables with confidence intervals, plots and an HTML report from the HDF5 "
        "results of `clustersim sweep` (also of a sweep still running: its journal is read through "
        "`clustersim snapshot`). Compare two result files with `clustersim-analyze compare A.h5 B.h5`; find the "
        "fewest servers meeting a latency objective with `clustersim-analyze fewest-servers RESULTS.h5 --target T`.",
    )
    parser.add_argument("results", help="result file of `clustersim sweep` (its --out)")
    parser.add_argument("--out", "-o", help="report folder (default: RESULTS_report beside the file)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing report folder")
    parser.add_argument("--baseline", help="compare every configuration with this one: VALUE of the --series "
                        "axis (e.g. fifo) or AXIS=VALUE")
    parser.add_argument("--series", help="axis drawn as one line per value (default scheduler.policy)")
    parser.add_argument("--x", help="axis on the x of the metric plots and the heatmap (default workload.load)")
    parser.add_argument("--y", help="the heatmap's other axis (default: the --series axis)")
    parser.add_argument("--metric", help="the heatmap's metric (default jct_mean)")
    parser.add_argument("--confidence", type=float, default=0.95,
                        help="confidence level of the intervals (default 0.95)")
    parser.add_argument("--figure-formats", default="pdf,svg",
                        help="figure formats written besides PNG (which index.html shows), for papers: "
                        "pdf, svg, both comma-separated (the default), or none")
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    return parser


def _compare_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} compare",
        description="The configurations two result files have in common, side by side: differences B - A, "
        "confidence intervals and significance (paired t-test where both ran the same seeds, Welch's t-test "
        "otherwise).",
    )
    parser.add_argument("a", metavar="A.h5")
    parser.add_argument("b", metavar="B.h5")
    parser.add_argument("--out", "-o", help="write compare.md and compare.csv into this folder")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    parser.add_argument("--confidence", type=float, default=0.95, help="confidence level (default 0.95)")
    return parser


def _fewest_servers_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} fewest-servers",
        description="Serving sweeps: the fewest servers (smallest cluster size) at which each policy meets a "
        "latency objective, per combination of the other axes (e.g. the arrival rate), judged on the mean over "
        "replicates; also the metric per size.",
    )
    parser.add_argument("results", help="result file of `clustersim sweep` (its --out)")
    parser.add_argument("--metric", default="query_latency_p99",
                        help="the metric of the objective (default query_latency_p99)")
    parser.add_argument("--target", type=float, required=True,
                        help="the objective: metric <= TARGET (with --at-least: metric >= TARGET)")
    parser.add_argument("--at-least", action="store_true",
                        help="the objective is metric >= TARGET (for metrics where higher is better, such as "
                        "query_slo_attainment)")
    parser.add_argument("--size-axis", default="cluster.nodes",
                        help="the numeric axis that holds the cluster size (default cluster.nodes)")
    parser.add_argument("--by", default="scheduler.task_placement",
                        help="the axis whose values are compared (default scheduler.task_placement)")
    parser.add_argument("--out", "-o", help="write fewest_servers.md and fewest_servers.csv into this folder")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
    return parser


def _report(argv: list[str]) -> int:
    from .report import ReportOptions, write_report

    args = _report_parser().parse_args(argv)
    options = ReportOptions(args.results, args.out, args.overwrite, args.baseline, args.series, args.x, args.y,
                            args.metric, args.confidence, args.figure_formats)
    out, results = write_report(options)
    if not args.quiet:
        state = ""
        if results.shard_complete:
            state = f" (shard {results.shard} of the grid: {len(results.points)} of {results.points_total} points)"
        elif not results.complete:
            state = f" ({len(results.points)} of {results.points_total} points: sweep not finished)"
        print(f"report: {os.path.join(out, 'index.html')}{state}")
    return 0


def _compare(argv: list[str]) -> int:
    from .compare import write_comparison

    args = _compare_parser().parse_args(argv)
    text, out = write_comparison(args.a, args.b, args.out, args.overwrite, args.confidence)
    print(text, end="")
    if out:
        print(f"\nwrote {os.path.join(out, 'compare.md')} and compare.csv (every metric)")
    return 0


def _fewest_servers(argv: list[str]) -> int:
    from .fewest_servers import write_fewest_servers

    args = _fewest_servers_parser().parse_args(argv)
    text, out = write_fewest_servers(args.results, args.metric, args.target, args.at_least, args.size_axis,
                                     args.by, args.out, args.overwrite)
    print(text, end="")
    if out:
        print(f"\nwrote {os.path.join(out, 'fewest_servers.md')} and fewest_servers.csv")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] == "compare":
            return _compare(argv[1:])
        if argv and argv[0] == "fewest-servers":
            return _fewest_servers(argv[1:])
        return _report(argv)
    except AnalysisError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug: one line, and the traceback on request
        if os.environ.get("CLUSTERSIM_ANALYZE_DEBUG"):
            traceback.print_exc()
        print(f"{PROG}: internal error: {type(error).__name__}: {error} (CLUSTERSIM_ANALYZE_DEBUG=1 shows the "
              "traceback)", file=sys.stderr)
        return 1
