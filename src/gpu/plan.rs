//! How big and how long: buffer sizes from the adapter's limits, the repeats to
//! sweep, the time budgets that keep every submission well under a GPU watchdog,
//! and how work is cut into submissions.

use super::results::{Dt, Kernel, Measurement, Op};

/// The essay's sweep, 1, 2, 4, … 1024 ops per element: the same repeats as the
/// microbenchmark widget's model, so measured and modelled points line up.
pub use crate::model::microbench::REPEATS;

/// The kernels each op is swept with: the essay's chains fused and eager; the fma
/// chain (the compute ceiling) fused only.
pub fn kernels(op: Op) -> &'static [Kernel] {
    match op {
        Op::Mul | Op::Cos => &[Kernel::Fused, Kernel::Eager],
        Op::Fma => &[Kernel::Fused],
    }
}

/// The variants measured after the copy kernel for one dtype, in the order both
/// drivers (the page and `brrr-lab`) run them: per op of [`Op::ALL`], per repeat,
/// the op's [`kernels`].
pub fn sweep() -> Vec<(Kernel, Op, u32)> {
    let mut v = Vec::new();
    for op in Op::ALL {
        for r in REPEATS {
            for &k in kernels(op) {
                v.push((k, op, r));
            }
        }
    }
    v
}

/// Per buffer at full size: 256 MiB (64 Mi f32), far beyond any GPU's L2 cache.
pub const FULL_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// Per buffer at the small (test) size: 1 MiB.
pub const SMALL_BYTES: f64 = 1024.0 * 1024.0;
/// Below this per-buffer size the lab does not run ("limits too small").
pub const MIN_BYTES: f64 = 256.0 * 1024.0;
/// The cache sweep's smallest working set: 64 KiB.
pub const CACHE_MIN: u64 = 64 * 1024;
/// Its largest at full size (1 GiB: past any GPU's last-level cache), or the
/// adapter's largest buffer if smaller.
pub const CACHE_FULL: f64 = 1024.0 * 1024.0 * 1024.0;
/// Its largest at the small (test) size: 64 MiB, past a CPU's caches, so a
/// software adapter's cliff shows.
pub const CACHE_SMALL: f64 = 64.0 * 1024.0 * 1024.0;
/// Invocations of the read kernel at most (256 Ki: enough to fill a big GPU); also
/// never more than the output buffer holds (one vec4 each).
pub const READ_THREADS: u64 = 256 * 1024;
/// Bytes one run of the read kernel reads at least: 256 MiB (8 MiB small), so a
/// dispatch over a small working set is long beside its launch.
pub const READ_FULL: f64 = 256.0 * 1024.0 * 1024.0;
pub const READ_SMALL: f64 = 8.0 * 1024.0 * 1024.0;

/// Preferred workgroup size (clamped to the adapter's limits).
pub const WORKGROUP: u32 = 256;

/// The adapter's limits that matter here.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub max_storage_binding: f64,
    pub max_buffer: f64,
    pub max_workgroups_per_dim: u32,
    pub max_invocations: u32,
    pub max_workgroup_size_x: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub small: bool,
    /// Workgroup size of the elementwise kernels.
    pub wg: u32,
    pub max_workgroups_per_dim: u32,
    /// Buffer size in bytes (each of the four work buffers).
    pub bytes: u64,
    /// Heavy variants may shrink their element count down to this (f32 elements).
    pub min_elements: u64,
    /// Timed trials per variant (the median is reported) after one warm-up.
    pub trials: u32,
    /// Aim for submissions of about this long (timer resolution ≪ this).
    pub chunk_target_s: f64,
    /// Never plan a submission longer than this (watchdogs fire at ~2 s; stay far away).
    pub chunk_max_s: f64,
    /// Rough cap on the time one variant may take (all trials).
    pub variant_budget_s: f64,
    /// How many more sets of trials a variant gets when its trials spread more
    /// than ±10 % (`results::NOISY_SPREAD`); the quietest set is kept, and one still
    /// that wide is marked noisy. Only noisy variants pay for it (at most
    /// `remeasure × trials` extra runs, on top of the budget above).
    pub remeasure: u32,
    /// The cache sweep's largest working set in bytes (its source buffer); 0: no
    /// sweep.
    pub cache_bytes: u64,
    /// Said on the page: sizes below the target and why.
    pub notes: Vec<String>,
}

