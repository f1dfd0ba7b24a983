//! The op calculator: FLOPs, DRAM bytes and predicted time of common operators.
//!
//! Every op becomes a list of [`KernelGroup`]s (the kernels it launches, in order)
//! and is timed with [`timeline::simulate`], so the launch overhead and the regime
//! are computed exactly as in the explorer. `b` is bytes per stored element.
//!
//! - **Matmul** `[M, K] × [K, N]`: `F = 2·M·N·K`, `bytes = b·(M·K + K·N + M·N)`
//!   (read both operands once, write the result once: the ideal of a tiled kernel),
//!   matmul ceiling.
//! - **Pointwise chain** of `n` ops on `N` elements, 1 FLOP per element per op
//!   (pointwise ceiling): eager = `n` kernels of `N` FLOPs and `2·N·b` bytes each;
//!   fused = one kernel of `n·N` FLOPs and `2·N·b` bytes.
//! - **Row reduction** over `[rows, cols]` (one kernel, pointwise ceiling): reads the
//!   input once and writes the output once, `bytes = b·2·rows·cols` (+ `b·2·cols` of
//!   weight and bias for layernorm). FLOPs per element, counted as plain arithmetic
//!   ops (an exp or a reciprocal square root counts as one):
//!   - softmax [`SOFTMAX_FLOPS_PER_ELEM`] = 5: max, subtract, exp, sum, divide;
//!   - layernorm [`LAYERNORM_FLOPS_PER_ELEM`] = 8: mean (add), variance (subtract,
//!     square, add), normalise (subtract, multiply by 1/σ), affine (multiply, add).
//! - **Attention** for `batch × heads` independent `[seq, head_dim]` problems, `BH =
//!   batch·heads`, `S = seq`, `d = head_dim`:
//!   - naive (materialise the `S×S` scores in DRAM): `QKᵀ` matmul (`2·BH·S²·d` FLOPs,
//!     reads Q and K, writes the scores), softmax (reads and writes the scores,
//!     `5·BH·S²` FLOPs), `P·V` matmul (`2·BH·S²·d` FLOPs, reads P and V, writes O);
//!   - fused / flash (one kernel, scores stay on chip): same FLOPs,
//!     `4·BH·S²·d + 5·BH·S²`, but bytes = `b·4·BH·S·d` (read Q, K, V, write O). The
//!     whole kernel runs at the matmul ceiling; the softmax arithmetic is a ~1/d
//!     sliver of it (this makes the model slightly optimistic for flash).

use super::timeline::{self, Regime};
use super::workload::{KernelGroup, Machine, Unit};

/// FLOPs per element of a softmax over a row: max, subtract, exp, sum, divide.
pub const SOFTMAX_FLOPS_PER_ELEM: f64 = 5.0;
/// FLOPs per element of a layernorm: mean 1, variance 3, normalise 2, affine 2.
pub const LAYERNORM_FLOPS_PER_ELEM: f64 = 8.0;
/// FLOPs per element of GELU, `0.5·x·(1 + erf(x/√2))`: divide, erf (as one op), add,
/// multiply, multiply.
pub const GELU_FLOPS_PER_ELEM: f64 = 5.0;

/// Which row reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    LayerNorm,
    Softmax,
}

impl Reduction {
    pub fn flops_per_elem(self) -> f64 {
        match self {
            Reduction::LayerNorm => LAYERNORM_FLOPS_PER_ELEM,
            Reduction::Softmax => SOFTMAX_FLOPS_PER_ELEM,
        }
    }
}

/// How attention is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attention {
    /// Three kernels; the `S×S` scores and probabilities round-trip through DRAM.
    Naive,
    /// One fused kernel (FlashAttention-style); scores never leave the chip.
    Flash,
}

/// `[m, k] × [k, n]`: one kernel (priced by the GEMM model under achievable roofs).
pub fn matmul(m: u32, n: u32, k: u32, b: f64) -> Vec<KernelGroup> {
    let g = super::gemm::Gemm {
        m,
        n,
        k,
        batch: 1,
        b: super::gemm::Stored::of_bytes(b),
        routed: false,
    };
    vec![KernelGroup::gemm("matmul", g, g.bytes(b))]
}

