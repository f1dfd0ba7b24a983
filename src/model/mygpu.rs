//! The measured GPU ("Use my GPU") as every widget sees it: one machine whose
//! HBM bandwidth, fp32 rate and overhead per kernel the lab measured, and whose
//! tensor-core rates, memory size and SM count come from the datasheet preset
//! the adapter matched ([`hardware::measured_on`]). Each figure is labelled with
//! where it comes from ([`figures`], [`line`]), and the measurement's spread is
//! carried into a widget's headline as a range ([`ends`]: the same model at the
//! low and the high end of the spread).
//!
//! The tensor-core rates are the datasheet's scaled by the measured fp32 rate
//! over the datasheet's fp32 peak ([`Setting::scale`]): tensor cores and fp32
//! units share one clock, so a GPU whose fp32 units ran at 90 % of their
//! datasheet rate is taken to run its tensor cores at 90 % too. That is an
//! idealisation (a browser's fp32 chain can fall short for reasons that do not
//! slow a tensor core), which the line says.

use super::hardware::{self, Dtype};
use super::setting::{limits, Setting};
use super::units;

/// The measurement's spread as ± a fraction of each figure (`0.04` = ±4 %):
/// half the range of the lab's trials over their median; 0 where unknown.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// Of the copy (HBM) bandwidth.
    pub bw: f64,
    /// Of the fp32 rate (the fma chain), which scales every compute rate.
    pub flops: f64,
    /// The overhead per kernel the lab measured (its dispatch or encode
    /// time), seconds; `None` where it timed none. The setting's overhead is
    /// labelled measured only while it is this value.
    pub overhead: Option<f64>,
}

/// The largest spread a link may carry: ±90 % (a range that still has a low end).
pub const SPREAD_MAX: f64 = 0.9;

/// Where a figure of the measured GPU comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Measured,
    Datasheet,
    /// Neither: the page's default or the reader's own value.
    Unmeasured,
}

impl Origin {
    pub fn word(self) -> &'static str {
        match self {
            Origin::Measured => "measured",
            Origin::Datasheet => "datasheet",
            Origin::Unmeasured => "not measured",
        }
    }
}

/// One figure of the machine the widgets run on.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// "HBM bandwidth", "bf16 matmul".
    pub what: String,
    /// The value with its unit, and its spread where measured ("3.1 TB/s ±4 %").
    pub value: String,
    pub origin: Origin,
}

fn pm(spread: f64) -> String {
    if spread > 0.0 {
        format!(" ±{} %", units::sig3(spread * 100.0))
    } else {
        String::new()
    }
}

/// Every figure of `s`'s GPU, labelled; empty for a datasheet preset (all of
/// its figures are the datasheet's, said where the page names its source).
pub fn figures(s: &Setting, spread: Spread) -> Vec<Figure> {
    if !s.hw.is_measured() {
        return Vec::new();
    }
    let fig = |what: &str, value: String, origin| Figure {
        what: what.to_string(),
        value,
        origin,
    };
    let fp32 = s.hw.fp32_vector * s.scale();
    let mut out = vec![
        fig(
            "HBM bandwidth",
            format!("{}{}", units::si(s.bw, "B/s"), pm(spread.bw)),
            Origin::Measured,
        ),
        fig(
            "fp32",
            format!("{}{}", units::si(fp32, "FLOP/s"), pm(spread.flops)),
            Origin::Measured,
        ),
        overhead(s.overhead, spread.overhead),
    ];
    if let Some(l2) = s.l2_measured {
        out.push(fig(
            "L2 bandwidth",
            format!(
                "{} up to {} (the cache cliff)",
                units::si(l2.bw, "B/s"),
                units::si(l2.fits, "B")
            ),
            Origin::Measured,
        ));
    }
    let Some(base) = s.hw.base() else {
        return out;
    };
    if s.dtype != Dtype::Fp32 {
        let ds = hardware::preset_flops(base, s.dtype);
        out.push(fig(
            &format!("{} matmul", s.dtype.id()),
            format!(
                "{} (scaled to {} with the measured fp32)",
                units::si(ds, "FLOP/s"),
                units::si(s.flops, "FLOP/s")
            ),
            Origin::Datasheet,
        ));
    }
    out.push(fig(
        "memory",
        format!("{} GB", units::gb(base.mem_bytes)),
        Origin::Datasheet,
    ));
    out.push(fig("SMs", base.sms.to_string(), Origin::Datasheet));
    let l2 = hardware::l2(base);
    if let Some(b) = l2.bytes {
        out.push(fig("L2", units::si(b, "B"), Origin::Datasheet));
    }
    if let Some(bw) = l2.bw.filter(|_| s.l2_measured.is_none()) {
        // gpu-benches' measurement of that part, not of this GPU
        out.push(fig("L2 bandwidth", units::si(bw, "B/s"), Origin::Datasheet));
    }
    out
}

