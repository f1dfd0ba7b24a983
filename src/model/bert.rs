//! BERT's forward pass counted by operator class, after Ivanov et al., "Data
//! Movement Is All You Need: A Case Study on Optimizing Transformers" (MLSys 2021,
//! arXiv 2007.00072) — the table the essay reproduces as its figure 6.
//!
//! Classes (Ivanov et al.'s):
//! - **Tensor contraction** (matmuls, tensor-core ceiling): Q, K, V projections,
//!   `QKᵀ`, attention·V, output projection, the two FFN matmuls.
//! - **Statistical normalisation** (pointwise ceiling): softmax over the attention
//!   scores, the two layernorms per layer.
//! - **Element-wise** (pointwise ceiling): bias adds, scaling of the scores, GELU,
//!   three dropouts, two residual adds.
//!
//! Shapes, per layer, for batch `B`, sequence `S`, hidden `H`, FFN width `F`, `A`
//! heads of `d = H/A`: `T = B·S` tokens, scores have `B·A·S²` elements.
//! - matmul `[M, K]×[K, N]`: `2·M·N·K` FLOPs, bytes `b·(M·K + K·N + M·N)`;
//!   projections have `M = T`; `QKᵀ` and attention·V are `B·A` problems of `S×d×S`;
//! - every other op reads its inputs once and writes its output once:
//!   `bytes = b·(input + extra inputs + output)` elements, where extra inputs are a
//!   bias vector, the residual, or layernorm's weight and bias. FLOPs per element:
//!   bias, scale, dropout (a multiply by a pre-scaled keep mask), residual add: 1;
//!   GELU [`GELU_FLOPS_PER_ELEM`] = 5; softmax [`SOFTMAX_FLOPS_PER_ELEM`] = 5;
//!   layernorm [`LAYERNORM_FLOPS_PER_ELEM`] = 8. Random-number generation and the
//!   dropout mask's own traffic are not counted; biases are separate kernels (as in
//!   Ivanov et al.'s operator graph), not matmul epilogues.
//!
//! Two schedules:
//! - **eager**: every op is its own kernel (24 per layer);
//! - **fused**: every run of consecutive element-wise / normalisation ops between two
//!   matmuls is one kernel that reads the run's external inputs once and writes its
//!   last output once: Q/K/V bias adds (one kernel), scale + softmax + dropout,
//!   bias + dropout + residual + layernorm (twice), bias + GELU (13 kernels per
//!   layer). Matmuls are unchanged.
//!
//! Runtime: each kernel's roofline time ([`kernel_time`]) on a [`Machine`]. A fused
//! kernel's time is attributed to the classes of its member ops in proportion to
//! the members' own (eager) roofline times. **Runtime shares are shares of GPU kernel
//! time and exclude launch overhead**; the CPU side is reported separately:
//! `launch_overhead = machine.overhead × kernel count` (CPU time spent launching),
//! and `wall` from [`timeline::simulate`] (where that overhead hides behind kernels
//! that run longer than a launch).
//!
//! How it compares with the measurement: the model counts FLOPs of the forward pass
//! only and lets every kernel reach its roofline. For BERT-base, B = 8, S = 512 on
//! an A100 in bf16 (eager) it gives:
//! - FLOPs: 99.49 % tensor contraction, 0.27 % normalisation, 0.24 % element-wise
//!   (Ivanov: 99.80 / 0.17 / 0.03; non-matmul 0.5 % against their 0.2 %);
//! - GPU time: 42.8 % tensor contraction, 13.0 % normalisation, 44.2 % element-wise
//!   (Ivanov measured 61.0 / 25.5 / 13.5 for training a BERT-large layer in
//!   PyTorch). The model's matmul share is lower mainly because it lets matmuls run
//!   at the 312 TFLOP/s peak, which real matmuls do not reach; its element-wise share
//!   is higher because the scale and dropout on the `S×S` scores are separate
//!   kernels here. The qualitative result is the essay's: half a percent of the
//!   FLOPs takes more than half of the time;
//! - achieved FLOP/s: normalisation ≈ 110× and element-wise ≈ 430× below the
//!   matmuls (the essay: ≈ 250× and ≈ 700×);
//! - fused: the matmul share of GPU time rises to ≈ 65 % and GPU time drops by a
//!   third.

