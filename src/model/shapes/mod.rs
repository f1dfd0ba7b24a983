//! The `shapes` widget's model ("What shapes do matrix multiplications like?"):
//! one GEMM on one GPU, priced by [`crate::model::gemm::price`] on the preset's achievable
//! roofs (the shape model is the widget's subject, whatever the page's roofs),
//! with everything the widget shows: the readouts, the regime by the page's one
//! rule ([`crate::model::limit`]: 2× FLOP/s, 2× bandwidth, half the fixed time),
//! the last wave on the SMs, the TFLOP/s of a sweep of N (aligned and not), the
//! pad-to-64 remedy and the sentences that say why.

use crate::model::gemm::{
    alignment, price, slow_path, tiling, Gemm, Hw, Path, Priced, Tiling, SMALL_M,
};

pub mod measured;
use crate::model::achievable::Roof;
use crate::model::hardware::{Dtype, Preset};
use crate::model::limit::{Halving, Limit};
use crate::model::setting::Setting;
use crate::model::timeline::{Regime, Shares};
use crate::model::units;
use crate::model::workload::Machine;

/// Dimensions the widget accepts (URL `mm_m`, `mm_n`, `mm_k`).
pub const DIM: (u32, u32) = (1, 65536);
/// The pad remedy's multiple (nanoGPT's vocabulary: 50257 → 50304).
pub const PAD: u32 = 64;
/// Points per series of the sweep, at most.
pub const SWEEP_POINTS: u32 = 320;

/// One point of the sweep: N and the TFLOP/s it reaches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    pub n: u32,
    pub flops: f64,
}

/// The pad remedy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pad {
    /// The padded shape (N and K up to the next multiple of [`PAD`]).
    pub n: u32,
    pub k: u32,
    /// Time of the useful GEMM before ÷ time of the padded one.
    pub speedup: f64,
}

/// Everything the widget shows for one state.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapesView {
    pub hw: &'static Preset,
    pub dtype: Dtype,
    pub gemm: Gemm,
    pub priced: Priced,
    /// The tiled kernels' tiling (what the SM grid draws; on the small-M path it
    /// is the tiled kernel the library does not run).
    pub tiling: Tiling,
    pub sms: u32,
    /// `mm_time_s`, `mm_flops`.
    pub seconds: f64,
    pub flops: f64,
    /// The achievable matmul roof, FLOP/s.
    pub roof: f64,
    /// `mm_aligned`: M, N and K multiples of [`ShapesView::align`].
    pub aligned: bool,
    pub align: u32,
    pub limit: Limit,
    pub regime: Regime,
    pub pad: Option<Pad>,
    /// Why the shape runs as it does, one sentence each.
    pub why: Vec<String>,
}

impl ShapesView {
    /// The rate reached as a share of the achievable roof (`mm_flops`'s words).
    pub fn of_roof(&self) -> f64 {
        self.flops / self.roof
    }

    /// The pad remedy's words: which of N and K it pads, and to what.
    pub fn pad_words(&self) -> Option<String> {
        let (p, g) = (self.pad?, &self.gemm);
        Some(match (p.n != g.n, p.k != g.k) {
            (true, true) => format!("Pad N to {} and K to {}", p.n, p.k),
            (true, false) => format!("Pad N to {}", p.n),
            _ => format!("Pad K to {}", p.k),
        })
    }
}

/// The machine and shape model the widget prices on: `on`'s GPU in `dtype` (its
/// default dtype where it lacks that one) on achievable roofs
/// ([`Setting::gemm_on`]: a preset's datasheet, a measured GPU's measured rates).
pub fn machine(on: &Setting, dtype: Dtype) -> Option<(Dtype, Machine, Hw)> {
    let s = on.gemm_on(dtype);
    let m = s.machine();
    let h = m.gemm?;
    Some((s.dtype, m, h))
}

