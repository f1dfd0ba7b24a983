//! Each kernel's real limit: compute- or memory-bound by where it sits against
//! the roof of the trace's GPU, not by its name.
//!
//! The page's one rule for a regime is "halve each cost and see which saves
//! most" (`model::limit`). For one kernel placed by shape ([`super::place`]) with
//! FLOPs `F` and bytes `B` on a preset with an achievable peak `P` for its dtype
//! and an achievable bandwidth `W` ([`crate::model::achievable::fractions`]), its
//! time at the roof is `max(F / P, B / W)`: doubling the FLOP rate helps it iff
//! `F / P > B / W` (it sits right of the ridge), so it is compute-bound there,
//! else memory-bound. A kernel that could not be placed is memory-bound where
//! its name and launch grid bound its intensity below the ridge
//! ([`super::launch`]: cuBLAS's narrow-tile GEMMs and cuDNN's decode attention,
//! as a CUDA-graph replay leaves them), and a GEMV or a split-K reduction by its
//! name ([`is_gemv`], [`is_split_k_reduce`]). Every other kernel keeps the cost
//! class of its name class ([`KernelClass::cost`]): matmul, conv and attention
//! compute; pointwise, normalisation, reduction and copies memory; collectives
//! communication. Without a preset (an unknown GPU and no `--gpu`) every kernel
//! keeps its name's class.

use super::classify::{
    is_gemv, is_gpu_cat, is_split_k_reduce, kernel_class, CostClass, KernelClass,
};
use super::launch::{launch_bound, memory_bound, Basis};
use super::parse::Trace;
use super::place::{PlacedKernel, Placement};
use crate::model::hardware::{Dtype, Preset};

/// The hardware dtype whose matmul peak a placed kernel's dtype id runs at: fp32
/// storage at the fp32 peak, unless the kernel's name says TF32 (or the id is
/// `tf32`, as a roofline point's is) (a trace does not record whether TF32 was
/// allowed), fp16 and bf16 at the 16-bit tensor-core peak, fp8 at fp8's; other
/// dtypes have none.
pub fn roof_dtype(id: &str, tf32: bool) -> Option<Dtype> {
    match id {
        "fp32" if tf32 => Some(Dtype::Tf32),
        "tf32" => Some(Dtype::Tf32),
        "fp32" => Some(Dtype::Fp32),
        "bf16" | "fp16" => Some(Dtype::Bf16),
        "fp8" => Some(Dtype::Fp8),
        _ => None,
    }
}

/// A placed kernel's time at the achievable roof of `hw`, µs, split into the
/// FLOP time and the byte time: (FLOPs ÷ the achievable matmul peak for its
/// dtype, bytes ÷ the achievable bandwidth); `None` where the preset has no
/// peak for its dtype.
pub fn roof_times(k: &PlacedKernel, hw: &Preset) -> Option<(f64, f64)> {
    let f = crate::model::achievable::fractions(hw);
    let dtype = roof_dtype(k.dtype?, k.tf32)?;
    let peak = hw.matmul_peak(dtype)? * f.matmul(dtype);
    let bw = hw.mem_bw * f.bw;
    (peak > 0.0 && bw > 0.0).then(|| (k.flops / peak * 1e6, k.bytes / bw * 1e6))
}

/// A placed kernel's time at the achievable roof of `hw`, µs: the longer of
/// [`roof_times`].
pub fn time_at_roof(k: &PlacedKernel, hw: &Preset) -> Option<f64> {
    roof_times(k, hw).map(|(f, b)| f.max(b))
}

/// The cost class of every GPU event and how it was decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Per [`Trace::gpu`] index: the cost class (for events that are not GPU
    /// activities, their name class's, unused).
    pub cost: Vec<CostClass>,
    /// Per index: how it was decided (placed on the roof, bounded by its name
    /// and launch grid, or by its name alone).
    pub basis: Vec<Basis>,
    /// Per index: the name class ([`kernel_class`]), computed once.
    pub class: Vec<KernelClass>,
}

impl Limits {
    pub fn of(&self, index: usize) -> CostClass {
        self.cost.get(index).copied().unwrap_or(CostClass::Memory)
    }

    /// How the cost class of GPU event `index` was decided.
    pub fn basis(&self, index: usize) -> Basis {
        self.basis.get(index).copied().unwrap_or_default()
    }

    /// The name class of GPU event `index`.
    pub fn class(&self, index: usize) -> KernelClass {
        self.class
            .get(index)
            .copied()
            .unwrap_or(KernelClass::Pointwise)
    }
}

/// The cost class of one kernel: by the roof where it is placed and `hw` has a
/// peak for its dtype, else memory-bound where its name and launch `grid` bound
/// it below the ridge, a GEMV or a split-K reduction memory-bound, else by its
/// name class.
pub fn cost_class(
    class: KernelClass,
    name: &str,
    grid: [u32; 3],
    placed: Option<&PlacedKernel>,
    hw: Option<&Preset>,
) -> (CostClass, Basis) {
    let by_roof = placed
        .zip(hw)
        .filter(|(k, _)| k.flops > 0.0 || k.bytes > 0.0)
        .and_then(|(k, hw)| roof_times(k, hw));
    match by_roof {
        Some((flop_t, byte_t)) if flop_t > byte_t => (CostClass::Compute, Basis::Roof),
        Some(_) => (CostClass::Memory, Basis::Roof),
        None if hw.is_some_and(|hw| {
            launch_bound(name, class, grid).is_some_and(|b| memory_bound(&b, hw))
        }) =>
        {
            (CostClass::Memory, Basis::Launch)
        }
        None if is_gemv(name) || is_split_k_reduce(name) => (CostClass::Memory, Basis::Name),
        None => (class.cost(), Basis::Name),
    }
}

