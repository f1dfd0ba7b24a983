"""Measures batch-1 decode of a Llama-3-8B-shaped model on the local GPU, for
comparing brrr's llm model with a real run. Run on the GPU machine:

    python3 record_decode.py OUTDIR

The model is written out here in plain PyTorch (the shapes of
meta-llama/Meta-Llama-3-8B: 32 layers, hidden 4096, 32 heads, 8 KV heads,
intermediate 14336, vocab 128256, untied; bf16, random weights: the time does not
depend on the values), gpt-fast style: fused QKV projection, a static KV cache
of 512 positions updated with index_copy_, rotary embeddings, scaled dot-product
attention over the whole cache with a mask, SwiGLU, greedy argmax on the GPU.
Nothing is compiled, so every op is its own kernel.

Two ways to run one decode step, each timed over 32 tokens with CUDA events
after warm-up, starting at position 256:
  eager  the Python loop launches every kernel
  graph  one step captured as a CUDA graph and replayed (the CPU cost gone, the
         kernels unchanged)
Writes OUTDIR/decode.json and, for the eager loop, a torch.profiler trace of
two tokens (OUTDIR/llama8b_decode_eager.pt.trace.json.gz).
"""

import gzip
import json
import math
import os
import shutil
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)
torch.set_grad_enabled(False)
torch.set_default_device("cuda")
torch.set_default_dtype(torch.bfloat16)

LAYERS, HIDDEN, HEADS, KV, FFN, VOCAB = 32, 4096, 32, 8, 14336, 128256
HD = HIDDEN // HEADS
CACHE = 512
START = 256


class RMSNorm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.ones(n))

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).type_as(x) * self.w


def rope(x, cos, sin):
    # x: [1, heads, 1, HD]; cos/sin: [1, 1, 1, HD/2]
    x = x.float().reshape(*x.shape[:-1], HD // 2, 2)
    a, b = x[..., 0], x[..., 1]
    out = torch.stack([a * cos - b * sin, b * cos + a * sin], -1)
    return out.flatten(-2).to(torch.bfloat16)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.an, self.fn = RMSNorm(HIDDEN), RMSNorm(HIDDEN)
        self.wqkv = nn.Linear(HIDDEN, (HEADS + 2 * KV) * HD, bias=False)
        self.wo = nn.Linear(HEADS * HD, HIDDEN, bias=False)
        self.w1 = nn.Linear(HIDDEN, FFN, bias=False)
        self.w3 = nn.Linear(HIDDEN, FFN, bias=False)
        self.w2 = nn.Linear(FFN, HIDDEN, bias=False)
        self.kc = torch.zeros(1, KV, CACHE, HD)
        self.vc = torch.zeros(1, KV, CACHE, HD)

    def forward(self, x, pos, cos, sin, mask):
        h = self.an(x)
        q, k, v = self.wqkv(h).split([HEADS * HD, KV * HD, KV * HD], -1)
        q = q.view(1, 1, HEADS, HD).transpose(1, 2)
        k = k.view(1, 1, KV, HD).transpose(1, 2)
        v = v.view(1, 1, KV, HD).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        self.kc.index_copy_(2, pos, k)
        self.vc.index_copy_(2, pos, v)
        kk = self.kc.repeat_interleave(HEADS // KV, dim=1)
        vv = self.vc.repeat_interleave(HEADS // KV, dim=1)
        a = F.scaled_dot_product_attention(q, kk, vv, attn_mask=mask)
        x = x + self.wo(a.transpose(1, 2).reshape(1, 1, HEADS * HD))
        h = self.fn(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.norm = RMSNorm(HIDDEN)
        self.out = nn.Linear(HIDDEN, VOCAB, bias=False)
        inv = 1.0 / (500000.0 ** (torch.arange(0, HD, 2, dtype=torch.float32) / HD))
        ang = torch.outer(torch.arange(CACHE, dtype=torch.float32), inv)
        self.cos_t, self.sin_t = ang.cos(), ang.sin()
        self.idx = torch.arange(CACHE)

    def forward(self, tok, pos):
        cos = self.cos_t[pos].view(1, 1, 1, HD // 2)
        sin = self.sin_t[pos].view(1, 1, 1, HD // 2)
        mask = (self.idx <= pos).view(1, 1, 1, CACHE)
        x = self.emb(tok).view(1, 1, HIDDEN)
        for layer in self.layers:
            x = layer(x, pos, cos, sin, mask)
        return self.out(self.norm(x)).argmax(-1).view(1)


t0 = time.time()
model = Model().eval()
params = sum(p.numel() for p in model.parameters())
print(f"built {params / 1e9:.2f} B parameters in {time.time() - t0:.1f} s", flush=True)


def timed(step, n=32):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(n):
        step()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / n


tok = torch.zeros(1, dtype=torch.long)
pos = torch.full((1,), START, dtype=torch.long)


def eager():
    tok.copy_(model(tok, pos))
    pos.add_(1)


for _ in range(3):
    eager()
pos.fill_(START)
eager_ms = timed(eager)
print(f"eager: {eager_ms:.3f} ms/token", flush=True)

# the eager trace: two tokens
pos.fill_(START)
path = os.path.join(OUT, "llama8b_decode_eager.pt.trace.json")
with torch.profiler.profile(
    activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA],
    record_shapes=True,
) as prof:
    for _ in range(2):
        eager()
        torch.cuda.synchronize()
prof.export_chrome_trace(path)
with open(path, "rb") as src, gzip.open(path + ".gz", "wb", compresslevel=9) as dst:
    shutil.copyfileobj(src, dst)
os.remove(path)
print(f"trace: {os.path.getsize(path + '.gz')} B gz", flush=True)

# the graph: one step captured, replayed
pos.fill_(START)
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        eager()
torch.cuda.current_stream().wait_stream(s)
pos.fill_(START)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    eager()
for _ in range(3):
    g.replay()
pos.fill_(START)
graph_ms = timed(g.replay)
print(f"graph: {graph_ms:.3f} ms/token", flush=True)

weights = params * 2
json.dump(
    {
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "model": "Llama-3-8B shapes (32 layers, hidden 4096, 32/8 heads, ffn 14336, vocab 128256, untied), bf16, random weights",
        "parameters": params,
        "batch": 1,
        "context": f"positions {START}..{START + 31} of a {CACHE}-position static KV cache (attention reads all {CACHE}, masked)",
        "method": "CUDA events around 32 decode steps after 3 warm-ups, ms per token; eager = Python launches every kernel; graph = one step captured with torch.cuda.graph and replayed; nothing compiled (every op its own kernel)",
        "eager_ms": eager_ms,
        "graph_ms": graph_ms,
        "weight_bytes": weights,
        "graph_weight_bw": weights / (graph_ms * 1e-3),
    },
    open(os.path.join(OUT, "decode.json"), "w"),
    indent=1,
)
print(f"weights streamed at {weights / (graph_ms * 1e-3) / 1e12:.2f} TB/s in the graph", flush=True)
