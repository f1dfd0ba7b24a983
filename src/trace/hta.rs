//! Beyond HTA's temporal breakdown, three more of HolisticTraceAnalysis 0.5.0's
//! analyses, reproduced on the same events ([`super::breakdown::activities`]:
//! HTA's ProfilerStep rule and its whole-µs rounding applied) with HTA's default
//! arguments, and checked against HTA's own numbers on the fixtures
//! (`tests/data/traces/hta-0.5.0-all.json`, `hta-0.5.0-launch.json`):
//!
//! - **idle time breakdown** (`get_idle_time_breakdown`,
//!   `_analyze_idle_time_for_stream`): on each stream, the kernels, memcpys and
//!   memsets in start order; the idle interval before each is its start minus the
//!   previous one's end (may be negative, counted as it is). It is *host wait*
//!   when the kernel's launch call (the CPU event with its correlation id) started
//!   after the previous one ended, else *kernel wait* when the interval is under
//!   `consecutive_kernel_delay` (30, HTA's default, compared with µs), else
//!   *other*. HTA reports each stream's categories as fractions of that stream's
//!   idle time; brrr sums each category over the rank's streams and divides by
//!   their total, so the three shares sum to 1 (fractions of idle time, not of
//!   the span).
//! - **communication–computation overlap** (`get_comm_comp_overlap`): the union of
//!   HTA's computation kernels and that of its communication kernels (its kernel
//!   types, every event with a stream); the time both run ÷ the communication
//!   union; none without communication.
//! - **kernel launch statistics** (`get_cuda_kernel_launch_stats`): every GPU event
//!   whose correlation id is that of a `cudaLaunchKernel`, `cudaLaunchKernelExC`,
//!   `cudaMemcpyAsync` or `cudaMemsetAsync` call, paired with that call: launch
//!   delay = the event's start − the call's end (0 when negative), and the *short*
//!   ones, which ran for less time than their launch call took. Note that HTA
//!   pairs only those four names: a Triton kernel launched by `cuLaunchKernel`, or
//!   a graph's kernels, have none.

use super::breakdown::{hta_times, merge, Activity};
use super::classify::{hta_kernel_type, HtaKernelType};
use super::parse::Trace;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

/// HTA's `consecutive_kernel_delay` default: a gap under this (µs) between two
/// kernels that were both launched in time is launch delay ("kernel wait").
pub const CONSECUTIVE_KERNEL_DELAY: f64 = 30.0;

/// The rank's idle time by HTA's categories, µs summed over its streams.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IdleBreakdown {
    pub host_wait: f64,
    pub kernel_wait: f64,
    pub other: f64,
}

impl IdleBreakdown {
    pub fn total(&self) -> f64 {
        self.host_wait + self.kernel_wait + self.other
    }

    /// (host, kernel, other) as fractions of the total; `None` without idle time.
    pub fn shares(&self) -> Option<(f64, f64, f64)> {
        let t = self.total();
        (t != 0.0).then(|| (self.host_wait / t, self.kernel_wait / t, self.other / t))
    }
}

fn is_kernel_cat(cat: &str) -> bool {
    matches!(
        cat,
        "kernel" | "Kernel" | "gpu_memset" | "Memset" | "gpu_memcpy" | "Memcpy" | "mtia_ccp_events"
    )
}

/// HTA's idle time breakdown of `acts`, summed over streams.
pub fn idle_breakdown(t: &Trace, acts: &[Activity]) -> IdleBreakdown {
    let mut streams: BTreeMap<i64, Vec<(f64, f64, Option<f64>)>> = BTreeMap::new();
    for a in acts {
        let Some(e) = t.gpu.get(a.index).filter(|e| is_kernel_cat(t.name(e.cat))) else {
            continue;
        };
        let runtime = t.cpu.get(&e.correlation).map(|c| {
            let ts = c.launch.map_or(c.min_ts, |l| l.0);
            hta_times(t, ts, 0.0).0
        });
        streams
            .entry(e.stream)
            .or_default()
            .push((a.ts, a.end, runtime));
    }
    let mut out = IdleBreakdown::default();
    for mut v in streams.into_values() {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in v.windows(2) {
            let (prev_end, (ts, _, runtime)) = (w[0].1, w[1]);
            let interval = ts - prev_end;
            if runtime.is_some_and(|r| r > prev_end) {
                out.host_wait += interval;
            } else if interval < CONSECUTIVE_KERNEL_DELAY {
                out.kernel_wait += interval;
            } else {
                out.other += interval;
            }
        }
    }
    out
}

