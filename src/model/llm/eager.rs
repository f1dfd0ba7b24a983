//! The eager step: every kernel and every op an eager PyTorch decoder dispatches,
//! counted from a public reference implementation, gpt-fast's `model.py` and
//! `generate.py` (github.com/pytorch-labs/gpt-fast @ 32971d3), traced into ATen:
//!
//! - **RMSNorm**: `x.float()`, `x * x`, `mean`, `+ eps`, `rsqrt`, `x * r`,
//!   `type_as`, `* weight`: 8 kernels, each a pass over the activations (fp32 in
//!   between);
//! - **QKV**: one `wqkv` linear, then `split` and three `view`s (no kernel);
//! - **rotary embedding**, once for Q and once for K: `float`, four multiplies, a
//!   subtract, an add, `stack`, `type_as` (9 kernels) and 11 views/selects/reshapes;
//! - three `transpose`s; the **KV-cache update** `k_out[:, :, pos] = k` for K and V
//!   (an `index_put_` and the int32 → int64 index copy each: 4 kernels);
//! - with grouped-query attention, `repeat_interleave` (gpt-fast) or `repeat_kv`
//!   (Hugging Face) **copies** K and V out to every query head (2 kernels; no copy
//!   when every head has its own K and V, or with an attention that reads grouped
//!   K/V itself: [`super::kernels::KvRead`]);
//! - **attention**: one fused SDPA kernel with FlashAttention, else the math path:
//!   Q and K scaled, `QKᵀ`, the boolean mask turned additive (3 small kernels) and
//!   added, softmax, `P·V` (9 kernels);
//! - `transpose`, `contiguous`, `view` (no kernel), the output linear, the residual
//!   add, RMSNorm again, the MLP as three linears with `silu` and a multiply
//!   between, the residual add.
//!
//! Llama-2-7B with the math path: 56 kernels and 88 dispatched ops per layer
//! (gpt-fast additionally copies K and V even without grouped-query attention: 58).
//! Weight-only int8 linears dequantise eagerly (`weight.to(bf16)`, then `* scales`):
//! two more kernels per linear, and the cast writes the whole weight in bf16.
//! Around the layers: the mask and rotary tables indexed by position (4 kernels),
//! the embedding, the final RMSNorm, the LM head, the sampler (`/ temperature`,
//! `topk` (2 kernels), `<`, `where`, `softmax`, `exponential_`, `/`, `argmax`,
//! `to(int)`) and the loop's bookkeeping (`pos += 1`, three `clone`s).
//!
//! Every op costs the CPU [`super::EAGER_OP_S`]; a view costs that and launches
//! nothing. The compiled step (`torch.compile(mode="reduce-overhead")`:
//! [`super::kernels`]) runs the fused kernels in one CUDA graph instead.

use super::kernels::{k, repeat_kernels, repeats_kv, tokens, Cost, Dims, KvRead, LlmKernel, Part};
use super::{LlmRun, Phase, WeightDtype, ACT_BYTES};
use crate::model::workload::Unit;

/// fp32 bytes, the dtype eager RMSNorm and rotary work in.
const F32: f64 = 4.0;

/// `n` ops dispatched before this kernel that launch none.
fn ops(mut kern: LlmKernel, n: u32) -> LlmKernel {
    kern.group.cpu_ops += n;
    kern
}

/// A pointwise pass over `elems` elements: one FLOP each, `read` and `write` bytes
/// per element.
fn pass(name: &'static str, part: Part, elems: f64, read: f64, write: f64) -> LlmKernel {
    k(
        name,
        Unit::Pointwise,
        part,
        Cost {
            flops: elems,
            act_bytes: elems * (read + write),
            ..Cost::NONE
        },
    )
}

/// A pointwise kernel of `flops` FLOPs moving `bytes` activation bytes.
fn pw(name: &'static str, part: Part, flops: f64, bytes: f64) -> LlmKernel {
    k(
        name,
        Unit::Pointwise,
        part,
        Cost {
            flops,
            act_bytes: bytes,
            ..Cost::NONE
        },
    )
}