/// A buffer size in words: "256 MiB", or "512 KiB" below 1 MiB (so a tiny limit
/// never reads as "0 MiB").
pub fn size_text(b: f64) -> String {
    if b < 1024.0 * 1024.0 {
        format!("{:.0} KiB", b / 1024.0)
    } else {
        format!("{:.0} MiB", b / (1024.0 * 1024.0))
    }
}

/// The plan for an adapter, or why its limits are too small.
pub fn plan(l: &Limits, small: bool) -> Result<Plan, String> {
    let wg_cap = l.max_invocations.min(l.max_workgroup_size_x).min(WORKGROUP);
    let wg = if wg_cap == 0 {
        0
    } else {
        1 << (31 - wg_cap.leading_zeros())
    };
    if wg < 32 {
        return Err(format!(
            "this adapter allows only {wg_cap} invocations per workgroup (need 32)"
        ));
    }
    let cap = l.max_storage_binding.min(l.max_buffer);
    let target = if small { SMALL_BYTES } else { FULL_BYTES };
    // each buffer must also be addressable by a 2D grid of workgroups
    let grid_cap = f64::from(l.max_workgroups_per_dim).powi(2) * f64::from(wg) * 16.0;
    let mut bytes = target.min(cap).min(grid_cap);
    // whole vec4s per workgroup and whole pattern periods are not required; keep
    // sizes multiples of 16 × wg so grids are exact
    let align = 16.0 * f64::from(wg);
    bytes = (bytes / align).floor() * align;
    if bytes.is_nan() || bytes < MIN_BYTES {
        return Err(format!(
            "this adapter allows buffers of only {} (need at least {})",
            size_text(cap),
            size_text(MIN_BYTES)
        ));
    }
    let mut notes = Vec::new();
    if small {
        notes.push(format!(
            "Small test size ({} per buffer): fast, but small buffers fit in caches and \
             short kernels are dominated by overhead.",
            size_text(bytes)
        ));
    }
    if bytes < target {
        notes.push(format!(
            "This adapter allows buffers of at most {}, so the lab uses {} instead of {}: \
             caches may flatter the bandwidth.",
            size_text(cap),
            size_text(bytes),
            size_text(target)
        ));
    }
    Ok(Plan {
        small,
        wg,
        max_workgroups_per_dim: l.max_workgroups_per_dim.max(1),
        bytes: bytes as u64,
        min_elements: if small { 16 * 1024 } else { 1024 * 1024 },
        trials: if small { 3 } else { 5 },
        chunk_target_s: if small { 0.004 } else { 0.02 },
        chunk_max_s: 0.04,
        variant_budget_s: if small { 0.4 } else { 6.0 },
        remeasure: if small { 1 } else { 2 },
        cache_bytes: {
            let want = if small { CACHE_SMALL } else { CACHE_FULL };
            let c = (want.min(cap) / 4096.0).floor() * 4096.0;
            if c >= CACHE_MIN as f64 {
                c as u64
            } else {
                0
            }
        },
        notes,
    })
}

/// The next step of a variant's calibration (also its warm-up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Calibration {
    /// One dispatch is far over budget (a slow GPU): use this many elements and
    /// calibrate again.
    Shrink(u64),
    /// A trial is long enough to time well: start the timed trials.
    Done,
    /// Too short: try again with this many runs per trial.
    Runs(u32),
}

impl Plan {
    /// After a calibration trial of `runs` runs took `t` seconds per run (a run =
    /// `dispatches` dispatches of `elements` elements): shrink a dispatch far over
    /// [`Plan::chunk_max_s`], else stop once a trial lasts half of
    /// [`Plan::chunk_target_s`] (or 4096 runs), else grow the runs 2–64×. Both
    /// drivers loop on this.
    pub fn calibrate(
        &self,
        dt: Dt,
        t: f64,
        runs: u32,
        elements: u64,
        dispatches: u32,
    ) -> Calibration {
        let t_dispatch = t / f64::from(dispatches.max(1));
        if t_dispatch > 2.0 * self.chunk_max_s && elements > self.min_elements {
            let n = self.elements_for(dt, t_dispatch / elements as f64, dispatches);
            if n < elements {
                return Calibration::Shrink(n);
            }
        }
        let trial_s = t * f64::from(runs);
        if trial_s >= self.chunk_target_s / 2.0 || runs >= 4096 {
            return Calibration::Done;
        }
        let grow = (self.chunk_target_s / trial_s.max(self.chunk_target_s / 64.0)).clamp(2.0, 64.0);
        Calibration::Runs(((f64::from(runs) * grow) as u32).min(4096))
    }

