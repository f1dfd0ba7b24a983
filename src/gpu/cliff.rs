//! The cache cliff: from the cache sweep's (working set, bandwidth) points, the
//! plateaus, where the fast one ends, and the sentence that says so. Pure.
//!
//! How the plateaus are found (robust to noise, to a rising start where small
//! working sets cannot fill the device, and to single outliers):
//! 1. the points, by size, are cut into runs: a point joins the current run while
//!    it lies within [`TOL`] of the run's median, else it starts a new one;
//! 2. neighbouring runs at one level (medians within [`TOL`]) become one (noise
//!    can cut a plateau in two), and a run of one point between two runs at one
//!    level is an outlier: the three become one run;
//! 3. a plateau is a run of at least [`min_points`] points; the fast plateau is
//!    the plateau with the highest median (a rising start never is one: each of
//!    its points starts its own run);
//! 4. the next level is the first plateau after the fast one (else the last run),
//!    and a cliff needs it at least [`CLIFF`]× lower;
//! 5. the fast plateau ends where the curve first falls below the geometric mean
//!    of the two levels, interpolated in log-log between the two points around it
//!    (a cache of C bytes serves about half the traffic at that point, and the
//!    stored curves in `tests/data/l2-cache.json` put it within 10 % of the
//!    vendors' L2 sizes).

use super::results::{AdapterInfo, Kernel, LabRun};
use crate::model::units;

/// A point joins a run while within ±15 % of the run's median.
pub const TOL: f64 = 0.15;
/// A cliff: the next level at least 1.25× lower than the fast plateau.
pub const CLIFF: f64 = 1.25;

/// One level: the working sets it spans (bytes) and its median bandwidth (B/s).
#[derive(Clone, Debug, PartialEq)]
pub struct Plateau {
    pub from: f64,
    pub to: f64,
    pub bw: f64,
    pub points: usize,
}

/// What the sweep shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Cliff {
    /// Every plateau, by size.
    pub plateaus: Vec<Plateau>,
    /// Which of them is the fast one.
    pub fast: usize,
    /// The fast plateau's bandwidth (`lab_cache_bw`).
    pub cache_bw: f64,
    /// The working set where the fast plateau ends (`lab_cache_bytes`); `None`
    /// when the curve never falls off within the sizes measured.
    pub cache_bytes: Option<f64>,
    /// The level at the largest working sets (`lab_mem_bw`); `None` without a cliff.
    pub mem_bw: Option<f64>,
    /// The smallest and largest working sets measured.
    pub span: (f64, f64),
    /// The fastest point below the fast plateau's sizes, where it reads faster
    /// than the plateau beyond noise (a smaller cache seen at too few sizes to
    /// make a plateau): (working set, bandwidth).
    pub above: Option<(f64, f64)>,
}

/// The fewest points a plateau needs: 2, or one in twelve of a long sweep.
pub fn min_points(n: usize) -> usize {
    (n / 12).max(2)
}

fn median(v: &[f64]) -> f64 {
    crate::gpu::results::median(v).unwrap_or(f64::NAN)
}

fn near(x: f64, level: f64) -> bool {
    (x - level).abs() <= TOL * level
}

/// Runs of points (index ranges) by the rules 1 and 2 above.
fn runs(bw: &[f64]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..bw.len() {
        if !near(bw[i], median(&bw[start..=i])) {
            runs.push((start, i));
            start = i;
        }
    }
    if !bw.is_empty() {
        runs.push((start, bw.len()));
    }
    // neighbours at one level become one run (noise can cut a plateau in two),
    // then an outlier (one point between two runs at one level) joins them
    let level = |r: (usize, usize)| median(&bw[r.0..r.1]);
    loop {
        if let Some(k) = (1..runs.len()).find(|&k| near(level(runs[k]), level(runs[k - 1]))) {
            runs[k - 1].1 = runs[k].1;
            runs.remove(k);
            continue;
        }
        let outlier = (1..runs.len().saturating_sub(1))
            .find(|&k| runs[k].1 - runs[k].0 == 1 && near(level(runs[k + 1]), level(runs[k - 1])));
        match outlier {
            Some(k) => {
                runs[k - 1].1 = runs[k + 1].1;
                runs.drain(k..=k + 1);
            }
            None => break,
        }
    }
    runs
}