/// Eager RMSNorm over `t × h` bf16 activations: 8 kernels.
fn rmsnorm(t: f64, h: f64, w: f64) -> Vec<LlmKernel> {
    let (a, th) = (ACT_BYTES, t * h);
    let p = Part::Pointwise;
    let weight = k(
        "RMSNorm: × weight",
        Unit::Pointwise,
        p,
        Cost {
            flops: th,
            weight_bytes: w * h,
            act_bytes: 2.0 * a * th,
            ..Cost::NONE
        },
    );
    vec![
        pass("RMSNorm: to fp32", p, th, a, F32),
        pass("RMSNorm: x·x", p, th, F32, F32),
        pw("RMSNorm: mean", p, th, F32 * (th + t)),
        pass("RMSNorm: + eps", p, t, F32, F32),
        pass("RMSNorm: rsqrt", p, t, F32, F32),
        pw("RMSNorm: x·r", p, th, F32 * (2.0 * th + t)),
        pass("RMSNorm: to bf16", p, th, F32, a),
        weight,
    ]
}

/// A linear layer reading `params` weights for `t` tokens, `n_in` wide in and
/// `n_out` wide out; weight-only int8 dequantises first (2 more kernels).
fn linear(
    name: &'static str,
    part: Part,
    r: &LlmRun,
    t: f64,
    n_in: f64,
    n_out: f64,
) -> Vec<LlmKernel> {
    let a = ACT_BYTES;
    let params = n_in * n_out;
    let w = r.wdtype.bytes();
    if r.wdtype == WeightDtype::Int8 {
        // `F.linear(x, weight.to(bf16)) * scales`: the cast writes the weight in
        // bf16 and the matmul reads it back
        vec![
            k(
                "int8 weight → bf16",
                Unit::Pointwise,
                part,
                Cost {
                    flops: params,
                    weight_bytes: w * params,
                    act_bytes: a * params,
                    ..Cost::NONE
                },
            ),
            super::kernels::shaped(
                k(
                    name,
                    Unit::Matmul,
                    part,
                    Cost {
                        flops: 2.0 * t * params,
                        act_bytes: a * (params + t * (n_in + n_out)),
                        ..Cost::NONE
                    },
                ),
                t,
                n_in,
                n_out,
                1.0,
                crate::model::gemm::Stored::Bf16,
            ),
            pass("× scales", part, t * n_out, 2.0 * a, a),
        ]
    } else {
        vec![super::kernels::shaped(
            k(
                name,
                Unit::Matmul,
                part,
                Cost {
                    flops: 2.0 * t * params,
                    weight_bytes: w * params,
                    act_bytes: a * t * (n_in + n_out),
                    ..Cost::NONE
                },
            ),
            t,
            n_in,
            n_out,
            1.0,
            r.wdtype.stored(),
        )]
    }
}

/// Eager rotary embedding of `t × width` activations: 9 kernels, 11 views.
fn rope(which: &'static str, t: f64, width: f64) -> Vec<LlmKernel> {
    let (a, n, half) = (ACT_BYTES, t * width, t * width / 2.0);
    let p = Part::Pointwise;
    let names: [&'static str; 2] = match which {
        "q" => ["RoPE (Q): to fp32", "RoPE (Q): to bf16"],
        _ => ["RoPE (K): to fp32", "RoPE (K): to bf16"],
    };
    let mut out = vec![ops(pass(names[0], p, n, a, F32), 11)];
    for name in [
        "RoPE: ×",
        "RoPE: ×",
        "RoPE: ×",
        "RoPE: ×",
        "RoPE: −",
        "RoPE: +",
    ] {
        out.push(pass(name, p, half, 2.0 * F32, F32));
    }
    out.push(pass("RoPE: stack", p, n, F32, F32));
    out.push(pass(names[1], p, n, F32, a));
    out
}

