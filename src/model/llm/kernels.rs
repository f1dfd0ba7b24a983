//! The kernels of one LLM step (timed and simulated in [`super::step`]): the
//! vocabulary both kernel lists use (kernel, part, sizes, the tensor-parallel split)
//! and the compiled step's kernels; the eager step's are [`super::eager`]'s, and
//! [`super::launch`] puts either in launch order.
//!
//! `T` tokens go through the layers: `T = B` when decoding (one new token per
//! sequence), `T = B·C` when prefilling `B` prompts of `C` tokens. Per layer, in
//! launch order (`w` weight bytes per parameter, `a` = 2 activation bytes, `kv` KV
//! bytes per element):
//! - RMSNorm (pointwise, 4 FLOP per element: square, sum, scale, weight), reads and
//!   writes `T·h` activations;
//! - QKV projection (matmul): `2·T·h·(h + 2·G·d)` FLOPs; bytes = weights + input +
//!   output, K and V written to the cache in the KV dtype;
//! - RoPE on Q and K (pointwise, 6 FLOP per element);
//! - attention over the cache. Decode: each of the `B·H` query rows meets `C`
//!   cached keys and values: `4·B·H·C·d` FLOPs (QKᵀ and P·V) + softmax `5·B·H·C`;
//!   bytes = the sequences' KV cache `B·C·2·G·d·kv` (read once per KV head: the
//!   `H/G` query heads of a group share it) + Q and O. Prefill is causal: flash
//!   skips the masked half (`2·B·H·C²·d` FLOPs), reads Q, K, V and writes O once; the
//!   naive path computes the full `C×C` scores, writes them, softmaxes them (read +
//!   write) and reads them again for P·V;
//! - output projection `h·h` (matmul), residual add (pointwise);
//! - RMSNorm, MLP: dense = gate and up in one matmul (`h × 2F`), SiLU·mul
//!   (pointwise), down (`F × h`); mixture of experts = router (`h × E`), top-k
//!   (pointwise), then the experts as one grouped kernel per matmul (as vLLM's fused
//!   MoE does): FLOPs for `k` experts per token, weight bytes for the experts the
//!   batch touches ([`LlmConfig::experts_touched`]);
//! - residual add.
//!
//! Around the layers: an embedding lookup (one row per token) before, a final
//! RMSNorm and the LM head after, the LM head for the last token of each sequence
//! only (`B` rows; a server samples only there).
//!
//! Matmuls run at the explorer's preset's bf16 ceiling, or its fp8 ceiling for fp8
//! weights where the preset has one (int4 weights are dequantised to bf16 in the
//! kernel, W4A16). The CPU launches each kernel (`timeline::simulate`), or the
//! whole step once with CUDA graphs (`overhead::simulate_graph`).
//!
//! **Where the time goes.** Each kernel's time is its roofline time: a
//! compute-bound kernel's time counts as compute; a memory-bound kernel's is split
//! in proportion to its weight, KV-cache and activation bytes. GPU idle time (waiting
//! for launches) is overhead. The five parts sum to the step's wall time.

use super::{LlmRun, Phase, ACT_BYTES};
use crate::model::workload::{KernelGroup, Unit};

/// FLOPs per element of an RMSNorm: square, sum, scale by 1/rms, multiply weight.
pub const RMSNORM_FLOPS: f64 = 4.0;
/// FLOPs per element of a rotary embedding: two multiplies and an add per output,
/// with the sine and cosine looked up (counted as 6 per element pair member).
pub const ROPE_FLOPS: f64 = 6.0;
/// FLOPs per element of SiLU(gate)·up: negate, exp, add, divide, multiply.
pub const SWIGLU_FLOPS: f64 = 5.0;

/// Which part of the model a kernel belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Projections,
    Attention,
    Mlp,
    Pointwise,
    LmHead,
    /// Collectives between GPUs (tensor parallelism's all-reduces, a pipeline
    /// stage's send).
    Communication,
}

