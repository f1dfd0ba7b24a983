//! Figures derived from a run: the copy bandwidth, the compute ceiling (from the
//! fma chain, which no compiler may shorten), the rate of the essay's `x · m`
//! chain and whether a compiler shortened it, the crossover repeat and the fusion
//! speedup per repeat. Only verified results count; a failed variant never
//! becomes a figure.
//!
//! FLOP convention (the datasheets'): an FMA is 2 FLOP, a multiply 1.

use super::results::{median, sort_small, spread, Check, Dt, Kernel, LabRun, Measurement, Op};
use crate::model::units;

/// Fused runtime per element this much above the flat (memory-bound) part means
/// the kernel is no longer memory-bound.
pub const COMPUTE_BOUND_RISE: f64 = 1.25;

/// The `x · m` chain counts as shortened by the compiler when, at one repeat, it
/// does this many times more multiplies per second than the fma chain does FMAs
/// even comparing its slowest trial with the fma chain's fastest (beyond noise):
/// a GPU issues a multiply no faster than an FMA (both one instruction of the
/// same fp32 pipe) — and when its results are not bit for bit those of the
/// multiplies done one by one (every multiply is correctly rounded, so a chain
/// computed as written matches the CPU exactly; a regrouped one rounds
/// differently). A chain that is faster but exact was not shortened: its adapter
/// runs an FMA slower than a multiply (lavapipe, a CPU, does).
pub const SHORTENED_RATIO: f64 = 1.1;

/// The headline figures of a run (f32: the essay's microbenchmark).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Achieved bandwidth of the copy kernel, bytes/s.
    pub copy_bw: Option<f64>,
    /// The compute ceiling in FLOP/s, an FMA counted as 2: twice the highest FMA
    /// rate of the fused fma chain, and at which repeat. `None` without a verified
    /// fma chain (runs recorded before it existed).
    pub peak_flops: Option<(f64, u32)>,
    /// The highest FMA/s of the fused fma chain, and at which repeat.
    pub fma_rate: Option<(f64, u32)>,
    /// The highest multiplies/s of the essay's fused `x · m` chain, and at which
    /// repeat (may exceed the hardware when a compiler shortened the chain).
    pub mul_rate: Option<(f64, u32)>,
    /// The compiler shortened the `x · m` chain: the largest (multiplies/s ÷
    /// FMA/s) over the repeats where it exceeded [`SHORTENED_RATIO`] beyond noise,
    /// and that repeat.
    pub shortened: Option<(f64, u32)>,
    /// Where the memory asymptote (flat runtime) meets the compute asymptote
    /// (runtime ∝ repeat, through the highest repeat): `r_max · t(1) / t(r_max)`
    /// with times per element, of the fma chain (of the `x · m` chain in runs
    /// without one). `None` while the kernel is still memory-bound at the highest
    /// repeat measured.
    pub crossover: Option<f64>,
    /// The first measured repeat whose runtime rose [`COMPUTE_BOUND_RISE`]× above
    /// the memory-bound runtime.
    pub first_compute_bound: Option<u32>,
    /// The highest verified repeat of the fused `mul` chain (how far the sweep got).
    pub last_repeat: Option<u32>,
    /// Seconds: GPU time per empty dispatch, CPU time to record one, per submit.
    pub dispatch: Option<f64>,
    pub encode: Option<f64>,
    pub submit: Option<f64>,
    /// The spread of the trials behind each figure ((max − min) / median).
    pub spreads: Spreads,
}

/// Spreads of the trials behind the headline figures (see [`spread`]); a figure
/// derived from a time (bandwidth, FLOP/s) has the same relative spread.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spreads {
    pub copy_bw: Option<f64>,
    pub peak_flops: Option<f64>,
    pub dispatch: Option<f64>,
    pub encode: Option<f64>,
    pub submit: Option<f64>,
}