/// `hw` as the widget prices on it: its datasheet numbers.
fn on_preset(hw: &'static Preset) -> Setting {
    Setting::on(hw, hw.default_dtype(), Roof::Achievable)
}

fn priced(g: &Gemm, dtype: Dtype, m: &Machine, h: &Hw) -> Priced {
    price(g, g.bytes(dtype.bytes()), &m.roofs(), h)
}

/// The view for `M × K × N` (clamped to [`DIM`]) on `hw` in `dtype`; `None` where
/// the GPU's layout is unknown (the lab's measured GPU). The chart's sweep is
/// [`sweep`]'s, apart: it depends on fewer things and is kept while N moves.
pub fn view(m_: u32, n: u32, k: u32, dtype: Dtype, hw: &'static Preset) -> Option<ShapesView> {
    view_on(m_, n, k, dtype, &on_preset(hw))
}

/// [`view`] on `on`'s GPU ([`machine`]): a measured GPU at its measured rates.
pub fn view_on(m_: u32, n: u32, k: u32, dtype: Dtype, on: &Setting) -> Option<ShapesView> {
    let hw = on.hw;
    let (dtype, m, h) = machine(on, dtype)?;
    let clamp = |x: u32| x.clamp(DIM.0, DIM.1);
    let g = Gemm::new(clamp(m_), clamp(n), clamp(k), dtype);
    let p = priced(&g, dtype, &m, &h);
    let t = tiling(&g, &m.roofs(), &h);
    let share = |x: f64| x / p.seconds.max(f64::MIN_POSITIVE);
    let shares = match p.bound {
        crate::model::roofline::Bound::Compute => Shares::three(share(p.roof), 0.0, share(p.fixed)),
        crate::model::roofline::Bound::Memory => Shares::three(0.0, share(p.roof), share(p.fixed)),
    };
    let limit = Limit::decide(p.seconds, shares, |hv| {
        let (m2, h2) = halved(hv, &m, &h);
        priced(&g, dtype, &m2, &h2).seconds
    });
    let align = alignment(dtype);
    let pad = pad(&g, dtype, &m, &h, p.seconds);
    let mut v = ShapesView {
        hw,
        dtype,
        gemm: g,
        priced: p,
        tiling: t,
        sms: h.sms,
        seconds: p.seconds,
        flops: g.flops() / p.seconds,
        roof: m.matmul_flops,
        aligned: g.aligned(align),
        align,
        regime: limit.regime,
        limit,
        pad,
        why: Vec::new(),
    };
    v.why = why(&v, &h);
    Some(v)
}

/// `m` and `h` with one cost class halved: 2× FLOP/s, 2× bandwidth, or half the
/// fixed time (the launch, the kernel's fill, the small-M path's latency).
fn halved(hv: Halving, m: &Machine, h: &Hw) -> (Machine, Hw) {
    match hv {
        Halving::Overhead => (
            Machine {
                floor: m.floor * 0.5,
                ..*m
            },
            Hw {
                fill: h.fill * 0.5,
                gemv: h.gemv * 0.5,
                ..*h
            },
        ),
        _ => (hv.apply(m), *h),
    }
}

/// What the sweep depends on: M, K, the dtype, the GPU and how far N goes (the
/// next power of two from twice N, so the sweep stays while N moves below it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepKey {
    pub m: u32,
    pub k: u32,
    pub dtype: Dtype,
    /// The GPU as [`machine`] prices on it ([`Setting::gemm_on`]).
    pub on: Setting,
    pub top: u32,
}

impl SweepKey {
    pub fn of(m: u32, n: u32, k: u32, dtype: Dtype, hw: &'static Preset) -> SweepKey {
        SweepKey::of_on(m, n, k, dtype, &on_preset(hw))
    }