impl Part {
    pub const ALL: [Part; 6] = [
        Part::Projections,
        Part::Attention,
        Part::Mlp,
        Part::Pointwise,
        Part::LmHead,
        Part::Communication,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Part::Projections => "QKV and output projections",
            Part::Attention => "attention (reads the KV cache)",
            Part::Mlp => "MLP / experts",
            Part::Pointwise => "norms, RoPE, activation, residuals, embedding",
            Part::LmHead => "LM head",
            Part::Communication => "collectives between GPUs",
        }
    }
}

/// One kernel of the step, with where its bytes come from.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmKernel {
    pub group: KernelGroup,
    pub part: Part,
    /// Per kernel: bytes of weights, of KV cache (read or written).
    pub weight_bytes: f64,
    pub kv_bytes: f64,
    /// In a transformer layer (repeated `layers` times) or around them.
    pub in_layer: bool,
}

/// What one kernel does, by name: its FLOPs and the bytes it moves, split by
/// where they live (weights, the KV cache, activations). Leave out what is zero
/// with `..Cost::NONE`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cost {
    pub flops: f64,
    pub weight_bytes: f64,
    pub kv_bytes: f64,
    pub act_bytes: f64,
}

impl Cost {
    /// No work and no traffic: the base a kernel's literal fills in.
    pub const NONE: Cost = Cost {
        flops: 0.0,
        weight_bytes: 0.0,
        kv_bytes: 0.0,
        act_bytes: 0.0,
    };
}

/// One kernel of the step, in a layer, launched once; its bytes are the sum of
/// the three kinds its [`Cost`] names.
pub(super) fn k(name: &'static str, unit: Unit, part: Part, c: Cost) -> LlmKernel {
    LlmKernel {
        group: KernelGroup {
            gemm: None,
            cpu_ops: 0,
            latency: 0.0,
            name,
            unit,
            count: 1,
            flops: c.flops,
            bytes: c.weight_bytes + c.kv_bytes + c.act_bytes,
        },
        part,
        weight_bytes: c.weight_bytes,
        kv_bytes: c.kv_bytes,
        in_layer: true,
    }
}

/// A dense matmul's cost: `t` tokens from `n_in` wide to `n_out` wide, its
/// weights `w` bytes an element and its activations `a`.
fn dense(t: f64, n_in: f64, n_out: f64, w: f64, a: f64) -> Cost {
    Cost {
        flops: 2.0 * t * n_in * n_out,
        weight_bytes: w * n_in * n_out,
        act_bytes: a * t * (n_in + n_out),
        ..Cost::NONE
    }
}

/// `kern` with the shape of its matmul: `t` rows (tokens), `n_in` wide in
/// (the shared dimension), `n_out` wide out, `batch` problems (a mixture of
/// experts' grouped kernel), the weights stored as `b`.
pub(super) fn shaped(
    mut kern: LlmKernel,
    t: f64,
    n_in: f64,
    n_out: f64,
    batch: f64,
    b: crate::model::gemm::Stored,
) -> LlmKernel {
    use crate::model::gemm::dim;
    kern.group.gemm = Some(crate::model::gemm::Gemm {
        m: dim(t),
        n: dim(n_out),
        k: dim(n_in),
        batch: dim(batch),
        b,
        routed: false,
    });
    kern
}

/// Tokens through the layers in one step.
pub fn tokens(r: &LlmRun) -> f64 {
    let b = f64::from(r.batch.max(1));
    match r.phase {
        Phase::Decode => b,
        Phase::Prefill => b * f64::from(r.context.max(1)),
    }
}

/// A layer's sizes as the byte and FLOP counts use them.
pub(super) struct Dims {
    /// Hidden width, tokens through the layer, activation bytes per element.
    pub h: f64,
    pub t: f64,
    pub a: f64,
    /// Bytes per weight and per KV-cache element.
    pub w: f64,
    pub kvb: f64,
    /// Width of K (or V) over the KV heads; head dim.
    pub kvw: f64,
    pub d: f64,
    /// FFN width, batch, context, query heads.
    pub f: f64,
    pub b: f64,
    pub ctx: f64,
    pub heads: f64,
    /// Query width `H·d` (the hidden width, but for a model whose head dim
    /// says otherwise).
    pub qw: f64,
    /// Cached keys a decoding query meets (the context, at most the layer's
    /// window), and twice the (query, key) pairs a causal prefill of one
    /// prompt meets (`C²`; `2·W·C − W²` past a window `W`).
    pub keys: f64,
    pub pairs: f64,
}