use super::ops::{GELU_FLOPS_PER_ELEM, LAYERNORM_FLOPS_PER_ELEM, SOFTMAX_FLOPS_PER_ELEM};
use super::roofline::kernel_time;
use super::timeline::{self, Timeline};
use super::workload::{KernelGroup, Machine, Unit};

/// Ivanov et al.'s operator classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpClass {
    TensorContraction,
    StatNormalization,
    ElementWise,
}

impl OpClass {
    pub const ALL: [OpClass; 3] = [
        OpClass::TensorContraction,
        OpClass::StatNormalization,
        OpClass::ElementWise,
    ];

    pub fn label(self) -> &'static str {
        match self {
            OpClass::TensorContraction => "Tensor contraction",
            OpClass::StatNormalization => "Statistical normalization",
            OpClass::ElementWise => "Element-wise",
        }
    }

    pub fn unit(self) -> Unit {
        match self {
            OpClass::TensorContraction => Unit::Matmul,
            _ => Unit::Pointwise,
        }
    }
}

/// One number per class.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ByClass {
    pub tensor: f64,
    pub norm: f64,
    pub elementwise: f64,
}

impl ByClass {
    pub fn get(&self, c: OpClass) -> f64 {
        match c {
            OpClass::TensorContraction => self.tensor,
            OpClass::StatNormalization => self.norm,
            OpClass::ElementWise => self.elementwise,
        }
    }

    fn add(&mut self, c: OpClass, v: f64) {
        match c {
            OpClass::TensorContraction => self.tensor += v,
            OpClass::StatNormalization => self.norm += v,
            OpClass::ElementWise => self.elementwise += v,
        }
    }

    fn scaled(&self, k: f64) -> ByClass {
        ByClass {
            tensor: self.tensor * k,
            norm: self.norm * k,
            elementwise: self.elementwise * k,
        }
    }

    fn plus(&self, o: &ByClass) -> ByClass {
        ByClass {
            tensor: self.tensor + o.tensor,
            norm: self.norm + o.norm,
            elementwise: self.elementwise + o.elementwise,
        }
    }

    pub fn sum(&self) -> f64 {
        self.tensor + self.norm + self.elementwise
    }

    /// Each entry over the sum (all zeros if the sum is not positive).
    pub fn shares(&self) -> ByClass {
        let s = self.sum();
        if s > 0.0 && s.is_finite() {
            self.scaled(1.0 / s)
        } else {
            ByClass::default()
        }
    }

    /// Share of everything that is not a tensor contraction.
    pub fn non_matmul(&self) -> f64 {
        self.norm + self.elementwise
    }
}

/// Encoder size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BertConfig {
    pub layers: u32,
    pub hidden: u32,
    pub ffn: u32,
    pub heads: u32,
}

impl BertConfig {
    /// BERT-base: 12 layers, hidden 768, FFN 3072, 12 heads.
    pub const BASE: BertConfig = BertConfig {
        layers: 12,
        hidden: 768,
        ffn: 3072,
        heads: 12,
    };
    /// BERT-large: 24 layers, hidden 1024, FFN 4096, 16 heads (Ivanov et al.'s layer).
    pub const LARGE: BertConfig = BertConfig {
        layers: 24,
        hidden: 1024,
        ffn: 4096,
        heads: 16,
    };

    /// `hidden / heads` (at least 1 head).
    pub fn head_dim(&self) -> f64 {
        f64::from(self.hidden) / f64::from(self.heads.max(1))
    }
}

/// One operator of a layer, as launched eagerly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BertOp {
    pub name: &'static str,
    pub class: OpClass,
    /// Identical kernels per layer (3 for the Q, K, V projections and biases).
    pub count: u32,
    /// FLOPs per kernel.
    pub flops: f64,
    /// Elements of the main (chained) input, per kernel.
    pub input: f64,
    /// Elements of other inputs (weights, bias, residual), per kernel.
    pub extra: f64,
    /// Elements written, per kernel.
    pub output: f64,
    /// Name of the fused kernel this op joins; `None` for matmuls.
    pub segment: Option<&'static str>,
    /// A weight matmul's shape (the GEMM model prices it under achievable roofs).
    pub gemm: Option<super::gemm::Gemm>,
}

impl BertOp {
    /// Eager DRAM bytes per kernel: `b·(input + extra + output)`.
    pub fn bytes(&self, b: f64) -> f64 {
        b * (self.input + self.extra + self.output)
    }
}