/// The kernels of one eager layer, in launch order, the grouped K/V read as
/// `read` says.
pub fn layer(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    let c = &r.config;
    let Dims {
        h,
        t,
        a,
        w,
        kvb,
        kvw,
        d,
        f,
        b,
        ctx,
        heads,
        ..
    } = Dims::of(r);
    let mut out = rmsnorm(t, h, w);
    // QKV, then split + 3 views
    let mut qkv = linear("QKV projection", Part::Projections, r, t, h, h + 2.0 * kvw);
    if let Some(last) = qkv.last_mut() {
        last.group.cpu_ops += 4;
    }
    out.extend(qkv);
    out.extend(rope("q", t, h));
    out.extend(rope("k", t, kvw));
    // 3 transposes, then the cache update for K and V: index copy + index_put_
    for name in ["KV cache: K index_put_", "KV cache: V index_put_"] {
        out.push(pass("index to int64", Part::Attention, 1.0, 4.0, 8.0));
        let mut put = k(
            name,
            Unit::Pointwise,
            Part::Attention,
            Cost {
                flops: t * kvw,
                kv_bytes: kvb * t * kvw,
                act_bytes: a * t * kvw,
                ..Cost::NONE
            },
        );
        if name.starts_with("KV cache: K") {
            put.group.cpu_ops = 3;
        }
        out.push(put);
    }
    // the attention reads the cache: in place with one K/V head per query head (or
    // an attention that reads grouped K/V, `read`), else through copies expanded
    // to every query head
    let keys = b * ctx;
    let (kv_read, kv_act) = if repeats_kv(r, read) {
        out.extend(repeat_kernels(&Dims::of(r), keys));
        (0.0, 2.0 * kvb * keys * h)
    } else {
        (2.0 * kvb * keys * kvw, 0.0)
    };
    let (q_rows, scores) = match r.phase {
        Phase::Decode => (b * heads, b * heads * ctx),
        Phase::Prefill => (b * heads * ctx, b * heads * ctx * ctx),
    };
    let qo = 2.0 * a * t * h;
    if r.flash {
        let causal = if r.phase == Phase::Prefill { 0.5 } else { 1.0 };
        out.push(k(
            "attention (SDPA, flash)",
            Unit::Matmul,
            Part::Attention,
            Cost {
                flops: causal * (4.0 * scores * d + 5.0 * scores),
                kv_bytes: kv_read,
                act_bytes: qo + kv_act,
                ..Cost::NONE
            },
        ));
    } else {
        let pa = Part::Attention;
        out.push(pass("Q × scale", pa, t * h, a, a));
        out.push(pass("K × scale", pa, keys * h, kvb, a));
        out.push(k(
            "QKᵀ",
            Unit::Matmul,
            pa,
            Cost {
                flops: 2.0 * scores * d,
                kv_bytes: kv_read / 2.0,
                act_bytes: a * (t * h + scores) + kv_act / 2.0,
                ..Cost::NONE
            },
        ));
        let mask = q_rows / heads * ctx;
        out.push(pass("mask: zeros", pa, mask, 0.0, a));
        out.push(pass("mask: not", pa, mask, 1.0, 1.0));
        out.push(pass("mask: fill", pa, mask, 1.0 + a, a));
        out.push(pass("scores + mask", pa, scores, a, a));
        out.push(k(
            "softmax",
            Unit::Pointwise,
            pa,
            Cost {
                flops: 5.0 * scores,
                act_bytes: 2.0 * a * scores,
                ..Cost::NONE
            },
        ));
        out.push(k(
            "P·V",
            Unit::Matmul,
            pa,
            Cost {
                flops: 2.0 * scores * d,
                kv_bytes: kv_read / 2.0,
                act_bytes: a * (t * h + scores) + kv_act / 2.0,
                ..Cost::NONE
            },
        ));
    }
    // transpose, contiguous, view; output projection; residual
    let mut wo = linear("output projection", Part::Projections, r, t, h, h);
    if let Some(first) = wo.first_mut() {
        first.group.cpu_ops += 3;
    }
    out.extend(wo);
    out.push(pass("residual add", Part::Pointwise, t * h, 2.0 * a, a));
    out.extend(rmsnorm(t, h, w));
    if c.experts > 1 {
        // a mixture of experts: the grouped kernels of the compiled step
        out.extend(
            super::layer::compiled_layer(r)
                .into_iter()
                .filter(|x| x.part == Part::Mlp),
        );
    } else {
        out.extend(linear("MLP gate (w1)", Part::Mlp, r, t, h, f));
        out.extend(linear("MLP up (w3)", Part::Mlp, r, t, h, f));
        out.push(k(
            "SiLU",
            Unit::Pointwise,
            Part::Mlp,
            Cost {
                flops: 4.0 * t * f,
                act_bytes: 2.0 * a * t * f,
                ..Cost::NONE
            },
        ));
        out.push(pass("SiLU × up", Part::Mlp, t * f, 2.0 * a, a));
        out.extend(linear("MLP down (w2)", Part::Mlp, r, t, f, h));
    }
    out.push(pass("residual add", Part::Pointwise, t * h, 2.0 * a, a));
    out
}