/// HTA's communication–computation overlap of `acts` (a fraction); `None`
/// without communication kernels.
pub fn comm_overlap(t: &Trace, acts: &[Activity]) -> Option<f64> {
    let of = |kind: HtaKernelType| {
        merge(
            acts.iter()
                .filter(|a| {
                    t.gpu
                        .get(a.index)
                        .is_some_and(|e| hta_kernel_type(t.name(e.name)) == kind)
                })
                .map(|a| (a.ts, a.end))
                .collect(),
        )
    };
    let (comm, comp) = (
        of(HtaKernelType::Communication),
        of(HtaKernelType::Computation),
    );
    let comm_time: f64 = comm.iter().map(|(a, b)| b - a).sum();
    if comm.is_empty() || comm_time <= 0.0 {
        return None;
    }
    // both unions are sorted and disjoint: sweep them together
    let (mut i, mut j, mut both) = (0, 0, 0.0);
    while let (Some(a), Some(b)) = (comm.get(i), comp.get(j)) {
        both += (a.1.min(b.1) - a.0.max(b.0)).max(0.0);
        if a.1 < b.1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    Some(both / comm_time)
}

/// HTA's kernel launch statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchStats {
    /// GPU events paired with a launch call.
    pub count: usize,
    /// The median launch delay, µs (`None` with no pair).
    pub delay_median: Option<f64>,
    /// Pairs whose GPU event ran shorter than its launch call.
    pub short: usize,
    /// Pairs whose launch call returned while its stream was still running
    /// earlier work (brrr's, not HTA's): their delay is a wait in the queue
    /// behind the GPU's own work, not the CPU's.
    pub queued: usize,
}

/// The launch calls HTA pairs with GPU events.
const HTA_LAUNCHES: [&str; 4] = [
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
];

/// HTA's kernel launch statistics over `acts`.
pub fn launch_stats(t: &Trace, acts: &[Activity]) -> LaunchStats {
    let mut delays = Vec::new();
    let (mut short, mut queued) = (0, 0);
    // per (device, stream): the activities' (start, end), by start, and the
    // running maximum of their ends
    let mut streams: HashMap<(i64, i64), Vec<(f64, f64)>> = HashMap::default();
    for a in acts {
        if let Some(e) = t.gpu.get(a.index) {
            streams
                .entry((e.device, e.stream))
                .or_default()
                .push((a.ts, a.end));
        }
    }
    for v in streams.values_mut() {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut m = f64::NEG_INFINITY;
        for x in v.iter_mut() {
            m = m.max(x.1);
            x.1 = m;
        }
    }
    // whether work that started before `at` on the stream was still running then
    let busy_at = |key: (i64, i64), at: f64| {
        streams.get(&key).is_some_and(|v| {
            let i = v.partition_point(|x| x.0 < at);
            i > 0 && v.get(i - 1).is_some_and(|x| x.1 > at)
        })
    };
    for a in acts {
        let Some(e) = t.gpu.get(a.index) else {
            continue;
        };
        let Some(c) = t
            .cpu
            .get(&e.correlation)
            .filter(|c| HTA_LAUNCHES.contains(&t.name(c.launch_name)))
        else {
            continue;
        };
        let Some((lts, ldur)) = c.launch else {
            continue;
        };
        let (cts, cend) = hta_times(t, lts, ldur);
        delays.push((a.ts - cend).max(0.0));
        if a.end - a.ts < cend - cts {
            short += 1;
        }
        if a.ts > cend && busy_at((e.device, e.stream), cend) {
            queued += 1;
        }
    }
    delays.sort_by(f64::total_cmp);
    let n = delays.len();
    let delay_median = match n {
        0 => None,
        _ if n % 2 == 1 => delays.get(n / 2).copied(),
        _ => Some(
            (delays.get(n / 2 - 1).copied().unwrap_or(0.0)
                + delays.get(n / 2).copied().unwrap_or(0.0))
                / 2.0,
        ),
    };
    LaunchStats {
        count: n,
        delay_median,
        short,
        queued,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::breakdown::activities;
    use crate::trace::testing::{call as launch, kernel as k, trace};

    #[test]
    fn idle_by_category() {
        // stream 7: a 0..10; b 15..20 launched at 12 (after a ended: host wait 5);
        // c 25..30 launched at 1 (kernel wait 5); d 100..110 launched at 2 (other 70)
        let t = trace(&[
            k("a", 0.0, 10.0, 1, 7),
            k("b", 15.0, 5.0, 2, 7),
            k("c", 25.0, 5.0, 3, 7),
            k("d", 100.0, 10.0, 4, 7),
            launch("cudaLaunchKernel", 12.0, 1.0, 2),
            launch("cudaLaunchKernel", 1.0, 1.0, 3),
            launch("cudaLaunchKernel", 2.0, 1.0, 4),
        ]);
        let acts = activities(&t);
        let b = idle_breakdown(&t, &acts);
        assert_eq!((b.host_wait, b.kernel_wait, b.other), (5.0, 5.0, 70.0));
        assert_eq!(b.shares(), Some((5.0 / 80.0, 5.0 / 80.0, 70.0 / 80.0)));
        // launch stats: three pairs; delays 15−13 = 2, 25−2 = 23, 100−3 = 97
        let s = launch_stats(&t, &acts);
        assert_eq!((s.count, s.delay_median, s.short), (3, Some(23.0), 0));
        assert_eq!(comm_overlap(&t, &acts), None);
    }

    #[test]
    fn overlap_of_communication() {
        // an all-reduce 0..100 beside compute 50..150 on another stream: half hidden
        let t = trace(&[
            k("ncclDevKernel_AllReduce", 0.0, 100.0, 1, 9),
            k("sgemm", 50.0, 100.0, 2, 7),
            launch("cuLaunchKernel", 40.0, 5.0, 2),
        ]);
        let acts = activities(&t);
        assert_eq!(comm_overlap(&t, &acts), Some(0.5));
        // cuLaunchKernel is not one of the calls HTA pairs
        assert_eq!(launch_stats(&t, &acts).count, 0);
        assert_eq!(idle_breakdown(&t, &acts).shares(), None);
    }
}
