//! One LLM step as kernels, run through the overhead model ([`timeline`]).
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
//! kernel, W4A16). The CPU launches each kernel ([`timeline::simulate`]), or the
//! whole step once with CUDA graphs ([`overhead::simulate_graph`]).
//!
//! **Where the time goes.** Each kernel's time is its roofline time: a
//! compute-bound kernel's time counts as compute; a memory-bound kernel's is split
//! in proportion to its weight, KV-cache and activation bytes. GPU idle time (waiting
//! for launches) is overhead. The five parts sum to the step's wall time.

use super::super::hardware::Dtype;
use super::super::overhead;
use super::super::roofline::{self, Bound};
use super::super::setting::Setting;
use super::super::timeline::{self, Regime, Timeline};
use super::super::workload::{KernelGroup, Machine, Unit};
use super::{machine_for, LlmRun, Phase, WeightDtype, ACT_BYTES};

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
}

impl Part {
    pub const ALL: [Part; 5] = [
        Part::Projections,
        Part::Attention,
        Part::Mlp,
        Part::Pointwise,
        Part::LmHead,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Part::Projections => "QKV and output projections",
            Part::Attention => "attention (reads the KV cache)",
            Part::Mlp => "MLP / experts",
            Part::Pointwise => "norms, RoPE, activation, residuals, embedding",
            Part::LmHead => "LM head",
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

fn k(
    name: &'static str,
    unit: Unit,
    part: Part,
    flops: f64,
    weight_bytes: f64,
    kv_bytes: f64,
    act_bytes: f64,
) -> LlmKernel {
    LlmKernel {
        group: KernelGroup {
            name,
            unit,
            count: 1,
            flops,
            bytes: weight_bytes + kv_bytes + act_bytes,
        },
        part,
        weight_bytes,
        kv_bytes,
        in_layer: true,
    }
}

/// Tokens through the layers in one step.
pub fn tokens(r: &LlmRun) -> f64 {
    let b = f64::from(r.batch.max(1));
    match r.phase {
        Phase::Decode => b,
        Phase::Prefill => b * f64::from(r.context.max(1)),
    }
}

/// The kernels of one layer, in launch order.
pub fn layer_kernels(r: &LlmRun) -> Vec<LlmKernel> {
    let c = &r.config;
    let (h, t, a) = (f64::from(c.hidden), tokens(r), ACT_BYTES);
    let w = r.wdtype.bytes();
    let kvb = r.kvdtype.bytes();
    let (kvw, d) = (c.kv_width(), c.head_dim());
    let f = f64::from(c.ffn);
    let b = f64::from(r.batch.max(1));
    let ctx = f64::from(r.context.max(1));
    let heads = f64::from(c.heads);
    let norm = |name| {
        k(
            name,
            Unit::Pointwise,
            Part::Pointwise,
            RMSNORM_FLOPS * t * h,
            w * h,
            0.0,
            2.0 * a * t * h,
        )
    };
    let residual = || {
        k(
            "residual add",
            Unit::Pointwise,
            Part::Pointwise,
            t * h,
            0.0,
            0.0,
            3.0 * a * t * h,
        )
    };
    let mut out = vec![
        norm("RMSNorm (attention)"),
        k(
            "QKV projection",
            Unit::Matmul,
            Part::Projections,
            2.0 * t * h * (h + 2.0 * kvw),
            w * h * (h + 2.0 * kvw),
            kvb * t * 2.0 * kvw,
            a * t * (2.0 * h),
        ),
        k(
            "RoPE",
            Unit::Pointwise,
            Part::Pointwise,
            ROPE_FLOPS * t * (h + kvw),
            0.0,
            0.0,
            2.0 * a * t * (h + kvw),
        ),
    ];
    // attention
    let qo = 2.0 * a * t * h; // read Q, write O
    match (r.phase, r.flash) {
        (Phase::Decode, true) => out.push(k(
            "attention (flash decode)",
            Unit::Matmul,
            Part::Attention,
            4.0 * b * heads * ctx * d + 5.0 * b * heads * ctx,
            0.0,
            b * ctx * 2.0 * kvw * kvb,
            qo,
        )),
        (Phase::Decode, false) => {
            let scores = b * heads * ctx;
            out.push(k(
                "QKᵀ",
                Unit::Matmul,
                Part::Attention,
                2.0 * scores * d,
                0.0,
                b * ctx * kvw * kvb,
                a * (t * h + scores),
            ));
            out.push(k(
                "softmax",
                Unit::Pointwise,
                Part::Attention,
                5.0 * scores,
                0.0,
                0.0,
                2.0 * a * scores,
            ));
            out.push(k(
                "P·V",
                Unit::Matmul,
                Part::Attention,
                2.0 * scores * d,
                0.0,
                b * ctx * kvw * kvb,
                a * (t * h + scores),
            ));
        }
        (Phase::Prefill, true) => out.push(k(
            "attention (flash, causal)",
            Unit::Matmul,
            Part::Attention,
            2.0 * b * heads * ctx * ctx * d + 2.5 * b * heads * ctx * ctx,
            0.0,
            t * 2.0 * kvw * kvb,
            qo,
        )),
        (Phase::Prefill, false) => {
            let scores = b * heads * ctx * ctx;
            out.push(k(
                "QKᵀ",
                Unit::Matmul,
                Part::Attention,
                2.0 * scores * d,
                0.0,
                t * kvw * kvb,
                a * (t * h + scores),
            ));
            out.push(k(
                "softmax",
                Unit::Pointwise,
                Part::Attention,
                5.0 * scores,
                0.0,
                0.0,
                2.0 * a * scores,
            ));
            out.push(k(
                "P·V",
                Unit::Matmul,
                Part::Attention,
                2.0 * scores * d,
                0.0,
                t * kvw * kvb,
                a * (t * h + scores),
            ));
        }
    }
    out.push(k(
        "output projection",
        Unit::Matmul,
        Part::Projections,
        2.0 * t * h * h,
        w * h * h,
        0.0,
        2.0 * a * t * h,
    ));
    out.push(residual());
    out.push(norm("RMSNorm (MLP)"));
    if c.experts > 1 {
        let e = f64::from(c.experts);
        let kk = f64::from(c.top_k.clamp(1, c.experts));
        let touched = c.experts_touched(t);
        out.push(k(
            "router",
            Unit::Matmul,
            Part::Mlp,
            2.0 * t * h * e,
            w * h * e,
            0.0,
            a * t * (h + e),
        ));
        out.push(k(
            "top-k routing",
            Unit::Pointwise,
            Part::Mlp,
            5.0 * t * e,
            0.0,
            0.0,
            2.0 * a * t * e,
        ));
        out.push(k(
            "experts gate+up",
            Unit::Matmul,
            Part::Mlp,
            2.0 * t * kk * h * 2.0 * f,
            w * touched * h * 2.0 * f,
            0.0,
            a * t * kk * (h + 2.0 * f),
        ));
        out.push(k(
            "experts SiLU·mul",
            Unit::Pointwise,
            Part::Mlp,
            SWIGLU_FLOPS * t * kk * f,
            0.0,
            0.0,
            3.0 * a * t * kk * f,
        ));
        out.push(k(
            "experts down",
            Unit::Matmul,
            Part::Mlp,
            2.0 * t * kk * f * h,
            w * touched * f * h,
            0.0,
            a * t * kk * (f + h),
        ));
    } else {
        out.push(k(
            "MLP gate+up",
            Unit::Matmul,
            Part::Mlp,
            2.0 * t * h * 2.0 * f,
            w * h * 2.0 * f,
            0.0,
            a * t * (h + 2.0 * f),
        ));
        out.push(k(
            "SiLU·mul",
            Unit::Pointwise,
            Part::Mlp,
            SWIGLU_FLOPS * t * f,
            0.0,
            0.0,
            3.0 * a * t * f,
        ));
        out.push(k(
            "MLP down",
            Unit::Matmul,
            Part::Mlp,
            2.0 * t * f * h,
            w * f * h,
            0.0,
            a * t * (f + h),
        ));
    }
    out.push(residual());
    out
}

/// Every kernel of the step in launch order: embedding, `layers` × the layer, final
/// norm, LM head.
pub fn kernels(r: &LlmRun) -> Vec<LlmKernel> {
    let c = &r.config;
    let (h, t, a, w) = (f64::from(c.hidden), tokens(r), ACT_BYTES, r.wdtype.bytes());
    let b = f64::from(r.batch.max(1));
    let v = f64::from(c.vocab);
    let outer = |mut k: LlmKernel| {
        k.in_layer = false;
        k
    };
    let layer = layer_kernels(r);
    let mut out = Vec::with_capacity(layer.len() * c.layers as usize + 3);
    out.push(outer(k(
        "embedding lookup",
        Unit::Pointwise,
        Part::Pointwise,
        0.0,
        w * t * h,
        0.0,
        a * t * h,
    )));
    for _ in 0..c.layers {
        out.extend(layer.iter().cloned());
    }
    out.push(outer(k(
        "final RMSNorm",
        Unit::Pointwise,
        Part::Pointwise,
        RMSNORM_FLOPS * b * h,
        w * h,
        0.0,
        2.0 * a * b * h,
    )));
    out.push(outer(k(
        "LM head",
        Unit::Matmul,
        Part::LmHead,
        2.0 * b * h * v,
        w * h * v,
        0.0,
        a * b * (h + v),
    )));
    out
}

/// The compute dtype of the matmuls: fp8 for fp8 weights where the preset has fp8
/// tensor cores, else bf16 (the preset's fp32 rate where it has no bf16).
pub fn compute_dtype(r: &LlmRun, setting: &Setting) -> Dtype {
    if r.wdtype == WeightDtype::Fp8 && setting.hw.supports(Dtype::Fp8) {
        Dtype::Fp8
    } else {
        Dtype::Bf16
    }
}

/// Where the step's wall time goes; the parts sum to the wall time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Split {
    pub weights: f64,
    pub kv: f64,
    pub activations: f64,
    pub compute: f64,
    pub overhead: f64,
}

impl Split {
    pub fn total(&self) -> f64 {
        self.weights + self.kv + self.activations + self.compute + self.overhead
    }
    /// The largest part's name (`weights`, `kv`, `activations`, `compute`,
    /// `overhead`).
    pub fn largest(&self) -> &'static str {
        [
            ("weights", self.weights),
            ("kv", self.kv),
            ("activations", self.activations),
            ("compute", self.compute),
            ("overhead", self.overhead),
        ]
        .into_iter()
        .fold(("weights", f64::MIN), |b, x| if x.1 > b.1 { x } else { b })
        .0
    }
}