/// Verified fused measurements of `op` in `dt`, by increasing repeat.
pub fn fused(run: &LabRun, op: Op, dt: Dt) -> Vec<&Measurement> {
    let mut v: Vec<&Measurement> = run
        .measurements
        .iter()
        .filter(|m| m.kernel == Kernel::Fused && m.op == Some(op) && m.dt == dt && m.usable())
        .collect();
    sort_small(&mut v, |a, b| a.repeat < b.repeat);
    v
}

/// The highest ops/s of a chain, and at which repeat.
fn best_rate(chain: &[&Measurement]) -> Option<(f64, u32)> {
    chain
        .iter()
        .filter_map(|m| m.achieved_ops().map(|f| (f, m.repeat)))
        .fold(None, |acc: Option<(f64, u32)>, x| match acc {
            Some(a) if a.0 >= x.0 => Some(a),
            _ => Some(x),
        })
}

/// Ops per second from the slowest (`slow` = true) or fastest trial.
fn rate_bound(m: &Measurement, slow: bool) -> Option<f64> {
    let t = m
        .times
        .iter()
        .copied()
        .filter(|t| t.is_finite() && *t > 0.0);
    let t = if slow {
        t.fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
    } else {
        t.fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.min(x))))
    }?;
    Some(m.ops() / t)
}

/// Per repeat measured in both chains: (repeat, multiplies/s ÷ FMA/s of the
/// medians, the same ratio from the `x · m` chain's slowest and the fma chain's
/// fastest trial).
pub fn mul_vs_fma(mul: &[&Measurement], fma: &[&Measurement]) -> Vec<(u32, f64, f64)> {
    mul.iter()
        .filter_map(|m| {
            let f = fma.iter().find(|f| f.repeat == m.repeat)?;
            let ratio = m.achieved_ops()? / f.achieved_ops()?;
            let low = rate_bound(m, true)? / rate_bound(f, false)?;
            Some((m.repeat, ratio, low))
        })
        .collect()
}

/// The chain's verified results equal the CPU's bit for bit.
fn exact(m: &Measurement) -> bool {
    matches!(m.check, Check::Passed { max_err, .. } if max_err == 0.0)
}

/// The largest (ratio, repeat) where the `x · m` chain outran the fma chain beyond
/// noise; `exact`: only repeats whose results were (true) or were not (false)
/// bit-exact.
fn outran(mul: &[&Measurement], fma: &[&Measurement], exact_results: bool) -> Option<(f64, u32)> {
    mul_vs_fma(mul, fma)
        .into_iter()
        .filter(|&(_, ratio, low)| ratio > SHORTENED_RATIO && low > SHORTENED_RATIO)
        .filter(|&(r, _, _)| {
            mul.iter()
                .any(|m| m.repeat == r && exact(m) == exact_results)
        })
        .fold(None, |acc: Option<(f64, u32)>, (r, ratio, _)| match acc {
            Some(a) if a.0 >= ratio => Some(a),
            _ => Some((ratio, r)),
        })
}

/// The largest shortening (ratio, repeat) beyond noise, if any (see
/// [`SHORTENED_RATIO`]).
pub fn shortening(mul: &[&Measurement], fma: &[&Measurement]) -> Option<(f64, u32)> {
    outran(mul, fma, false)
}

pub fn summary(run: &LabRun) -> Summary {
    // the fastest copy, with the spread of its own trials
    let copy = run
        .measurements
        .iter()
        .filter(|m| m.kernel == Kernel::Copy && m.dt == Dt::F32 && m.usable())
        .filter_map(|m| m.achieved_bw().map(|b| (b, m)))
        .fold(None, |acc: Option<(f64, &Measurement)>, x| match acc {
            Some(a) if a.0 >= x.0 => Some(a),
            _ => Some(x),
        });
    let mul = fused(run, Op::Mul, Dt::F32);
    let fma = fused(run, Op::Fma, Dt::F32);
    let fma_rate = best_rate(&fma);
    // the measurement behind the compute ceiling, for its spread
    let peak = fma_rate.and_then(|(_, at)| fma.iter().find(|m| m.repeat == at).copied());
    let chain = if fma.is_empty() { &mul } else { &fma };
    let (crossover, first_compute_bound) = crossover(chain);
    let o = &run.overheads;
    Summary {
        copy_bw: copy.map(|c| c.0),
        peak_flops: fma_rate.map(|(r, at)| (r * Op::Fma.flop(), at)),
        fma_rate,
        mul_rate: best_rate(&mul),
        shortened: shortening(&mul, &fma),
        crossover,
        first_compute_bound,
        last_repeat: chain.last().map(|m| m.repeat),
        dispatch: median(&o.dispatch),
        encode: median(&o.encode),
        submit: median(&o.submit),
        spreads: Spreads {
            copy_bw: copy.and_then(|c| spread(&c.1.times)),
            peak_flops: peak.and_then(|m| spread(&m.times)),
            dispatch: spread(&o.dispatch),
            encode: spread(&o.encode),
            submit: spread(&o.submit),
        },
    }
}

