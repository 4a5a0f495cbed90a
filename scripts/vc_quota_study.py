#!/usr/bin/env python3
"""The VC quota study of sim/README.md ("VC weights and quotas"): Philly's 11 VCs on 1,024 GPUs,
jobs spread over them by Philly's VC sizes (workload.vc_weights), FIFO, and three quota modes:
no quotas (one shared pool), strict quotas, quotas with lending. Two quota settings:
  matched: quotas in proportion to the same weights (workload.vc_quotas = "weights"), load 0.6;
  equal:   every VC the same quota while the demand follows the sizes, load 0.4 (the 64-node VCs
           then ask for about 0.8 of their quota).
Prints the mean queueing delay of the measured jobs of the heavy VCs (the three of 64 nodes), the
light ones (the two of 8 nodes) and all, averaged over the seeds, as a Markdown table.

  python3 scripts/vc_quota_study.py [--binary build/bin/clustersim] [--seeds 3]
Standard library only; about a minute on 2 cores.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

# Philly's VCs and their sizes in nodes (../shared/traces/philly/philly_vc.csv, from
# HeliosArtifact; CC BY 4.0).
VCS = ["6214e9", "7f04ca", "11cb48", "b436b2", "ee9e8c", "e13805", "6c71a0", "2869ce", "ed69ec",
       "103959", "0e4a51"]
NODES = [64, 32, 16, 64, 64, 16, 32, 16, 8, 8, 32]
HEAVY = {vc for vc, n in zip(VCS, NODES) if n == 64}
LIGHT = {vc for vc, n in zip(VCS, NODES) if n == 8}
EQUAL_QUOTAS = [94, 93, 93, 93, 93, 93, 93, 93, 93, 93, 93]  # 1,024 GPUs over 11 VCs


def config(quotas: str, mode: str, load: float, seed: int) -> str:
    cluster_vcs = ""
    workload_quotas = ""
    if mode != "none":
        if quotas == "matched":
            workload_quotas = 'vc_quotas = "weights"\n'
        else:
            cluster_vcs = "vcs = { " + ", ".join(
                f'"{vc}" = {q}' for vc, q in zip(VCS, EQUAL_QUOTAS)) + " }\n"
    scheduler_quota = f'vc_quota = "{mode}"\n' if mode != "none" else ""
    return (
        "[cluster]\nnodes = 128\ngpus_per_node = 8\ncpus_per_node = 64\nmem_gb_per_node = 512\n"
        f"nodes_per_rack = 16\n{cluster_vcs}\n"
        "[workload]\ngenerator = \"philly\"\nmax_duration_s = 172800\nmax_gpus_per_job = 16\n"
        f"load = {load}\nseed = {seed}\n"
        "vcs = [" + ", ".join(f'"{vc}"' for vc in VCS) + "]\n"
        "vc_weights = [" + ", ".join(str(n) for n in NODES) + "]\n" + workload_quotas +
        "\n[scheduler]\npolicy = \"fifo\"\nplacement = \"consolidate\"\n" + scheduler_quota +
        "\n[metrics]\nsample_interval_s = 600\n")


def run(binary: str, text: str, folder: str) -> dict:
    path = os.path.join(folder, "cfg.toml")
    jobs = os.path.join(folder, "jobs.csv")
    with open(path, "w") as f:
        f.write(text)
    subprocess.run([binary, "run", path, "--jobs-out", jobs], check=True,
                   stdout=subprocess.DEVNULL)
    delays = {"heavy": [], "light": [], "all": []}
    with open(jobs) as f:
        for row in csv.DictReader(f):
            hours = float(row["queue_delay"]) / 3600.0
            delays["all"].append(hours)
            if row["vc"] in HEAVY:
                delays["heavy"].append(hours)
            if row["vc"] in LIGHT:
                delays["light"].append(hours)
    return {k: statistics.fmean(v) for k, v in delays.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="build/bin/clustersim")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print("| quotas | load | mode | heavy VCs (h) | light VCs (h) | all jobs (h) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for quotas, load in (("matched", 0.6), ("equal", 0.4)):
            for mode in ("none", "strict", "lend"):
                runs = [run(args.binary, config(quotas, mode, load, seed), folder)
                        for seed in range(1, args.seeds + 1)]
                mean = {k: statistics.fmean(r[k] for r in runs) for k in runs[0]}
                print(f"| {quotas} | {load} | {mode} | {mean['heavy']:.3f} | "
                      f"{mean['light']:.3f} | {mean['all']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