/// A chain of `ops` (at least 1) one-FLOP pointwise ops on `elements` elements.
pub fn pointwise_chain(ops: u32, elements: f64, b: f64, fused: bool) -> Vec<KernelGroup> {
    let ops = ops.max(1);
    if fused {
        vec![KernelGroup {
            gemm: None,
            cpu_ops: 0,
            latency: 0.0,
            name: "fused chain",
            unit: Unit::Pointwise,
            count: 1,
            flops: elements * f64::from(ops),
            bytes: 2.0 * elements * b,
        }]
    } else {
        vec![KernelGroup {
            gemm: None,
            cpu_ops: 0,
            latency: 0.0,
            name: "pointwise op",
            unit: Unit::Pointwise,
            count: ops,
            flops: elements,
            bytes: 2.0 * elements * b,
        }]
    }
}

/// A softmax or layernorm over each row of `[rows, cols]`: one kernel.
pub fn row_reduction(kind: Reduction, rows: u32, cols: u32, b: f64) -> Vec<KernelGroup> {
    let (r, c) = (f64::from(rows), f64::from(cols));
    let params = match kind {
        Reduction::LayerNorm => 2.0 * c,
        Reduction::Softmax => 0.0,
    };
    vec![KernelGroup {
        gemm: None,
        cpu_ops: 0,
        latency: 0.0,
        name: match kind {
            Reduction::LayerNorm => "layernorm",
            Reduction::Softmax => "softmax",
        },
        unit: Unit::Pointwise,
        count: 1,
        flops: kind.flops_per_elem() * r * c,
        bytes: b * (2.0 * r * c + params),
    }]
}

/// Attention for `batch × heads` problems of `[seq, head_dim]`.
pub fn attention(
    batch: u32,
    heads: u32,
    seq: u32,
    head_dim: u32,
    b: f64,
    kind: Attention,
) -> Vec<KernelGroup> {
    let bh = f64::from(batch) * f64::from(heads);
    let s = f64::from(seq);
    let d = f64::from(head_dim);
    let mm_flops = 2.0 * bh * s * s * d;
    let softmax_flops = SOFTMAX_FLOPS_PER_ELEM * bh * s * s;
    let qkv = bh * s * d; // elements of one of Q, K, V, O
    let scores = bh * s * s;
    match kind {
        Attention::Naive => vec![
            KernelGroup {
                gemm: None,
                cpu_ops: 0,
                latency: 0.0,
                name: "QKᵀ",
                unit: Unit::Matmul,
                count: 1,
                flops: mm_flops,
                bytes: b * (2.0 * qkv + scores),
            },
            KernelGroup {
                gemm: None,
                cpu_ops: 0,
                latency: 0.0,
                name: "softmax",
                unit: Unit::Pointwise,
                count: 1,
                flops: softmax_flops,
                bytes: b * 2.0 * scores,
            },
            KernelGroup {
                gemm: None,
                cpu_ops: 0,
                latency: 0.0,
                name: "P·V",
                unit: Unit::Matmul,
                count: 1,
                flops: mm_flops,
                bytes: b * (scores + 2.0 * qkv),
            },
        ],
        Attention::Flash => vec![KernelGroup {
            gemm: None,
            cpu_ops: 0,
            latency: 0.0,
            name: "flash attention",
            unit: Unit::Matmul,
            count: 1,
            flops: 2.0 * mm_flops + softmax_flops,
            bytes: b * 4.0 * qkv,
        }],
    }
}

/// What the calculator shows for one op.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSummary {
    pub flops: f64,
    pub bytes: f64,
    /// FLOPs / bytes.
    pub intensity: f64,
    /// Wall time including launch overhead ([`timeline::simulate`]).
    pub time: f64,
    /// FLOPs / time.
    pub achieved_flops: f64,
    /// Bytes / time.
    pub achieved_bw: f64,
    pub regime: Regime,
    pub kernel_count: u32,
    pub timeline: timeline::Timeline,
}

