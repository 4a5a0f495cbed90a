#!/usr/bin/env python3
"""Writes a `[sharing] table` (CSV `model,other,factor`) from Gavel's measured throughputs.

Gavel's simulation_throughputs.json (e.g. ../shared/reference/gavel_simulation_throughputs.json)
gives, per GPU type, each job type's steps/s alone (`"null"`) and beside each other job type on
the same GPU (`[own, other's]`). A job's factor beside another is its throughput beside it over
its throughput alone. Only single-GPU entries (scale factor 1) are used; model names are Gavel's
job types, as the gavel reader sets them (e.g. "ResNet-18 (batch size 64)").

    scripts/gavel_colocation_table.py ../shared/reference/gavel_simulation_throughputs.json \\
        --gpu-type v100 > pairs.csv
"""
import argparse
import ast
import json
import sys


def pair_factors(throughputs: dict, gpu_type: str) -> list[tuple[str, str, float]]:
    """(model, other, factor) for every measured single-GPU pair with a positive factor."""
    if gpu_type not in throughputs:
        raise SystemExit(f"no GPU type {gpu_type!r} (the file has {', '.join(throughputs)})")
    rows = []
    for job, measured in throughputs[gpu_type].items():
        model, scale = ast.literal_eval(job)
        alone = measured.get("null", 0.0)
        if scale != 1 or not alone > 0.0:
            continue
        for other_job, pair in measured.items():
            if other_job == "null":
                continue
            other, other_scale = ast.literal_eval(other_job)
            factor = pair[0] / alone
            if other_scale == 1 and 0.0 < factor:
                rows.append((model, other, min(1.0, factor)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("throughputs", help="Gavel's simulation_throughputs.json")
    parser.add_argument("--gpu-type", default="v100")
    args = parser.parse_args()
    with open(args.throughputs, encoding="utf-8") as file:
        rows = pair_factors(json.load(file), args.gpu_type)
    if not rows:
        raise SystemExit("no single-GPU pairs measured for " + args.gpu_type)
    out = sys.stdout
    out.write("model,other,factor\n")
    for model, other, factor in rows:
        if "," in model or "," in other:
            raise SystemExit(f"a model name holds a comma: {model!r} / {other!r}")
        out.write(f"{model},{other},{factor!r}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
