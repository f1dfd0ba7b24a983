//! Figures derived from a run: the copy bandwidth, the compute ceiling, the
//! crossover repeat and the fusion speedup per repeat. Only verified results
//! count; a failed variant never becomes a figure.

use super::results::{median, sort_small, spread, Dt, Kernel, LabRun, Measurement, Op};

/// Fused runtime per element this much above the flat (memory-bound) part means
/// the kernel is no longer memory-bound.
pub const COMPUTE_BOUND_RISE: f64 = 1.25;

/// The headline figures of a run (f32, the `mul` chain: the essay's microbenchmark).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Achieved bandwidth of the copy kernel, bytes/s.
    pub copy_bw: Option<f64>,
    /// The highest achieved FLOP/s of the fused `mul` chain, and at which repeat.
    pub peak_flops: Option<(f64, u32)>,
    /// Where the memory asymptote (flat runtime) meets the compute asymptote
    /// (runtime ∝ repeat, through the highest repeat): `r_max · t(1) / t(r_max)`
    /// with times per element. `None` while the kernel is still memory-bound at the
    /// highest repeat measured.
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
    let chain = fused(run, Op::Mul, Dt::F32);
    let peak = chain
        .iter()
        .filter_map(|m| m.achieved_flops().map(|f| (f, *m)))
        .fold(None, |acc: Option<(f64, &Measurement)>, x| match acc {
            Some(a) if a.0 >= x.0 => Some(a),
            _ => Some(x),
        });
    let (crossover, first_compute_bound) = crossover(&chain);
    let o = &run.overheads;
    Summary {
        copy_bw: copy.map(|c| c.0),
        peak_flops: peak.map(|p| (p.0, p.1.repeat)),
        crossover,
        first_compute_bound,
        last_repeat: chain.last().map(|m| m.repeat),
        dispatch: median(&o.dispatch),
        encode: median(&o.encode),
        submit: median(&o.submit),
        spreads: Spreads {
            copy_bw: copy.and_then(|c| spread(&c.1.times)),
            peak_flops: peak.and_then(|p| spread(&p.1.times)),
            dispatch: spread(&o.dispatch),
            encode: spread(&o.encode),
            submit: spread(&o.submit),
        },
    }
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
        assert!((peak / 1e12 - 1.0).abs() < 1e-9, "{peak}");
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
        assert!(peak < 1.01e12 && at < 1024, "{peak} at {at}");
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
