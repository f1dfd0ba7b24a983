//! "Use my GPU": a run's measured ceilings as the explorer's slider values.
//!
//! The lab measures f32, so the explorer switches to fp32 (when the preset has
//! it). The explorer's peak slider is the matmul ceiling and its pointwise ceiling
//! follows at the preset's ratio (fp32: half, the FMA footnote); the slider is set
//! so that the *pointwise* ceiling equals the measured `x · m` rate, which is the
//! same kind of work. Bandwidth is the copy kernel's; overhead per kernel is the
//! larger of the GPU's time per empty dispatch and the CPU's time to record one
//! (whichever limits a stream of tiny kernels). Everything is clamped to
//! `state::limits`, so the state stays valid.

use super::analysis::Summary;
use crate::model::Dtype;
use crate::state::{limits, preset_flops, State};

/// What "Use my GPU" changed, for the page to say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    pub flops: Option<f64>,
    pub bw: Option<f64>,
    pub overhead: Option<f64>,
}

pub fn apply(s: &mut State, sum: &Summary) -> Applied {
    let mut out = Applied::default();
    if s.hw.supports(Dtype::Fp32) {
        s.select_dtype(Dtype::Fp32);
    }
    if let Some((peak, _)) = sum.peak_flops.filter(|p| p.0.is_finite() && p.0 > 0.0) {
        let ratio = preset_flops(s.hw, s.dtype) / s.hw.pointwise_peak();
        let v = (peak * ratio).clamp(limits::FLOPS.0, limits::FLOPS.1);
        if v.is_finite() {
            s.flops = v;
            out.flops = Some(v);
        }
    }
    if let Some(bw) = sum.copy_bw.filter(|b| b.is_finite() && *b > 0.0) {
        s.bw = bw.clamp(limits::BW.0, limits::BW.1);
        out.bw = Some(s.bw);
    }
    let per_kernel = [sum.dispatch, sum.encode]
        .into_iter()
        .flatten()
        .filter(|x| x.is_finite() && *x > 0.0)
        .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))));
    if let Some(o) = per_kernel {
        s.overhead = o.clamp(limits::OVERHEAD.0, limits::OVERHEAD.1);
        out.overhead = Some(s.overhead);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;

    #[test]
    fn measured_ceilings_become_the_explorer() {
        let mut s = State::default();
        let sum = Summary {
            copy_bw: Some(200e9),
            peak_flops: Some((2e12, 1024)),
            dispatch: Some(2e-6),
            encode: Some(5e-7),
            ..Summary::default()
        };
        let a = apply(&mut s, &sum);
        assert_eq!(s.dtype, Dtype::Fp32);
        assert_eq!(s.bw, 200e9);
        assert_eq!(s.overhead, 2e-6);
        // the explorer's pointwise ceiling is now the measured one
        let m = s.machine();
        assert!(
            (m.pointwise_flops / 2e12 - 1.0).abs() < 1e-12,
            "{}",
            m.pointwise_flops
        );
        assert_eq!(a.bw, Some(200e9));
        assert!(s.report().wall_time_s.is_finite());
    }

    #[test]
    fn values_are_clamped_and_missing_ones_kept() {
        let mut s = State::for_preset(hardware::default_preset());
        let before = s.clone();
        let sum = Summary {
            copy_bw: Some(1.0), // absurdly slow
            peak_flops: None,
            dispatch: Some(1e3),
            ..Summary::default()
        };
        apply(&mut s, &sum);
        assert_eq!(s.bw, limits::BW.0);
        assert_eq!(s.overhead, limits::OVERHEAD.1);
        assert_eq!(s.flops, preset_flops(s.hw, Dtype::Fp32));
        assert_eq!(s.batch, before.batch);
    }
}