impl Dims {
    pub(super) fn of(r: &LlmRun) -> Dims {
        let c = &r.config;
        let ctx = f64::from(r.context.max(1));
        let win = f64::from(c.arch.window);
        let (keys, pairs) = if c.arch.window > 0 && ctx > win {
            (win, 2.0 * win * ctx - win * win)
        } else {
            (ctx, ctx * ctx)
        };
        Dims {
            qw: c.q_width(),
            keys,
            pairs,
            h: f64::from(c.hidden),
            t: tokens(r),
            a: ACT_BYTES,
            w: r.wdtype.bytes(),
            kvb: r.kvdtype.bytes(),
            kvw: c.kv_width(),
            d: c.head_dim(),
            f: f64::from(c.ffn),
            b: f64::from(r.batch.max(1)),
            ctx,
            heads: f64::from(c.heads),
        }
    }
}

/// How the attention of a grouped-query model (fewer KV heads than query heads)
/// gets its K and V.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KvRead {
    /// As the code the model follows does it: gpt-fast's `model.py` calls
    /// `k.repeat_interleave(n_head // n_local_heads, dim=1)` (and the same for `v`)
    /// before `F.scaled_dot_product_attention`, eager and compiled alike
    /// ([`repeats_kv`] says where that is a copy).
    AsWritten,
    /// An attention that reads the grouped K/V where they lie, each KV head once
    /// for the query heads of its group: SDPA's `enable_gqa=True` (PyTorch 2.5,
    /// https://github.com/pytorch/pytorch/pull/131559) or FlashAttention's own grouped heads. The
    /// counterfactual that credits what removing the copies buys.
    InPlace,
}

/// Whether the step copies K and V out to every query head before attention
/// (the repeat is a copy, `2·B·C·h` elements written and read again, where
/// the cache holds `2·B·C·G·d`). Only a grouped model repeats. Eager, the copy
/// is two kernels of its own. Compiled decode has none: gpt-fast decodes on
/// SDPA's math path ("better for Inductor to codegen attention here",
/// generate.py; https://github.com/pytorch-labs/gpt-fast/issues/31), and with `coordinate_descent_tuning` Inductor
/// turns the one-query-row matmuls into a multiply and a sum it generates
/// itself (torch/_inductor/decomposition.py, `bmm`), so the expand-and-reshape
/// the repeat lowers to becomes an index into the cache inside that kernel.
/// Compiled prefill keeps it: the attention stays a library kernel (flash or
/// memory-efficient SDPA, or an `mm`) that takes K and V with every head, so
/// Inductor writes the repeat out as a copy first.
pub fn repeats_kv(r: &LlmRun, read: KvRead) -> bool {
    read == KvRead::AsWritten
        && r.config.kv_heads < r.config.heads
        && (!r.graphs || r.phase == Phase::Prefill)
}

/// The names of the repeat's two copies ([`repeat_kernels`]).
pub const REPEAT_KV: [&str; 2] = ["repeat K to every head", "repeat V to every head"];

/// Whether `k` is one of the repeat's copies of K or V ([`repeats_kv`]).
pub fn is_kv_copy(k: &LlmKernel) -> bool {
    k.part == Part::Attention && REPEAT_KV.contains(&k.group.name)
}

/// The repeat as two copies (K, then V) of the `keys` cached positions from the
/// `G·d`-wide cache to every one of the `h / d` query heads; the attention then
/// reads the copies.
pub(super) fn repeat_kernels(d: &Dims, keys: f64) -> [LlmKernel; 2] {
    REPEAT_KV.map(|name| {
        k(
            name,
            Unit::Pointwise,
            Part::Attention,
            Cost {
                flops: keys * d.h,
                kv_bytes: d.kvb * keys * d.kvw,
                act_bytes: d.kvb * keys * d.h,
                ..Cost::NONE
            },
        )
    })
}

