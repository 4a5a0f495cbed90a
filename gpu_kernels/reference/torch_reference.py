#!/usr/bin/env python3
"""PyTorch reference for a measured profile: what a real training job achieves on this machine.

Three measurements per model (torchvision ResNet-50 / ResNet-18 by default):
  gpu      the training step alone (forward, backward, SGD-momentum update) with AMP (fp16 +
           GradScaler), channels_last, cudnn.benchmark, on synthetic data already on the GPU,
           at the profile's batch size: the GPU rate the profile's `gpu_samples_per_s` predicts;
  loader   a real DataLoader (torchvision's ImageNet training transforms: decode,
           RandomResizedCrop(224), RandomHorizontalFlip, ToTensor, Normalize) over a JPEG
           corpus, at each worker count, without a GPU consumer: the CPU pipeline's rate;
  e2e      the loader feeding the training step (pinned memory, non-blocking copies), at each
           worker count, with the page cache warm (every file read once before) and cold
           (page cache dropped before the run; the run reads each file at most once): the
           end-to-end rate the profile's CPU x memory matrix predicts.

Each rate is measured over --seconds after --warmup-s, repeated --trials times; the JSON holds
every trial. Without CUDA (or with --cpu) the GPU parts run a tiny stand-in on the CPU, which is
only a smoke test of the script: its numbers mean nothing.

    torch_reference.py --corpus-dir DIR --out reference.json [--models resnet50,resnet18]
                       [--workers 1,2,4,8,16] [--batch resnet50=128,resnet18=256]
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import torch
import torchvision
from PIL import Image
from torchvision import transforms

# The profile's batch sizes (gpu_kernels/include/ckbench/models.h default_batch).
PROFILE_BATCH = {"resnet50": 128, "resnet18": 256}


class JpegFolder(torch.utils.data.Dataset):
    """The *.jpg files of one folder, with ImageNet's training transforms."""

    def __init__(self, root, files=None):
        self.root = root
        self.files = files if files is not None else sorted(
            f for f in os.listdir(root) if f.lower().endswith((".jpg", ".jpeg")))
        if not self.files:
            raise SystemExit(f"torch_reference: {root}: no *.jpg file")
        self.transform = transforms.Compose([
            transforms.RandomResizedCrop(224),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
        ])

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with open(os.path.join(self.root, self.files[i]), "rb") as f:
            img = Image.open(f).convert("RGB")
        return self.transform(img), i % 1000


def drop_page_cache(root, files):
    """Evicts the corpus from the page cache: /proc/sys/vm/drop_caches where allowed (root on
    a VM), else posix_fadvise(DONTNEED) per file. Returns the method used."""
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return "drop_caches"
    except OSError:
        for name in files:
            fd = os.open(os.path.join(root, name), os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        return "fadvise_dontneed"


def warm_page_cache(root, files):
    for name in files:
        with open(os.path.join(root, name), "rb") as f:
            while f.read(1 << 20):
                pass


def make_model(name, device, tiny):
    if tiny:
        return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 7, stride=8), torch.nn.Flatten(),
                                   torch.nn.LazyLinear(1000)).to(device)
    model = getattr(torchvision.models, name)()
    model = model.to(device)
    if device.type == "cuda":
        model = model.to(memory_format=torch.channels_last)
    return model


class Trainer:
    """One model's training step: AMP fp16 + GradScaler on CUDA, fp32 on the CPU stand-in."""

    def __init__(self, name, device, tiny):
        self.device = device
        self.model = make_model(name, device, tiny)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.9,
                                   weight_decay=1e-4)
        self.loss = torch.nn.CrossEntropyLoss()
        self.cuda = device.type == "cuda"
        self.scaler = torch.amp.GradScaler("cuda") if self.cuda else None

    def step(self, x, y):
        self.opt.zero_grad(set_to_none=True)
        if self.cuda:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.loss(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.opt)
            self.scaler.update()
        else:
            loss = self.loss(self.model(x), y)
            loss.backward()
            self.opt.step()

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()


def timed_rate(run_for, seconds, warmup_s, trials):
    """`run_for(seconds)` returns samples done; returns samples/s of each trial."""
    run_for(warmup_s)
    rates = []
    for _ in range(trials):
        t0 = time.perf_counter()
        n = run_for(seconds)
        rates.append(n / (time.perf_counter() - t0))
    return rates


def summary(rates):
    mean = statistics.fmean(rates)
    return {
        "samples_per_s": mean,
        "trials": rates,
        "rel_spread": (max(rates) - min(rates)) / mean if mean > 0 else 0.0,
    }


def gpu_rate(trainer, batch, device, a):
    x = torch.randn(batch, 3, 224, 224, device=device)
    if trainer.cuda:
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,), device=device)

    def run_for(seconds):
        n = 0
        t_end = time.perf_counter() + seconds
        while True:
            # Batches of steps between synchronisations keep the launch queue full.
            for _ in range(5):
                trainer.step(x, y)
                n += batch
            trainer.sync()
            if time.perf_counter() >= t_end:
                return n

    return summary(timed_rate(run_for, a.seconds, a.warmup_s, a.trials))