    /// The read kernel's invocations at most: [`READ_THREADS`], or what the
    /// output buffer holds, in whole workgroups.
    pub fn read_threads(&self) -> u64 {
        let wg = u64::from(self.wg.max(1));
        (READ_THREADS.min(self.bytes / 16) / wg * wg).max(wg)
    }

    /// The cache sweep's working sets in bytes, from [`CACHE_MIN`] to
    /// `cache_bytes`: powers of two at the small size, four per octave at full
    /// size; whole workgroups of vec4s, and above [`Plan::read_threads`] vec4s a
    /// multiple of them (so every invocation reads the same amount).
    pub fn cache_sizes(&self) -> Vec<u64> {
        let per_octave = if self.small { 1.0 } else { 4.0 };
        let grain = |b: f64| {
            let t = 16 * self.read_threads();
            let g = if b > t as f64 {
                t
            } else {
                16 * u64::from(self.wg.max(1))
            };
            ((b / g as f64).round() as u64).max(1) * g
        };
        let mut v: Vec<u64> = Vec::new();
        let mut k = 0.0;
        loop {
            let b = grain(CACHE_MIN as f64 * 2f64.powf(k / per_octave));
            if b > self.cache_bytes {
                break;
            }
            if v.last() != Some(&b) {
                v.push(b);
            }
            k += 1.0;
        }
        v
    }

    /// Passes over a working set of `ws` bytes per run: enough that one run reads
    /// [`READ_FULL`] ([`READ_SMALL`]), between 1 and 1024.
    pub fn read_passes(&self, ws: u64) -> u32 {
        let want = if self.small { READ_SMALL } else { READ_FULL };
        (want / ws.max(1) as f64).round().clamp(1.0, 1024.0) as u32
    }

    /// The read kernel's shape for a working set of `elements` f32 values and
    /// `passes`: (invocations, reads per invocation), invocations × reads =
    /// passes × vec4s.
    pub fn read_shape(&self, elements: u64, passes: u32) -> (u64, u32) {
        let n = (elements / 4).max(1);
        let t = self.read_threads().min(n);
        let reads = (u64::from(passes.max(1)) * n / t).min(u64::from(u32::MAX));
        (t, reads as u32)
    }

    /// Elements per buffer for `dt`.
    pub fn elements(&self, dt: Dt) -> u64 {
        self.bytes / dt.bytes()
    }

    /// Elements a variant should use, given the predicted seconds per element of
    /// one dispatch and how many dispatches make one run: the full buffer unless
    /// one dispatch would exceed `chunk_max_s` or all trials the variant budget;
    /// never below `min_elements`; a multiple of 4 · wg.
    pub fn elements_for(&self, dt: Dt, per_elem_dispatch_s: f64, dispatches: u32) -> u64 {
        let full = self.elements(dt);
        if !(per_elem_dispatch_s.is_finite() && per_elem_dispatch_s > 0.0) {
            return full;
        }
        let by_chunk = self.chunk_max_s / per_elem_dispatch_s;
        let runs = f64::from(self.trials + 2); // verification + warm-up + trials
        let by_budget =
            self.variant_budget_s / (per_elem_dispatch_s * f64::from(dispatches.max(1)) * runs);
        let want = by_chunk.min(by_budget).max(self.min_elements as f64);
        let align = 4 * u64::from(self.wg);
        let n = ((want as u64).min(full) / align) * align;
        n.max(align.min(full))
    }

    /// Workgroup grid (x, y) covering `elements` (4 per invocation).
    pub fn grid(&self, elements: u64) -> (u32, u32) {
        grid(elements, self.wg, self.max_workgroups_per_dim)
    }

    /// Runs per trial so one trial lasts about `chunk_target_s` (at least 1).
    pub fn runs_per_trial(&self, run_s: f64) -> u32 {
        if !(run_s.is_finite() && run_s > 0.0) {
            return 1;
        }
        (self.chunk_target_s / run_s).round().clamp(1.0, 4096.0) as u32
    }