/// Every GPU event's cost class (see the module doc).
pub fn limits(t: &Trace, placement: &Placement, hw: Option<&Preset>) -> Limits {
    let mut out = Limits {
        cost: Vec::with_capacity(t.gpu.len()),
        basis: Vec::with_capacity(t.gpu.len()),
        class: Vec::with_capacity(t.gpu.len()),
    };
    let mut memo: rustc_hash::FxHashMap<(u32, u32), KernelClass> = Default::default();
    // an unplaced kernel's class depends on its name, category and grid alone:
    // decided once per distinct triple (a trace repeats a few hundred of them)
    let mut unplaced: rustc_hash::FxHashMap<(u32, u32, [u32; 3]), (CostClass, Basis)> =
        Default::default();
    for (i, e) in t.gpu.iter().enumerate() {
        let class = *memo
            .entry((e.name, e.cat))
            .or_insert_with(|| kernel_class(t.name(e.name), t.name(e.cat)));
        let (c, basis) = if is_gpu_cat(t.name(e.cat)) {
            match placement.get(i) {
                Some(p) => cost_class(class, t.name(e.name), e.grid, Some(p), hw),
                None => *unplaced
                    .entry((e.name, e.cat, e.grid))
                    .or_insert_with(|| cost_class(class, t.name(e.name), e.grid, None, hw)),
            }
        } else {
            (class.cost(), Basis::Name)
        };
        out.cost.push(c);
        out.basis.push(basis);
        out.class.push(class);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(flops: f64, bytes: f64, dtype: &'static str) -> PlacedKernel {
        PlacedKernel {
            index: 0,
            op: 0,
            class: KernelClass::Matmul,
            dur: 10.0,
            flops,
            bytes,
            dtype: Some(dtype),
            tf32: false,
        }
    }

    #[test]
    fn the_ridge_decides() {
        let h200 = crate::model::hardware::preset("h200").unwrap();
        let f = crate::model::achievable::fractions(h200);
        let ridge = h200.bf16.unwrap() * f.tensor / (h200.mem_bw * f.bw);
        let mm = KernelClass::Matmul;
        let g = [0; 3];
        // a bf16 GEMM at twice the ridge: compute; at half of it: memory
        let at = |i: f64| {
            cost_class(
                mm,
                "nvjet",
                g,
                Some(&placed(i * 1e9, 1e9, "bf16")),
                Some(h200),
            )
        };
        assert_eq!(at(2.0 * ridge), (CostClass::Compute, Basis::Roof));
        assert_eq!(at(0.5 * ridge), (CostClass::Memory, Basis::Roof));
        // a batch-1 decode GEMV placed by shape: ~1 FLOP per byte
        let n = 4096.0f64;
        let gemv = placed(2.0 * n * n, 2.0 * (n * n + 2.0 * n), "bf16");
        assert_eq!(
            cost_class(mm, "nvjet", g, Some(&gemv), Some(h200)).0,
            CostClass::Memory
        );
        // unplaced: a GEMV or a split-K reduction by its name is memory-bound,
        // a GEMM keeps its class
        for name in [
            "void gemmSN_TN_kernel<float, 128, cublasGemvTensorStrided<float>>",
            "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16>",
        ] {
            assert_eq!(
                cost_class(mm, name, g, None, Some(h200)),
                (CostClass::Memory, Basis::Name)
            );
        }
        assert_eq!(
            cost_class(mm, "sm90_xmma_gemm", g, None, Some(h200)),
            (CostClass::Compute, Basis::Name)
        );
        // unplaced, but a narrow nvjet tile: memory-bound by its launch; a wide
        // one keeps its class
        let narrow = "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT";
        assert_eq!(
            cost_class(mm, narrow, [4, 24, 1], None, Some(h200)),
            (CostClass::Memory, Basis::Launch)
        );
        let wide = "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT";
        assert_eq!(
            cost_class(mm, wide, [2, 66, 1], None, Some(h200)),
            (CostClass::Compute, Basis::Name)
        );
        // placed, the roof decides even for a narrow tile
        assert_eq!(
            cost_class(
                mm,
                narrow,
                g,
                Some(&placed(2.0 * ridge * 1e9, 1e9, "bf16")),
                Some(h200)
            ),
            (CostClass::Compute, Basis::Roof)
        );
        // no preset: names only
        assert_eq!(
            cost_class(mm, "nvjet", g, Some(&gemv), None),
            (CostClass::Compute, Basis::Name)
        );
        assert_eq!(
            cost_class(mm, narrow, [4, 24, 1], None, None),
            (CostClass::Compute, Basis::Name)
        );
        // a dtype the preset has no peak for: names only
        let int = placed(1e12, 1.0, "int64");
        assert_eq!(
            cost_class(mm, "k", g, Some(&int), Some(h200)),
            (CostClass::Compute, Basis::Name)
        );
    }

    #[test]
    fn dtypes_of_the_roof() {
        assert_eq!(roof_dtype("fp32", false), Some(Dtype::Fp32));
        assert_eq!(roof_dtype("fp32", true), Some(Dtype::Tf32));
        assert_eq!(roof_dtype("tf32", false), Some(Dtype::Tf32));
        assert_eq!(roof_dtype("fp16", false), Some(Dtype::Bf16));
        assert_eq!(roof_dtype("int64", false), None);
    }
}