/// Whether tensor parallelism splits a kernel's work over the GPUs of a stage.
/// The split is gpt-fast's (`tp.py`, Megatron's layout): the QKV and MLP
/// gate/up matmuls by output columns, the output and MLP down matmuls by input
/// rows, so attention (its heads and their KV cache), RoPE and the activation
/// between the MLP's matmuls split too. The norms, residual adds, the router of
/// a mixture of experts, the embedding and the LM head run whole on every GPU.
pub fn split_by_tp(k: &LlmKernel) -> bool {
    match k.part {
        Part::Projections | Part::Attention => true,
        Part::Mlp => !matches!(k.group.name, "router" | "top-k routing"),
        Part::Pointwise => k.group.name.starts_with("RoPE"),
        Part::LmHead | Part::Communication => false,
    }
}

/// One GPU's share of a layer under `r.par`: the kernels [`split_by_tp`] names
/// do `1/tp` of the work (FLOPs, weight, KV and activation bytes), and the
/// partial sums of the output projection and the MLP are all-reduced before
/// each residual add. A mixture of experts puts `experts/tp` experts on each GPU
/// (the same bytes and FLOPs per GPU) and moves the routed tokens by an
/// all-to-all after the routing and another before the residual add. The same
/// layer on one GPU is returned as it is.
pub fn per_gpu_layer(layer: Vec<LlmKernel>, r: &LlmRun) -> Vec<LlmKernel> {
    let tp = r.par.tp.max(1);
    if tp == 1 {
        return layer;
    }
    use crate::model::parallel::Collective;
    let n = f64::from(tp);
    let act = tokens(r) * f64::from(r.config.hidden) * ACT_BYTES;
    // a mixture of experts spreads its experts over the GPUs (expert parallel):
    // each GPU sends its share of the tokens to their experts and takes the
    // results back, an all-to-all each way, instead of the MLP's all-reduce
    let moe = r.config.experts > 1;
    let routed = act * f64::from(r.config.top_k.clamp(1, r.config.experts.max(1))) / n;
    let mut residuals = 0;
    let mut out = Vec::with_capacity(layer.len() + 3);
    for mut kern in layer {
        if kern.group.name == "residual add" {
            residuals += 1;
            out.push(if moe && residuals == 2 {
                collective(
                    "all-to-all (experts, combine)",
                    Collective::AllToAll,
                    tp,
                    routed,
                    r,
                )
            } else {
                collective(
                    "all-reduce (tensor parallel)",
                    Collective::AllReduce,
                    tp,
                    act,
                    r,
                )
            });
        }
        let dispatch = moe && kern.group.name == "top-k routing";
        if split_by_tp(&kern) {
            // the output and down projections split their input rows (K), the
            // others their output columns (N)
            let along_k =
                kern.group.name == "output projection" || kern.group.name.contains("down");
            kern.group.gemm = kern.group.gemm.map(|g| g.split(tp, along_k));
            kern.group.flops /= n;
            kern.group.bytes /= n;
            kern.weight_bytes /= n;
            kern.kv_bytes /= n;
            if r.config.arch.mla.on() && kern.part == Part::Attention {
                // the latent is every head's: each GPU reads all of it
                kern.group.bytes += kern.kv_bytes * (n - 1.0);
                kern.kv_bytes *= n;
            }
            // a group wider than the KV heads: each GPU holds a whole head
            let rep = r.config.kv_replicas(tp);
            if rep > 1.0 {
                kern.group.bytes += kern.kv_bytes * (rep - 1.0);
                kern.kv_bytes *= rep;
            }
        }
        out.push(kern);
        if dispatch {
            out.push(collective(
                "all-to-all (experts, dispatch)",
                Collective::AllToAll,
                tp,
                routed,
                r,
            ));
        }
    }
    out
}

