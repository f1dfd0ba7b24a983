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
//!
//! Where the adapter matched a datasheet preset (the lab's select: the guess or
//! the reader's choice), the measured GPU takes that preset's datasheet for what
//! the lab cannot measure (`hw_base`: tensor-core rates, memory, SMs; see
//! `model::mygpu`), opens in its default dtype (bf16) with the peak scaled by
//! the measured fp32 rate's share of the datasheet's, and carries the trials'
//! spreads (`bw_spread`, `flops_spread`: half the range over the median) into
//! every widget's headline as a range. Where the run's cache sweep found a
//! cliff whose fast plateau beats the copy bandwidth, that plateau becomes the
//! measured GPU's L2 roof (`l2`: its bandwidth and the working set where it
//! ends), in place of the matched preset's.

use super::analysis::Summary;
use super::cliff::Cliff;
use crate::model::hardware::{self, Preset};
use crate::model::mygpu::{Spread, SPREAD_MAX};
use crate::model::setting::{limits, preset_flops};
use crate::model::workload::L2Roof;
use crate::state::{url, State};

/// What "Use my GPU" changed, for the page to say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Applied {
    pub flops: f64,
    pub bw: f64,
    pub overhead: Option<f64>,
    /// The L2 roof taken from the cache cliff, if any.
    pub l2: Option<L2Roof>,
}

fn positive(x: f64) -> Option<f64> {
    (x.is_finite() && x > 0.0).then_some(x)
}

/// The L2 roof a cache cliff measured: its fast plateau and where it ends,
/// where the curve fell off within the sizes swept and the plateau is faster
/// than the copy bandwidth `bw` (else no cache level was seen above memory).
pub fn l2_of(cliff: &Cliff, bw: f64) -> Option<L2Roof> {
    let fits = positive(cliff.cache_bytes?)?;
    cliff.mem_bw?;
    let fast = positive(cliff.cache_bw).filter(|&c| c > bw)?;
    Some(L2Roof {
        bw: fast.clamp(limits::BW.0, limits::BW.1),
        fits,
    })
}