    /// Dispatches per submission so one lasts at most about `chunk_max_s`.
    pub fn dispatches_per_submit(&self, dispatch_s: f64) -> u32 {
        if !(dispatch_s.is_finite() && dispatch_s > 0.0) {
            return 1;
        }
        (self.chunk_max_s / dispatch_s).floor().clamp(1.0, 8192.0) as u32
    }
}

/// Which bind group of a kernel each dispatch of a sequence uses: 0 A0→B0, 1 A1→B1,
/// 2 B0→B1, 3 B1→B0 ([`EMPTY`] for the empty kernel, which binds nothing).
pub const EMPTY: u8 = u8::MAX;
/// The read kernel's bind group: the cache sweep's source C → B0.
pub const READ_GROUP: u8 = 4;

/// The dispatches (bind-group indices) of `runs` runs of a variant, starting at
/// run `first_run`: runs alternate the input (A0/A1) and output (B0/B1) buffers so
/// no run reads what the previous one just wrote; an eager run's later steps
/// ping-pong between B0 and B1. The final output of run `u` of an eager chain of
/// `repeat` steps is in B[(u + repeat − 1) % 2]; of any other kernel in B[u % 2].
pub fn dispatch_sequence(kernel: Kernel, repeat: u32, first_run: u32, runs: u32) -> Vec<u8> {
    if kernel == Kernel::Read {
        // every run reads the same working set (the cache source, group 4)
        return vec![READ_GROUP; runs as usize];
    }
    let mut s = Vec::new();
    for u in first_run..first_run + runs {
        let p = (u % 2) as u8;
        s.push(p);
        if kernel == Kernel::Eager {
            for j in 1..repeat.max(1) {
                // step j reads B[(u + j − 1) % 2]: group 2 reads B0, group 3 reads B1
                s.push(if (u + j - 1) % 2 == 0 { 2 } else { 3 });
            }
        }
    }
    s
}

/// Predicts a variant's time from those measured before it, so heavy variants can
/// be sized before they run ([`Plan::elements_for`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Predictor {
    /// Seconds per element of one copy dispatch, per dtype (0 = unknown).
    copy: [f64; 2],
    /// Seconds per element per op, per (op, dtype): the fastest seen.
    per_op: Vec<((Op, Dt), f64)>,
}

fn dt_index(dt: Dt) -> usize {
    match dt {
        Dt::F32 => 0,
        Dt::F16 => 1,
    }
}

impl Predictor {
    /// Forget the copy time of `dt` (before probing it again).
    pub fn forget_copy(&mut self, dt: Dt) {
        self.copy[dt_index(dt)] = 0.0;
    }

    /// Predicted seconds per element of one dispatch of a variant: at least a copy,
    /// and `ops` times the fastest op time seen (an eager dispatch does one op).
    pub fn predict(&self, kernel: Kernel, op: Option<Op>, dt: Dt, repeat: u32) -> f64 {
        let copy = self.copy[dt_index(dt)];
        let Some(op) = op else {
            // the read kernel reads `repeat` times what a copy reads and writes once
            return match kernel {
                Kernel::Read => copy * f64::from(repeat.max(1)) / 2.0,
                _ => copy,
            };
        };
        let per_op = self
            .per_op
            .iter()
            .find(|(k, _)| *k == (op, dt))
            .map_or(copy, |p| p.1);
        let ops = if kernel == Kernel::Eager { 1 } else { repeat };
        copy.max(per_op * f64::from(ops))
    }

    /// Learn from a measurement (copy: per element; fused: per element per op).
    pub fn learn(&mut self, m: &Measurement) {
        let Some(pe) = m.time_per_element() else {
            return;
        };
        match (m.kernel, m.op) {
            (Kernel::Copy, _) => self.copy[dt_index(m.dt)] = pe,
            (Kernel::Fused, Some(op)) if m.repeat > 0 => {
                let per_op = pe / f64::from(m.repeat);
                match self.per_op.iter_mut().find(|(k, _)| *k == (op, m.dt)) {
                    Some(p) => p.1 = p.1.min(per_op),
                    None => self.per_op.push(((op, m.dt), per_op)),
                }
            }
            _ => {}
        }
    }
}