/// Per-layer view: one layer's kernels with their time and bound.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerRow {
    pub name: &'static str,
    pub part: Part,
    pub time: f64,
    pub bound: Bound,
    pub intensity: f64,
    pub flops: f64,
    pub bytes: f64,
}

/// Everything the widget shows for one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmStep {
    pub run: LlmRun,
    pub machine: Machine,
    pub timeline: Timeline,
    pub split: Split,
    /// Wall time of the step, seconds.
    pub wall: f64,
    pub flops: f64,
    pub bytes: f64,
    pub kernel_count: u32,
    /// Tokens produced (decode) or consumed (prefill) per second.
    pub tokens_per_s: f64,
    pub regime: Regime,
    /// One layer's kernels and the layer's regime.
    pub layer: Vec<LayerRow>,
    pub layer_regime: Regime,
    /// Bytes of all weights (every expert), and of the batch's KV cache after the
    /// step.
    pub weight_bytes: f64,
    pub kv_bytes: f64,
    /// The preset's memory (0 = unknown) and whether weights + KV cache fit in it.
    pub capacity: f64,
    pub fits: bool,
    /// Batch from which the weight matmuls turn compute-bound.
    pub critical_batch: f64,
}

/// The critical batch of decode: the weight matmuls of a batch of `B` tokens do
/// `2·B` FLOPs per weight read (`w` bytes), so they turn compute-bound once
/// `2·B/w` passes the ridge `P/W`: `B* = P/W · w/2`. A mixture of experts gives each
/// expert `B·k/E` of the tokens (once all are touched), so `B* · E/k`.
pub fn critical_batch(r: &LlmRun, m: &Machine) -> f64 {
    let c = &r.config;
    let moe = if c.experts > 1 {
        f64::from(c.experts) / f64::from(c.top_k.clamp(1, c.experts))
    } else {
        1.0
    };
    roofline::ridge(m.matmul_flops, m.bw) * r.wdtype.bytes() / 2.0 * moe
}