/// Switch `s` to the measured GPU `adapter`; `Err` (and `s` untouched) unless the
/// run has both a verified compute ceiling and a copy bandwidth. `cliff`: the
/// run's cache sweep, if it found one.
pub fn apply(
    s: &mut State,
    sum: &Summary,
    adapter: &str,
    base: Option<&'static Preset>,
    cliff: Option<&Cliff>,
) -> Result<Applied, String> {
    // FMA/s: the pointwise (one op per element per step) rate
    let peak = sum.fma_rate.and_then(|p| positive(p.0));
    let bw = sum.copy_bw.and_then(positive);
    let (Some(peak), Some(bw)) = (peak, bw) else {
        return Err(
            "Use my GPU needs both a verified compute ceiling (the fma chain) and a verified copy bandwidth from this run."
                .into(),
        );
    };
    let hw = base.map_or(&hardware::MEASURED, hardware::measured_on);
    s.select_preset(hw);
    s.gpu_name = url::gpu_name(adapter);
    let ratio = preset_flops(hw, s.setting.dtype) / hw.pointwise_peak();
    s.setting.flops = (peak * ratio).clamp(limits::FLOPS.0, limits::FLOPS.1);
    s.setting.bw = bw.clamp(limits::BW.0, limits::BW.1);
    s.setting.l2_measured = cliff.and_then(|c| l2_of(c, s.setting.bw));
    let per_kernel = [sum.dispatch, sum.encode]
        .into_iter()
        .flatten()
        .filter_map(positive)
        .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))));
    let overhead = per_kernel.map(|o| {
        s.setting.overhead = o.clamp(limits::OVERHEAD.0, limits::OVERHEAD.1);
        s.setting.overhead
    });
    let half = |x: Option<f64>| x.map_or(0.0, |x| (x / 2.0).clamp(0.0, SPREAD_MAX));
    s.spread = Spread {
        bw: half(sum.spreads.copy_bw),
        flops: half(sum.spreads.peak_flops),
        overhead,
    };
    Ok(Applied {
        flops: s.setting.flops,
        bw: s.setting.bw,
        overhead,
        l2: s.setting.l2_measured,
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
        let a = apply(&mut s, &sum, "NVIDIA (H100)", None, None).unwrap();
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
        // the overhead is the lab's, and labelled so
        assert_eq!(s.spread.overhead, Some(2e-6));
        let line = s.mygpu_line().unwrap_or_default();
        assert!(line.contains("overhead per kernel 2 µs"), "{line}");
        assert!(!line.contains("not measured"), "{line}");
        // and it survives the URL
        let (back, notices) = url::decode(&url::encode(&s));
        assert!(notices.is_empty());
        assert_eq!(back, s);
        assert!(url::encode(&s).contains("overhead_measured=2e-6"));
    }

    /// A run that timed no dispatch leaves the page's overhead, which the line
    /// says is not measured (never labelling the default as the lab's).
    #[test]
    fn an_overhead_the_lab_did_not_time_is_not_called_measured() {
        let mut s = State::default();
        let before = s.setting.overhead;
        let sum = Summary {
            copy_bw: Some(200e9),
            fma_rate: Some((2e12, 1024)),
            ..Summary::default()
        };
        let a = apply(&mut s, &sum, "GPU", None, None).unwrap();
        assert_eq!((a.overhead, s.spread.overhead), (None, None));
        assert_eq!(s.setting.overhead, before);
        let line = s.mygpu_line().unwrap_or_default();
        assert!(
            line.contains("not measured: overhead per kernel")
                && line.contains("timed no kernel dispatch"),
            "{line}"
        );
        assert!(!url::encode(&s).contains("overhead_measured"));
    }

    fn h100_run() -> Summary {
        use crate::gpu::analysis::Spreads;
        Summary {
            copy_bw: Some(3.0e12),
            fma_rate: Some((30e12, 1024)), // 60 TFLOP/s of the datasheet's 67
            dispatch: Some(4e-6),
            spreads: Spreads {
                copy_bw: Some(0.08),
                peak_flops: Some(0.04),
                ..Spreads::default()
            },
            ..Summary::default()
        }
    }

    /// A cliff whose fast plateau beats the copy bandwidth becomes the measured
    /// GPU's L2 roof: the explorer prices a working set that fits on it (not on
    /// the matched preset's), the line labels it measured, the link keeps it,
    /// and another GPU drops it; a "cliff" no faster than memory is no cache.
    #[test]
    fn a_cache_cliff_becomes_the_measured_l2_roof() {
        let cliff = |cache_bw: f64| Cliff {
            plateaus: Vec::new(),
            fast: 0,
            cache_bw,
            cache_bytes: Some(40e6),
            mem_bw: Some(3.0e12),
            span: (65536.0, 1e9),
            above: None,
        };
        let h100 = hardware::preset("h100-sxm");
        let mut s = State::default();
        let a = apply(&mut s, &h100_run(), "NVIDIA H100", h100, Some(&cliff(9e12))).unwrap();
        let want = L2Roof {
            bw: 9e12,
            fits: 40e6,
        };
        assert_eq!((a.l2, s.setting.l2_measured), (Some(want), Some(want)));
        assert_eq!(s.setting.cached().l2, Some(want));
        assert_ne!(
            crate::model::workload::l2_roof(s.setting.hw),
            Some(want),
            "the preset's own L2 differs, so the test tells them apart"
        );
        let line = s.mygpu_line().unwrap();
        assert!(line.contains("L2 bandwidth 9 TB/s up to 40 MB"), "{line}");
        let figs = crate::model::mygpu::figures(&s.setting, s.spread);
        let l2: Vec<_> = figs.iter().filter(|f| f.what == "L2 bandwidth").collect();
        assert_eq!(l2.len(), 1);
        assert_eq!(l2[0].origin, crate::model::mygpu::Origin::Measured);
        // a working set that fits runs on it: 1024 x 4096 fp32 read and
        // written (33.6 MB) at the measured 9 TB/s, not the copy bandwidth
        let mut t = s.clone();
        t.setting.shape = crate::model::workload::Shape {
            workload: crate::model::workload::Workload::Chain,
            batch: 1024,
            hidden: 4096,
            ops: 4,
            fused: true,
        };
        let r = t.report();
        let g = &r.groups[0];
        assert_eq!(g.level, crate::model::workload::Level::L2);
        assert!(
            (g.group.bytes / g.time / 9e12 - 1.0).abs() < 1e-12,
            "{}",
            g.time
        );
        t.setting.l2_measured = None;
        let g = &t.report().groups[0];
        assert_eq!(
            g.level,
            crate::model::workload::Level::Hbm,
            "no preset L2 bw for h100-sxm"
        );
        let (back, notices) = url::decode(&url::encode(&s));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back, s);
        let link = url::encode(&s);
        assert!(link.contains("l2=9e12_4e7"), "{link}");
        s.select_preset(hardware::default_preset());
        assert_eq!(s.setting.l2_measured, None);
        // no faster than the copy: no cache level seen
        let mut u = State::default();
        apply(&mut u, &h100_run(), "x", h100, Some(&cliff(2.9e12))).unwrap();
        assert_eq!(u.setting.l2_measured, None);
        assert!(!url::encode(&u).contains("l2="));
    }

    /// A matched adapter: the datasheet's tensor cores (scaled by the measured
    /// fp32's share), memory and SMs; the spreads; every GPU-dependent widget
    /// answers, with a range that brackets its answer; and the link keeps it all.
    #[test]
    fn a_matched_gpu_answers_in_every_widget_with_a_range() {
        use crate::state::widgets::{dit, llm, serve, shapes};
        let h100 = hardware::preset("h100-sxm");
        let mut s = State::default();
        apply(&mut s, &h100_run(), "NVIDIA H100 80GB HBM3", h100, None).unwrap();
        assert_eq!(s.setting.hw.base().map(|b| b.id), Some("h100-sxm"));
        assert_eq!(s.setting.dtype, Dtype::Bf16);
        assert!((s.setting.scale() - 60.0 / 67.0).abs() < 1e-12);
        assert_eq!((s.spread.bw, s.spread.flops), (0.04, 0.02));
        let line = s.mygpu_line().unwrap();
        assert!(
            line.contains("measured: HBM bandwidth 3 TB/s ±4 %"),
            "{line}"
        );
        assert!(
            line.contains("datasheet NVIDIA H100 SXM: bf16 matmul"),
            "{line}"
        );
        let within = |[lo, hi]: [f64; 2], x: f64, what: &str| {
            assert!(lo < hi && lo <= x && x <= hi, "{what}: {lo} {x} {hi}");
        };
        let st = llm::view(&s, false).step;
        within(llm::rates(&s).unwrap(), st.tokens_per_s, "llm tok/s");
        assert!(llm::range(&s).unwrap().contains("tok/s"));
        let d = dit::view(&s, false).step.wall;
        let w = dit::walls(&s).unwrap();
        within([w[1], w[0]], d, "dit step");
        let sv = serve::view(&s, false).serve.unwrap();
        let [a, b] = serve::ends(&s).unwrap();
        within([a.tok_s, b.tok_s], sv.tok_s, "serve tok/s");
        within([b.itl, a.itl], sv.itl, "serve itl");
        let f = shapes::view(&s).unwrap().flops;
        within(shapes::rates(&s).unwrap(), f, "shapes");
        let wall = s.report().wall_time_s;
        assert!(crate::state::widgets::explorer::range(&s).is_some() && wall > 0.0);
        let (back, notices) = url::decode(&url::encode(&s));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back, s);
        let q = url::encode(&s);
        assert!(
            q.contains("hw_base=h100-sxm") && q.contains("bw_spread=0.04"),
            "{q}"
        );
        // a datasheet preset has no range and no line, and leaving the measured
        // GPU drops its spread
        let mut t = s.clone();
        t.select_preset(hardware::default_preset());
        assert_eq!(t.spread, Spread::default());
        assert!(
            t.mygpu_line().is_none() && llm::range(&t).is_none() && shapes::range(&t).is_none()
        );
    }

    /// A measured GPU given its datasheet's own numbers answers as that preset:
    /// bit for bit on datasheet roofs (llm, dit, serve, the explorer), and the
    /// GEMM (achievable roofs) with the preset's achievable bandwidth.
    #[test]
    fn a_measured_gpu_at_the_datasheet_is_the_preset() {
        use crate::model::achievable::{fractions, Roof};
        use crate::state::widgets::{dit, llm, serve, shapes};
        for p in hardware::PRESETS.iter().filter(|p| p.supports(Dtype::Bf16)) {
            let mut a = State::for_preset(p);
            a.choose_roof(Some(Roof::Datasheet));
            let mut m = a.clone();
            m.setting.hw = hardware::measured_on(p);
            assert_eq!(m.setting.hw.base().map(|b| b.id), Some(p.id));
            assert_eq!(
                llm::view(&m, false).step.wall,
                llm::view(&a, false).step.wall,
                "{}",
                p.id
            );
            assert_eq!(
                dit::view(&m, false).step.wall,
                dit::view(&a, false).step.wall,
                "{}",
                p.id
            );
            let itl = |s: &State| serve::view(s, false).serve.map(|v| v.itl);
            assert_eq!(itl(&m), itl(&a), "{}", p.id);
            assert_eq!(m.report().wall_time_s, a.report().wall_time_s, "{}", p.id);
            m.setting.bw = p.mem_bw * fractions(p).bw;
            let f = |s: &State| shapes::view(s).map(|v| v.flops);
            assert_eq!(f(&m), f(&a), "{}", p.id);
        }
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
        apply(&mut s, &sum, "x", None, None).unwrap();
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
        assert!(apply(&mut s, &sum, "x", None, None).is_err());
        assert_eq!(s, before);
        // an x·m chain alone (an older run) is no ceiling
        let sum = Summary {
            copy_bw: Some(1e11),
            mul_rate: Some((1e12, 1024)),
            ..Summary::default()
        };
        assert!(apply(&mut s, &sum, "x", None, None).is_err());
        assert_eq!(s, before);
    }
}