pub fn grid(elements: u64, wg: u32, max_per_dim: u32) -> (u32, u32) {
    let invocations = elements.div_ceil(4);
    let groups = invocations.div_ceil(u64::from(wg.max(1))).max(1);
    let x = groups.min(u64::from(max_per_dim.max(1)));
    let y = groups.div_ceil(x);
    (x as u32, y.min(u64::from(u32::MAX)) as u32)
}

/// The elements read back to verify a variant of `elements`: up to 8 runs of 1024
/// spread over the buffer, the first at 0 and the last ending at the end (so
/// indexing of the whole grid is checked). Ranges are (start, len), multiples of 4.
pub fn sample_ranges(elements: u64) -> Vec<(u64, u64)> {
    const RUN: u64 = 1024;
    const RUNS: u64 = 8;
    if elements <= RUN * RUNS {
        return vec![(0, elements)];
    }
    let last = elements - RUN;
    (0..RUNS)
        .map(|k| (((last * k / (RUNS - 1)) / 4 * 4), RUN))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_limits() -> Limits {
        Limits {
            max_storage_binding: 128.0 * 1024.0 * 1024.0,
            max_buffer: 256.0 * 1024.0 * 1024.0,
            max_workgroups_per_dim: 65535,
            max_invocations: 256,
            max_workgroup_size_x: 256,
        }
    }

    #[test]
    fn full_size_needs_higher_limits() {
        let p = plan(&default_limits(), false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.bytes, 128 * 1024 * 1024);
        assert_eq!(p.notes.len(), 1, "a note says the size is reduced");
        let big = Limits {
            max_storage_binding: 4e9,
            max_buffer: 4e9,
            ..default_limits()
        };
        let p = plan(&big, false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.bytes as f64, FULL_BYTES);
        assert!(p.notes.is_empty());
        assert_eq!(p.elements(Dt::F32), 64 * 1024 * 1024);
        assert_eq!(p.elements(Dt::F16), 128 * 1024 * 1024);
        let s = plan(&big, true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.bytes as f64, SMALL_BYTES);
        assert_eq!(s.notes.len(), 1);
    }

    #[test]
    fn small_limits_are_reported() {
        let tiny = Limits {
            max_storage_binding: 65536.0,
            ..default_limits()
        };
        assert!(plan(&tiny, false).is_err());
        let narrow = Limits {
            max_invocations: 16,
            ..default_limits()
        };
        assert!(plan(&narrow, false).is_err());
        // compatibility-mode adapters (128 invocations) still work
        let compat = Limits {
            max_invocations: 128,
            max_workgroup_size_x: 128,
            ..default_limits()
        };
        assert_eq!(plan(&compat, false).map(|p| p.wg), Ok(128));
        // a non-power-of-two limit rounds down
        let odd = Limits {
            max_invocations: 200,
            ..default_limits()
        };
        assert_eq!(plan(&odd, false).map(|p| p.wg), Ok(128));
    }

    #[test]
    fn tiny_limits_are_said_in_kib() {
        let half_mib = Limits {
            max_storage_binding: 512.0 * 1024.0,
            ..default_limits()
        };
        // the small test size is cut too, and the note says so
        let p = plan(&half_mib, true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.bytes, 512 * 1024);
        assert_eq!(p.notes.len(), 2, "{:?}", p.notes);
        assert!(p.notes[0].contains("(512 KiB per buffer)"), "{:?}", p.notes);
        assert!(
            p.notes[1].contains("at most 512 KiB, so the lab uses 512 KiB instead of 1 MiB"),
            "{:?}",
            p.notes
        );
        let tiny = Limits {
            max_buffer: 128.0 * 1024.0,
            ..default_limits()
        };
        assert_eq!(
            plan(&tiny, true),
            Err("this adapter allows buffers of only 128 KiB (need at least 256 KiB)".into())
        );
        assert_eq!(size_text(256.0 * 1024.0 * 1024.0), "256 MiB");
    }

    #[test]
    fn grids_cover_the_buffer() {
        assert_eq!(grid(1024, 256, 65535), (1, 1));
        assert_eq!(grid(1025, 256, 65535), (2, 1));
        // 64 Mi f32 = 16 Mi invocations = 65536 groups: needs a second row
        let (x, y) = grid(64 << 20, 256, 65535);
        assert!(u64::from(x) * u64::from(y) * 256 * 4 >= 64 << 20);
        assert_eq!((x, y), (65535, 2));
    }

    #[test]
    fn heavy_variants_shrink_within_bounds() {
        let big = Limits {
            max_storage_binding: 4e9,
            max_buffer: 4e9,
            ..default_limits()
        };
        let p = plan(&big, false).unwrap_or_else(|e| panic!("{e}"));
        let full = p.elements(Dt::F32);
        // a fast GPU: 1 ns per 100 elements → full size
        assert_eq!(p.elements_for(Dt::F32, 1e-11, 1), full);
        // a kernel of 10 ns per element would take 0.67 s per dispatch: shrink
        let n = p.elements_for(Dt::F32, 1e-8, 1);
        assert!(n < full && n as f64 * 1e-8 <= p.chunk_max_s * 1.001, "{n}");
        assert_eq!(n % (4 * 256), 0);
        // but never below the floor
        assert_eq!(p.elements_for(Dt::F32, 1.0, 1024), p.min_elements);
        // eager chains of many dispatches respect the variant budget
        let e = p.elements_for(Dt::F32, 1e-10, 1024);
        assert!(
            e as f64 * 1e-10 * 1024.0 * 7.0 <= p.variant_budget_s * 1.001,
            "{e}"
        );
        assert_eq!(p.elements_for(Dt::F32, f64::NAN, 1), full);
    }

    #[test]
    fn chunking() {
        let p = plan(&default_limits(), false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.runs_per_trial(1e-3), 20);
        assert_eq!(p.runs_per_trial(1.0), 1);
        assert_eq!(p.runs_per_trial(0.0), 1);
        assert_eq!(p.dispatches_per_submit(1e-3), 40);
        assert_eq!(p.dispatches_per_submit(1.0), 1);
        assert_eq!(p.dispatches_per_submit(1e-9), 8192);
    }

    #[test]
    fn calibration_steps() {
        let big = Limits {
            max_storage_binding: 4e9,
            max_buffer: 4e9,
            ..default_limits()
        };
        let p = plan(&big, false).unwrap_or_else(|e| panic!("{e}"));
        let full = p.elements(Dt::F32);
        // 1 µs per run: grow 64× at most
        assert_eq!(
            p.calibrate(Dt::F32, 1e-6, 1, full, 1),
            Calibration::Runs(64)
        );
        // 1 ms per run, 4 runs: 4 ms < 10 ms → grow 5×
        assert_eq!(
            p.calibrate(Dt::F32, 1e-3, 4, full, 1),
            Calibration::Runs(20)
        );
        // 12 ms per run: long enough
        assert_eq!(p.calibrate(Dt::F32, 12e-3, 1, full, 1), Calibration::Done);
        assert_eq!(p.calibrate(Dt::F32, 1e-9, 4096, full, 1), Calibration::Done);
        // a dispatch of 1 s: shrink below the chunk limit
        match p.calibrate(Dt::F32, 1.0, 1, full, 1) {
            Calibration::Shrink(n) => assert!(n < full && n as f64 / full as f64 <= 0.04 * 1.01),
            c => panic!("{c:?}"),
        }
        // …but never below the floor
        assert_eq!(
            p.calibrate(Dt::F32, 1.0, 1, p.min_elements, 1),
            Calibration::Done
        );
    }

    #[test]
    fn sweep_order_and_kernels() {
        let s = sweep();
        // x·m and cos fused and eager, fma fused only
        assert_eq!(s.len(), 2 * 2 * 11 + 11);
        assert_eq!(s[0], (Kernel::Fused, Op::Mul, 1));
        assert_eq!(s[1], (Kernel::Eager, Op::Mul, 1));
        assert_eq!(s[22], (Kernel::Fused, Op::Cos, 1));
        assert!(s[44..]
            .iter()
            .all(|v| v.0 == Kernel::Fused && v.1 == Op::Fma));
        assert_eq!(s[54], (Kernel::Fused, Op::Fma, 1024));
    }

    #[test]
    fn sequences_alternate_buffers() {
        assert_eq!(dispatch_sequence(Kernel::Fused, 8, 0, 3), vec![0, 1, 0]);
        // eager ×3, run 0: A0→B0, B0→B1, B1→B0; run 1: A1→B1, B1→B0, B0→B1
        assert_eq!(
            dispatch_sequence(Kernel::Eager, 3, 0, 2),
            vec![0, 2, 3, 1, 3, 2]
        );
    }

    #[test]
    fn predictions_learn_from_copies_and_chains() {
        use crate::gpu::results::Check;
        let mut p = Predictor::default();
        assert_eq!(p.predict(Kernel::Fused, Some(Op::Mul), Dt::F32, 8), 0.0);
        let m = |kernel, op, repeat, t| Measurement {
            kernel,
            op,
            dt: Dt::F32,
            repeat,
            elements: 1000,
            remeasured: 0,
            times: vec![t],
            check: Check::Passed {
                max_err: 0.0,
                samples: 1,
            },
        };
        p.learn(&m(Kernel::Copy, None, 0, 1e-6));
        let copy = p.predict(Kernel::Copy, None, Dt::F32, 0);
        assert!((copy / 1e-9 - 1.0).abs() < 1e-12, "{copy}");
        // before any chain of the op, each op is predicted to cost a copy
        assert_eq!(
            p.predict(Kernel::Fused, Some(Op::Fma), Dt::F32, 64),
            64.0 * copy
        );
        p.learn(&m(Kernel::Fused, Some(Op::Fma), 1024, 1e-4));
        let per_op = 1e-4 / 1000.0 / 1024.0;
        assert!(
            (p.predict(Kernel::Fused, Some(Op::Fma), Dt::F32, 512) / (512.0 * per_op) - 1.0).abs()
                < 1e-12
        );
        // eager dispatches do one op each; f16 knows nothing yet
        assert_eq!(p.predict(Kernel::Eager, Some(Op::Fma), Dt::F32, 512), copy);
        assert_eq!(p.predict(Kernel::Copy, None, Dt::F16, 0), 0.0);
        p.forget_copy(Dt::F32);
        assert_eq!(p.predict(Kernel::Copy, None, Dt::F32, 0), 0.0);
    }

    #[test]
    fn cache_sizes_span_64_kib_to_the_largest_buffer() {
        let big = Limits {
            max_storage_binding: 4e9,
            max_buffer: 4e9,
            ..default_limits()
        };
        let small = plan(&big, true).unwrap_or_else(|e| panic!("{e}"));
        let s = small.cache_sizes();
        // the test size still spans 64 KiB … 64 MiB, powers of two
        assert_eq!(s.len(), 11, "{s:?}");
        assert_eq!(s[0], 64 * 1024);
        assert_eq!(*s.last().unwrap_or(&0), 64 << 20);
        let full = plan(&big, false).unwrap_or_else(|e| panic!("{e}"));
        let f = full.cache_sizes();
        assert_eq!(*f.last().unwrap_or(&0), 1 << 30);
        assert!(f.len() > 50 && f.windows(2).all(|w| w[0] < w[1]), "{f:?}");
        // every size gives every invocation the same number of reads
        for p in [&small, &full] {
            for &ws in &p.cache_sizes() {
                let passes = p.read_passes(ws);
                let (t, r) = p.read_shape(ws / 4, passes);
                assert_eq!(t * u64::from(r), u64::from(passes) * ws / 16, "{ws}");
                assert_eq!(t % 256, 0);
                assert!(t <= p.bytes / 16);
                assert!(u64::from(passes) * ws >= 8 << 20 || passes == 1024);
            }
        }
        // the adapter's largest buffer bounds the sweep
        let p = plan(&default_limits(), false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.cache_bytes, 128 << 20);
        assert_eq!(dispatch_sequence(Kernel::Read, 8, 0, 3), vec![4, 4, 4]);
    }

    #[test]
    fn samples() {
        assert_eq!(sample_ranges(100), vec![(0, 100)]);
        let s = sample_ranges(64 << 20);
        assert_eq!(s.len(), 8);
        assert_eq!(s[0], (0, 1024));
        assert_eq!(s[7].0 + s[7].1, 64 << 20);
        assert!(s.iter().all(|(a, n)| a % 4 == 0 && n % 4 == 0));
        assert!(s.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0));
    }
}