/// Run the model for one step.
pub fn run(r: &LlmRun, setting: &Setting) -> LlmStep {
    let m = machine_for(setting, compute_dtype(r, setting));
    let ks = kernels(r);
    let groups: Vec<KernelGroup> = ks.iter().map(|k| k.group.clone()).collect();
    let tl = if r.graphs {
        overhead::simulate_graph(&groups, &m, m.overhead)
    } else {
        timeline::simulate(&groups, &m)
    };
    let mut split = Split::default();
    for kern in &ks {
        let (t, bound) = kern.group.time(&m);
        match bound {
            Bound::Compute => split.compute += t,
            Bound::Memory => {
                let b = kern.group.bytes.max(f64::MIN_POSITIVE);
                split.weights += t * kern.weight_bytes / b;
                split.kv += t * kern.kv_bytes / b;
                split.activations += t * (b - kern.weight_bytes - kern.kv_bytes).max(0.0) / b;
            }
        }
    }
    split.overhead = tl.idle();
    let wall = tl.wall;
    let layer_ks = layer_kernels(r);
    let layer: Vec<LayerRow> = layer_ks
        .iter()
        .map(|k| {
            let (time, bound) = k.group.time(&m);
            LayerRow {
                name: k.group.name,
                part: k.part,
                time,
                bound,
                intensity: k.group.flops / k.group.bytes.max(f64::MIN_POSITIVE),
                flops: k.group.flops,
                bytes: k.group.bytes,
            }
        })
        .collect();
    let (lc, lm) = layer
        .iter()
        .fold((0.0, 0.0), |(c, mm), row| match row.bound {
            Bound::Compute => (c + row.time, mm),
            Bound::Memory => (c, mm + row.time),
        });
    let launches = if r.graphs {
        m.overhead / f64::from(r.config.layers.max(1))
    } else {
        m.overhead * layer.len() as f64
    };
    let layer_regime = if launches > lc + lm {
        Regime::Overhead
    } else if lc >= lm {
        Regime::Compute
    } else {
        Regime::Memory
    };
    let c = &r.config;
    let weight_bytes = c.total_params() * r.wdtype.bytes();
    let b = f64::from(r.batch.max(1));
    let ctx_after = f64::from(r.context.max(1)) + if r.phase == Phase::Decode { 1.0 } else { 0.0 };
    let kv_bytes = b * ctx_after * c.kv_bytes_per_token(r.kvdtype);
    let capacity = setting.hw.mem_bytes;
    let toks = match r.phase {
        Phase::Decode => b,
        Phase::Prefill => tokens(r),
    };
    LlmStep {
        run: *r,
        flops: groups.iter().map(|g| g.flops).sum(),
        bytes: groups.iter().map(|g| g.bytes).sum(),
        kernel_count: groups.len() as u32,
        tokens_per_s: if wall > 0.0 { toks / wall } else { 0.0 },
        regime: tl.shares().regime(),
        critical_batch: critical_batch(r, &m),
        machine: m,
        timeline: tl,
        split,
        wall,
        layer,
        layer_regime,
        weight_bytes,
        kv_bytes,
        capacity,
        fits: capacity <= 0.0 || weight_bytes + kv_bytes <= capacity,
    }
}