const QKV_BIAS: &str = "Q, K, V bias";
const ATTN_CHAIN: &str = "scale + softmax + dropout";
const ADD_NORM: &str = "bias + dropout + residual + layernorm";
const BIAS_GELU: &str = "bias + GELU";

/// The operators of one encoder layer, in launch order.
pub fn layer_ops(cfg: &BertConfig, batch: u32, seq: u32) -> Vec<BertOp> {
    let b = f64::from(batch);
    let s = f64::from(seq);
    let h = f64::from(cfg.hidden);
    let f = f64::from(cfg.ffn);
    let a = f64::from(cfg.heads.max(1));
    let d = cfg.head_dim();
    let t = b * s;
    let th = t * h;
    let tf = t * f;
    let scores = b * a * s * s;
    use super::gemm::dim;
    let mm = |name, count, m: f64, n: f64, k: f64| BertOp {
        name,
        class: OpClass::TensorContraction,
        count,
        flops: 2.0 * m * n * k,
        input: m * k,
        extra: k * n,
        output: m * n,
        segment: None,
        gemm: Some(super::gemm::Gemm {
            m: dim(m),
            n: dim(n),
            k: dim(k),
            batch: 1,
            b: super::gemm::Stored::Bf16,
            routed: false,
        }),
    };
    let pw = |name, class, per_elem: f64, n: f64, extra: f64, segment| BertOp {
        name,
        class,
        count: 1,
        flops: per_elem * n,
        input: n,
        extra,
        output: n,
        segment: Some(segment),
        gemm: None,
    };
    use OpClass::{ElementWise as E, StatNormalization as N};
    // Batched attention matmuls: B·A problems, accounted as one kernel.
    let qk = BertOp {
        name: "QKᵀ",
        class: OpClass::TensorContraction,
        count: 1,
        flops: 2.0 * b * a * s * s * d,
        input: th,
        extra: th,
        output: scores,
        segment: None,
        gemm: None,
    };
    let av = BertOp {
        name: "attention · V",
        class: OpClass::TensorContraction,
        count: 1,
        flops: 2.0 * b * a * s * s * d,
        input: scores,
        extra: th,
        output: th,
        segment: None,
        gemm: None,
    };
    // "Add & Norm" after attention and after the FFN: the projection's bias,
    // dropout, the residual add and layernorm.
    let add_norm = |bias| {
        [
            pw(bias, E, 1.0, th, h, ADD_NORM),
            pw("dropout", E, 1.0, th, 0.0, ADD_NORM),
            pw("residual add", E, 1.0, th, th, ADD_NORM),
            pw(
                "layernorm",
                N,
                LAYERNORM_FLOPS_PER_ELEM,
                th,
                2.0 * h,
                ADD_NORM,
            ),
        ]
    };
    [
        mm("Q, K, V projections", 3, t, h, h),
        BertOp {
            count: 3,
            ..pw("Q, K, V bias", E, 1.0, th, h, QKV_BIAS)
        },
        qk,
        pw("scale scores", E, 1.0, scores, 0.0, ATTN_CHAIN),
        pw(
            "softmax",
            N,
            SOFTMAX_FLOPS_PER_ELEM,
            scores,
            0.0,
            ATTN_CHAIN,
        ),
        pw("attention dropout", E, 1.0, scores, 0.0, ATTN_CHAIN),
        av,
        mm("output projection", 1, t, h, h),
    ]
    .into_iter()
    .chain(add_norm("output bias"))
    .chain([
        mm("FFN up", 1, t, f, h),
        pw("FFN up bias", E, 1.0, tf, f, BIAS_GELU),
        pw("GELU", E, GELU_FLOPS_PER_ELEM, tf, 0.0, BIAS_GELU),
        mm("FFN down", 1, t, h, f),
    ])
    .chain(add_norm("FFN down bias"))
    .collect()
}

/// A kernel of one layer with its FLOPs split by class.
#[derive(Clone, Debug, PartialEq)]
pub struct BertKernel {
    pub name: &'static str,
    pub unit: Unit,
    pub count: u32,
    /// Per kernel.
    pub flops: f64,
    /// Per kernel.
    pub bytes: f64,
    /// FLOPs of each class, per kernel.
    pub class_flops: ByClass,
    /// How the kernel's time is split between classes: the member ops' eager
    /// roofline times, per kernel.
    pub class_weight: ByClass,
    /// A weight matmul's shape.
    pub gemm: Option<super::gemm::Gemm>,
}