/// One collective over `r.par.link` on `n` GPUs moving an array of `bytes`; its
/// whole time (`model::parallel::collective`) is the kernel's latency.
pub fn collective(
    name: &'static str,
    c: crate::model::parallel::Collective,
    n: u32,
    bytes: f64,
    r: &LlmRun,
) -> LlmKernel {
    LlmKernel {
        group: crate::model::parallel::kernel(name, c, n, bytes, &r.par.link, r.par.overlap),
        part: Part::Communication,
        weight_bytes: 0.0,
        kv_bytes: 0.0,
        in_layer: true,
    }
}

/// Layers per pipeline stage (the last stage may hold fewer).
pub fn stage_layers(r: &LlmRun) -> u32 {
    let pp = r.par.pp.max(1);
    r.config.layers.div_ceil(pp).max(1)
}

/// A grouped-query layer's projections and attention onto `out`.
pub(super) fn attention_block(r: &LlmRun, read: KvRead, dm: &Dims, out: &mut Vec<LlmKernel>) {
    let Dims {
        h,
        t,
        a,
        w,
        kvb,
        kvw,
        qw,
        ..
    } = *dm;
    let stored = r.wdtype.stored();
    out.push(shaped(
        k(
            "QKV projection",
            Unit::Matmul,
            Part::Projections,
            Cost {
                flops: 2.0 * t * h * (qw + 2.0 * kvw),
                weight_bytes: w * h * (qw + 2.0 * kvw),
                kv_bytes: kvb * t * 2.0 * kvw,
                act_bytes: a * t * (2.0 * h),
            },
        ),
        t,
        h,
        qw + 2.0 * kvw,
        1.0,
        stored,
    ));
    out.push(k(
        "RoPE",
        Unit::Pointwise,
        Part::Pointwise,
        Cost {
            flops: ROPE_FLOPS * t * (qw + kvw),
            act_bytes: 2.0 * a * t * (qw + kvw),
            ..Cost::NONE
        },
    ));
    attention(r, read, dm, out);
    out.push(shaped(
        k(
            "output projection",
            Unit::Matmul,
            Part::Projections,
            dense(t, qw, h, w, a),
        ),
        t,
        qw,
        h,
        1.0,
        stored,
    ));
}

/// A compiled layer's RMSNorm over the hidden width.
pub(super) fn layer_norm(dm: &Dims, name: &'static str) -> LlmKernel {
    let Dims { h, t, a, w, .. } = *dm;
    k(
        name,
        Unit::Pointwise,
        Part::Pointwise,
        Cost {
            flops: RMSNORM_FLOPS * t * h,
            weight_bytes: w * h,
            act_bytes: 2.0 * a * t * h,
            ..Cost::NONE
        },
    )
}

/// A compiled layer's residual add.
pub(super) fn residual(dm: &Dims) -> LlmKernel {
    let Dims { h, t, a, .. } = *dm;
    k(
        "residual add",
        Unit::Pointwise,
        Part::Pointwise,
        Cost {
            flops: t * h,
            act_bytes: 3.0 * a * t * h,
            ..Cost::NONE
        },
    )
}