/// Totals, time and regime of a kernel list on `m`.
pub fn summarize(groups: &[KernelGroup], m: &Machine) -> OpSummary {
    let flops: f64 = groups.iter().map(|g| g.flops * f64::from(g.count)).sum();
    let bytes: f64 = groups.iter().map(|g| g.bytes * f64::from(g.count)).sum();
    let tl = timeline::simulate(groups, m);
    let time = tl.wall;
    let per_s = |x: f64| if time > 0.0 { x / time } else { 0.0 };
    OpSummary {
        flops,
        bytes,
        intensity: if bytes > 0.0 { flops / bytes } else { 0.0 },
        time,
        achieved_flops: per_s(flops),
        achieved_bw: per_s(bytes),
        regime: super::limit::of_groups(groups, m, &tl).regime,
        kernel_count: groups.iter().map(|g| g.count).sum(),
        timeline: tl,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Dtype;
    use crate::state::State;

    fn a100(dtype: Dtype) -> Machine {
        let mut s = State::default();
        s.select_dtype(dtype);
        s.machine()
    }

    #[test]
    fn matmul_counts() {
        let g = matmul(2, 3, 4, 2.0);
        assert_eq!(g[0].flops, 48.0);
        assert_eq!(g[0].bytes, 2.0 * (8.0 + 12.0 + 6.0));
    }

    #[test]
    fn square_bf16_matmul_is_compute_bound() {
        let m = a100(Dtype::Bf16);
        let s = summarize(&matmul(4096, 4096, 4096, 2.0), &m);
        assert_eq!(s.regime, Regime::Compute);
        assert!((s.intensity - 4096.0 / 3.0).abs() < 1e-6, "{}", s.intensity);
        // 137 GFLOP at 312 TFLOP/s ≈ 440 µs, plus one launch
        let expect = 2.0 * 4096f64.powi(3) / 312e12 + m.overhead;
        assert!((s.time - expect).abs() / expect < 1e-12);
        assert!(s.achieved_flops > 0.99 * 312e12);
    }

    #[test]
    fn skinny_matmul_is_memory_bound() {
        // batch 1 GEMV: intensity ~1 FLOP/byte
        let s = summarize(&matmul(1, 8192, 8192, 2.0), &a100(Dtype::Bf16));
        assert_eq!(s.regime, Regime::Memory);
        assert!(s.intensity < 1.01);
    }

    #[test]
    fn layernorm_and_softmax_are_memory_bound() {
        let m = a100(Dtype::Bf16);
        for kind in [Reduction::LayerNorm, Reduction::Softmax] {
            let s = summarize(&row_reduction(kind, 4096, 4096, 2.0), &m);
            assert_eq!(s.regime, Regime::Memory, "{kind:?}");
            assert!(s.intensity < 5.0);
            assert!(s.achieved_flops < 0.05 * m.matmul_flops);
        }
        let ln = &row_reduction(Reduction::LayerNorm, 10, 100, 4.0)[0];
        assert_eq!(ln.flops, 8000.0);
        assert_eq!(ln.bytes, 4.0 * (2000.0 + 200.0));
    }

    #[test]
    fn pointwise_chain_fused_vs_eager() {
        let e = pointwise_chain(4, 1e6, 4.0, false);
        let f = pointwise_chain(4, 1e6, 4.0, true);
        let total = |g: &[KernelGroup]| -> (f64, f64) {
            (
                g.iter().map(|k| k.flops * f64::from(k.count)).sum(),
                g.iter().map(|k| k.bytes * f64::from(k.count)).sum(),
            )
        };
        assert_eq!(total(&e).0, total(&f).0);
        assert_eq!(total(&e).1, 4.0 * total(&f).1);
        assert_eq!(pointwise_chain(0, 1.0, 4.0, false)[0].count, 1);
    }

    #[test]
    fn flash_attention_moves_far_fewer_bytes_and_is_faster() {
        let m = a100(Dtype::Bf16);
        let naive = summarize(&attention(8, 16, 4096, 64, 2.0, Attention::Naive), &m);
        let flash = summarize(&attention(8, 16, 4096, 64, 2.0, Attention::Flash), &m);
        assert_eq!(naive.flops, flash.flops);
        assert!(
            flash.bytes * 20.0 < naive.bytes,
            "{} vs {}",
            flash.bytes,
            naive.bytes
        );
        assert!(
            flash.time < naive.time / 3.0,
            "{} vs {}",
            flash.time,
            naive.time
        );
        assert_eq!(flash.regime, Regime::Compute);
        assert_eq!(naive.regime, Regime::Memory);
        assert_eq!(naive.kernel_count, 3);
        assert_eq!(flash.kernel_count, 1);
        // FLOPs: 4·B·H·S²·d (+ softmax)
        let bh = 128.0;
        let s2 = 4096.0 * 4096.0;
        assert_eq!(flash.flops, 4.0 * bh * s2 * 64.0 + 5.0 * bh * s2);
        assert_eq!(flash.bytes, 2.0 * 4.0 * bh * 4096.0 * 64.0);
    }

    #[test]
    fn empty_summary_is_finite() {
        let s = summarize(&[], &a100(Dtype::Bf16));
        assert_eq!(s.flops, 0.0);
        assert_eq!(s.achieved_flops, 0.0);
        assert_eq!(s.intensity, 0.0);
        assert_eq!(s.kernel_count, 0);
    }
}