impl LlmStep {
    /// Sum of FLOPs of the kernels of one part.
    pub fn flops_of(&self, part: Part) -> f64 {
        kernels(&self.run)
            .iter()
            .filter(|k| k.part == part)
            .map(|k| k.group.flops)
            .sum()
    }
}

/// One point of the batch sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    pub batch: u32,
    pub wall: f64,
    pub tokens_per_s: f64,
    pub split: Split,
    pub fits: bool,
}

/// Batches 1, 2, 4 … 4096 (and the current one) with everything else as `r`.
pub fn sweep(r: &LlmRun, setting: &Setting) -> Vec<SweepPoint> {
    let mut batches: Vec<u32> = (0..=12).map(|i| 1u32 << i).collect();
    batches.push(
        r.batch
            .clamp(super::limits::BATCH.0, super::limits::BATCH.1),
    );
    batches.sort_unstable();
    batches.dedup();
    batches
        .into_iter()
        .map(|batch| {
            let s = run(&LlmRun { batch, ..*r }, setting);
            SweepPoint {
                batch,
                wall: s.wall,
                tokens_per_s: s.tokens_per_s,
                split: s.split,
                fits: s.fits,
            }
        })
        .collect()
}

/// `wall(2·batch) / wall(batch)`, the overhead section's test applied to this step.
pub fn double_batch_ratio(r: &LlmRun, setting: &Setting) -> f64 {
    let base = run(r, setting).wall;
    let twice = run(
        &LlmRun {
            batch: r.batch.saturating_mul(2),
            ..*r
        },
        setting,
    )
    .wall;
    if base > 0.0 {
        twice / base
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::{KvDtype, LlmConfig, LlmModel};
    use super::*;
    use crate::model::hardware;
    use crate::state::State;

    fn setting(hw: &str) -> Setting {
        let mut s = State::default();
        if let Some(p) = hardware::preset(hw) {
            s.select_preset(p);
        }
        s.setting()
    }

    pub(crate) fn llama8b(phase: Phase, batch: u32, context: u32) -> LlmRun {
        LlmRun {
            config: LlmModel::Llama3_8b
                .config()
                .map(|c| c.0)
                .unwrap_or(LlmConfig {
                    layers: 1,
                    hidden: 64,
                    heads: 1,
                    kv_heads: 1,
                    ffn: 64,
                    vocab: 256,
                    experts: 1,
                    top_k: 1,
                }),
            phase,
            batch,
            context,
            wdtype: WeightDtype::Bf16,
            kvdtype: KvDtype::Bf16,
            graphs: true,
            flash: true,
        }
    }

    #[test]
    fn decode_batch1_is_weight_bytes_over_bandwidth() {
        let s = setting("h100-sxm");
        let r = llama8b(Phase::Decode, 1, 1024);
        let st = run(&r, &s);
        let floor = st.weight_bytes / s.bw;
        assert!(
            (st.wall / floor - 1.0).abs() < 0.10,
            "{} vs {}",
            st.wall,
            floor
        );
        assert_eq!(st.regime, Regime::Memory);
        assert!(st.split.weights > 0.8 * st.wall);
        assert!((st.split.total() - st.wall).abs() < 1e-9 * st.wall);
        // the H100's bf16 ridge, ~295
        assert!(
            (st.critical_batch - 295.0).abs() < 1.0,
            "{}",
            st.critical_batch
        );
    }

    #[test]
    fn large_batch_decode_and_prefill_are_compute_bound() {
        let s = setting("h100-sxm");
        let p = run(&llama8b(Phase::Prefill, 1, 4096), &s);
        assert_eq!(p.regime, Regime::Compute);
        let d = run(&llama8b(Phase::Decode, 4096, 1), &s);
        assert_eq!(d.layer_regime, Regime::Compute);
        // a long context makes decode KV-bound
        let kv = run(&llama8b(Phase::Decode, 8, 32768), &s);
        assert_eq!(kv.split.largest(), "kv");
        assert!(!run(&llama8b(Phase::Decode, 4096, 131072), &s).fits);
        assert!(kv.fits);
    }

    #[test]
    fn graphs_remove_overhead_flash_removes_scores() {
        let mut s = setting("h100-sxm");
        // at the default 3.57 µs per launch the GPU's 4.5 ms of weight reads hide
        // the ~390 launches; a slower, Python-heavy loop (20 µs each) does not
        let hidden = run(
            &LlmRun {
                graphs: false,
                ..llama8b(Phase::Decode, 1, 128)
            },
            &s,
        );
        assert!(hidden.split.overhead < 0.01 * hidden.wall);
        s.overhead = 20e-6;
        let eager = run(
            &LlmRun {
                graphs: false,
                ..llama8b(Phase::Decode, 1, 128)
            },
            &s,
        );
        let g = run(&llama8b(Phase::Decode, 1, 128), &s);
        assert!(eager.wall > g.wall * 1.2, "{} {}", eager.wall, g.wall);
        assert!(eager.split.overhead > g.split.overhead);
        let naive = run(
            &LlmRun {
                flash: false,
                ..llama8b(Phase::Prefill, 1, 8192)
            },
            &s,
        );
        let flash = run(&llama8b(Phase::Prefill, 1, 8192), &s);
        assert!(naive.wall > flash.wall);
        assert!(naive.bytes > 2.0 * flash.bytes);
    }

    #[test]
    fn moe_touches_more_experts_with_batch() {
        let s = setting("h100-sxm");
        let mx = LlmRun {
            config: LlmModel::Mixtral8x7b
                .config()
                .map(|c| c.0)
                .unwrap_or(llama8b(Phase::Decode, 1, 1).config),
            ..llama8b(Phase::Decode, 1, 128)
        };
        let one = run(&mx, &s);
        let many = run(&LlmRun { batch: 64, ..mx }, &s);
        // batch 1 reads 2 experts' weights, batch 64 all 8: more weight time
        assert!(many.split.weights > 2.5 * one.split.weights);
        assert!(one.weight_bytes > 90e9); // every expert is stored
        assert!(
            (one.critical_batch / run(&llama8b(Phase::Decode, 1, 128), &s).critical_batch - 4.0)
                .abs()
                < 1e-9
        );
    }
}