/// The overhead per kernel `now` as a figure: measured while it is the lab's
/// `measured` value, else the page's or the reader's (with the measured value
/// beside it, where there is one).
fn overhead(now: f64, measured: Option<f64>) -> Figure {
    let what = "overhead per kernel".to_string();
    let value = units::si(now, "s");
    match measured {
        Some(m) if (now - m).abs() <= 1e-9 * m.abs() => Figure {
            what,
            value,
            origin: Origin::Measured,
        },
        Some(m) => Figure {
            what,
            value: format!(
                "{value} (set on the page; the lab measured {})",
                units::si(m, "s")
            ),
            origin: Origin::Unmeasured,
        },
        None => Figure {
            what,
            value: format!("{value} (the lab timed no kernel dispatch on this GPU)"),
            origin: Origin::Unmeasured,
        },
    }
}

/// The compact line a GPU-dependent widget shows under its GPU select: `None`
/// for a datasheet preset. "on NVIDIA H100 (measured: HBM bandwidth 3.1 TB/s
/// ±4 %, …; datasheet H100 SXM: bf16 matmul 989 TFLOP/s …, memory 80 GB, …)".
pub fn line(s: &Setting, spread: Spread, gpu: &str) -> Option<String> {
    let figs = figures(s, spread);
    if figs.is_empty() {
        return None;
    }
    let of = |o: Origin| {
        figs.iter()
            .filter(|f| f.origin == o)
            .map(|f| format!("{} {}", f.what, f.value))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let gpu = if gpu.is_empty() {
        "this browser's GPU"
    } else {
        gpu
    };
    let rest = match s.hw.base() {
        Some(base) => format!(
            "; datasheet {}: {}; tensor cores assumed to run at the clock the fp32 units were \
             measured at",
            base.name,
            of(Origin::Datasheet)
        ),
        None => "; no datasheet GPU matched, so fp32 only: its tensor cores, memory size and SMs \
                 are unknown (pick the matching GPU in the lab's datasheet select, then Use my \
                 GPU again)"
            .to_string(),
    };
    let unmeasured = of(Origin::Unmeasured);
    let unmeasured = if unmeasured.is_empty() {
        String::new()
    } else {
        format!("; not measured: {unmeasured}")
    };
    Some(format!(
        "On {gpu} (measured: {}{rest}{unmeasured}).",
        of(Origin::Measured)
    ))
}

/// `s` at the low and the high end of the measured spread (bandwidth and every
/// compute rate moved together by their own spreads, within
/// [`limits`]); `None` for a datasheet preset or a measurement without a spread.
/// A widget's range is its headline at these two settings: two model runs.
pub fn ends(s: &Setting, spread: Spread) -> Option<[Setting; 2]> {
    if !s.hw.is_measured() || (spread.bw <= 0.0 && spread.flops <= 0.0) {
        return None;
    }
    let at = |sign: f64| Setting {
        bw: (s.bw * (1.0 + sign * spread.bw.clamp(0.0, SPREAD_MAX)))
            .clamp(limits::BW.0, limits::BW.1),
        flops: (s.flops * (1.0 + sign * spread.flops.clamp(0.0, SPREAD_MAX)))
            .clamp(limits::FLOPS.0, limits::FLOPS.1),
        ..*s
    };
    Some([at(-1.0), at(1.0)])
}

/// A headline's range from its values at the two [`ends`], low first: "~95.2
/// tok/s–105 tok/s" ("~100 tok/s at either end" where both read the same).
pub fn range(a: f64, b: f64, unit: &str) -> String {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let (lo, hi) = (units::si(lo, unit), units::si(hi, unit));
    if lo == hi {
        // a spread too small to move the three digits shown
        format!("~{lo} at either end")
    } else {
        format!("~{lo}–{hi}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::achievable::Roof;
    use crate::model::hardware::{measured_on, preset, MEASURED};

    fn h100() -> &'static hardware::Preset {
        preset("h100-sxm").unwrap()
    }

    /// A measured H100: 3.0 TB/s, 60 TFLOP/s fp32 (the datasheet's 67), in bf16.
    fn measured_h100() -> Setting {
        let mut s = Setting::on(measured_on(h100()), Dtype::Fp32, Roof::Achievable);
        s.flops = 60e12 * s.hw.fp32_matmul / s.hw.fp32_vector;
        s.bw = 3.0e12;
        s.overhead = 5e-6;
        s.select_dtype(Dtype::Bf16);
        s
    }

    #[test]
    fn a_matched_gpu_labels_each_figure() {
        let s = measured_h100();
        assert_eq!(s.hw.base().map(|b| b.id), Some("h100-sxm"));
        let f = figures(
            &s,
            Spread {
                bw: 0.04,
                flops: 0.02,
                overhead: Some(5e-6),
            },
        );
        let find = |w: &str| f.iter().find(|x| x.what == w).unwrap();
        assert_eq!(find("HBM bandwidth").origin, Origin::Measured);
        assert_eq!(find("HBM bandwidth").value, "3 TB/s ±4 %");
        assert_eq!(find("fp32").value, "60 TFLOP/s ±2 %");
        assert_eq!(find("overhead per kernel").origin, Origin::Measured);
        let bf16 = find("bf16 matmul");
        assert_eq!(bf16.origin, Origin::Datasheet);
        assert!(bf16.value.starts_with("989 TFLOP/s"), "{}", bf16.value);
        // the tensor cores scaled by the fp32 units' share of their datasheet
        assert!((s.scale() - 60.0 / 67.0).abs() < 1e-12, "{}", s.scale());
        let bf16_ds = hardware::preset_flops(h100(), Dtype::Bf16);
        assert!((s.flops / (bf16_ds * 60.0 / 67.0) - 1.0).abs() < 1e-12);
        assert_eq!(find("memory").value, "80 GB");
        assert_eq!(find("memory").origin, Origin::Datasheet);
        assert_eq!(find("SMs").value, "132");
        assert_eq!(find("L2").origin, Origin::Datasheet);
        let l = line(
            &s,
            Spread {
                bw: 0.04,
                flops: 0.02,
                overhead: Some(5e-6),
            },
            "NVIDIA H100",
        )
        .unwrap();
        assert!(
            l.starts_with("On NVIDIA H100 (measured: HBM bandwidth 3 TB/s ±4 %"),
            "{l}"
        );
        assert!(
            l.contains("datasheet NVIDIA H100 SXM: bf16 matmul 989 TFLOP/s (scaled to 886 TFLOP/s"),
            "{l}"
        );
    }

    #[test]
    fn an_unmatched_gpu_says_what_is_missing() {
        let mut s = Setting::on(&MEASURED, Dtype::Fp32, Roof::Achievable);
        s.bw = 4e11;
        assert_eq!(s.hw.base(), None);
        let f = figures(&s, Spread::default());
        assert_eq!(f.len(), 3);
        // the lab timed no dispatch: the overhead is the page's, said so
        let (over, rest): (Vec<&Figure>, Vec<&Figure>) =
            f.iter().partition(|x| x.what == "overhead per kernel");
        assert!(rest.iter().all(|x| x.origin == Origin::Measured), "{f:?}");
        assert_eq!(over[0].origin, Origin::Unmeasured);
        assert!(over[0].value.contains("timed no kernel dispatch"), "{f:?}");
        let l = line(&s, Spread::default(), "").unwrap();
        assert!(l.contains("no datasheet GPU matched"), "{l}");
        assert!(l.contains("; not measured: overhead per kernel"), "{l}");
        let measured = l
            .split("(measured: ")
            .nth(1)
            .and_then(|x| x.split(';').next());
        assert!(measured.is_some_and(|m| !m.contains("overhead")), "{l}");
        assert!(l.contains("this browser's GPU"), "{l}");
        // a datasheet preset has no line
        assert_eq!(
            line(
                &Setting::on(h100(), Dtype::Bf16, Roof::Datasheet),
                Spread::default(),
                "x"
            ),
            None
        );
    }

    #[test]
    fn the_ends_bracket_the_setting() {
        let s = measured_h100();
        assert_eq!(ends(&s, Spread::default()), None);
        let [lo, hi] = ends(
            &s,
            Spread {
                bw: 0.04,
                flops: 0.1,
                overhead: None,
            },
        )
        .unwrap();
        assert!(lo.bw < s.bw && s.bw < hi.bw);
        assert!(lo.flops < s.flops && s.flops < hi.flops);
        assert!((hi.bw / s.bw - 1.04).abs() < 1e-12);
        assert_eq!((lo.dtype, lo.hw), (s.dtype, s.hw));
        assert_eq!(range(2.0, 1.0, "tok/s"), "~1 tok/s–2 tok/s");
        assert_eq!(range(1.0, 1.0001, "s"), "~1 s at either end");
    }

    /// The overhead is labelled measured only while it is the lab's value:
    /// moved on the page, it is the reader's, with the measured one beside it.
    #[test]
    fn a_moved_overhead_is_no_longer_measured() {
        let mut s = measured_h100();
        let spread = Spread {
            overhead: Some(5e-6),
            ..Spread::default()
        };
        let find = |s: &Setting| {
            figures(s, spread)
                .into_iter()
                .find(|x| x.what == "overhead per kernel")
                .unwrap()
        };
        assert_eq!(find(&s).origin, Origin::Measured);
        assert_eq!(find(&s).value, "5 µs");
        s.overhead = 2e-5;
        let moved = find(&s);
        assert_eq!(moved.origin, Origin::Unmeasured);
        assert_eq!(
            moved.value,
            "20 µs (set on the page; the lab measured 5 µs)"
        );
        let l = line(&s, spread, "x").unwrap();
        assert!(l.ends_with("; not measured: overhead per kernel 20 µs (set on the page; the lab measured 5 µs))."), "{l}");
    }
}