    /// [`SweepKey::of`] on `on`'s GPU: a datasheet preset's key moves with no
    /// slider, a measured GPU's with its measured rates.
    pub fn of_on(m: u32, n: u32, k: u32, dtype: Dtype, on: &Setting) -> SweepKey {
        let clamp = |x: u32| x.clamp(DIM.0, DIM.1);
        SweepKey {
            m: clamp(m),
            k: clamp(k),
            dtype,
            on: on.gemm_on(dtype),
            top: clamp(n)
                .saturating_mul(2)
                .next_power_of_two()
                .clamp(256, DIM.1),
        }
    }
}

/// N swept from one step to [`SweepKey::top`]: TFLOP/s on multiples of the
/// alignment (times a power of two, so the series passes the round sizes) and one
/// past each. Empty where the GPU's layout is unknown.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sweep {
    pub aligned: Vec<SweepPoint>,
    pub unaligned: Vec<SweepPoint>,
    pub align: u32,
}

pub fn sweep(key: SweepKey) -> Sweep {
    let Some((dtype, m, h)) = machine(&key.on, key.dtype) else {
        return Sweep::default();
    };
    let align = alignment(dtype);
    let top = key.top;
    let step = top
        .div_ceil(SWEEP_POINTS)
        .div_ceil(align)
        .max(1)
        .next_power_of_two()
        * align;
    let g = Gemm::new(key.m, top, key.k, dtype);
    let at = |n: u32| {
        let s = Gemm { n, ..g };
        SweepPoint {
            n,
            flops: s.flops() / priced(&s, dtype, &m, &h).seconds,
        }
    };
    let aligned: Vec<SweepPoint> = (1..=top / step).map(|i| at(i * step)).collect();
    let unaligned: Vec<SweepPoint> = if align > 1 {
        (0..top / step)
            .map(|i| i * step + 1)
            .filter(|&n| n <= DIM.1)
            .map(at)
            .collect()
    } else {
        Vec::new()
    };
    Sweep {
        aligned,
        unaligned,
        align,
    }
}

fn pad(g: &Gemm, dtype: Dtype, m: &Machine, h: &Hw, before: f64) -> Option<Pad> {
    let up = |x: u32| x.div_ceil(PAD).saturating_mul(PAD).min(DIM.1);
    let (n, k) = (up(g.n), up(g.k));
    if n == g.n && k == g.k {
        return None;
    }
    let padded = Gemm { n, k, ..*g };
    let after = priced(&padded, dtype, m, h).seconds;
    Some(Pad {
        n,
        k,
        speedup: before / after.max(f64::MIN_POSITIVE),
    })
}

/// A share as the readouts write it (one decimal), so a sentence never rounds
/// a readout beside it away ("100 %" beside a wave efficiency of 99.8 %).
fn pct(x: f64) -> String {
    units::percent(x)
}

/// Below this share of its roof a kernel is "far below" it, and the regime
/// sentence says why.
pub const FAR_BELOW: f64 = 0.5;
/// A wave or tile efficiency below this is a reason a kernel is far below its roof.
pub const POOR_FILL: f64 = 0.75;

/// What the pad remedy changes, in words ("N to 50304").
fn pad_words(p: &Pad, g: &Gemm) -> String {
    if p.n != g.n && p.k != g.k {
        format!("N to {} and K to {}", p.n, p.k)
    } else if p.n != g.n {
        format!("N to {}", p.n)
    } else {
        format!("K to {}", p.k)
    }
}

/// Why a kernel runs far below its roof, in the widget's terms (empty where it
/// does not): the slow path, a poorly filled last wave, padded tiles, the
/// small-M kernel, fixed costs.
pub fn far_below_why(v: &ShapesView) -> Vec<&'static str> {
    if v.flops / v.roof >= FAR_BELOW || v.regime == Regime::Memory {
        return Vec::new();
    }
    let t = &v.tiling;
    let mut why = Vec::new();
    if !v.priced.fast {
        why.push("alignment");
    }
    if v.priced.path == Path::Gemv {
        why.push("its few rows");
    } else {
        if t.wave_efficiency < POOR_FILL {
            why.push("waves");
        }
        if t.tile_efficiency < POOR_FILL {
            why.push("tiles");
        }
    }
    if v.priced.fixed > 0.5 * v.seconds {
        why.push("fixed costs");
    }
    why
}

