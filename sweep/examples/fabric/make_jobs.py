"""Writes jobs.csv, the fabric example's LLM trace (deterministic: seed 7).

300 jobs arriving as a Poisson process over about two days, their sizes and layouts drawn from a
small LLM-era mix (many fine-tuning jobs of 8-32 GPUs, fewer larger gangs of 64-128 GPUs), each a preset model of clustersim's llm.h with a TP x PP x DP layout and its batch.
The sweep scales the arrivals to each load (workload.target_load), so only their order and the
gaps' shape matter here. Run: python3 sweep/examples/fabric/make_jobs.py > sweep/examples/fabric/jobs.csv
"""
import random

# (share, model, precision, tp, pp, dp, global_batch, micro_batch, duration range in hours). Small
# global batches (two sequences per DP replica, as in fine-tuning): the gradient all-reduce is then
# about as long as the compute that hides it, so the fabric matters (at 400 Gb/s per GPU and 1:1
# a replica's 8k tokens take ~1.5x the DP time of its compute on H100; halved bandwidth exposes it).
MIX = [
    (0.25, "llama2-7b", "bf16", 1, 1, 8, 16, 1, (0.5, 3)),
    (0.25, "llama2-7b", "bf16", 1, 1, 16, 32, 1, (0.5, 4)),
    (0.20, "llama2-13b", "bf16", 2, 1, 16, 32, 1, (1, 6)),
    (0.15, "gpt3-20b", "bf16", 4, 2, 8, 32, 1, (2, 8)),
    (0.10, "llama2-70b", "bf16", 8, 1, 8, 16, 1, (3, 12)),
    (0.05, "llama3-70b", "fp8", 8, 2, 8, 32, 1, (4, 16)),
]


# Pretraining gangs of 256-896 GPUs, added with --large (the benchmark's 16,384-GPU cluster).
LARGE = [
    (0.5, "llama3-70b", "fp8", 8, 4, 8, 512, 1, (12, 72)),
    (0.3, "gpt3-175b", "bf16", 8, 8, 8, 512, 1, (24, 96)),
    (0.2, "llama3-405b", "fp8", 8, 14, 8, 1024, 1, (24, 120)),
]


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="The fabric example's LLM trace (defaults: the example's).")
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--gap", type=float, default=600.0, help="mean seconds between arrivals")
    parser.add_argument("--large", type=float, default=0.0, help="share of pretraining gangs of 256-896 GPUs")
    args = parser.parse_args()
    rng = random.Random(7)
    print("job_id,submit_time,num_gpus,duration,model,precision,tp,pp,dp,global_batch,micro_batch")
    t = 0.0
    for i in range(args.jobs):
        t += rng.expovariate(1 / args.gap)
        mix = LARGE if args.large > 0 and rng.random() < args.large else MIX
        pick, acc = rng.random(), 0.0
        for share, model, precision, tp, pp, dp, gb, mb, (low, high) in mix:
            acc += share
            if pick <= acc:
                break
        duration = rng.uniform(low, high) * 3600
        print(f"j{i},{t:.0f},{tp * pp * dp},{duration:.0f},{model},{precision},{tp},{pp},{dp},{gb},{mb}")


if __name__ == "__main__":
    main()