def make_loader(ds, batch, workers, pin):
    return torch.utils.data.DataLoader(
        ds, batch_size=batch, shuffle=True, num_workers=workers, pin_memory=pin, drop_last=True,
        persistent_workers=False, prefetch_factor=2 if workers > 0 else None,
        generator=torch.Generator().manual_seed(workers))


def loader_rate(ds, batch, workers, a, trainer=None, max_samples=None):
    """Samples/s through a fresh DataLoader; with a trainer, each batch feeds a step. The
    first batches (worker start-up) are excluded: timing starts after --warmup-s."""
    loader = make_loader(ds, batch, workers, pin=trainer is not None and trainer.cuda)
    it = iter(loader)
    consumed = 0
    limit = max_samples if max_samples is not None else float("inf")

    def next_batch():
        nonlocal it, consumed
        if consumed + batch > limit:
            raise StopIteration
        try:
            x, y = next(it)
        except StopIteration:
            it = iter(loader)
            x, y = next(it)
        consumed += batch
        if trainer is not None:
            x = x.to(trainer.device, non_blocking=True)
            y = y.to(trainer.device, non_blocking=True)
            if trainer.cuda:
                x = x.contiguous(memory_format=torch.channels_last)
            trainer.step(x, y)
        return x.shape[0]

    def run_for(seconds):
        n = 0
        t_end = time.perf_counter() + seconds
        try:
            while time.perf_counter() < t_end:
                n += next_batch()
        except StopIteration:
            pass
        if trainer is not None:
            trainer.sync()
        return n

    rates = timed_rate(run_for, a.seconds, a.warmup_s, a.trials)
    del it, loader
    return summary([r for r in rates if r > 0] or [0.0]), consumed


def parse_batches(text):
    out = dict(PROFILE_BATCH)
    for item in filter(None, (text or "").split(",")):
        k, v = item.split("=")
        out[k] = int(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus-dir", required=True)
    ap.add_argument("--out", required=True, help="JSON with every measurement")
    ap.add_argument("--models", default="resnet50,resnet18")
    ap.add_argument("--workers", default="1,2,4,8,16")
    ap.add_argument("--batch", default="", help="model=N,... (default: the profile's)")
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per trial")
    ap.add_argument("--warmup-s", type=float, default=2.0)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--parts", default="gpu,loader,e2e_warm,e2e_cold")
    ap.add_argument("--cpu", action="store_true", help="smoke test without a GPU")
    a = ap.parse_args()

    use_cuda = torch.cuda.is_available() and not a.cpu
    device = torch.device("cuda" if use_cuda else "cpu")
    if use_cuda:
        torch.backends.cudnn.benchmark = True
    parts = set(a.parts.split(","))
    workers = [int(w) for w in a.workers.split(",")]
    batches = parse_batches(a.batch)
    ds = JpegFolder(a.corpus_dir)
    sizes = [os.path.getsize(os.path.join(a.corpus_dir, f)) for f in ds.files]
    out = {
        "generator": "gpu_kernels/reference/torch_reference.py",
        "time_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "python": platform.python_version(),
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if use_cuda else None,
        "device": torch.cuda.get_device_name(0) if use_cuda else "cpu (smoke test)",
        "host_cpus": os.cpu_count(),
        "corpus": {"dir": a.corpus_dir, "files": len(sizes),
                   "mean_bytes": statistics.fmean(sizes)},
        "method": {"seconds": a.seconds, "warmup_s": a.warmup_s, "trials": a.trials,
                   "amp": "fp16 + GradScaler" if use_cuda else "fp32 (cpu)",
                   "memory_format": "channels_last" if use_cuda else "contiguous"},
        "models": {},
    }
    tiny = not use_cuda

    def save():
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, a.out)

    for name in a.models.split(","):
        batch = batches[name] if use_cuda else 8
        m = out["models"][name] = {"batch": batch}
        trainer = Trainer(name, device, tiny)
        if "gpu" in parts:
            m["gpu"] = gpu_rate(trainer, batch, device, a)
            print(f"{name}: GPU step {m['gpu']['samples_per_s']:.1f} samples/s "
                  f"(batch {batch})", flush=True)
        for mode in ("loader", "e2e_warm", "e2e_cold"):
            if mode not in parts or (mode == "loader" and name != a.models.split(",")[0]):
                continue  # the loader alone does not depend on the model
            rows = m[mode] = []
            if mode != "e2e_cold":
                warm_page_cache(a.corpus_dir, ds.files)
            for w in workers:
                row = {"workers": w}
                limit = None
                if mode == "e2e_cold":
                    row["cache_drop"] = drop_page_cache(a.corpus_dir, ds.files)
                    limit = len(ds)  # at most one pass: every read misses the page cache
                r, consumed = loader_rate(ds, batch, w, a,
                                          trainer if mode != "loader" else None, limit)
                row.update(r)
                row["samples_read"] = consumed
                rows.append(row)
                print(f"{name}: {mode} {w} workers: {r['samples_per_s']:.1f} samples/s "
                      f"(spread {100 * r['rel_spread']:.1f}%)", flush=True)
                save()
        save()
        del trainer
        if use_cuda:
            torch.cuda.empty_cache()
    save()
    print(f"wrote {a.out}")


if __name__ == "__main__":
    sys.exit(main())