/// The regime sentence: the time, its share of the roof, what bounds it, why a
/// kernel far below its roof is there, and the remedy that helps most (the
/// regime's halving, or padding where it helps more), with the other beside it.
fn regime_sentence(v: &ShapesView) -> String {
    let g = &v.gemm;
    let (bound, halving) = match v.regime {
        Regime::Compute => ("compute-bound", "2× FLOP/s"),
        Regime::Memory => ("memory-bound", "2× bandwidth"),
        _ => ("bound by fixed costs", "halving the launch and fill"),
    };
    let halved = v
        .limit
        .speedup(crate::model::limit::Limit::halving(v.regime));
    let why = far_below_why(v);
    let far = if why.is_empty() {
        String::new()
    } else {
        let mut w = why.join(", ");
        if let Some(i) = w.rfind(", ") {
            w.replace_range(i..i + 2, " and ");
        }
        format!(", far below its roof for {w}")
    };
    let pad = v.pad.filter(|p| p.speedup > 1.005);
    let remedy = match pad {
        Some(p) if p.speedup > halved => format!(
            "padding {} would help most ({:.2}×, against {:.2}× for {halving})",
            pad_words(&p, g),
            p.speedup,
            halved
        ),
        Some(p) => format!(
            "{halving} would help most ({:.2}×, against {:.2}× for padding {})",
            halved,
            p.speedup,
            pad_words(&p, g)
        ),
        None => format!("{halving} would help most ({halved:.2}×)"),
    };
    format!(
        "{} at {} of the {} roof: {bound}{far}: {remedy}.",
        units::si(v.seconds, "s"),
        pct(v.flops / v.roof),
        units::si(v.roof, "FLOP/s"),
    )
}