/// The eager kernels before the layers: the mask and rotary tables indexed by
/// position, the embedding lookup.
pub fn before(r: &LlmRun) -> Vec<LlmKernel> {
    let c = &r.config;
    let (h, t, a, w) = (f64::from(c.hidden), tokens(r), ACT_BYTES, r.wdtype.bytes());
    let ctx = f64::from(r.context.max(1));
    let p = Part::Pointwise;
    vec![
        pass("index to int64", p, 1.0, 4.0, 8.0),
        ops(pass("causal mask[pos]", p, t * ctx, 1.0, 1.0), 2),
        pass("index to int64", p, 1.0, 4.0, 8.0),
        pass("rotary table[pos]", p, t * c.head_dim(), 8.0, 8.0),
        k(
            "embedding lookup",
            Unit::Pointwise,
            p,
            Cost {
                weight_bytes: w.max(a) * t * h,
                act_bytes: a * t * h,
                ..Cost::NONE
            },
        ),
    ]
}

/// The eager kernels after the layers: final RMSNorm, LM head, sampler, the
/// generation loop's bookkeeping.
pub fn after(r: &LlmRun) -> Vec<LlmKernel> {
    let c = &r.config;
    let h = f64::from(c.hidden);
    let b = f64::from(r.batch.max(1));
    let v = f64::from(c.vocab);
    let p = Part::LmHead;
    let mut out = rmsnorm(b, h, r.wdtype.bytes());
    out.extend(linear("LM head", Part::LmHead, r, b, h, v));
    let logits = b * v;
    out.push(ops(pass("sample: / temperature", p, logits, F32, F32), 2));
    out.push(pass("sample: top-k", p, logits, F32, 0.0));
    out.push(pass("sample: top-k select", p, b * 200.0, F32, F32));
    out.push(ops(pass("sample: < pivot", p, logits, F32, 1.0), 2));
    out.push(pass("sample: where", p, logits, F32 + 1.0, F32));
    out.push(pass("sample: softmax", p, logits, F32, F32));
    out.push(ops(pass("sample: exponential", p, logits, 0.0, F32), 1));
    out.push(pass("sample: ÷", p, logits, 2.0 * F32, F32));
    out.push(pass("sample: argmax", p, logits, F32, 0.0));
    out.push(pass("sample: to int", p, b, 8.0, 4.0));
    for name in ["pos += 1", "clone", "clone", "clone"] {
        out.push(pass(name, p, b, 8.0, 8.0));
    }
    out
}
