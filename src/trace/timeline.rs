//! The busiest second of a trace as lanes of spans, for the page's timeline:
//! every GPU stream with activity then, and the CPU thread that launched most.
//!
//! - **The window** is the 1-second window (from the HTA span's start to its end)
//!   holding the most GPU-busy time, busy meaning covered by the union of the
//!   kernels, memcpys and memsets of all streams; the whole span when it is
//!   shorter than [`WINDOW_S`]. Ties go to the earliest window.
//! - **Lanes**: one per (device, stream) with an activity overlapping the window,
//!   by device then stream, then one for the CPU thread with the most launch calls
//!   in the window, its launch calls as spans of class `launch`. A launch call is
//!   a `cuda_runtime` / `cuda_driver` (or HIP) event whose correlation id is a
//!   kernel's, memcpy's or memset's (`cudaLaunchKernel`, `cudaMemcpyAsync`; not
//!   `cudaEventRecord` or `cudaStreamIsCapturing`).
//! - **Spans** are `[start_s, dur_s, class, name]`: seconds from the span's start
//!   (not clipped to the window), an index into [`TimelineRow::classes`] and one
//!   into [`TimelineRow::names`].
//! - **The cap**: over [`MAX_SPANS`] spans in all, neighbouring spans of one class
//!   in a lane are merged where the gap between them is under window / 20 000
//!   (then twice that, and so on up to the window; past that, of any class, the
//!   merged span taking the class of its longest member). A merged span runs from
//!   its first start to its last end and is named after its longest member;
//!   [`TimelineRow::merged`] says it happened.

use super::breakdown::{hta_times, Activity};
use super::classify::{is_gpu_cat, kernel_class, KernelClass};
use super::parse::Trace;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The window's length, s.
pub const WINDOW_S: f64 = 1.0;
/// At most this many spans in all lanes together.
pub const MAX_SPANS: usize = 20_000;
/// The class id of a CPU launch call (after the kernel classes).
pub const LAUNCH: &str = "launch";

/// The timeline (`timeline` in the JSON row).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimelineRow {
    /// The window, s from the span's start (HTA's first GPU activity).
    pub start_s: f64,
    pub end_s: f64,
    /// Class ids: [`KernelClass::ALL`]'s, then [`LAUNCH`].
    pub classes: Vec<String>,
    /// Kernel and call names the spans refer to.
    pub names: Vec<String>,
    pub lanes: Vec<LaneRow>,
    /// Whether spans were merged to stay under [`MAX_SPANS`].
    pub merged: bool,
}

/// One lane: a GPU stream or the launching CPU thread.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LaneRow {
    /// e.g. "GPU 0 · stream 7", "CPU thread 1234 (launches)".
    pub label: String,
    /// "gpu" or "cpu".
    pub kind: String,
    /// `[start_s, dur_s, class index, name index]`, by start.
    pub spans: Vec<[f64; 4]>,
    /// Where spans were merged (the cap): each span's busy time, s (Σ its
    /// members' durations; a merged span is that busy, not solid); empty
    /// when nothing in the lane was merged.
    #[serde(default)]
    pub busy: Vec<f64>,
}

fn class_index(c: KernelClass) -> usize {
    KernelClass::ALL.iter().position(|k| *k == c).unwrap_or(0)
}