impl BertKernel {
    pub fn group(&self) -> KernelGroup {
        KernelGroup {
            gemm: self.gemm,
            cpu_ops: 0,
            latency: 0.0,
            name: self.name,
            unit: self.unit,
            count: self.count,
            flops: self.flops,
            bytes: self.bytes,
        }
    }

    /// Time of one kernel on `m`: its roofline time, or a weight matmul's price
    /// under the GEMM model (achievable roofs, fixed costs included).
    pub fn time(&self, m: &Machine) -> f64 {
        let p = self.group().parts(m);
        if self.gemm.is_some() && m.gemm.is_some() {
            p.total
        } else {
            p.roof
        }
    }
}

fn eager_time(op: &BertOp, m: &Machine) -> f64 {
    kernel_time(
        op.flops,
        op.bytes(m.elem_bytes),
        m.ceiling(op.class.unit()),
        m.bw,
    )
    .0
}

fn single(op: &BertOp, m: &Machine) -> BertKernel {
    let mut class_flops = ByClass::default();
    class_flops.add(op.class, op.flops);
    let mut class_weight = ByClass::default();
    class_weight.add(op.class, eager_time(op, m).max(f64::MIN_POSITIVE));
    BertKernel {
        name: op.name,
        unit: op.class.unit(),
        count: op.count,
        flops: op.flops,
        bytes: op.bytes(m.elem_bytes),
        class_flops,
        class_weight,
        gemm: op.gemm.map(|g| super::gemm::Gemm {
            b: super::gemm::Stored::of_bytes(m.elem_bytes),
            ..g
        }),
    }
}

/// One fused kernel for a run of non-matmul ops (`run` is non-empty).
fn fuse(run: &[BertOp], m: &Machine) -> Option<BertKernel> {
    let first = run.first()?;
    let last = run.last()?;
    if run.len() == 1 {
        // A lone op (possibly `count` parallel kernels) becomes one kernel.
        let k = single(first, m);
        let c = f64::from(first.count);
        return Some(BertKernel {
            name: first.segment.unwrap_or(first.name),
            count: 1,
            flops: k.flops * c,
            bytes: k.bytes * c,
            class_flops: k.class_flops.scaled(c),
            class_weight: k.class_weight.scaled(c),
            ..k
        });
    }
    let mut class_flops = ByClass::default();
    let mut class_weight = ByClass::default();
    let mut extra = 0.0;
    for op in run {
        let c = f64::from(op.count);
        class_flops.add(op.class, op.flops * c);
        class_weight.add(op.class, eager_time(op, m).max(f64::MIN_POSITIVE) * c);
        extra += op.extra * c;
    }
    let elems = first.input * f64::from(first.count) + extra + last.output * f64::from(last.count);
    Some(BertKernel {
        name: first.segment.unwrap_or(first.name),
        unit: Unit::Pointwise,
        count: 1,
        flops: class_flops.sum(),
        bytes: m.elem_bytes * elems,
        class_flops,
        class_weight,
        gemm: None,
    })
}

/// The kernels of one layer, eager or fused, with bytes in `m.elem_bytes`.
pub fn layer_kernels(ops: &[BertOp], m: &Machine, fused: bool) -> Vec<BertKernel> {
    if !fused {
        return ops.iter().map(|op| single(op, m)).collect();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < ops.len() {
        match ops[i].segment {
            None => {
                out.push(single(&ops[i], m));
                i += 1;
            }
            Some(seg) => {
                let mut j = i + 1;
                while j < ops.len() && ops[j].segment == Some(seg) {
                    j += 1;
                }
                if let Some(k) = fuse(&ops[i..j], m) {
                    out.push(k);
                }
                i = j;
            }
        }
    }
    out
}

/// The model's answer for one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct BertProfile {
    pub fused: bool,
    /// Kernels of one layer.
    pub layer: Vec<BertKernel>,
    /// Kernels launched for the whole forward pass.
    pub kernel_count: u32,
    /// FLOPs of the whole pass, by class.
    pub flops: ByClass,
    /// DRAM bytes of the whole pass.
    pub bytes: f64,
    /// GPU kernel time of the whole pass, by class (no launch overhead).
    pub time: ByClass,
    /// CPU time spent launching: `machine.overhead × kernel_count`.
    pub launch_overhead: f64,
    /// Wall time from the CPU/GPU timeline (overhead hidden where it can be).
    pub wall: f64,
    pub timeline: Timeline,
}

