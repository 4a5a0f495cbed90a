#!/usr/bin/env python3
"""The table of Gavel's policies on Gavel's 36-GPU cluster (sim/README.md, "Gavel's policies"):
each policy under Gavel's rounds and under event-driven leases (with and without the idle fill)
on the Philly-derived trace ed69ec (`sweep/examples/hetero/gavel_fifo.toml`, needs ../shared),
one run each, printed as the README's Markdown table.

    scripts/gavel_policy_table.py [--clustersim build/bin/clustersim]

Wall time is per run, as measured here (say what else ran beside it when quoting it).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

POLICIES = ["fifo_perf", "max_min_fairness", "max_min_fairness_perf", "finish_time_fairness_perf",
            "min_total_duration_perf"]
VARIANTS = [("`gavel`", ["scheduler.rounds=\"gavel\""]),
            ("`exact`", ["scheduler.rounds=\"exact\""]),
            ("`exact`, fill", ["scheduler.rounds=\"exact\"", "scheduler.exact_fill=\"idle\""])]


def short(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def main() -> int:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clustersim", default=os.path.join(here, "build", "bin", "clustersim"))
    args = parser.parse_args()
    config = os.path.join(here, "sweep", "examples", "hetero", "gavel_fifo.toml")
    print("| policy | rounds | mean JCT (s) | makespan (s) | ftf_mean | ftf_max | preemptions | lease changes "
          "| GPU util | wall |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for policy in POLICIES:
        for name, settings in VARIANTS:
            command = [args.clustersim, "run", config, "--json", "--set", f"scheduler.policy=\"{policy}\""]
            if policy != "fifo_perf":  # fifo_perf refuses the tie-break key (it has no LP)
                settings = settings + ["scheduler.tie_break=\"throughput\""]
            for setting in settings:
                command += ["--set", setting]
            started = time.monotonic()
            done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            wall = time.monotonic() - started
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return done.returncode
            m = json.loads(done.stdout)
            print(f"| `{policy}` | {name} | {m['jct_mean']:,.0f} | {m['makespan']:,.0f} | {m['ftf_mean']:.2f} "
                  f"| {short(m['ftf_max'])} | {m['preemptions']:,} | {m['lease_changes']:,} | {m['gpu_util']:.3f} "
                  f"| {wall:.2g} s |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
