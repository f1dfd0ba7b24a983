//! How big and how long: buffer sizes from the adapter's limits, the repeats to
//! sweep, the time budgets that keep every submission well under a GPU watchdog,
//! and how work is cut into submissions.

use super::results::Dt;

/// The essay's sweep: 1, 2, 4, … 1024 ops per element.
pub const REPEATS: [u32; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// Per buffer at full size: 256 MiB (64 Mi f32), far beyond any GPU's L2 cache.
pub const FULL_BYTES: f64 = 256.0 * 1024.0 * 1024.0;
/// Per buffer at the small (test) size: 1 MiB.
pub const SMALL_BYTES: f64 = 1024.0 * 1024.0;
/// Below this per-buffer size the lab does not run ("limits too small").
pub const MIN_BYTES: f64 = 256.0 * 1024.0;
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
        notes,
    })
}

impl Plan {
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