/// The plateaus and the cliff of a curve of (working set bytes, bandwidth B/s)
/// points, in any order; `None` with fewer than 3 usable points.
pub fn find(points: &[(f64, f64)]) -> Option<Cliff> {
    let mut p: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|&(b, w)| b.is_finite() && b > 0.0 && w.is_finite() && w > 0.0)
        .collect();
    if p.len() < 3 {
        return None;
    }
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    let bw: Vec<f64> = p.iter().map(|q| q.1).collect();
    let runs = runs(&bw);
    let level = |r: (usize, usize)| median(&bw[r.0..r.1]);
    let min = min_points(p.len());
    let is_plateau = |r: &(usize, usize)| r.1 - r.0 >= min;
    let fast_run = runs
        .iter()
        .copied()
        .filter(is_plateau)
        .max_by(|a, b| level(*a).total_cmp(&level(*b)))
        // no run long enough: the longest
        .or_else(|| runs.iter().copied().max_by_key(|r| r.1 - r.0))?;
    let after: Vec<(usize, usize)> = runs.iter().copied().filter(|r| r.0 >= fast_run.1).collect();
    let next = after
        .iter()
        .copied()
        .find(is_plateau)
        .or_else(|| after.last().copied());
    let fast_bw = level(fast_run);
    // a cliff only where the largest working sets stay below the fast plateau
    // too: a curve that falls and climbs back (a noisy software adapter) has none
    let last = after.last().copied();
    let (cache_bytes, mem_bw) = match (next, last) {
        (Some(n), Some(last)) if level(n) * CLIFF <= fast_bw && level(last) * CLIFF <= fast_bw => {
            let mid = (fast_bw * level(n)).sqrt();
            let cross = crossing(&p, fast_run.1 - 1, mid);
            (cross, Some(level(last)))
        }
        _ => (None, None),
    };
    let plateaus: Vec<Plateau> = runs
        .iter()
        .copied()
        .filter(|r| is_plateau(r) || *r == fast_run || Some(*r) == after.last().copied())
        .map(|r| Plateau {
            from: p[r.0].0,
            to: p[r.1 - 1].0,
            bw: level(r),
            points: r.1 - r.0,
        })
        .collect();
    let fast = plateaus
        .iter()
        .position(|q| q.from == p[fast_run.0].0)
        .unwrap_or(0);
    let above = p[..fast_run.0]
        .iter()
        .copied()
        .filter(|q| q.1 > (1.0 + TOL) * fast_bw)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    Some(Cliff {
        above,
        plateaus,
        fast,
        cache_bw: fast_bw,
        cache_bytes,
        mem_bw,
        span: (p[0].0, p[p.len() - 1].0),
    })
}

/// Where the curve, from point `from` on, first falls below `mid`: log-log
/// interpolated between the points on either side.
fn crossing(p: &[(f64, f64)], from: usize, mid: f64) -> Option<f64> {
    let i = (from + 1..p.len()).find(|&i| p[i].1 < mid)?;
    let (b0, w0) = p[i - 1];
    let (b1, w1) = p[i];
    let f = if w0 > w1 {
        ((w0 / mid).ln() / (w0 / w1).ln()).clamp(0.0, 1.0)
    } else {
        1.0
    };
    Some((b0.ln() + f * (b1 / b0).ln()).exp())
}

