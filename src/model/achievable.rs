//! Two kinds of roofs. The essay (and brrr by default) draws **datasheet** roofs:
//! the vendor's peak FLOP/s and DRAM bandwidth, which no real kernel reaches.
//! **Achievable** roofs scale them by what measured kernels do reach, per preset:
//! a large device copy for bandwidth, a large matmul per dtype for the matmul
//! ceiling, a long fused multiply chain for the pointwise ceiling. Each fraction has
//! its source; where nothing was measured on that GPU, the fraction is an estimate
//! and says so.

use super::hardware::{Dtype, Preset};
use super::reference::h100;

/// Which roofs the model runs against (URL `roof=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Roof {
    /// The vendor's peaks: the essay's idealisation.
    #[default]
    Datasheet,
    /// The peaks scaled by measured (or estimated) achievable fractions.
    Achievable,
}

impl Roof {
    pub const ALL: [Roof; 2] = [Roof::Datasheet, Roof::Achievable];
    pub fn id(self) -> &'static str {
        match self {
            Roof::Datasheet => "datasheet",
            Roof::Achievable => "achievable",
        }
    }
    pub fn from_id(s: &str) -> Option<Roof> {
        Roof::ALL.into_iter().find(|r| r.id() == s)
    }
    pub fn label(self) -> &'static str {
        match self {
            Roof::Datasheet => "datasheet peaks",
            Roof::Achievable => "achievable (measured fractions, matmuls priced by shape)",
        }
    }
}

/// Fractions of the datasheet a real kernel reaches on one preset, each in (0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fractions {
    /// DRAM bandwidth: a large device-to-device copy (read + write).
    pub bw: f64,
    /// Matmul ceiling on the tensor cores (tf32, bf16, fp8).
    pub tensor: f64,
    /// fp32 matmul without TF32.
    pub fp32_matmul: f64,
    /// Pointwise ceiling: a long fused multiply chain.
    pub pointwise: f64,
    /// Measured on this GPU (`true`) or an estimate.
    pub measured: bool,
    pub source: &'static str,
}

impl Fractions {
    /// The matmul fraction for `dtype`.
    pub fn matmul(&self, dtype: Dtype) -> f64 {
        match dtype {
            Dtype::Fp32 => self.fp32_matmul,
            _ => self.tensor,
        }
    }
}

/// The H100 SXM, measured (`reference::h100`): PyTorch's device copy, an 8192³
/// matmul in bf16 and fp32 (no TF32), and Triton's fused `x * m` chain at its best
/// repeat.
pub fn h100_sxm() -> Fractions {
    Fractions {
        bw: h100::PYTORCH_COPY_BW / h100::DATASHEET_BW,
        tensor: h100::MATMUL_BF16 / h100::DATASHEET_BF16,
        fp32_matmul: h100::MATMUL_FP32 / h100::DATASHEET_FP32_FMA,
        pointwise: h100::triton_mul_peak() / h100::DATASHEET_FP32_MUL,
        measured: true,
        source:
            "measured on an H100 SXM (2026-11, PyTorch 2.11 + Triton 3.6): device copy 2.92 of \
                 3.35 TB/s, bf16 matmul 787 of 989 TFLOP/s, fp32 matmul 51.4 of 67, fused multiply \
                 chain 32.1 of 33.5 T multiplies/s",
    }
}

/// Presets without a measurement of their own.
pub const ESTIMATE: Fractions = Fractions {
    bw: 0.90,
    tensor: 0.80,
    fp32_matmul: 0.77,
    pointwise: 0.95,
    measured: false,
    source: "estimate, not measured on this GPU: bandwidth 90 % (between mixbench's ~94 % on an RTX \
             2070 and the H100's measured 87 %), matmul and pointwise the H100's measured fractions \
             (80 %, 77 % in fp32, 95 %)",
};

/// A GPU the lab measured: its numbers are already what kernels reach.
pub const MEASURED: Fractions = Fractions {
    bw: 1.0,
    tensor: 1.0,
    fp32_matmul: 1.0,
    pointwise: 1.0,
    measured: true,
    source: "measured by the lab in this browser: already achievable figures",
};

/// A measured GPU that matched a datasheet preset.
pub const MEASURED_ON_SOURCE: &str = "bandwidth and pointwise rate measured by the lab in this \
     browser (already achievable); matmuls at the matched datasheet GPU's fractions of its peaks, \
     which the lab cannot measure";

/// The achievable fractions of a preset.
pub fn fractions(hw: &Preset) -> Fractions {
    if hw.is_measured() {
        // bandwidth and the fp32 units measured; the tensor cores (and fp32
        // matmuls, which no chain measures) at the datasheet's fractions
        match hw.base() {
            Some(base) => Fractions {
                bw: 1.0,
                pointwise: 1.0,
                measured: true,
                source: MEASURED_ON_SOURCE,
                ..fractions(base)
            },
            None => MEASURED,
        }
    } else if hw.id == "h100-sxm" {
        h100_sxm()
    } else {
        ESTIMATE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware::{MEASURED as MEASURED_GPU, PRESETS};

    #[test]
    fn every_fraction_is_in_0_1_with_a_source() {
        for hw in PRESETS.iter().chain([&MEASURED_GPU]) {
            let f = fractions(hw);
            for x in [f.bw, f.tensor, f.fp32_matmul, f.pointwise] {
                assert!(x > 0.0 && x <= 1.0, "{}: {x}", hw.id);
            }
            assert!(!f.source.is_empty());
            assert_eq!(f.measured, !f.source.starts_with("estimate"), "{}", hw.id);
        }
    }

    #[test]
    fn the_h100_fractions_are_the_measured_ones() {
        let f = h100_sxm();
        assert!((f.bw - 0.872).abs() < 0.001, "{}", f.bw);
        assert!((f.tensor - 0.796).abs() < 0.001, "{}", f.tensor);
        assert!((f.fp32_matmul - 0.768).abs() < 0.001, "{}", f.fp32_matmul);
        assert!((f.pointwise - 0.958).abs() < 0.001, "{}", f.pointwise);
    }
}