/// What the two compute chains say, in sentences (empty when neither ran).
pub fn findings(run: &LabRun) -> Vec<String> {
    let s = summary(run);
    let mut out = Vec::new();
    match (s.mul_rate, s.fma_rate, s.shortened) {
        (Some((mul, mul_at)), Some((fma, fma_at)), Some((ratio, at))) => out.push(format!(
            "The compiler shortened the x · m chain: at ×{at} it did {}× as many multiplies per \
             second as the fma chain did FMAs (best: {} multiplies/s at ×{mul_at} against {} \
             FMA/s at ×{fma_at}). A GPU issues a multiply no faster than an FMA, so the driver \
             must have merged multiplies (for example v·m·m into v·(m·m)): the x · m chain's \
             rate describes the compiler, not the hardware. The compute ceiling and the \
             crossover come from the fma chain, which no compiler may shorten.",
            units::sig3(ratio),
            units::si(mul, ""),
            units::si(fma, ""),
        )),
        (Some((mul, _)), Some((fma, _)), None)
            if outran(
                &fused(run, Op::Mul, Dt::F32),
                &fused(run, Op::Fma, Dt::F32),
                true,
            )
            .is_some() =>
        {
            out.push(format!(
                "The x · m chain ran faster than the fma chain ({} multiplies/s against {} \
                 FMA/s at best), yet its results equal the multiplies done one by one, in order, \
                 bit for bit: the compiler did not shorten it. On this adapter an FMA costs more \
                 than a multiply (as on a CPU without a full-rate FMA, or a software adapter); \
                 the compute ceiling still counts FMAs, 2 FLOP each.",
                units::si(mul, ""),
                units::si(fma, ""),
            ))
        }
        (Some((mul, _)), Some((fma, _)), None) => out.push(format!(
            "The x · m chain (at best {} multiplies/s) never outran the fma chain (at best {} \
             FMA/s = {}, an FMA counted as 2 FLOP) by more than {}× beyond noise: the \
             compiler did not shorten it.",
            units::si(mul, ""),
            units::si(fma, ""),
            units::si(fma * Op::Fma.flop(), "FLOP/s"),
            units::sig3(SHORTENED_RATIO),
        )),
        (Some(_), None, _) => out.push(
            "This run has no verified fma chain (runs recorded before brrr measured one have \
             none), so it has no compute ceiling: the x · m chain alone cannot give one, since \
             a compiler may shorten it. Run the lab again."
                .into(),
        ),
        _ => {}
    }
    out
}

/// (asymptote crossover, first compute-bound repeat) of a fused chain sorted by
/// repeat.
pub fn crossover(chain: &[&Measurement]) -> (Option<f64>, Option<u32>) {
    let pts: Vec<(u32, f64)> = chain
        .iter()
        .filter_map(|m| m.time_per_element().map(|t| (m.repeat, t)))
        .filter(|(_, t)| *t > 0.0)
        .collect();
    let (Some(&(r0, t0)), Some(&(rmax, tmax))) = (pts.first(), pts.last()) else {
        return (None, None);
    };
    // the memory-bound floor: the fastest of the low repeats (noise only adds time)
    let floor = pts
        .iter()
        .filter(|(r, _)| *r <= r0.max(2))
        .map(|p| p.1)
        .fold(t0, f64::min);
    let first = pts
        .iter()
        .filter(|(r, _)| *r > r0.max(2))
        .find(|(_, t)| *t > COMPUTE_BOUND_RISE * floor)
        .map(|p| p.0);
    let cross = (rmax > r0 && tmax > COMPUTE_BOUND_RISE * floor)
        .then(|| (f64::from(rmax) * floor / tmax).max(1.0));
    (cross, first)
}

