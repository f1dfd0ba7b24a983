//! Ground truth beside the model: the measured repeat sweeps the microbenchmark
//! overlays (figures from [`super::reference`]), which of them match a setting, and
//! a measured sweep's crossover. The model's side of the comparison is
//! [`super::microbench::compare`].

use super::hardware::Dtype;
pub use super::reference::{h100, Source};

/// A measured repeat sweep the microbenchmark can draw over its model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Series {
    /// Stable id (`data-series`).
    pub id: &'static str,
    pub label: &'static str,
    /// One kernel per multiply (eager) rather than one fused kernel.
    pub eager: bool,
    /// The preset it was measured on, its dtype and element count.
    pub preset: &'static str,
    pub dtype: Dtype,
    pub elements: f64,
    pub points: &'static [(u32, f64)],
    pub source: Source,
    /// What the reader must know about it.
    pub caveat: &'static str,
}

/// Every measured sweep there is.
pub const SERIES: [Series; 3] = [
    Series {
        id: "triton-fused",
        label: "Triton, fused (measured)",
        eager: false,
        preset: "h100-sxm",
        dtype: Dtype::Fp32,
        elements: h100::TORCH_ELEMENTS,
        points: &h100::TRITON_FUSED_MUL,
        source: h100::SOURCE,
        caveat: "",
    },
    Series {
        id: "pytorch-eager",
        label: "PyTorch, eager (measured)",
        eager: true,
        preset: "h100-sxm",
        dtype: Dtype::Fp32,
        elements: h100::TORCH_ELEMENTS,
        points: &h100::PYTORCH_EAGER_MUL,
        source: h100::SOURCE,
        caveat: "",
    },
    Series {
        id: "wgsl-fused",
        label: "brrr's WGSL, fused (measured)",
        eager: false,
        preset: "h100-sxm",
        dtype: Dtype::Fp32,
        elements: h100::WGSL_ELEMENTS,
        points: &h100::WGSL_FUSED_MUL,
        source: h100::SOURCE,
        caveat:
            "from repeat 128 the driver's compiler shortened this chain, so it runs faster than \
                 the chip can multiply: those points measure the compiler, not the hardware",
    },
];

/// The measured sweeps that match a preset, dtype and element count exactly.
pub fn series_for(preset: &str, dtype: Dtype, n: f64) -> Vec<&'static Series> {
    SERIES
        .iter()
        .filter(|s| s.preset == preset && s.dtype == dtype && s.elements == n)
        .collect()
}

/// Where the preset has measurements but not at this dtype and size: what to set
/// to see them.
pub fn elsewhere(preset: &str, dtype: Dtype, n: f64) -> Option<String> {
    if !series_for(preset, dtype, n).is_empty() {
        return None;
    }
    let at: Vec<String> = SERIES
        .iter()
        .filter(|s| s.preset == preset)
        .map(|s| {
            format!(
                "{} at 2^{} elements in {}",
                s.label,
                s.elements.log2(),
                s.dtype.id()
            )
        })
        .collect();
    (!at.is_empty()).then(|| format!("Measured sweeps exist for this GPU: {}.", at.join("; ")))
}

/// The repeat at which a measured fused sweep turns compute-bound: where its
/// memory floor (the fastest run) meets its compute line (the highest rate),
/// `t_floor · rate / n`. The model's counterpart is `microbench::crossover_repeat`.
pub fn crossover(series: &[(u32, f64)], n: f64) -> f64 {
    let floor = series.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let rate = series
        .iter()
        .map(|&(r, t)| f64::from(r) * n / t)
        .fold(0.0, f64::max);
    floor * rate / n
}

#[cfg(test)]
mod tests {
    #[test]
    fn series_match_exactly() {
        use crate::model::Dtype;
        assert_eq!(
            super::series_for("h100-sxm", Dtype::Fp32, 268_435_456.0).len(),
            2
        );
        assert_eq!(
            super::series_for("h100-sxm", Dtype::Fp32, 67_108_864.0)[0].id,
            "wgsl-fused"
        );
        assert!(super::series_for("h100-sxm", Dtype::Bf16, 268_435_456.0).is_empty());
        assert!(super::series_for("a100-40gb", Dtype::Fp32, 268_435_456.0).is_empty());
        assert!(super::elsewhere("h100-sxm", Dtype::Bf16, 1024.0)
            .unwrap()
            .contains("2^28"));
        assert!(super::elsewhere("a100-40gb", Dtype::Fp32, 1024.0).is_none());
        assert!(super::elsewhere("h100-sxm", Dtype::Fp32, 268_435_456.0).is_none());
    }
}
