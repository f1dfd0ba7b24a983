//! "Use my GPU": a run's measured ceilings as the explorer's hardware.
//!
//! The explorer switches to the measured-GPU entry (`hw=measured`, named after the
//! adapter, `gpu=`), which knows only fp32: the lab measures f32 kernels, and says
//! nothing about tensor cores. The explorer's peak slider is the fp32 peak with an
//! FMA counted as 2 FLOP, and its pointwise ceiling (one multiply per op) is half of
//! it, as on every preset. The lab's compute ceiling is the fma chain's rate, which
//! no compiler can shorten: fp32 peak = measured FMA/s × 2 FLOP, so the pointwise
//! ceiling = the measured FMA/s (a multiply issues at the FMA rate). The `x · m`
//! chain's rate is never used: a compiler may shorten that chain (on an H100 it
//! read twice the hardware's multiply rate). Bandwidth is the copy kernel's; overhead per kernel
//! is the larger of the GPU's time per empty dispatch and the CPU's time to record one
//! (whichever limits a stream of tiny kernels), or stays as it was if neither was
//! measured. Everything is clamped to `model::setting::limits`, so the state stays valid.

use super::analysis::Summary;
use crate::model::hardware;
use crate::model::setting::{limits, preset_flops};
use crate::state::{url, State};

/// What "Use my GPU" changed, for the page to say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    pub flops: f64,
    pub bw: f64,
    pub overhead: Option<f64>,
}

fn positive(x: f64) -> Option<f64> {
    (x.is_finite() && x > 0.0).then_some(x)
}

/// Switch `s` to the measured GPU `adapter`; `Err` (and `s` untouched) unless the
/// run has both a verified compute ceiling and a copy bandwidth.
pub fn apply(s: &mut State, sum: &Summary, adapter: &str) -> Result<Applied, String> {
    // FMA/s: the pointwise (one op per element per step) rate
    let peak = sum.fma_rate.and_then(|p| positive(p.0));
    let bw = sum.copy_bw.and_then(positive);
    let (Some(peak), Some(bw)) = (peak, bw) else {
        return Err(
            "Use my GPU needs both a verified compute ceiling (the fma chain) and a verified copy bandwidth from this run."
                .into(),
        );
    };
    let hw = &hardware::MEASURED;
    s.select_preset(hw);
    s.gpu_name = url::gpu_name(adapter);
    let ratio = preset_flops(hw, s.setting.dtype) / hw.pointwise_peak();
    s.setting.flops = (peak * ratio).clamp(limits::FLOPS.0, limits::FLOPS.1);
    s.setting.bw = bw.clamp(limits::BW.0, limits::BW.1);
    let per_kernel = [sum.dispatch, sum.encode]
        .into_iter()
        .flatten()
        .filter_map(positive)
        .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))));
    let overhead = per_kernel.map(|o| {
        s.setting.overhead = o.clamp(limits::OVERHEAD.0, limits::OVERHEAD.1);
        s.setting.overhead
    });
    Ok(Applied {
        flops: s.setting.flops,
        bw: s.setting.bw,
        overhead,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Dtype;

    #[test]
    fn measured_ceilings_become_the_explorer() {
        let mut s = State::default();
        // 2 T FMA/s = 4 TFLOP/s; an x·m chain "at 4 T multiplies/s" (shortened by
        // a compiler) is ignored
        let sum = Summary {
            copy_bw: Some(200e9),
            peak_flops: Some((4e12, 1024)),
            fma_rate: Some((2e12, 1024)),
            mul_rate: Some((4e12, 1024)),
            dispatch: Some(2e-6),
            encode: Some(5e-7),
            ..Summary::default()
        };
        let a = apply(&mut s, &sum, "NVIDIA (H100)").unwrap();
        assert!(s.setting.hw.is_measured());
        assert_eq!(s.hw_name(), "Measured: NVIDIA (H100)");
        assert_eq!(s.setting.dtype, Dtype::Fp32);
        assert_eq!(s.setting.bw, 200e9);
        assert_eq!(s.setting.overhead, 2e-6);
        // the explorer's fp32 peak is FMA/s × 2 FLOP, its pointwise ceiling half of it
        let m = s.machine();
        assert!(
            (s.setting.flops / 4e12 - 1.0).abs() < 1e-12,
            "{}",
            s.setting.flops
        );
        assert!((a.flops / 4e12 - 1.0).abs() < 1e-12, "{}", a.flops);
        assert!(
            (m.pointwise_flops / 2e12 - 1.0).abs() < 1e-12,
            "{}",
            m.pointwise_flops
        );
        assert_eq!(a.bw, 200e9);
        assert!(s.report().wall_time_s.is_finite());
        // and it survives the URL
        let (back, notices) = url::decode(&url::encode(&s));
        assert!(notices.is_empty());
        assert_eq!(back, s);
    }

    #[test]
    fn values_are_clamped_and_missing_ones_refused() {
        let mut s = State::default();
        let sum = Summary {
            copy_bw: Some(1.0), // absurdly slow
            peak_flops: Some((2e30, 8)),
            fma_rate: Some((1e30, 8)),
            dispatch: Some(1e3),
            ..Summary::default()
        };
        apply(&mut s, &sum, "x").unwrap();
        assert_eq!(s.setting.bw, limits::BW.0);
        assert_eq!(s.setting.flops, limits::FLOPS.1);
        assert_eq!(s.setting.overhead, limits::OVERHEAD.1);
        // no ceiling: nothing changes
        let mut s = State::default();
        let before = s.clone();
        let sum = Summary {
            copy_bw: Some(1e11),
            peak_flops: None,
            ..Summary::default()
        };
        assert!(apply(&mut s, &sum, "x").is_err());
        assert_eq!(s, before);
        // an x·m chain alone (an older run) is no ceiling
        let sum = Summary {
            copy_bw: Some(1e11),
            mul_rate: Some((1e12, 1024)),
            ..Summary::default()
        };
        assert!(apply(&mut s, &sum, "x").is_err());
        assert_eq!(s, before);
    }
}