/// A compiled layer's attention onto `out`: flash or unfused, decode or prefill.
fn attention(r: &LlmRun, read: KvRead, dm: &Dims, out: &mut Vec<LlmKernel>) {
    let Dims {
        h,
        t,
        a,
        kvb,
        kvw,
        d,
        b,
        ctx,
        heads,
        qw,
        keys,
        pairs,
        ..
    } = *dm;
    // attention, after the repeat's copies where there are any (prefill, grouped:
    // the attention then reads the copies, `kvb·t·h` each, not the cache)
    let copies = repeats_kv(r, read) && r.phase == Phase::Prefill;
    if copies {
        out.extend(repeat_kernels(dm, t));
    }
    let qo = 2.0 * a * t * qw; // read Q, write O
                               // `x` times the causal prefill's doubled (query, key) pairs ([`Dims::pairs`])
    let causal = |x: f64| if keys < ctx { x * pairs } else { x * ctx * ctx };
    let (kv_one, act_one) = if copies {
        (0.0, kvb * t * h)
    } else {
        (t * kvw * kvb, 0.0)
    };
    match (r.phase, r.flash) {
        (Phase::Decode, true) => out.push(k(
            "attention (flash decode)",
            Unit::Matmul,
            Part::Attention,
            Cost {
                flops: 4.0 * b * heads * keys * d + 5.0 * b * heads * keys,
                kv_bytes: b * keys * 2.0 * kvw * kvb,
                act_bytes: qo,
                ..Cost::NONE
            },
        )),
        (Phase::Decode, false) => {
            naive_attention(dm, out, b * heads * keys, b * keys * kvw * kvb, 0.0)
        }
        (Phase::Prefill, true) => out.push(k(
            "attention (flash, causal)",
            Unit::Matmul,
            Part::Attention,
            Cost {
                flops: causal(2.0 * b * heads) * d + causal(2.5 * b * heads),
                kv_bytes: 2.0 * kv_one,
                act_bytes: qo + 2.0 * act_one,
                ..Cost::NONE
            },
        )),
        (Phase::Prefill, false) => naive_attention(dm, out, b * heads * ctx * ctx, kv_one, act_one),
    }
}

/// Unfused attention: QKᵀ writes the scores, softmax reads and writes them, P·V
/// reads them; K (by QKᵀ) and V (by P·V) are read once each.
fn naive_attention(dm: &Dims, out: &mut Vec<LlmKernel>, scores: f64, kv_read: f64, extra: f64) {
    let Dims { h, t, a, d, .. } = *dm;
    let qk_pv = |name| {
        k(
            name,
            Unit::Matmul,
            Part::Attention,
            Cost {
                flops: 2.0 * scores * d,
                kv_bytes: kv_read,
                act_bytes: a * (t * h + scores) + extra,
                ..Cost::NONE
            },
        )
    };
    out.push(qk_pv("QKᵀ"));
    out.push(k(
        "softmax",
        Unit::Pointwise,
        Part::Attention,
        Cost {
            flops: 5.0 * scores,
            act_bytes: 2.0 * a * scores,
            ..Cost::NONE
        },
    ));
    out.push(qk_pv("P·V"));
}

/// A compiled layer's SwiGLU MLP onto `out`: a dense model runs it once per
/// token; a mixture of experts runs `top_k` experts per token and reads the
/// weights of every expert the batch touches, after a router.
pub(super) fn mlp(r: &LlmRun, dm: &Dims, out: &mut Vec<LlmKernel>) {
    let c = &r.config;
    let Dims { h, t, a, f, .. } = *dm;
    let stored = r.wdtype.stored();
    let (kk, touched, names) = if c.experts > 1 {
        let e = f64::from(c.experts);
        out.push(shaped(
            k("router", Unit::Matmul, Part::Mlp, dense(t, h, e, dm.w, a)),
            t,
            h,
            e,
            1.0,
            stored,
        ));
        out.push(k(
            "top-k routing",
            Unit::Pointwise,
            Part::Mlp,
            Cost {
                flops: 5.0 * t * e,
                act_bytes: 2.0 * a * t * e,
                ..Cost::NONE
            },
        ));
        (
            f64::from(c.top_k.clamp(1, c.experts)),
            c.experts_touched(t),
            ["experts gate+up", "experts SiLU·mul", "experts down"],
        )
    } else {
        (1.0, 1.0, ["MLP gate+up", "SiLU·mul", "MLP down"])
    };
    if c.arch.shared > 0 {
        // the shared experts run for every token, their weights always read
        let sf = f * f64::from(c.arch.shared);
        ffn_kernels(
            dm,
            (1.0, 1.0, sf),
            (dm.w, stored),
            [
                "shared expert gate+up",
                "shared expert SiLU·mul",
                "shared expert down",
            ],
            out,
        );
    }
    // the experts' weights in MXFP4 where the model ships them so, unpacked in
    // the kernel to the step's matmul dtype
    let (w, stored) = if c.arch.mxfp4 {
        (super::moe::MXFP4_BYTES, super::moe::mxfp4_stored(r.wdtype))
    } else {
        (dm.w, stored)
    };
    ffn_kernels(dm, (kk, touched, f), (w, stored), names, out);
}