impl BertProfile {
    /// FLOP share per class (sums to 1).
    pub fn flop_shares(&self) -> ByClass {
        self.flops.shares()
    }

    /// Share of GPU kernel time per class (sums to 1; excludes launch overhead).
    pub fn runtime_shares(&self) -> ByClass {
        self.time.shares()
    }

    /// Total GPU kernel time.
    pub fn gpu_time(&self) -> f64 {
        self.time.sum()
    }

    /// Share of the wall time the GPU sits idle waiting for launches.
    pub fn idle_share(&self) -> f64 {
        if self.wall > 0.0 {
            (1.0 - self.gpu_time() / self.wall).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Achieved FLOP/s per class: class FLOPs / class GPU time (0 where no time).
    pub fn achieved(&self) -> ByClass {
        let f = |fl: f64, t: f64| if t > 0.0 { fl / t } else { 0.0 };
        ByClass {
            tensor: f(self.flops.tensor, self.time.tensor),
            norm: f(self.flops.norm, self.time.norm),
            elementwise: f(self.flops.elementwise, self.time.elementwise),
        }
    }

    /// How many times fewer FLOP/s each class reaches than the matmuls:
    /// `achieved.tensor / achieved.class` (1 for tensor contraction; 0 if undefined).
    pub fn slowdown_vs_matmul(&self) -> ByClass {
        let a = self.achieved();
        let r = |x: f64| if x > 0.0 { a.tensor / x } else { 0.0 };
        ByClass {
            tensor: r(a.tensor),
            norm: r(a.norm),
            elementwise: r(a.elementwise),
        }
    }
}

/// What the `bert` widget shows for one state: its one model entry point
/// ([`widget`]), computed once per change.
#[derive(Clone, Debug, PartialEq)]
pub struct BertView {
    pub profile: BertProfile,
    /// [`BertProfile::flop_shares`].
    pub flop: ByClass,
    /// [`BertProfile::runtime_shares`] (`bert_runtime_share_*`).
    pub runtime: ByClass,
    /// [`BertProfile::slowdown_vs_matmul`].
    pub slowdown: ByClass,
}

/// Everything the `bert` widget draws and publishes: BERT-base's forward pass
/// for `batch × seq` tokens on `m`, eager or `fused`, and its class shares.
pub fn widget(batch: u32, seq: u32, m: &Machine, fused: bool) -> BertView {
    let profile = profile(&BertConfig::BASE, batch, seq, m, fused);
    BertView {
        flop: profile.flop_shares(),
        runtime: profile.runtime_shares(),
        slowdown: profile.slowdown_vs_matmul(),
        profile,
    }
}

/// Profile the forward pass of `cfg` for `batch × seq` tokens on `m`.
pub fn profile(cfg: &BertConfig, batch: u32, seq: u32, m: &Machine, fused: bool) -> BertProfile {
    let ops = layer_ops(cfg, batch, seq);
    let layer = layer_kernels(&ops, m, fused);
    let layers = cfg.layers.max(1);
    let nl = f64::from(layers);
    let mut flops = ByClass::default();
    let mut time = ByClass::default();
    let mut bytes = 0.0;
    for k in &layer {
        let c = f64::from(k.count);
        flops = flops.plus(&k.class_flops.scaled(c * nl));
        bytes += k.bytes * c * nl;
        let w = k.class_weight.sum();
        if w > 0.0 {
            time = time.plus(&k.class_weight.scaled(k.time(m) * c * nl / w));
        }
    }
    let groups: Vec<KernelGroup> = (0..layers)
        .flat_map(|_| layer.iter().map(BertKernel::group))
        .collect();
    let timeline = timeline::simulate(&groups, m);
    let kernel_count = groups.iter().map(|g| g.count).sum::<u32>();
    BertProfile {
        fused,
        kernel_count,
        flops,
        bytes,
        time,
        launch_overhead: m.overhead * f64::from(kernel_count),
        wall: timeline.wall,
        timeline,
        layer,
    }
}

/// A measured FLOP / runtime split.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasuredShares {
    pub flop: ByClass,
    pub runtime: ByClass,
    pub source: &'static str,
}

/// Ivanov et al.'s Table "proportions for operator classes" as the essay quotes it.
pub const IVANOV_2020: MeasuredShares = MeasuredShares {
    flop: ByClass {
        tensor: 0.9980,
        norm: 0.0017,
        elementwise: 0.0003,
    },
    runtime: ByClass {
        tensor: 0.610,
        norm: 0.255,
        elementwise: 0.135,
    },
    source: "Ivanov, Dryden, Ben-Nun, Li, Hoefler, \"Data Movement Is All You Need: A Case Study on Optimizing Transformers\", arXiv 2007.00072 (MLSys 2021): BERT encoder layer training in PyTorch",
};

/// BERT-base training step measured on an H100 (`reference::h100`): kernel-time
/// shares by class (fp16 autocast, eager attention; HF transformers, PyTorch 2.11).
/// Casts and copies that autocast inserts count as element-wise.
pub fn h100_2026() -> ByClass {
    let (tensor, norm, elementwise) = super::reference::h100::BERT_TRAIN_SHARES;
    ByClass {
        tensor,
        norm,
        elementwise,
    }
}

/// The essay: normalisation reaches about 250× fewer FLOP/s than the matmuls.
pub const ESSAY_NORM_SLOWDOWN: f64 = 250.0;
/// The essay: element-wise ops reach about 700× fewer FLOP/s than the matmuls.
pub const ESSAY_ELEMENTWISE_SLOWDOWN: f64 = 700.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::State;