/// The cache sweep of a run: (working set bytes, achieved B/s) of every verified
/// working set, by size.
pub fn points(run: &LabRun) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = run
        .measurements
        .iter()
        .filter(|m| m.kernel == Kernel::Read && m.usable())
        .filter_map(|m| Some((m.working_set(), m.achieved_bw()?)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// A software adapter, whose caches are the CPU's: flagged as a fallback, or
/// named as one of the CPU rasterisers (SwiftShader, llvmpipe/lavapipe).
pub fn software(a: &AdapterInfo) -> bool {
    let name = a.name().to_lowercase();
    a.fallback
        || ["swiftshader", "llvmpipe", "lavapipe"]
            .iter()
            .any(|s| name.contains(s))
}

/// [`words`] for a run's own sweep and adapter; `None` without a sweep.
pub fn of_run(run: &LabRun) -> Option<(Cliff, String)> {
    let c = find(&points(run))?;
    let w = words(&c, &run.adapter.name(), software(&run.adapter));
    Some((c, w))
}

fn bw(x: f64) -> String {
    units::si(x, "B/s")
}

fn size(x: f64) -> String {
    units::si(x, "B")
}

/// The cliff in words, naming the device measured: "about 9.9 TB/s up to 48 MB,
/// then 3.89 TB/s: …". `software`: a software adapter (SwiftShader, lavapipe),
/// whose cliff is the CPU's caches.
pub fn words(c: &Cliff, device: &str, software: bool) -> String {
    let mut what = if software {
        format!(
            "The adapter measured, {device}, is a software adapter running on the CPU, so these \
             are the CPU's caches, not a GPU's."
        )
    } else {
        format!("Measured on {device}.")
    };
    if let Some((b, w)) = c.above {
        what = format!(
            "Smaller working sets read faster still ({} at {}): a smaller cache, seen at too few \
             sizes to make a plateau. {what}",
            bw(w),
            size(b)
        );
    }
    let Some(at) = c.cache_bytes else {
        return format!(
            "About {} at every working set from {} to {}: no cache cliff within the sizes \
             measured (the fast level is larger than {}, or there is none). {what}",
            bw(c.cache_bw),
            size(c.span.0),
            size(c.span.1),
            size(c.span.1)
        );
    };
    let mut s = format!("About {} up to {}", bw(c.cache_bw), size(at));
    let later = &c.plateaus[(c.fast + 1).min(c.plateaus.len())..];
    for (k, q) in later.iter().enumerate() {
        if k + 1 == later.len() {
            s.push_str(&format!(", then {}", bw(c.mem_bw.unwrap_or(q.bw))));
        } else {
            s.push_str(&format!(", then {} up to {}", bw(q.bw), size(q.to)));
        }
    }
    if later.is_empty() {
        if let Some(m) = c.mem_bw {
            s.push_str(&format!(", then {}", bw(m)));
        }
    }
    let level = if software {
        "the cache behind this plateau"
    } else {
        "this GPU's last-level cache (L2 on NVIDIA GPUs)"
    };
    format!(
        "{s}: {level} holds about {} ({}× faster than beyond it). {what}",
        size(at),
        units::sig3(c.cache_bw / c.mem_bw.unwrap_or(c.cache_bw))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Powers of two from 64 KiB, one bandwidth each.
    fn curve(bws: &[f64]) -> Vec<(f64, f64)> {
        bws.iter()
            .enumerate()
            .map(|(i, &w)| (65536.0 * 2f64.powi(i as i32), w))
            .collect()
    }

    #[test]
    fn one_cliff() {
        let c = find(&curve(&[100., 100., 100., 100., 100., 25., 25., 25.])).unwrap();
        assert_eq!(c.cache_bw, 100.0);
        assert_eq!(c.mem_bw, Some(25.0));
        // between 1 MiB (100) and 2 MiB (25): the geometric mean 50 is half way,
        // in log-log, at √2 MiB
        let at = c.cache_bytes.unwrap();
        assert!((at / (2f64.sqrt() * 1048576.0) - 1.0).abs() < 1e-9, "{at}");
        assert_eq!(c.plateaus.len(), 2);
        let w = words(&c, "SwiftShader", true);
        assert!(
            w.starts_with("About 100 B/s up to 1.48 MB, then 25 B/s: "),
            "{w}"
        );
        assert!(w.contains("CPU's caches"), "{w}");
        assert_eq!(c.above, None);
        // a faster point too few to make a plateau is said, not hidden
        let c = find(&curve(&[300., 100., 100., 100., 100., 25., 25., 25.])).unwrap();
        assert_eq!((c.cache_bw, c.above), (100.0, Some((65536.0, 300.0))));
        let w = words(&c, "SwiftShader", true);
        assert!(
            w.contains("Smaller working sets read faster still (300 B/s at 65.5 kB)"),
            "{w}"
        );
    }

    #[test]
    fn two_cliffs_name_the_fast_one_and_both_drops() {
        let c = find(&curve(&[
            9e11, 9e11, 9e11, 9e11, 4e11, 4e11, 4e11, 4e11, 1e11, 1e11, 1e11,
        ]))
        .unwrap();
        assert_eq!(c.cache_bw, 9e11);
        assert_eq!(c.mem_bw, Some(1e11));
        let at = c.cache_bytes.unwrap();
        assert!(at > 512.0 * 1024.0 && at < 1048576.0, "{at}");
        let w = words(&c, "NVIDIA H100", false);
        assert!(
            w.contains("then 400 GB/s up to 8.39 MB, then 100 GB/s"),
            "{w}"
        );
        assert!(w.contains("Measured on NVIDIA H100."), "{w}");
    }

    #[test]
    fn no_cliff() {
        let c = find(&curve(&[50., 52., 49., 51., 50., 48.])).unwrap();
        assert_eq!(c.cache_bytes, None);
        assert_eq!(c.mem_bw, None);
        assert!(words(&c, "x", false).contains("no cache cliff"));
    }

    #[test]
    fn a_curve_that_falls_and_climbs_back_has_no_cliff() {
        // a dip mid-sweep, then the largest working sets read as fast as the
        // smallest (seen on SwiftShader): no memory level slower than the cache
        let c = find(&curve(&[
            100., 101., 99., 100., 60., 61., 59., 60., 104., 103., 105., 104.,
        ]))
        .unwrap();
        assert_eq!(c.cache_bytes, None);
        assert_eq!(c.mem_bw, None);
    }

    #[test]
    fn noise_and_an_outlier_do_not_move_the_cliff() {
        // ±8 % alternating noise, one point at twice the level mid-plateau
        let mut v = vec![];
        for i in 0..24 {
            let base = if i < 14 { 1000.0 } else { 300.0 };
            let noise = if i % 2 == 0 { 1.08 } else { 0.93 };
            v.push(base * noise);
        }
        v[6] = 2000.0;
        let c = find(&curve(&v)).unwrap();
        assert!((c.cache_bw / 1000.0 - 1.0).abs() < 0.1, "{c:?}");
        assert!((c.mem_bw.unwrap() / 300.0 - 1.0).abs() < 0.1, "{c:?}");
        let at = c.cache_bytes.unwrap();
        let edge = 65536.0 * 2f64.powi(13);
        assert!(at >= edge && at <= 2.0 * edge, "{at} {edge}");
    }

    #[test]
    fn a_rising_start_is_not_the_fast_plateau() {
        // launch overhead: small working sets cannot fill the device
        let c = find(&curve(&[
            5., 10., 20., 40., 80., 100., 100., 100., 30., 30., 30.,
        ]))
        .unwrap();
        assert!((c.cache_bw - 100.0).abs() < 10.0, "{c:?}");
        let at = c.cache_bytes.unwrap();
        assert!(at > 65536.0 * 128.0 && at < 65536.0 * 256.0, "{at}");
        assert_eq!(c.mem_bw, Some(30.0));
    }

    #[test]
    fn lavapipe_s_curve_has_its_cliff_past_16_mib() {
        // brrr-lab's small cache sweep on lavapipe (llvmpipe, Mesa 22.3.6) on this
        // project's 2-core test machine, 2026-12-07: flat with noise to 16 MiB, then
        // falling; a noisy dip at 512 KiB once cut the plateau in two
        let c = find(&curve(&[
            4.597e9, 5.881e9, 4.698e9, 3.435e9, 4.569e9, 4.615e9, 4.460e9, 4.455e9, 4.303e9,
            1.821e9, 0.648e9,
        ]))
        .unwrap();
        assert!((c.cache_bw / 4.5e9 - 1.0).abs() < 0.05, "{c:?}");
        let at = c.cache_bytes.unwrap_or(0.0);
        assert!(at > 16.0 * 1048576.0 && at < 64.0 * 1048576.0, "{c:?}");
        assert_eq!(c.mem_bw, Some(0.648e9));
    }

    #[test]
    fn too_few_points_find_nothing() {
        assert_eq!(find(&[(1.0, 1.0), (2.0, f64::NAN)]), None);
    }
}
