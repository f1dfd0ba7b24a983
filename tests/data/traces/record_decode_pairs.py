"""Records eager / compiled trace pairs of a Llama-2-7B-shaped decode on the
local GPU (issue 31's checks), with each step's time measured without the
profiler too. Run on the GPU machine:

    python3 record_decode_pairs.py OUTDIR

The model is written out in plain PyTorch, gpt-fast style (as ../record_decode.py,
with meta-llama/Llama-2-7b-hf's shapes: 32 layers, hidden 4096, 32 heads (no
grouped K/V), intermediate 11008, vocab 32000, untied; bf16, random weights):
fused QKV projection, a static KV cache of 512 positions per sequence updated
with index_copy_, rotary embeddings, scaled-dot-product attention over the whole
cache with a mask, SwiGLU, greedy argmax on the GPU. Decode starts at position
256; every sequence of the batch is at the same position.

For batch 1 and 64, two ways to run a decode step:
  eager     the Python loop launches every kernel
  compiled  torch.compile(mode="reduce-overhead", fullgraph=True, dynamic=False):
            Inductor's fused kernels replayed as a CUDA graph (cudaGraphLaunch)
Each is timed without the profiler (CUDA events: `loop_ms`, 32 steps back to
back ÷ 32; `step_ms`, the median of 9 steps each followed by a synchronize, the
profiled run's rhythm), then profiled: torch.profiler, CPU + CUDA,
record_shapes=True, schedule(wait=1, warmup=2, active=3), a synchronize after
every step. Also the essay's 8-op chain (x = x * m on 64 Mi fp32) through
torch.compile(mode="reduce-overhead"), profiled the same way.

Writes OUTDIR/llama2_7b_decode_{eager,compiled}_b{1,64}.pt.trace.json.gz,
OUTDIR/chain_compiled_ro.pt.trace.json.gz and OUTDIR/decode-pairs.json.
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
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
torch.set_grad_enabled(False)
DEV = torch.device("cuda")
DT = torch.bfloat16
LAYERS, HIDDEN, HEADS, KV, FFN, VOCAB = 32, 4096, 32, 32, 11008, 32000
HD = HIDDEN // HEADS
CACHE = 512
START = 256
torch._dynamo.config.cache_size_limit = 64


class RMSNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.ones(n, device=DEV, dtype=DT))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).type_as(x) * self.w


def rope(x, cos, sin):
    x = x.float().reshape(*x.shape[:-1], HD // 2, 2)
    a, b = x[..., 0], x[..., 1]
    out = torch.stack([a * cos - b * sin, b * cos + a * sin], -1)
    return out.flatten(-2).to(DT)


def lin(i, o):
    return nn.Linear(i, o, bias=False, device=DEV, dtype=DT)


class Layer(nn.Module):
    def __init__(self, batch):
        super().__init__()
        self.an, self.fn = RMSNorm(HIDDEN), RMSNorm(HIDDEN)
        self.wqkv = lin(HIDDEN, (HEADS + 2 * KV) * HD)
        self.wo = lin(HEADS * HD, HIDDEN)
        self.w1, self.w3, self.w2 = lin(HIDDEN, FFN), lin(HIDDEN, FFN), lin(FFN, HIDDEN)
        self.register_buffer("kc", torch.zeros(batch, KV, CACHE, HD, device=DEV, dtype=DT))
        self.register_buffer("vc", torch.zeros(batch, KV, CACHE, HD, device=DEV, dtype=DT))

    def forward(self, x, pos, cos, sin, mask):
        b = x.shape[0]
        h = self.an(x)
        q, k, v = self.wqkv(h).split([HEADS * HD, KV * HD, KV * HD], -1)
        q = q.view(b, 1, HEADS, HD).transpose(1, 2)
        k = k.view(b, 1, KV, HD).transpose(1, 2)
        v = v.view(b, 1, KV, HD).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        self.kc.index_copy_(2, pos, k)
        self.vc.index_copy_(2, pos, v)
        a = F.scaled_dot_product_attention(q, self.kc, self.vc, attn_mask=mask)
        x = x + self.wo(a.transpose(1, 2).reshape(b, 1, HEADS * HD))
        h = self.fn(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Model(nn.Module):
    def __init__(self, batch):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HIDDEN, device=DEV, dtype=DT)
        self.layers = nn.ModuleList([Layer(batch) for _ in range(LAYERS)])
        self.norm = RMSNorm(HIDDEN)
        self.out = lin(HIDDEN, VOCAB)
        inv = 1.0 / (10000.0 ** (torch.arange(0, HD, 2, dtype=torch.float32, device=DEV) / HD))
        ang = torch.outer(torch.arange(CACHE, dtype=torch.float32, device=DEV), inv)
        self.register_buffer("cos_t", ang.cos())
        self.register_buffer("sin_t", ang.sin())
        self.register_buffer("idx", torch.arange(CACHE, device=DEV))

    def forward(self, tok, pos):
        b = tok.shape[0]
        cos = self.cos_t[pos].view(1, 1, 1, HD // 2)
        sin = self.sin_t[pos].view(1, 1, 1, HD // 2)
        mask = (self.idx <= pos).view(1, 1, 1, CACHE)
        x = self.emb(tok).view(b, 1, HIDDEN)
        for layer in self.layers:
            x = layer(x, pos, cos, sin, mask)
        return self.out(self.norm(x)).argmax(-1).view(b)


meta = {
    "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
    "gpu": torch.cuda.get_device_name(0),
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "sms": torch.cuda.get_device_properties(0).multi_processor_count,
    "model": "Llama-2-7B shapes (32 layers, hidden 4096, 32 heads, 32 KV heads, ffn 11008, vocab 32000, untied), bf16, random weights",
    "context": f"positions from {START} of a {CACHE}-position static KV cache (attention reads all {CACHE}, masked)",
    "method": " ".join(__doc__.strip().split("\n\n")[3].split()),
    "runs": {},
}


def save():
    with open(os.path.join(OUT, "decode-pairs.json"), "w") as f:
        json.dump(meta, f, indent=1)


def timed(fn, n=32):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(n):
        fn()
    e1.record()
    torch.cuda.synchronize()
    loop = e0.elapsed_time(e1) / n
    steps = []
    for _ in range(9):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        steps.append(a.elapsed_time(b))
    return {"loop_ms": loop, "step_ms": statistics.median(steps)}


def profiled(name, fn):
    path = os.path.join(OUT, f"{name}.pt.trace.json")
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=schedule(wait=1, warmup=2, active=3),
        record_shapes=True,
    ) as prof:
        walls = []
        for _ in range(6):
            s0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            walls.append((time.perf_counter() - s0) * 1e3)
            prof.step()
    prof.export_chrome_trace(path)
    text = open(path).read()
    graph = "cudaGraphLaunch" in text
    with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(path)
    return {
        "trace": f"{name}.pt.trace.json.gz",
        "trace_bytes_gz": os.path.getsize(path + ".gz"),
        "has_cudaGraphLaunch": graph,
        "profiled_wall_ms_active": walls[3:],
    }


def chain(x, m):
    for _ in range(8):
        x = x * m
    return x


def decode(batch, run_compiled):
    t0 = time.time()
    model = Model(batch).eval()
    print(f"batch {batch}: built in {time.time() - t0:.1f} s", flush=True)
    tok = torch.zeros(batch, dtype=torch.long, device=DEV)
    pos = torch.full((1,), START, dtype=torch.long, device=DEV)

    def eager():
        tok.copy_(model(tok, pos))
        pos.add_(1)

    name = f"llama2_7b_decode_eager_b{batch}"
    run = {"batch": batch, "mode": "eager"}
    meta["runs"][name] = run
    pos.fill_(START)
    run.update(timed(eager))
    pos.fill_(START)
    run.update(profiled(name, eager))
    print(name, run, flush=True)
    save()
    if not run_compiled:
        return
    name = f"llama2_7b_decode_compiled_b{batch}"
    run = {"batch": batch, "mode": 'torch.compile(mode="reduce-overhead", fullgraph=True, dynamic=False)'}
    meta["runs"][name] = run
    step = torch.compile(model, mode="reduce-overhead", fullgraph=True, dynamic=False)
    mark = torch.compiler.cudagraph_mark_step_begin

    def compiled():
        mark()
        tok.copy_(step(tok, pos))
        pos.add_(1)

    c0 = time.time()
    pos.fill_(START)
    for _ in range(3):
        compiled()
    torch.cuda.synchronize()
    run["compile_s"] = round(time.time() - c0, 1)
    pos.fill_(START)
    run.update(timed(compiled))
    pos.fill_(START)
    run.update(profiled(name, compiled))
    print(name, run, flush=True)
    save()
    del step, model
    torch._dynamo.reset()
    torch.cuda.empty_cache()


def main():
    os.makedirs(OUT, exist_ok=True)
    for batch in (1, 64):
        try:
            decode(batch, True)
        except Exception:
            traceback.print_exc()
            meta["runs"][f"error_b{batch}"] = traceback.format_exc(limit=3)
            save()

    try:
        x = torch.randn(64 * 1024 * 1024, device=DEV)
        m = 1.0 + 2.0**-10
        ro = torch.compile(chain, mode="reduce-overhead")
        mark = torch.compiler.cudagraph_mark_step_begin

        def chain_ro():
            mark()
            ro(x, m)

        run = {"what": 'x = x * m, 8 times, 64 Mi fp32, torch.compile(mode="reduce-overhead")'}
        meta["runs"]["chain_compiled_ro"] = run
        run.update(timed(chain_ro))
        run.update(profiled("chain_compiled_ro", chain_ro))
        print("chain_compiled_ro", run, flush=True)
    except Exception:
        traceback.print_exc()
        meta["runs"]["error_chain"] = traceback.format_exc(limit=3)
    save()


if __name__ == "__main__":
    main()