/// The start (µs) of the window of length `w` within `[lo, hi]` that holds
/// the most of the sorted, disjoint intervals `iv`.
pub fn busiest_window(iv: &[(f64, f64)], lo: f64, hi: f64, w: f64) -> f64 {
    if hi - lo <= w {
        return lo;
    }
    // prefix sums of covered time
    let mut pre = Vec::with_capacity(iv.len() + 1);
    pre.push(0.0);
    for (s, e) in iv {
        pre.push(pre.last().copied().unwrap_or(0.0) + (e - s));
    }
    // covered time in [0, x): whole intervals before x plus the part of the one
    // containing it
    let upto = |x: f64| {
        let k = iv.partition_point(|(s, _)| *s < x);
        let whole = pre.get(k).copied().unwrap_or(0.0);
        match k.checked_sub(1).and_then(|j| iv.get(j)) {
            Some((s, e)) if *e > x => whole - (e - x.max(*s)),
            _ => whole,
        }
    };
    // an optimal window starts at an interval's start or ends at an interval's end
    let candidates = iv
        .iter()
        .flat_map(|(s, e)| [*s, e - w])
        .map(|x| x.clamp(lo, hi - w));
    let mut best = (f64::NEG_INFINITY, lo);
    for x in std::iter::once(lo).chain(candidates) {
        let c = upto(x + w) - upto(x);
        if c > best.0 + 1e-9 || (c > best.0 - 1e-9 && x < best.1) {
            best = (c, x);
        }
    }
    best.1
}

/// A span being built: start, end (µs), class, name id (interned), length of its
/// longest member.
#[derive(Clone, Copy)]
struct Raw {
    ts: f64,
    end: f64,
    class: usize,
    name: u32,
    longest: f64,
    /// Σ its members' durations (its own duration until merged).
    busy: f64,
}

/// Merges neighbours in a lane sorted by start (see the module doc).
fn merge_lane(spans: &[Raw], gap: f64, any_class: bool) -> Vec<Raw> {
    let mut out: Vec<Raw> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(m) if (any_class || m.class == s.class) && s.ts - m.end < gap => {
                if s.end - s.ts > m.longest {
                    m.longest = s.end - s.ts;
                    m.name = s.name;
                    m.class = s.class;
                }
                m.end = m.end.max(s.end);
                m.busy += s.busy;
            }
            _ => out.push(*s),
        }
    }
    out
}