    fn a100_bf16() -> Machine {
        State::default().machine()
    }

    fn base(fused: bool) -> BertProfile {
        profile(&BertConfig::BASE, 8, 512, &a100_bf16(), fused)
    }

    #[test]
    fn machine_is_a100_bf16() {
        let m = a100_bf16();
        assert_eq!(m.matmul_flops, 312e12);
        assert_eq!(m.elem_bytes, 2.0);
    }

    #[test]
    fn matmul_flops_match_closed_form() {
        // forward matmuls per layer: 8·T·H² + 4·T·H·F... i.e. QKV 6TH², out 2TH²,
        // FFN 4THF, attention 4·B·S²·H.
        let p = base(false);
        let (t, h, f, s, b) = (4096.0, 768.0, 3072.0, 512.0, 8.0);
        let per_layer = 8.0 * t * h * h + 4.0 * t * h * f + 4.0 * b * s * s * h;
        assert!((p.flops.tensor - 12.0 * per_layer).abs() / p.flops.tensor < 1e-12);
        // about 0.77 TFLOP for the pass
        assert!(
            (0.7e12..0.85e12).contains(&p.flops.tensor),
            "{}",
            p.flops.tensor
        );
    }

    #[test]
    fn flop_shares_look_like_ivanov() {
        let s = base(false).flop_shares();
        assert!((s.sum() - 1.0).abs() < 1e-12);
        assert!(s.tensor > 0.99, "{}", s.tensor);
        // non-matmul ops: a fraction of a percent (Ivanov: 0.2 %)
        assert!(
            (0.001..0.01).contains(&s.non_matmul()),
            "{}",
            s.non_matmul()
        );
        assert!(s.norm > 0.0 && s.elementwise > 0.0);
        // fusion changes no FLOPs
        assert_eq!(base(true).flops, base(false).flops);
    }

    #[test]
    fn eager_runtime_is_far_from_flop_share() {
        let p = base(false);
        let r = p.runtime_shares();
        assert!((r.sum() - 1.0).abs() < 1e-12);
        // The model: 42.8 % of GPU time in matmuls at batch 8 × 512 on an A100 in bf16
        // (Ivanov measured 61 %; the widget shows both and says why they differ).
        assert!((0.25..0.6).contains(&r.tensor), "{}", r.tensor);
        assert!(r.norm > 0.1 && r.elementwise > 0.1, "{r:?}");
        assert!(r.tensor < IVANOV_2020.runtime.tensor);
    }

