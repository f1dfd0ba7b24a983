"""What an eager PyTorch op costs the CPU on the local machine, and how many ops
an eager DiT-XL/2 step and an eager Llama-2-7B decode step dispatch, for
checking brrr's eager (overhead) model against real runs. Run on the GPU machine:

    python3 record_eager_ops.py OUT.json

- `tiny_add_s`: a Python loop of `a + a` on one element (the essay's overhead
  experiment, as tests/data/h100.json's `eager_tiny_add_s`): wall time per op
  over 20,000 ops after 2,000 warm-ups, the GPU far ahead of the CPU.
- `ops_s`: the same loop for single ops at a DiT-XL/2 block's batch-1 shapes
  (x [1, 256, 1152] bf16) and a decode step's (x [1, 1, 4096]), 2,000 each: wall
  time per op. Where the op's GPU time is longer than its CPU time the loop
  measures the GPU; `gpu_s` beside it (the same op replayed 200 times in a CUDA
  graph) says which.
- `dispatched`: aten ops reaching the dispatcher in one step (a
  TorchDispatchMode counting every call, views included), by op and in total;
  `kernels`: CUDA kernels one step launches (torch.profiler).
- `dit_eager_loop_ms`, `llama_eager_loop_ms`: the eager steps timed on this same
  machine (20 / 32 steps back to back), so the op costs and the steps come from
  one host.
"""

import collections
import json
import os
import platform
import sys
import time

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "traces"))
import record_decode_pairs as dec  # noqa: E402
import record_dit as dit  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "eager-ops.json"
torch.set_grad_enabled(False)
DEV = torch.device("cuda")
BF = torch.bfloat16


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def per_op(fn, n=2000, warm=200):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n


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


class Count(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops[str(func.overloadpacket).replace("aten.", "")] += 1
        return func(*args, **(kwargs or {}))


def kernels(fn):
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
            fn()
            torch.cuda.synchronize()
        return sum(1 for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    except Exception as e:  # the count is a cross-check, not the point
        print("kernels:", type(e).__name__, e, flush=True)
        return None


def loop_ms(fn, n):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(n):
        fn()
    e1.record()
    torch.cuda.synchronize()
    return e0.elapsed_time(e1) / n


r = {
    "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
    "gpu": torch.cuda.get_device_name(0),
    "cpu": cpu_name(),
    "cpus": os.cpu_count(),
    "torch": torch.__version__,
    "python": platform.python_version(),
    "method": " ".join(__doc__.strip().split("\n\n")[2].split()),
}


def save():
    with open(OUT, "w") as f:
        json.dump(r, f, indent=1)


a = torch.ones(1, device=DEV)
r["tiny_add_s"] = per_op(lambda: a + a, n=20000, warm=2000)
r["tiny_add_inplace_s"] = per_op(lambda: a.add_(1.0), n=20000, warm=2000)
print("tiny add", r["tiny_add_s"], r["tiny_add_inplace_s"], flush=True)
save()

x = torch.randn(1, 256, 1152, device=DEV, dtype=BF)
w, b = torch.randn(1152, 1152, device=DEV, dtype=BF), torch.randn(1152, device=DEV, dtype=BF)
lin = torch.nn.Linear(1152, 1152, device=DEV, dtype=BF)
q = torch.randn(1, 16, 256, 72, device=DEV, dtype=BF)
sc = torch.randn(1, 1152, device=DEV, dtype=BF)
xt = torch.randn(1, 16, 256, 72, device=DEV, dtype=BF).transpose(1, 2)
d = torch.randn(1, 1, 4096, device=DEV, dtype=BF)
wd = torch.randn(4096, 4096, device=DEV, dtype=BF)
qd = torch.randn(1, 32, 1, 128, device=DEV, dtype=BF)
kd = torch.randn(1, 32, 512, 128, device=DEV, dtype=BF)
mask = torch.ones(1, 1, 1, 512, device=DEV, dtype=torch.bool)
ops = {
    "add": lambda: x + x,
    "mul": lambda: x * x,
    "add_scalar": lambda: 1 + sc,
    "linear_bias": lambda: F.linear(x, w, b),
    "linear_module": lambda: lin(x),
    "layer_norm": lambda: F.layer_norm(x, (1152,), eps=1e-6),
    "gelu_tanh": lambda: F.gelu(x, approximate="tanh"),
    "silu": lambda: F.silu(sc),
    "sdpa": lambda: F.scaled_dot_product_attention(q, q, q),
    "reshape_copy": lambda: xt.reshape(1, 256, 1152),
    "unsqueeze_view": lambda: sc.unsqueeze(1),
    "chunk6_views": lambda: sc.chunk(6, dim=1),
    "decode_linear": lambda: F.linear(d, wd),
    "decode_sdpa_mask": lambda: F.scaled_dot_product_attention(qd, kd, kd, attn_mask=mask),
    "decode_float": lambda: d.float(),
    "decode_rsqrt": lambda: torch.rsqrt(d),
}
r["ops_s"], r["gpu_s"] = {}, {}
for name, fn in ops.items():
    r["ops_s"][name] = per_op(fn)
    try:
        r["gpu_s"][name] = gpu_per_op(fn)
    except Exception as e:  # a view launches nothing to capture
        r["gpu_s"][name] = None
        print(name, "gpu:", type(e).__name__, flush=True)
    print(name, r["ops_s"][name], r["gpu_s"][name], flush=True)
save()

model = dit.DiT(max_tokens=1024).to(DEV, BF).eval()
for res, batch in ((256, 1), (256, 8)):
    lat = res // 8
    xi = torch.randn(batch, 4, lat, lat, device=DEV, dtype=BF)
    ti = torch.randint(0, 1000, (batch,), device=DEV).float()
    yi = torch.randint(0, 1000, (batch,), device=DEV)
    key = f"dit_{res}_b{batch}"
    with Count() as c:
        model(xi, ti, yi)
    r[key] = {
        "dispatched": sum(c.ops.values()),
        "by_op": dict(c.ops.most_common()),
        "kernels": kernels(lambda: model(xi, ti, yi)),
        "eager_loop_ms": loop_ms(lambda: model(xi, ti, yi), 20),
    }
    print(key, r[key]["dispatched"], r[key]["kernels"], r[key]["eager_loop_ms"], flush=True)
    save()
del model
torch.cuda.empty_cache()

m = dec.Model(1).eval()
tok = torch.zeros(1, dtype=torch.long, device=DEV)
pos = torch.full((1,), dec.START, dtype=torch.long, device=DEV)


def step():
    tok.copy_(m(tok, pos))
    pos.add_(1)


with Count() as c:
    step()
pos.fill_(dec.START)
r["llama2_7b_decode_b1"] = {
    "dispatched": sum(c.ops.values()),
    "by_op": dict(c.ops.most_common()),
    "kernels": kernels(step),
    "eager_loop_ms": (pos.fill_(dec.START), loop_ms(step, 32))[1],
}
print("llama", r["llama2_7b_decode_b1"]["dispatched"], r["llama2_7b_decode_b1"]["kernels"],
      r["llama2_7b_decode_b1"]["eager_loop_ms"], flush=True)
save()