/// One row of the fused-vs-eager table.
pub struct Row<'a> {
    pub repeat: u32,
    pub fused: Option<&'a Measurement>,
    pub eager: Option<&'a Measurement>,
}

impl Row<'_> {
    /// At repeat 1 the fused kernel and the eager chain are the same single kernel
    /// (one op, one read, one write): there is nothing to fuse, so no speedup.
    pub fn same_kernel(&self) -> bool {
        self.repeat <= 1
    }

    /// Eager time ÷ fused time, per element (both verified); `None` where they
    /// are the same kernel ([`Row::same_kernel`]).
    pub fn speedup(&self) -> Option<f64> {
        if self.same_kernel() {
            return None;
        }
        let f = self.fused.filter(|m| m.usable())?.time_per_element()?;
        let e = self.eager.filter(|m| m.usable())?.time_per_element()?;
        (f > 0.0).then(|| e / f)
    }
}

/// Rows of the table for `op` in `dt`, by repeat (measured or failed variants).
pub fn rows(run: &LabRun, op: Op, dt: Dt) -> Vec<Row<'_>> {
    let mut repeats: Vec<u32> = run
        .measurements
        .iter()
        .filter(|m| m.op == Some(op) && m.dt == dt)
        .map(|m| m.repeat)
        .collect();
    sort_small(&mut repeats, |a, b| a < b);
    repeats.dedup();
    repeats
        .into_iter()
        .map(|r| Row {
            repeat: r,
            fused: run.find(Kernel::Fused, Some(op), dt, r),
            eager: run.find(Kernel::Eager, Some(op), dt, r),
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::gpu::results::*;

    fn m(kernel: Kernel, op: Option<Op>, repeat: u32, t: f64) -> Measurement {
        Measurement {
            kernel,
            op,
            dt: Dt::F32,
            repeat,
            elements: 1 << 20,
            times: vec![t * 1.01, t, t * 0.99],
            check: Check::Passed {
                max_err: 0.0,
                samples: 100,
            },
            remeasured: 0,
        }
    }

    /// A machine with 100 GB/s and 1 TFLOP/s of multiplies: memory time of a
    /// fused chain on 2^20 f32 = 8 MiB / 100 GB/s, compute time = N·r / 1e12.
    pub fn synthetic() -> LabRun {
        let n = f64::from(1u32 << 20);
        let mem = 8.0 * n / 100e9;
        let mut ms = vec![m(Kernel::Copy, None, 0, mem)];
        for k in 0..=10 {
            let r = 1u32 << k;
            let comp = n * f64::from(r) / 1e12;
            ms.push(m(Kernel::Fused, Some(Op::Mul), r, mem.max(comp)));
            ms.push(m(
                Kernel::Eager,
                Some(Op::Mul),
                r,
                f64::from(r) * mem.max(n / 1e12),
            ));
        }
        // the fma chain issues at the same 1e12 ops/s (= 2 TFLOP/s, FMA = 2)
        for k in 0..=10 {
            let r = 1u32 << k;
            ms.push(m(
                Kernel::Fused,
                Some(Op::Fma),
                r,
                mem.max(n * f64::from(r) / 1e12),
            ));
        }
        LabRun {
            outcome: Outcome::Complete,
            reason: String::new(),
            date: "2026-01-01T00:00:00.000Z".into(),
            adapter: AdapterInfo::default(),
            timer: Timer::Timestamps,
            small: false,
            elements: 1 << 20,
            notes: vec![],
            overheads: Overheads {
                dispatch: vec![2e-6, 3e-6, 4e-6],
                encode: vec![1e-6],
                submit: vec![5e-5],
                roundtrip: vec![1e-3],
            },
            measurements: ms,
        }
    }

    #[test]
    fn headline_figures() {
        let run = synthetic();
        let s = summary(&run);
        assert!((s.copy_bw.unwrap_or(0.0) / 100e9 - 1.0).abs() < 1e-9);
        let (peak, at) = s.peak_flops.unwrap_or_default();
        assert!(at >= 128, "{at}"); // every compute-bound repeat reaches the peak
                                    // 1e12 FMA/s = 2e12 FLOP/s (FMA = 2)
        assert!((peak / 2e12 - 1.0).abs() < 1e-9, "{peak}");
        assert!((s.fma_rate.unwrap_or_default().0 / 1e12 - 1.0).abs() < 1e-9);
        assert!((s.mul_rate.unwrap_or_default().0 / 1e12 - 1.0).abs() < 1e-9);
        assert_eq!(s.shortened, None);
        // ridge = 1e12 / 100e9 = 10 FLOP/B; 8 B per element → crossover at 80
        let c = s.crossover.unwrap_or(0.0);
        assert!((c - 80.0).abs() < 1e-6, "{c}");
        assert_eq!(s.first_compute_bound, Some(128));
        assert_eq!(s.last_repeat, Some(1024));
        assert_eq!(s.dispatch, Some(3e-6));
        // spreads of the trials behind each figure: (1.01 − 0.99) / 1
        let sp = s.spreads.copy_bw.unwrap_or(0.0);
        assert!((sp - 0.02).abs() < 1e-9, "{sp}");
        assert!((s.spreads.peak_flops.unwrap_or(0.0) - 0.02).abs() < 1e-9);
        assert!((s.spreads.dispatch.unwrap_or(0.0) - (4e-6 - 2e-6) / 3e-6).abs() < 1e-9);
        assert_eq!(s.spreads.encode, Some(0.0));
    }

    #[test]
    fn speedups() {
        let run = synthetic();
        let rows = rows(&run, Op::Mul, Dt::F32);
        assert_eq!(rows.len(), 11);
        // repeat 1: fused and eager are one and the same kernel, no speedup
        assert!(rows[0].same_kernel());
        assert_eq!(rows[0].speedup(), None);
        assert!(rows[1..].iter().all(|r| !r.same_kernel()));
        // repeat 8: eager 8 memory passes, fused 1
        assert!((rows[3].speedup().unwrap_or(0.0) - 8.0).abs() < 1e-9);
        assert!(rows[1..].iter().all(|r| r.speedup().unwrap_or(0.0) >= 1.0));
    }

    #[test]
    fn failed_variants_never_count() {
        let mut run = synthetic();
        for m in &mut run.measurements {
            if m.kernel == Kernel::Fused && m.repeat == 1024 {
                m.check = Check::Failed {
                    detail: "bad".into(),
                };
                m.times = vec![1e-9]; // would be a huge "peak"
            }
        }
        let s = summary(&run);
        let (peak, at) = s.peak_flops.unwrap_or_default();
        assert!(peak < 2.01e12 && at < 1024, "{peak} at {at}");
        assert!(rows(&run, Op::Mul, Dt::F32)[10].speedup().is_none());
    }

    #[test]
    fn a_noisy_first_repeat_is_not_the_crossover() {
        let mut run = synthetic();
        for m in &mut run.measurements {
            if m.kernel == Kernel::Fused && m.repeat == 1 {
                m.times = m.times.iter().map(|t| t * 1.5).collect();
            }
        }
        assert_eq!(summary(&run).first_compute_bound, Some(128));
    }

    fn set_fused(run: &mut LabRun, op: Op, time: impl Fn(u32, f64) -> f64) {
        for m in &mut run.measurements {
            if m.kernel == Kernel::Fused && m.op == Some(op) {
                let t = time(m.repeat, m.elements as f64);
                m.times = vec![t * 1.01, t, t * 0.99];
            }
        }
    }

    fn inexact(run: &mut LabRun) {
        for m in &mut run.measurements {
            if m.op == Some(Op::Mul) {
                m.check = Check::Passed {
                    max_err: 3e-7,
                    samples: 100,
                };
            }
        }
    }

    /// Modelled on h100.json: the x·m chain at 64 T multiplies/s where the fma
    /// chain does 32 T FMA/s: shortened, said in words; the ceiling is the fma's.
    #[test]
    fn a_shortened_chain_is_detected_and_said() {
        let mut run = synthetic();
        let mem = |n: f64| 8.0 * n / 3e12;
        set_fused(&mut run, Op::Mul, |r, n| {
            mem(n).max(n * f64::from(r) / 64e12)
        });
        set_fused(&mut run, Op::Fma, |r, n| {
            mem(n).max(n * f64::from(r) / 32e12)
        });
        // as exact as a chain done in order: an adapter whose FMA is slow, not a
        // shortened chain (lavapipe)
        let s = summary(&run);
        assert_eq!(s.shortened, None);
        assert!(
            findings(&run)[0].contains("bit for bit: the compiler did not shorten it"),
            "{:?}",
            findings(&run)
        );
        // regrouped multiplies round differently: the results are not bit-exact
        inexact(&mut run);
        let s = summary(&run);
        let (ratio, at) = s.shortened.unwrap_or_default();
        assert!((ratio - 2.0).abs() < 1e-9 && at >= 256, "{ratio} at {at}");
        assert!((s.peak_flops.unwrap_or_default().0 / 64e12 - 1.0).abs() < 1e-9);
        assert!((s.mul_rate.unwrap_or_default().0 / 64e12 - 1.0).abs() < 1e-9);
        let f = findings(&run);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].starts_with(&format!(
                "The compiler shortened the x · m chain: at ×{at} it did 2× as many"
            )),
            "{}",
            f[0]
        );
        assert!(
            f[0].contains("64 T multiplies/s") && f[0].contains("32 T FMA/s"),
            "{}",
            f[0]
        );
        // the crossover is the fma chain's: 3e12 B/s, 8 B per element, 32e12 FMA/s → ×85.3
        let c = s.crossover.unwrap_or(0.0);
        assert!((c - 32e12 * 8.0 / 3e12).abs() < 1e-6, "{c}");
    }

    #[test]
    fn noise_alone_is_not_shortening() {
        let mut run = synthetic();
        // the x·m chain 8 % faster: within the threshold
        inexact(&mut run);
        set_fused(&mut run, Op::Mul, |r, n| {
            (8.0 * n / 100e9).max(n * f64::from(r) / 1.08e12)
        });
        assert_eq!(summary(&run).shortened, None);
        assert!(
            findings(&run)[0].contains("did not shorten it"),
            "{:?}",
            findings(&run)
        );
        // 20 % faster by the medians, but the trials scatter so widely that the
        // slowest x·m trial is no faster than the fastest fma trial: noise
        let mut run = synthetic();
        set_fused(&mut run, Op::Mul, |r, n| {
            (8.0 * n / 100e9).max(n * f64::from(r) / 1.2e12)
        });
        for m in &mut run.measurements {
            if m.kernel == Kernel::Fused && m.op == Some(Op::Mul) {
                let t = m.times[1];
                m.times = vec![t * 1.3, t, t * 0.9];
            }
        }
        inexact(&mut run);
        assert_eq!(summary(&run).shortened, None);
    }

    #[test]
    fn runs_without_an_fma_chain_have_no_ceiling() {
        let mut run = synthetic();
        run.measurements.retain(|m| m.op != Some(Op::Fma));
        let s = summary(&run);
        assert_eq!(s.peak_flops, None);
        assert!(s.mul_rate.is_some());
        // the crossover falls back to the x·m chain
        assert!((s.crossover.unwrap_or(0.0) - 80.0).abs() < 1e-6);
        assert!(findings(&run)[0].contains("no compute ceiling"));
    }

    /// Recomputed from h100.json's brrr-WGSL numbers (tests/data/h100.json, see
    /// tests/data/README.md): the copy kernel's bandwidth, and the x·m chain at
    /// ×1024 doing ~1.9× the H100's fp32 multiply rate — impossible without the
    /// compiler's help; with an fma chain at the 32.2 T FMA/s the same file
    /// reports, the analysis calls it shortened and takes its ceiling from the fma.
    #[test]
    fn h100_reference_numbers() {
        use crate::json::{self, Json};
        let j = json::parse(include_str!("../../tests/data/h100.json")).unwrap();
        let w = j.get("webgpu_wgsl").unwrap();
        let n = w.get("elements_per_buffer").and_then(Json::as_f64).unwrap();
        let sheet = j.get("datasheet").unwrap();
        let sheet_mul = sheet.get("fp32_mul_per_s").and_then(Json::as_f64).unwrap();
        let mut run = synthetic();
        run.measurements.clear();
        let copy_bw = w.get("copy_bw").and_then(Json::as_f64).unwrap();
        let mut copy = m(Kernel::Copy, None, 0, 8.0 * n / copy_bw);
        copy.elements = n as u64;
        run.measurements.push(copy);
        let mut floor = f64::INFINITY;
        for c in w.get("chains").and_then(Json::as_arr).unwrap() {
            if c.get("op").and_then(Json::as_str) != Some("mul") {
                continue;
            }
            let r = c.get("repeat").and_then(Json::as_f64).unwrap() as u32;
            let t = c.get("fused_s").and_then(Json::as_f64).unwrap();
            floor = floor.min(t);
            let mut x = m(Kernel::Fused, Some(Op::Mul), r, t);
            x.elements = n as u64;
            run.measurements.push(x);
            // the fma chain as measured on the same silicon: 32.2 T FMA/s
            let mut f = m(
                Kernel::Fused,
                Some(Op::Fma),
                r,
                floor.max(n * f64::from(r) / 32.2e12),
            );
            f.elements = n as u64;
            run.measurements.push(f);
        }
        inexact(&mut run);
        let s = summary(&run);
        let bw = s.copy_bw.unwrap();
        assert!((bw / 2.983e12 - 1.0).abs() < 1e-3, "{bw}");
        let (mul, at) = s.mul_rate.unwrap();
        assert_eq!(at, 1024);
        assert!((mul / 64.2e12 - 1.0).abs() < 0.01, "{mul}");
        assert!(mul / sheet_mul > 1.9, "{}", mul / sheet_mul);
        let (ratio, _) = s.shortened.unwrap();
        assert!(ratio > 1.9, "{ratio}");
        // the ceiling: 64.4 TFLOP/s = 96 % of the 67 TFLOP/s datasheet
        let fma_sheet = sheet.get("fp32_fma_flops").and_then(Json::as_f64).unwrap();
        let peak = s.peak_flops.unwrap().0;
        assert!(
            (peak / fma_sheet - 0.961).abs() < 0.005,
            "{}",
            peak / fma_sheet
        );
        // the x·m chain's own crossover would read ~173; the fma chain's ~87
        let (mul_cross, _) = crossover(&fused(&run, Op::Mul, Dt::F32));
        assert!((mul_cross.unwrap() - 172.7).abs() < 1.0, "{mul_cross:?}");
        let c = s.crossover.unwrap();
        assert!((80.0..95.0).contains(&c), "{c}");
    }

    #[test]
    fn memory_bound_throughout_has_no_crossover() {
        let mut run = synthetic();
        for m in &mut run.measurements {
            m.times = vec![1e-3];
        }
        let s = summary(&run);
        assert_eq!(s.crossover, None);
        assert_eq!(s.first_compute_bound, None);
        let empty = LabRun {
            measurements: vec![],
            ..synthetic()
        };
        assert_eq!(summary(&empty).peak_flops, None);
        assert_eq!(summary(&empty).crossover, None);
    }
}