/// A lane: its label, kind and spans.
type Lane = (String, &'static str, Vec<Raw>);

/// The CPU thread with the most launch calls in the window (`inside`), as a lane.
fn launch_lane(t: &Trace, inside: &dyn Fn(f64, f64) -> bool) -> Option<Lane> {
    let launch_class = KernelClass::ALL.len();
    let launched: HashSet<i64> = t
        .gpu
        .iter()
        .filter(|e| e.correlation >= 0 && is_gpu_cat(t.name(e.cat)))
        .map(|e| e.correlation)
        .collect();
    let mut threads: BTreeMap<i64, Vec<Raw>> = BTreeMap::new();
    for (corr, c) in &t.cpu {
        let Some((lts, ldur)) = c.launch.filter(|_| launched.contains(corr)) else {
            continue;
        };
        let (ts, end) = hta_times(t, lts, ldur);
        if !inside(ts, end) {
            continue;
        }
        let end = end.max(ts);
        threads.entry(c.launch_tid).or_default().push(Raw {
            ts,
            end,
            class: launch_class,
            name: c.launch_name,
            longest: end - ts,
            busy: end - ts,
        });
    }
    let (tid, v) = threads
        .into_iter()
        .fold(None, |best: Option<(i64, Vec<Raw>)>, (tid, v)| match best {
            Some(b) if b.1.len() >= v.len() => Some(b),
            _ => Some((tid, v)),
        })?;
    Some((format!("CPU thread {tid} (launches)"), "cpu", v))
}

/// Merges neighbours until at most [`MAX_SPANS`] spans remain (the module doc);
/// whether any were merged. `window` is the window's length, µs.
fn cap(all: &mut [Lane], window: f64) -> bool {
    let total = |all: &[Lane]| all.iter().map(|l| l.2.len()).sum::<usize>();
    let mut merged = false;
    let mut gap = window.max(1e-3) / MAX_SPANS as f64;
    let mut any_class = false;
    while total(all) > MAX_SPANS {
        merged = true;
        for (_, _, v) in all.iter_mut() {
            *v = merge_lane(v, gap, any_class);
        }
        if gap >= window.max(1e-3) {
            if any_class {
                // each lane is now about one span: nothing left to merge
                break;
            }
            any_class = true;
        } else {
            gap *= 2.0;
        }
    }

    merged
}

/// The timeline of `acts` (HTA's activities; only kernels, memcpy and memset are
/// drawn); `None` when there are none. `span_start` and `span` are HTA's, µs.
pub fn timeline(t: &Trace, acts: &[Activity], span_start: f64, span: f64) -> Option<TimelineRow> {
    let gpu: Vec<&Activity> = acts
        .iter()
        .filter(|a| {
            t.gpu
                .get(a.index)
                .is_some_and(|e| is_gpu_cat(t.name(e.cat)))
        })
        .collect();
    if gpu.is_empty() || !(span_start.is_finite() && span.is_finite()) {
        return None;
    }
    let (lo, hi) = (span_start, span_start + span.max(0.0));
    let busy = super::breakdown::merge(
        gpu.iter()
            .filter(|a| a.end > a.ts)
            .map(|a| (a.ts, a.end))
            .collect(),
    );
    let w = WINDOW_S * 1e6;
    let ws = busiest_window(&busy, lo, hi, w);
    let we = (ws + w).min(hi);
    let inside = |ts: f64, end: f64| end.max(ts) >= ws && ts <= we;

    // GPU lanes
    let mut lanes: BTreeMap<(i64, i64), Vec<Raw>> = BTreeMap::new();
    let mut class_of: HashMap<(u32, u32), usize> = HashMap::default();
    for a in &gpu {
        let Some(e) = t.gpu.get(a.index) else {
            continue;
        };
        if !inside(a.ts, a.end) {
            continue;
        }
        let class = *class_of
            .entry((e.name, e.cat))
            .or_insert_with(|| class_index(kernel_class(t.name(e.name), t.name(e.cat))));
        let end = a.end.max(a.ts);
        lanes.entry((e.device, e.stream)).or_default().push(Raw {
            ts: a.ts,
            end,
            class,
            name: e.name,
            longest: end - a.ts,
            busy: end - a.ts,
        });
    }
    let mut all: Vec<Lane> = lanes
        .into_iter()
        .map(|((d, s), v)| (format!("GPU {d} · stream {s}"), "gpu", v))
        .collect();

    all.extend(launch_lane(t, &inside));
    for (_, _, v) in &mut all {
        v.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(a.end.total_cmp(&b.end)));
    }

    let merged = cap(&mut all, we - ws);

    // names and seconds
    let mut names: Vec<String> = Vec::new();
    let mut name_index: HashMap<u32, usize> = HashMap::default();
    let lanes = all
        .into_iter()
        .map(|(label, kind, v)| {
            let busy = if v.iter().any(|r| r.busy < (r.end - r.ts) * (1.0 - 1e-9)) {
                v.iter().map(|r| r.busy.max(0.0) * 1e-6).collect()
            } else {
                Vec::new()
            };
            LaneRow {
                label,
                kind: kind.to_string(),
                spans: v
                    .iter()
                    .map(|r| {
                        let n = *name_index.entry(r.name).or_insert_with(|| {
                            names.push(t.name(r.name).to_string());
                            names.len() - 1
                        });
                        [
                            (r.ts - span_start) * 1e-6,
                            (r.end - r.ts) * 1e-6,
                            r.class as f64,
                            n as f64,
                        ]
                    })
                    .collect(),
                busy,
            }
        })
        .collect();
    let mut classes: Vec<String> = KernelClass::ALL
        .iter()
        .map(|c| c.id().to_string())
        .collect();
    classes.push(LAUNCH.to_string());
    Some(TimelineRow {
        start_s: (ws - span_start) * 1e-6,
        end_s: (we - span_start) * 1e-6,
        classes,
        names,
        lanes,
        merged,
    })
}
