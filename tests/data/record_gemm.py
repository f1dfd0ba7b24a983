"""Times single bf16 matmuls on the local GPU, each inside a CUDA graph, for
checking brrr's GEMM model (`model::gemm`) against a real run. Run on the GPU
machine:

    python3 record_gemm.py OUT.json

C[M,N] = A[M,K] · B[K,N], computed as a linear layer computes it: the weight is
stored [N, K] (PyTorch's nn.Linear layout) and the call is
`torch.mm(A, W.t(), out=C)`, so cuBLAS sees the layout real models give it.
Each shape is timed as one CUDA graph of `calls` back-to-back products that
rotate among `copies` weight tensors (together at least four times the L2, so
the weight comes from HBM as a real model's weights do; A stays the same and,
when small, in L2, as a layer's activations do). The graph is replayed twice to
warm up, then 9 times with CUDA events; the time per product is the median
replay's time ÷ `calls`. No CPU launch cost is in it (one graph launch per
`calls` products).

Shapes: square sizes; an N sweep at M = K = 4096 across a wave boundary; small
M at K = N = 4096 (decode's GEMVs); DiT-XL/2's layer shapes (256 px at batch 1
and 8, 512 px at batch 1) and its adaLN linear; Llama-3-8B's prefill layer
shapes; GPT-2's vocabulary projection unpadded and padded (50257 vs 50304).
"""

import json
import math
import statistics
import sys
import time
import traceback

import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else "gemm.json"
torch.set_grad_enabled(False)
dev = torch.device("cuda")
props = torch.cuda.get_device_properties(0)
L2 = getattr(props, "L2_cache_size", 50 * 2**20) or 50 * 2**20


def shapes():
    rows = []
    for s in (256, 512, 1024, 2048, 4096, 8192, 16384):
        rows.append(("square", s, s, s))
    for n in range(1024, 2561, 64):
        rows.append(("wave_n", 4096, 4096, n))
    for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
        rows.append(("small_m", m, 4096, 4096))
    for t, tag in ((256, "dit256_b1"), (2048, "dit256_b8"), (1024, "dit512_b1")):
        rows += [
            (f"{tag}_qkv", t, 1152, 3456),
            (f"{tag}_proj", t, 1152, 1152),
            (f"{tag}_fc1", t, 1152, 4608),
            (f"{tag}_fc2", t, 4608, 1152),
        ]
    rows += [("dit_adaln_b1", 1, 1152, 6912), ("dit_adaln_b8", 8, 1152, 6912)]
    for t in (512, 2048, 8192):
        rows += [
            (f"llama3_8b_prefill{t}_qkv", t, 4096, 6144),
            (f"llama3_8b_prefill{t}_o", t, 4096, 4096),
            (f"llama3_8b_prefill{t}_gate_up", t, 4096, 28672),
            (f"llama3_8b_prefill{t}_down", t, 14336, 4096),
        ]
    rows += [("vocab_unpadded", 8192, 768, 50257), ("vocab_padded", 8192, 768, 50304)]
    return rows


def time_shape(m, k, n, dtype=torch.bfloat16):
    esize = torch.finfo(dtype).bits // 8
    wbytes = k * n * esize
    copies = max(2, min(64, math.ceil(4 * L2 / wbytes)))
    a = torch.randn(m, k, device=dev, dtype=dtype)
    ws = [torch.randn(n, k, device=dev, dtype=dtype) for _ in range(copies)]
    out = torch.empty(m, n, device=dev, dtype=dtype)
    est_us = max(3.0, 2.0 * m * n * k / 600e12 * 1e6, 3.0 * wbytes / 4e12 * 1e6)
    calls = max(copies, min(512, math.ceil(3000.0 / est_us)))
    calls = math.ceil(calls / copies) * copies
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for w in ws[:2]:
            torch.mm(a, w.t(), out=out)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            torch.mm(a, ws[i % copies].t(), out=out)
    for _ in range(2):
        g.replay()
    torch.cuda.synchronize()
    per = []
    for _ in range(9):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        g.replay()
        e1.record()
        torch.cuda.synchronize()
        per.append(e0.elapsed_time(e1) * 1e3 / calls)
    del g, ws, a, out
    torch.cuda.empty_cache()
    return statistics.median(per), min(per), max(per), copies, calls


def main():
    result = {
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "sms": props.multi_processor_count,
        "l2_bytes": L2,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "method": " ".join(__doc__.strip().split("\n\n")[2].split()),
        "rows": [],
    }
    seen = set()
    for tag, m, k, n in shapes():
        if (m, k, n) in seen:
            continue
        seen.add((m, k, n))
        try:
            med, lo, hi, copies, calls = time_shape(m, k, n)
            flops = 2.0 * m * n * k
            result["rows"].append(
                {
                    "tag": tag,
                    "dtype": "bf16",
                    "m": m,
                    "k": k,
                    "n": n,
                    "us": round(med, 4),
                    "us_min": round(lo, 4),
                    "us_max": round(hi, 4),
                    "tflops": round(flops / (med * 1e-6) / 1e12, 2),
                    "copies": copies,
                    "calls": calls,
                }
            )
            print(f"{tag} {m}x{k}x{n}: {med:.3f} us {flops / (med * 1e-6) / 1e12:.1f} TFLOP/s", flush=True)
        except Exception:
            traceback.print_exc()
            result["rows"].append({"tag": tag, "m": m, "k": k, "n": n, "error": traceback.format_exc(limit=2)})
        with open(OUT, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