    #[test]
    fn fusion_lowers_non_matmul_runtime_share() {
        let e = base(false);
        let f = base(true);
        assert!(f.runtime_shares().non_matmul() < e.runtime_shares().non_matmul());
        assert!(f.bytes < 0.6 * e.bytes, "{} vs {}", f.bytes, e.bytes);
        assert!(f.gpu_time() < e.gpu_time());
        assert!(f.wall < e.wall);
        assert_eq!(f.time.tensor, e.time.tensor);
        assert!((f.runtime_shares().sum() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn kernel_counts() {
        let ops = layer_ops(&BertConfig::BASE, 8, 512);
        let m = a100_bf16();
        let eager: u32 = layer_kernels(&ops, &m, false).iter().map(|k| k.count).sum();
        let fused: u32 = layer_kernels(&ops, &m, true).iter().map(|k| k.count).sum();
        assert_eq!((eager, fused), (24, 13));
        assert_eq!(base(false).kernel_count, 24 * 12);
        assert_eq!(base(true).kernel_count, 13 * 12);
        let p = base(false);
        assert!((p.launch_overhead - 288.0 * m.overhead).abs() < 1e-15);
    }

    #[test]
    fn fused_kernels_read_once_write_once() {
        let ops = layer_ops(&BertConfig::BASE, 8, 512);
        let m = a100_bf16();
        let fused = layer_kernels(&ops, &m, true);
        let scores = 8.0 * 12.0 * 512.0 * 512.0;
        let chain = fused.iter().find(|k| k.name == ATTN_CHAIN);
        let Some(chain) = chain else {
            panic!("no attention chain")
        };
        assert_eq!(chain.bytes, 2.0 * 2.0 * scores);
        assert_eq!(chain.flops, 7.0 * scores);
        let eager_chain: f64 = ops
            .iter()
            .filter(|o| o.segment == Some(ATTN_CHAIN))
            .map(|o| o.bytes(2.0))
            .sum();
        assert_eq!(eager_chain, 3.0 * chain.bytes);
        // bias + dropout + residual + layernorm: read x, bias, residual, γ/β; write y
        let th = 4096.0 * 768.0;
        let add_norm: Vec<&BertKernel> = fused.iter().filter(|k| k.name == ADD_NORM).collect();
        assert_eq!(add_norm.len(), 2);
        assert_eq!(add_norm[0].bytes, 2.0 * (3.0 * th + 3.0 * 768.0));
        // the three Q/K/V biases become one kernel of the same traffic
        let qkv = fused.iter().find(|k| k.name == QKV_BIAS);
        let Some(qkv) = qkv else {
            panic!("no qkv bias")
        };
        assert_eq!(qkv.count, 1);
        assert_eq!(qkv.bytes, 3.0 * 2.0 * (2.0 * th + 768.0));
    }

    #[test]
    fn achieved_flops_gap_is_hundreds_of_x() {
        let p = base(false);
        let a = p.achieved();
        // the batched attention matmuls (d = 64) are memory-bound, so below peak
        assert!(a.tensor > 0.7 * 312e12, "{}", a.tensor);
        let s = p.slowdown_vs_matmul();
        assert_eq!(s.tensor, 1.0);
        // same order of magnitude as the essay's 250x and 700x
        assert!((50.0..1000.0).contains(&s.norm), "{}", s.norm);
        assert!(
            (200.0..2000.0).contains(&s.elementwise),
            "{}",
            s.elementwise
        );
        assert!(s.elementwise > s.norm);
    }

    #[test]
    fn overhead_mostly_hidden_at_this_size() {
        let p = base(false);
        assert!(p.idle_share() < 0.05, "{}", p.idle_share());
        assert!(p.wall >= p.gpu_time());
        // tiny batch: launches dominate
        let tiny = profile(&BertConfig::BASE, 1, 8, &a100_bf16(), false);
        assert!(tiny.idle_share() > 0.5, "{}", tiny.idle_share());
        assert!(profile(&BertConfig::BASE, 1, 8, &a100_bf16(), true).wall < tiny.wall);
    }

    #[test]
    fn constants() {
        assert!((IVANOV_2020.flop.sum() - 1.0).abs() < 1e-9);
        assert!((IVANOV_2020.runtime.sum() - 1.0).abs() < 1e-9);
        assert!((IVANOV_2020.flop.non_matmul() - 0.002).abs() < 1e-9);
        const { assert!(ESSAY_ELEMENTWISE_SLOWDOWN > ESSAY_NORM_SLOWDOWN) };
        assert_eq!(ByClass::default().shares(), ByClass::default());
    }

    #[test]
    fn large_config_runs() {
        let p = profile(&BertConfig::LARGE, 8, 512, &a100_bf16(), false);
        assert_eq!(BertConfig::LARGE.head_dim(), 64.0);
        assert!(p.flop_shares().tensor > 0.99);
        assert!(p.runtime_shares().tensor < 0.75);
    }
}
