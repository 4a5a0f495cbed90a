#!/usr/bin/env python3
"""Predicted vs measured: a measured profile's predictions against the PyTorch reference.

Reads clustersim-profile's raw reports (calibration/<model>.report.json, written by
calibrate.sh) and torch_reference.json from the same node, and prints Markdown tables:

  1. GPU rate: the profile's training step (GEMM-shaped layers, fp16) vs PyTorch's real model
     (AMP, channels_last) on synthetic data.
  2. End to end, per model x DataLoader workers x page cache (warm / cold), three predictions:
       profile    the profile as measured: min(GPU, H2D, prep(C)) with our C++ prep, or the
                  end-to-end run at C workers where there was one; cold also min(fetch(0)),
                  storage bandwidth / mean file size of the corpus;
       +factor    the same with the prep rates scaled by the framework factor
                  f = torchvision DataLoader at 1 worker / our prep at 1 core, measured on the
                  same node and corpus (one number per node);
       stages     the composition min(GPU, loader(C)) fed with PyTorch's own stage rates (its
                  GPU-only run and its DataLoader-only run at C workers): checks the pipeline
                  model itself, apart from how fast our stage benchmarks are.
       committed  with --profiles DIR: what the simulator reads, the profile file's own row
                  at C cores per GPU (interpolated as the simulator does) at its last memory
                  column (the whole dataset cached); cold also min(fetch(0)). It carries the
                  framework factor calibrate.sh applied (measurements.framework_factor), which
                  may differ from this node's f above: each is one measurement of a noisy ratio.
     Each with its relative error (predicted / measured - 1), the mean and max of |error| and
     how many points are within 10%.

    compare.py --calibration DIR --torch torch_reference.json [--models resnet50,resnet18]
               [--profiles DIR]
"""
import argparse
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare.py: {path}: {e}")


def interp(xs, ys, x):
    """Piecewise-linear in x, clamped at the ends (as the simulator reads a profile's rows)."""
    pts = sorted(zip(xs, ys))
    if x <= pts[0][0]:
        return pts[0][1]
    for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return pts[-1][1]


def stage_row(report, cpus, factor=1.0):
    """The profile's full-cache rate at `cpus` workers: the end-to-end run if there was one at
    that count, else min(GPU, H2D, prep(C)); prep (and end-to-end, CPU-bound) scaled by factor."""
    gpu = report["gpu"]["samples_per_s"]
    h2d = report["h2d"]["samples_per_s"]
    for row in report.get("e2e_full_cache", []):
        if row["cpus"] == cpus:
            return min(gpu, h2d, row["samples_per_s"] * factor)
    prep = interp([p["cpus"] for p in report["prep"]], [p["samples_per_s"] for p in report["prep"]],
                  cpus)
    return min(gpu, h2d, prep * factor)


def profile_full_cache(profile, cpus):
    """A profile file's samples/s per GPU at `cpus` cores per GPU with the whole dataset cached
    (its last memory column), interpolated over the CPU rows as the simulator reads it."""
    rows = [r[-1] for r in profile["throughput"]]
    return interp(profile["cpus_per_gpu"], rows, cpus)


def err(pred, meas):
    return pred / meas - 1.0


def fmt_err(e):
    return f"{100 * e:+.1f}%"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calibration", required=True, help="calibrate.sh's reports directory")
    ap.add_argument("--torch", required=True, help="torch_reference.py's JSON")
    ap.add_argument("--models", default="resnet50,resnet18")
    ap.add_argument("--profiles", default="", help="profile folder (e.g. profiles/h200): adds "
                    "the committed profile's own prediction")
    a = ap.parse_args()
    ref = load(a.torch)
    corpus_bytes = ref["corpus"]["mean_bytes"]
    models = a.models.split(",")
    reports = {m: load(os.path.join(a.calibration, f"{m}.report.json")) for m in models}
    profiles = {m: load(os.path.join(a.profiles, f"{m}.json")) for m in models} if a.profiles else {}
    loader = {row["workers"]: row["samples_per_s"]
              for m in ref["models"].values() for row in m.get("loader", [])}

    print("GPU rate (training step, samples/s):\n")
    print("| model | batch | profile (ours) | PyTorch AMP | error |")
    print("|---|---|---|---|---|")
    for m in models:
        ours = reports[m]["gpu"]["samples_per_s"]
        theirs = ref["models"][m]["gpu"]["samples_per_s"]
        print(f"| {m} | {ref['models'][m]['batch']} | {ours:.0f} | {theirs:.0f} | "
              f"{fmt_err(err(ours, theirs))} |")

    first = reports[models[0]]
    ours_1 = interp([p["cpus"] for p in first["prep"]], [p["samples_per_s"] for p in first["prep"]], 1)
    factor = loader[1] / ours_1 if 1 in loader else 1.0
    print(f"\nFramework factor f = DataLoader(1 worker) {loader.get(1, float('nan')):.0f} / our prep "
          f"(1 core) {ours_1:.0f} = {factor:.3f}\n")
    print("DataLoader alone vs our prep (samples/s):\n")
    print("| workers | our prep | DataLoader | ratio |")
    print("|---|---|---|---|")
    for w in sorted(loader):
        ours = interp([p["cpus"] for p in first["prep"]], [p["samples_per_s"] for p in first["prep"]], w)
        print(f"| {w} | {ours:.0f} | {loader[w]:.0f} | {loader[w] / ours:.3f} |")

    print("\nEnd to end (samples/s), predicted vs PyTorch measured:\n")
    extra_head = " committed | error |" if profiles else ""
    print("| model | workers | cache | measured | profile | error | +factor | error | stages | error |"
          + extra_head)
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if profiles else ""))
    errors = {"profile": [], "factor": [], "stages": [], "committed": []}
    for m in models:
        rep = reports[m]
        fetch0 = rep["storage"]["read_mb_per_s"] * 1e6 / corpus_bytes
        gpu_t = ref["models"][m]["gpu"]["samples_per_s"]
        for mode, cache in (("e2e_warm", "warm"), ("e2e_cold", "cold")):
            for row in ref["models"][m].get(mode, []):
                w, meas = row["workers"], row["samples_per_s"]
                p1 = stage_row(rep, w)
                p2 = stage_row(rep, w, factor)
                p3 = min(gpu_t, loader.get(w, float("inf")))
                if cache == "cold":
                    p1, p2, p3 = min(p1, fetch0), min(p2, fetch0), min(p3, fetch0)
                e1, e2, e3 = err(p1, meas), err(p2, meas), err(p3, meas)
                errors["profile"].append(abs(e1))
                errors["factor"].append(abs(e2))
                errors["stages"].append(abs(e3))
                extra = ""
                if m in profiles:
                    p4 = profile_full_cache(profiles[m], w)
                    if cache == "cold":
                        p4 = min(p4, fetch0)
                    e4 = err(p4, meas)
                    errors["committed"].append(abs(e4))
                    extra = f" {p4:.0f} | {fmt_err(e4)} |"
                print(f"| {m} | {w} | {cache} | {meas:.0f} | {p1:.0f} | {fmt_err(e1)} | {p2:.0f} | "
                      f"{fmt_err(e2)} | {p3:.0f} | {fmt_err(e3)} |" + extra)
    print()
    for k, v in errors.items():
        if v:
            within = sum(1 for e in v if e <= 0.10)
            print(f"- {k}: mean |error| {100 * sum(v) / len(v):.1f}%, max {100 * max(v):.1f}% "
                  f"over {len(v)} points; {within} within 10%")


if __name__ == "__main__":
    main()