/// The sentences: which path runs and why, how the tiles fill the SMs, what
/// limits it, what padding would do. Every number from the view.
fn why(v: &ShapesView, h: &Hw) -> Vec<String> {
    let g = &v.gemm;
    let t = &v.tiling;
    let mut out = Vec::new();
    if v.priced.path == Path::Gemv {
        out.push(format!(
            "With M = {} (fewer than {} rows, the smallest tile), the library runs a \
             matrix-vector kernel: it streams B once and pays a fixed {} on top.",
            g.m,
            SMALL_M,
            units::si(h.gemv, "s")
        ));
    } else {
        let idle = f64::from(v.sms) - t.last_wave;
        let split = if t.split > 1 {
            format!(", K split {} ways", t.split)
        } else {
            String::new()
        };
        out.push(format!(
            "{} tiles of {}×{}{} fill {} wave{} on {} SMs; the last wave runs {} and leaves {} idle: the waves are {} full, the tiles {} useful.",
            t.tiles,
            t.tm,
            t.tn,
            split,
            t.waves,
            if t.waves == 1.0 { "" } else { "s" },
            v.sms,
            t.last_wave,
            idle,
            pct(t.wave_efficiency),
            pct(t.tile_efficiency)
        ));
    }
    if !v.priced.fast {
        let dims: Vec<&str> = [("N", g.n), ("K", g.k)]
            .into_iter()
            .filter(|(_, x)| x % v.align != 0)
            .map(|(d, _)| d)
            .collect();
        out.push(format!(
            "{} is not a multiple of {} ({} in {}): the library runs its slow path, at {} of the fast path's speed ({}).",
            dims.join(" and "),
            v.align,
            "16 bytes",
            v.dtype.id(),
            pct(h.slow),
            slow_path(v.hw).source
        ));
    } else if !v.aligned {
        out.push(format!(
            "M = {} is not a multiple of {}, but M is never a row length in memory: the fast path runs.",
            g.m, v.align
        ));
    }
    out.push(regime_sentence(v));
    if let Some(p) = &v.pad {
        let what = pad_words(p, g);
        out.push(if p.speedup > 1.005 {
            format!(
                "Padding {what} (the next multiple of {PAD}) would run {:.2}× faster, the extra rows and columns included.",
                p.speedup
            )
        } else {
            format!(
                "Padding {what} (the next multiple of {PAD}) would not help: {:.2}×.",
                p.speedup
            )
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware::{preset, PRESETS};

    fn h100() -> &'static Preset {
        preset("h100-sxm").unwrap_or(&PRESETS[0])
    }

    fn v(m: u32, k: u32, n: u32) -> ShapesView {
        view(m, n, k, Dtype::Bf16, h100()).unwrap()
    }

    #[test]
    fn the_vocabulary_pair() {
        let a = v(8192, 768, 50257);
        let b = v(8192, 768, 50304);
        assert!(!a.aligned && b.aligned);
        assert!(a.seconds > 3.0 * b.seconds);
        assert!(a.why.iter().any(|s| s.contains("slow path")), "{:?}", a.why);
        let pad = a.pad.unwrap();
        assert_eq!((pad.n, pad.k), (50304, 768));
        assert!(pad.speedup > 3.0, "{pad:?}");
        assert!(b.pad.is_none());
        assert_eq!(a.pad_words().as_deref(), Some("Pad N to 50304"));
        assert_eq!(b.pad_words(), None);
        assert!((a.of_roof() - a.flops / a.roof).abs() == 0.0 && a.of_roof() < b.of_roof());
    }

    /// The pad remedy's words name what it pads: N, K or both, never a
    /// dimension it leaves as it was.
    #[test]
    fn the_pad_names_what_it_pads() {
        for (m, k, n) in [(8192, 768, 50257), (4096, 4097, 4096), (4096, 4097, 4097)] {
            let v = v(m, k, n);
            let (Some(p), Some(w)) = (v.pad, v.pad_words()) else {
                panic!("{m} {k} {n}: no pad");
            };
            assert_eq!(w.contains(&format!("N to {}", p.n)), p.n != n, "{w}");
            assert_eq!(w.contains(&format!("K to {}", p.k)), p.k != k, "{w}");
        }
    }

    /// At `?hw=h100-sxm&mm_m=8192&mm_n=50257&mm_k=768` the regime
    /// sentence says why the kernel is far below its roof and names padding,
    /// which helps more than 2× FLOP/s, as what helps most; waves read as waves.
    #[test]
    fn the_unaligned_vocabulary_says_why_and_what_wins() {
        let a = v(8192, 768, 50257);
        for s in &a.why {
            println!("{s}");
        }
        let pad = a.pad.unwrap();
        let flops2 = a.limit.flops2;
        assert!(pad.speedup > flops2, "{pad:?} {flops2}");
        let regime = a
            .why
            .iter()
            .find(|s| s.contains("of the ") && s.contains(" roof: "))
            .unwrap();
        assert!(
            regime.contains(&format!(
                "compute-bound, far below its roof for alignment: padding N to 50304 would help most ({:.2}×, against {:.2}× for 2× FLOP/s).",
                pad.speedup, flops2
            )),
            "{regime}"
        );
        // no sentence recommends 2× FLOP/s as what helps most
        assert!(
            a.why
                .iter()
                .all(|s| !s.contains("2× FLOP/s would help most")),
            "{:?}",
            a.why
        );
        let t = a.tiling;
        assert!(
            a.why
                .iter()
                .any(|s| s.contains(&format!("fill {} waves on 132 SMs", t.waves))),
            "{:?}",
            a.why
        );
        // padded, it runs near its roof: no reason given, 2× FLOP/s helps most
        let b = v(8192, 768, 50304);
        assert!(far_below_why(&b).is_empty());
        assert!(
            b.why
                .iter()
                .any(|s| s.contains("compute-bound: 2× FLOP/s would help most (")),
            "{:?}",
            b.why
        );
        // a small square far below its roof for fixed costs
        let c = v(256, 256, 256);
        assert!(!far_below_why(&c).is_empty(), "{:?}", c.why);
    }

    /// A sentence writes a share as its readout does: 4096³ on an A100 fills
    /// its waves to 99.8 %, which a rounded "100 %" would contradict.
    #[test]
    fn the_sentences_write_shares_as_the_readouts() {
        let a100 = preset("a100-40gb").unwrap_or(&PRESETS[0]);
        let x = view(4096, 4096, 4096, Dtype::Bf16, a100).unwrap();
        let wave = units::percent(x.tiling.wave_efficiency);
        assert_ne!(wave, "100.0 %");
        assert!(
            x.why
                .iter()
                .any(|s| s.contains(&format!("the waves are {wave} full"))),
            "{:?}",
            x.why
        );
    }

    #[test]
    fn one_more_partial_wave() {
        let a = v(4096, 4096, 1536);
        let b = v(4096, 4096, 1664);
        assert!(b.flops < a.flops);
        let fill = |t: Tiling| t.wave_efficiency * t.tile_efficiency;
        assert!(fill(b.tiling) < fill(a.tiling));
    }

    #[test]
    fn regimes_by_the_one_rule() {
        assert_eq!(v(1, 4096, 4096).regime, Regime::Memory);
        assert_eq!(v(8192, 8192, 8192).regime, Regime::Compute);
        assert_eq!(v(64, 64, 64).regime, Regime::Overhead);
    }

    #[test]
    fn sweeps_cover_twice_n_aligned_and_not() {
        let v = v(4096, 4096, 4096);
        let key = SweepKey::of(4096, 4096, 4096, Dtype::Bf16, h100());
        assert_eq!(key.top, 8192);
        // N moving below the top keeps the sweep
        assert_eq!(SweepKey::of(4096, 3000, 4096, Dtype::Bf16, h100()), key);
        let s = sweep(key);
        assert!(s.aligned.len() >= SWEEP_POINTS as usize / 4);
        assert!(s.aligned.iter().all(|p| p.n % 8 == 0));
        assert!(s.unaligned.iter().all(|p| p.n % 8 == 1));
        assert!(s.aligned.last().is_some_and(|p| p.n == 8192));
        // the cliff: each unaligned point is far below its aligned neighbour,
        // and the sweep passes through the current shape
        let a = s.aligned.iter().find(|p| p.n == 4096).map(|p| p.flops);
        assert!(a.is_some_and(|a| (a / v.flops - 1.0).abs() < 1e-12));
        let u = s.unaligned.iter().find(|p| p.n == 4097);
        assert!(u.is_some_and(|u| a.is_some_and(|a| u.flops < 0.5 * a)));
        for p in s.aligned.iter().chain(&s.unaligned) {
            assert!(p.flops > 0.0 && p.flops <= v.roof * 1.0001, "{p:?}");
        }
    }

    #[test]
    fn every_preset_and_dtype_extremes_are_finite() {
        for hw in PRESETS {
            for d in Dtype::ALL {
                for (m, k, n) in [
                    (1, 1, 1),
                    (65536, 65536, 65536),
                    (1, 65536, 1),
                    (77, 3, 65535),
                ] {
                    let s = view(m, n, k, d, hw).unwrap();
                    let w = sweep(SweepKey::of(m, n, k, d, hw));
                    assert!(w
                        .aligned
                        .iter()
                        .all(|p| p.flops.is_finite() && p.flops > 0.0));
                    assert!(s.seconds.is_finite() && s.seconds > 0.0, "{} {d:?}", hw.id);
                    assert!(s.flops.is_finite() && s.flops > 0.0);
                    assert!(!s.why.is_empty());
                    assert!(s.tiling.last_wave >= 1.0 && s.tiling.last_wave <= f64::from(s.sms));
                }
            }
        }
    }
}
