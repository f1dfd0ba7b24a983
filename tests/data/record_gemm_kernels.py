"""Which kernel cuBLAS runs for each of record_gemm.py's shapes (its name, grid
and block, read from a torch.profiler trace), and what a DiT-XL/2 step's small
kernels take on the local GPU, for the GEMM model's tile set and its least
kernel times. Run on the GPU machine:

    python3 record_gemm_kernels.py OUT.json

- `gemm`: per shape (bf16, `torch.mm(A, W.t())` as record_gemm.py), every kernel
  one call launches: name, grid, block, registers, shared memory, duration.
- `small`: single kernels at DiT-XL/2's shapes (T tokens of width 1152, 16 heads
  of 72), each replayed 200 times in a CUDA graph: GPU seconds per kernel.
"""

import json
import os
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_gemm import shapes  # noqa: E402  (only the shape list; the module's run is guarded below)

OUT = sys.argv[1] if len(sys.argv) > 1 else "gemm-kernels.json"
torch.set_grad_enabled(False)
DEV = torch.device("cuda")
BF = torch.bfloat16


def kernels_of(fn):
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
        fn()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    p.export_chrome_trace(path)
    ev = json.load(open(path)).get("traceEvents", [])
    os.remove(path)
    out = []
    for e in ev:
        if e.get("cat") != "kernel":
            continue
        a = e.get("args", {})
        out.append(
            {
                "name": e.get("name", ""),
                "grid": a.get("grid"),
                "block": a.get("block"),
                "registers": a.get("registers per thread"),
                "smem": a.get("shared memory"),
                "dur_us": e.get("dur"),
            }
        )
    return out


def gpu_per_op(fn, n=200):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    g.replay()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    g.replay()
    e1.record()
    torch.cuda.synchronize()
    return e0.elapsed_time(e1) * 1e-3 / n


r = {
    "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
    "gpu": torch.cuda.get_device_name(0),
    "sms": torch.cuda.get_device_properties(0).multi_processor_count,
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "method": " ".join(__doc__.strip().split("\n\n")[2].split()),
    "gemm": [],
    "small": {},
}


def save():
    with open(OUT, "w") as f:
        json.dump(r, f, indent=1)


seen = set()
for tag, m, k, n in shapes():
    if (m, k, n) in seen:
        continue
    seen.add((m, k, n))
    a = torch.randn(m, k, device=DEV, dtype=BF)
    w = torch.randn(n, k, device=DEV, dtype=BF)
    out = torch.empty(m, n, device=DEV, dtype=BF)
    try:
        ks = kernels_of(lambda: torch.mm(a, w.t(), out=out))
    except Exception as e:
        ks = [{"error": repr(e)}]
    r["gemm"].append({"tag": tag, "m": m, "k": k, "n": n, "kernels": ks})
    print(tag, m, k, n, [(x.get("name", "")[:60], x.get("grid")) for x in ks], flush=True)
    del a, w, out
save()

for t in (256, 1024, 2048):
    b = max(1, t // 256) if t != 1024 else 1
    nq = t // b
    x = torch.randn(1, t, 1152, device=DEV, dtype=BF)
    sc = torch.randn(b, 1152, device=DEV, dtype=BF)
    q = torch.randn(b, 16, nq, 72, device=DEV, dtype=BF)
    ops = {
        "layer_norm": lambda: F.layer_norm(x, (1152,), eps=1e-6),
        "add": lambda: x + x,
        "mul": lambda: x * x,
        "gelu_tanh_4h": (lambda y: (lambda: F.gelu(y, approximate="tanh")))(torch.randn(1, t, 4608, device=DEV, dtype=BF)),
        "silu_cond": lambda: F.silu(sc),
        "sdpa": lambda: F.scaled_dot_product_attention(q, q, q),
    }
    row = {}
    for name, fn in ops.items():
        try:
            row[name] = gpu_per_op(fn)
            row[name + "_kernels"] = [x["name"][:120] for x in kernels_of(fn)]
        except Exception as e:
            row[name] = None
            row[name + "_error"] = repr(e)
    r["small"][f"tokens{t}_batch{b}"] = row
    print(t, b, {k: v for k, v in row.items() if not k.endswith("_kernels")}, flush=True)
    save()
