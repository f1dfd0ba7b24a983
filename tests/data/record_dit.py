"""Times one DiT-XL/2 denoising step (one forward pass of the transformer) on the
local GPU, for checking brrr's dit model (`model::dit`) against a real run. Run
on the GPU machine:

    python3 record_dit.py OUT.json

The model is written out here in plain PyTorch after facebookresearch/DiT's
models.py (Peebles & Xie 2023): a 2×2 patch embedding (a stride-2 convolution)
of the 4-channel latent of an 8× VAE, a fixed position embedding, the timestep
embedder (256 sinusoidal frequencies → Linear → SiLU → Linear) plus a class
embedding, 28 blocks of adaLN-Zero (SiLU + Linear(1152, 6·1152) → shift, scale,
gate for attention and MLP; LayerNorm without affine; modulate; QKV with bias;
scaled-dot-product attention, 16 heads of 72; projection; gated residual;
LayerNorm; modulate; fc1 4×; tanh-GELU; fc2; gated residual), the final adaLN,
LayerNorm, Linear(1152, 2·2·8) and the unpatchify. bf16 weights and activations,
random values (the time does not depend on them), no classifier-free guidance
(the batch is the batch), attention through `F.scaled_dot_product_attention`
(flash; brrr's `dit_flash=1`).

Per configuration (256 px at batch 1 and 8, 512 px at batch 1), three ways:
  eager     the Python loop launches every kernel (brrr: dit_graphs=0&dit_fused=0)
  graph     the same eager step captured with torch.cuda.graph and replayed
            (brrr: dit_graphs=1&dit_fused=0)
  compiled  torch.compile(mode="reduce-overhead", fullgraph=True, dynamic=False):
            Inductor's fused kernels replayed as a CUDA graph
            (brrr: dit_graphs=1&dit_fused=1)
Each is timed with CUDA events after warm-up: `loop_ms`, 20 steps back to back
÷ 20 (as a sampler runs them); `step_ms`, the median of 9 steps each followed by
a synchronize.
"""

import json
import math
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F
from torch import nn

OUT = sys.argv[1] if len(sys.argv) > 1 else "dit.json"
torch.set_grad_enabled(False)
dev = torch.device("cuda")
DT = torch.bfloat16
HIDDEN, HEADS, LAYERS, CLASSES, FREQ = 1152, 16, 28, 1000, 256
IN_CH, OUT_CH, PATCH = 4, 8, 2


def modulate(x, shift, scale):
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)


class TimestepEmbedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(FREQ, HIDDEN), nn.SiLU(), nn.Linear(HIDDEN, HIDDEN))
        half = FREQ // 2
        self.register_buffer(
            "freqs", torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
        )

    def forward(self, t):
        args = t[:, None].float() * self.freqs[None]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1).to(DT)
        return self.mlp(emb)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(HIDDEN, elementwise_affine=False, eps=1e-6)
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.proj = nn.Linear(HIDDEN, HIDDEN)
        self.norm2 = nn.LayerNorm(HIDDEN, elementwise_affine=False, eps=1e-6)
        self.fc1 = nn.Linear(HIDDEN, 4 * HIDDEN)
        self.fc2 = nn.Linear(4 * HIDDEN, HIDDEN)
        self.ada = nn.Sequential(nn.SiLU(), nn.Linear(HIDDEN, 6 * HIDDEN))

    def forward(self, x, c):
        sm, scm, gm, sf, scf, gf = self.ada(c).chunk(6, dim=1)
        b, n, h = x.shape
        qkv = self.qkv(modulate(self.norm1(x), sm, scm))
        q, k, v = qkv.reshape(b, n, 3, HEADS, h // HEADS).permute(2, 0, 3, 1, 4).unbind(0)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, h)
        x = x + gm.unsqueeze(1) * self.proj(a)
        y = F.gelu(self.fc1(modulate(self.norm2(x), sf, scf)), approximate="tanh")
        return x + gf.unsqueeze(1) * self.fc2(y)


class DiT(nn.Module):
    def __init__(self, max_tokens):
        super().__init__()
        self.x_embedder = nn.Conv2d(IN_CH, HIDDEN, PATCH, PATCH)
        self.register_buffer("pos", torch.randn(1, max_tokens, HIDDEN) * 0.02)
        self.t_embedder = TimestepEmbedder()
        self.y_embedder = nn.Embedding(CLASSES + 1, HIDDEN)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.norm_final = nn.LayerNorm(HIDDEN, elementwise_affine=False, eps=1e-6)
        self.final = nn.Linear(HIDDEN, PATCH * PATCH * OUT_CH)
        self.final_ada = nn.Sequential(nn.SiLU(), nn.Linear(HIDDEN, 2 * HIDDEN))

    def forward(self, x, t, y):
        b, _, hl, wl = x.shape
        hs, ws = hl // PATCH, wl // PATCH
        x = self.x_embedder(x).flatten(2).transpose(1, 2) + self.pos[:, : hs * ws]
        c = self.t_embedder(t) + self.y_embedder(y)
        for blk in self.blocks:
            x = blk(x, c)
        shift, scale = self.final_ada(c).chunk(2, dim=1)
        x = self.final(modulate(self.norm_final(x), shift, scale))
        x = x.reshape(b, hs, ws, PATCH, PATCH, OUT_CH).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(b, OUT_CH, hs * PATCH, ws * PATCH)


def times(fn, mark=None):
    def call():
        if mark is not None:
            mark()
        fn()

    for _ in range(3):
        call()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(20):
        call()
    e1.record()
    torch.cuda.synchronize()
    loop = e0.elapsed_time(e1) / 20
    steps = []
    for _ in range(9):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        call()
        b.record()
        torch.cuda.synchronize()
        steps.append(a.elapsed_time(b))
    return {"loop_ms": loop, "step_ms": statistics.median(steps)}


def main():
    t0 = time.time()
    model = DiT(max_tokens=1024).to(dev, DT).eval()
    params = sum(p.numel() for p in model.parameters())
    result = {
        "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "model": "DiT-XL/2 (28 blocks, hidden 1152, 16 heads, patch 2, MLP 4x), bf16, random weights, "
        f"{params} parameters",
        "method": " ".join(__doc__.strip().split("\n\n")[-1].split()),
        "configs": [],
    }
    print(f"built {params / 1e6:.1f} M parameters in {time.time() - t0:.1f} s", flush=True)


    def save():
        with open(OUT, "w") as f:
            json.dump(result, f, indent=1)


    CONFIGS = ((256, 1), (256, 8), (512, 1))
    inputs = {}
    for res, batch in CONFIGS:
        lat = res // 8
        inputs[(res, batch)] = (
            torch.randn(batch, IN_CH, lat, lat, device=dev, dtype=DT),
            torch.randint(0, 1000, (batch,), device=dev).float(),
            torch.randint(0, CLASSES, (batch,), device=dev),
        )
        result["configs"].append({"res": res, "batch": batch, "tokens": (res // 16) ** 2})

    # eager and a captured graph of the eager step
    for cfg, (res, batch) in zip(result["configs"], CONFIGS):
        x, t, y = inputs[(res, batch)]
        try:
            cfg["eager"] = times(lambda: model(x, t, y))
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    model(x, t, y)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                model(x, t, y)
            cfg["graph"] = times(g.replay)
            del g
            print(f"{res} px batch {batch}: eager {cfg['eager']}, graph {cfg['graph']}", flush=True)
        except Exception:
            traceback.print_exc()
            cfg["error_eager"] = traceback.format_exc(limit=3)
        save()

    # torch.compile(mode="reduce-overhead"): one compile per shape
    torch._dynamo.config.cache_size_limit = 64
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True, dynamic=False)
    mark = torch.compiler.cudagraph_mark_step_begin
    for cfg, (res, batch) in zip(result["configs"], CONFIGS):
        x, t, y = inputs[(res, batch)]
        try:
            c0 = time.time()
            for _ in range(3):
                mark()
                compiled(x, t, y)
            torch.cuda.synchronize()
            cfg["compile_s"] = round(time.time() - c0, 1)
            cfg["compiled"] = times(lambda: compiled(x, t, y), mark)
            print(f"{res} px batch {batch}: compiled {cfg['compiled']} (compile {cfg['compile_s']} s)", flush=True)
        except Exception:
            traceback.print_exc()
            cfg["error_compiled"] = traceback.format_exc(limit=3)
        save()


if __name__ == "__main__":
    main()