/// A SwiGLU FFN `f` wide onto `out`: `kk` of them per token, `touched` of them
/// read (one grouped kernel per matmul: the touched experts' problems side by
/// side, the routed tokens shared among them, `t·kk/touched` rows each), the
/// weights `w` bytes each, streamed as `stored`.
fn ffn_kernels(
    dm: &Dims,
    (kk, touched, f): (f64, f64, f64),
    (w, stored): (f64, crate::model::gemm::Stored),
    names: [&'static str; 3],
    out: &mut Vec<LlmKernel>,
) {
    let Dims { h, t, a, .. } = *dm;
    let rows = t * kk / touched;
    // the touched experts' own token counts spread about the mean
    let spread = |mut kern: LlmKernel| {
        if let Some(g) = kern.group.gemm.as_mut() {
            g.routed = touched > 1.0;
        }
        kern
    };
    out.push(spread(shaped(
        k(
            names[0],
            Unit::Matmul,
            Part::Mlp,
            Cost {
                flops: 2.0 * t * kk * h * 2.0 * f,
                weight_bytes: w * touched * h * 2.0 * f,
                act_bytes: a * t * kk * (h + 2.0 * f),
                ..Cost::NONE
            },
        ),
        rows,
        h,
        2.0 * f,
        touched,
        stored,
    )));
    out.push(k(
        names[1],
        Unit::Pointwise,
        Part::Mlp,
        Cost {
            flops: SWIGLU_FLOPS * t * kk * f,
            act_bytes: 3.0 * a * t * kk * f,
            ..Cost::NONE
        },
    ));
    out.push(spread(shaped(
        k(
            names[2],
            Unit::Matmul,
            Part::Mlp,
            Cost {
                flops: 2.0 * t * kk * f * h,
                weight_bytes: w * touched * f * h,
                act_bytes: a * t * kk * (f + h),
                ..Cost::NONE
            },
        ),
        rows,
        f,
        h,
        touched,
        stored,
    )));
}

pub(super) fn compiled_before(r: &LlmRun) -> Vec<LlmKernel> {
    let c = &r.config;
    let (h, t, a, w) = (f64::from(c.hidden), tokens(r), ACT_BYTES, r.wdtype.bytes());
    vec![k(
        "embedding lookup",
        Unit::Pointwise,
        Part::Pointwise,
        Cost {
            weight_bytes: w.max(a) * t * h,
            act_bytes: a * t * h,
            ..Cost::NONE
        },
    )]
}

pub(super) fn compiled_after(r: &LlmRun) -> Vec<LlmKernel> {
    let c = &r.config;
    let (h, a, w) = (f64::from(c.hidden), ACT_BYTES, r.wdtype.bytes());
    let b = f64::from(r.batch.max(1));
    let v = f64::from(c.vocab);
    vec![
        k(
            "final RMSNorm",
            Unit::Pointwise,
            Part::Pointwise,
            Cost {
                flops: RMSNORM_FLOPS * b * h,
                weight_bytes: w * h,
                act_bytes: 2.0 * a * b * h,
                ..Cost::NONE
            },
        ),
        shaped(
            k("LM head", Unit::Matmul, Part::LmHead, dense(b, h, v, w, a)),
            b,
            h,
            v,
            1.0,
            r.wdtype.stored(),
        ),
        k(
            "sample: top-k",
            Unit::Pointwise,
            Part::LmHead,
            Cost {
                flops: b * v,
                act_bytes: 4.0 * b * v,
                ..Cost::NONE
            },
        ),
        k(
            "sample: softmax, draw",
            Unit::Pointwise,
            Part::LmHead,
            Cost {
                flops: 5.0 * b * v,
                act_bytes: 8.0 * b * v,
                ..Cost::NONE
            },
        ),
    ]
}
