#!/usr/bin/env python3
"""Fits the llm_era generator's class mix (sim/src/workload/llm_era_generator.cc, kSeren/kKalos)
to Acme's published cluster-wide figures (../shared/reference/acme/cluster_summary.csv: GPU
jobs' mean GPUs, mean and median run time; sim/README.md, "LLM-era jobs").

Assumed (not in the shared data): the classes' GPU ranges and decays, SFT jobs = 3x (Seren) or
1x (Kalos) the pretraining jobs, debug = 40% of the small (eval + debug) jobs, the medians'
ratios within the small and the large classes, and the sigmas. Fitted: the pretraining share
(so that the mean GPU count matches) and two scales of the medians, one for the small classes
(the median run time) and one for the large (the mean run time).

    /usr/bin/python3 scripts/llm_era_fit.py   (needs scipy)
"""
import math

from scipy.optimize import brentq
from scipy.stats import norm

RANGES = [(64, 1024), (8, 256), (1, 8), (1, 8)]  # pretrain, sft, eval, debug
SIGMA = [1.2, 1.2, 1.0, 1.0]
MEDIAN_SHAPE = [7200, 1800, 150, 30]  # scaled by the fit


def table(lo, hi, decay):
    sizes, weights, g, k = [], [], lo, 0
    while g <= hi:
        sizes.append(g)
        weights.append(decay**k)
        g, k = g * 2, k + 1
    total = sum(weights)
    return sizes, [w / total for w in weights]


def fit(name, mean_gpus, mean_s, median_s, decays, sft_per_pretrain, debug_of_small):
    tables = [table(lo, hi, d) for (lo, hi), d in zip(RANGES, decays)]
    means = [sum(s * w for s, w in zip(*t)) for t in tables]

    def shares(p):
        small = 1 - p - sft_per_pretrain * p
        return [p, sft_per_pretrain * p, small * (1 - debug_of_small), small * debug_of_small]

    p = brentq(lambda p: sum(s * m for s, m in zip(shares(p), means)) - mean_gpus, 1e-6,
               1 / (1 + sft_per_pretrain) - 1e-9)
    sh = shares(p)

    def stats(a, b):
        med = [MEDIAN_SHAPE[0] * b, MEDIAN_SHAPE[1] * b, MEDIAN_SHAPE[2] * a, MEDIAN_SHAPE[3] * a]
        mean = sum(s * m * math.exp(sg * sg / 2) for s, m, sg in zip(sh, med, SIGMA))
        cdf = lambda x: sum(s * norm.cdf(math.log(x / m) / sg) for s, m, sg in zip(sh, med, SIGMA))
        return mean, brentq(lambda x: cdf(x) - 0.5, 1e-3, 1e9), med

    b_for = lambda a: brentq(lambda b: stats(a, b)[0] - mean_s, 1e-4, 1e4)
    a = brentq(lambda a: stats(a, b_for(a))[1] - median_s, 1e-2, 5)
    mean, median, med = stats(a, b_for(a))
    second = sum(s * m * m * math.exp(2 * sg * sg) for s, m, sg in zip(sh, med, SIGMA))
    gpu_second = sum(s * sum(g * g * w for g, w in zip(*t)) for s, t in zip(sh, tables))
    # GPU-seconds per job (GPUs and duration independent within a class).
    work_first = sum(s * sum(g * w for g, w in zip(*t)) * m * math.exp(sg * sg / 2)
                     for s, t, m, sg in zip(sh, tables, med, SIGMA))
    work_second = sum(s * sum(g * g * w for g, w in zip(*t)) * m * m * math.exp(2 * sg * sg)
                      for s, t, m, sg in zip(sh, tables, med, SIGMA))
    print(f"{name}: shares % {[round(100 * s, 3) for s in sh]}  medians s {[round(m, 1) for m in med]}")
    print(f"  P(1 GPU) {sum(s * t[1][0] for s, t in zip(sh, tables) if t[0][0] == 1):.3f}  "
          f"mean GPUs {sum(s * m for s, m in zip(sh, means)):.3f}  run time mean {mean:.1f} s  "
          f"median {median:.1f} s  CV of run time {math.sqrt(second - mean * mean) / mean:.2f}  "
          f"CV of GPUs {math.sqrt(gpu_second - mean_gpus**2) / mean_gpus:.2f}")
    print(f"  GPU-seconds per job: mean {work_first:,.0f}  CV "
          f"{math.sqrt(work_second - work_first**2) / work_first:.2f}")


fit("seren", 5.68, 1414.335, 122.0, [0.5, 0.5, 0.3, 0.3], 3.0, 0.4)
fit("kalos", 26.77, 1259.689, 124.0, [1.0, 0.7, 0.3, 0.3], 1.0, 0.4)
