"""Records the `h100_*` trace fixtures: small PyTorch workloads, one per regime,
profiled with torch.profiler (Kineto) on a real GPU. Run on the GPU machine:

    python3 record_h100.py OUTDIR

Writes OUTDIR/<name>.pt.trace.json.gz for each workload, plus OUTDIR/meta.json
(the GPU, PyTorch's version, and each workload's step time measured with CUDA
events outside the profiler, median of 9 steps, so the trace analyser's span can
be compared with an unprofiled run). Each workload is wrapped on its own: one
failing leaves the others' files.

Workloads (chosen so each lands in a different regime of the essay):
  chain_eager     x = x * m eight times on 64 Mi fp32 elements: eight
                  memory-bound kernels, each reading and writing 256 MiB
  chain_compiled  the same function through torch.compile: one fused kernel
  mlp_eager       eight Linear(1024, 1024) + ReLU at batch 8: tiny kernels, the
                  GPU waits on Python (overhead)
  mlp_graph       the same MLP captured once as a CUDA graph and replayed
  matmul_bf16     four 8192^3 bf16 matrix products (compute)
"""

import gzip
import json
import os
import shutil
import statistics
import sys
import time
import traceback

import torch
from torch.profiler import ProfilerActivity, profile, schedule

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
dev = torch.device("cuda")
torch.set_grad_enabled(False)
meta = {
    "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
    "gpu": torch.cuda.get_device_name(0),
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "sms": torch.cuda.get_device_properties(0).multi_processor_count,
    "method": "torch.profiler, activities CPU+CUDA, record_shapes=True, "
    "schedule(wait=1, warmup=2, active=3); step_ms: CUDA events around one "
    "step, median of 9 unprofiled steps after 3 warm-ups",
    "workloads": {},
}


def chain(x, m):
    for _ in range(8):
        x = x * m
    return x


def workloads():
    x = torch.randn(64 * 1024 * 1024, device=dev)
    m = 1.0 + 2.0**-10
    yield "chain_eager", "x = x * m, 8 times, 64 Mi fp32 elements, eager", lambda: chain(x, m)

    compiled = torch.compile(chain)
    yield "chain_compiled", "the same chain through torch.compile (one fused kernel)", lambda: compiled(x, m)

    mlp = torch.nn.Sequential(
        *[layer for _ in range(8) for layer in (torch.nn.Linear(1024, 1024), torch.nn.ReLU())]
    ).to(dev)
    a = torch.randn(8, 1024, device=dev)
    with torch.no_grad():
        yield "mlp_eager", "8 x (Linear(1024,1024) + ReLU), batch 8, fp32, eager, no_grad", lambda: mlp(a)

        static_in = a.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                mlp(static_in)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_out = mlp(static_in)  # noqa: F841
        yield "mlp_graph", "the same MLP captured as one CUDA graph, replayed", g.replay

    p = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    q = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)

    def mm():
        for _ in range(4):
            p @ q

    yield "matmul_bf16", "four 8192^3 bf16 matrix products", mm


def step_ms(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(9):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


for name, what, fn in workloads():
    try:
        ms = step_ms(fn)
        path = os.path.join(OUT, f"{name}.pt.trace.json")
        with profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
            schedule=schedule(wait=1, warmup=2, active=3),
            record_shapes=True,
        ) as prof:
            for _ in range(6):
                fn()
                torch.cuda.synchronize()
                prof.step()
        prof.export_chrome_trace(path)
        with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(path)
        meta["workloads"][name] = {"what": what, "step_ms": ms}
        print(f"{name}: {ms:.3f} ms/step, {os.path.getsize(path + '.gz')} B gz", flush=True)
    except Exception:
        traceback.print_exc()
        meta["workloads"][name] = {"what": what, "error": traceback.format_exc(limit=2)}

with open(os.path.join(OUT, "meta.json"), "w") as f:
    json.dump(meta, f, indent=1)
