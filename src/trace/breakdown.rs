//! HTA 0.5.0's temporal breakdown, reproduced
//! (`hta/analyzers/breakdown_analysis.py`, `get_temporal_breakdown`):
//!
//! - **which events**: every event (with `dur` and `cat`, `cat != "Trace"`) whose
//!   `args.stream` is not -1 — kernels, memcpy, memset, and whatever else carries a
//!   stream. With **two or more** distinct `ProfilerStep…` names in the trace
//!   (`Trace._filter_irrelevant_gpu_kernels`), the last step is dropped: a
//!   GPU kernel (`stream >= 0 && correlation >= 0`, or `Event Sync` / `Context
//!   Sync`) counts only if a CPU-side event with its correlation id starts before
//!   the last `ProfilerStep`'s start, and any other event only if it starts before it;
//! - **times**: if any `ts` in the file is a float, every start is rounded up and
//!   every end down to whole µs (`round_down_time_stamps`, which can leave a
//!   sub-µs kernel with a negative duration; HTA keeps it, so do we);
//! - **span** (`kernel_time`): from the first event's start to the last end;
//!   **idle** = span − the union of all events' intervals; **compute** = the union
//!   of HTA's computation kernels ([`super::classify::hta_kernel_type`]);
//!   **non-compute** = span − compute − idle (where HTA's rounding makes that
//!   negative, HTA asserts; brrr moves the sliver out of idle, see [`breakdown`]);
//! - one rank = one file; all devices of the rank together.
//!
//! The union is HTA's `merge_kernel_intervals`: sorted by start, an interval
//! opens a new group only if it starts strictly after every earlier end. Equal
//! starts keep the order of HTA's frame (file order; with the ProfilerStep rule,
//! GPU kernels before the other events, as its `pd.concat` leaves them). That
//! order only matters for the negative durations the rounding makes, and pandas'
//! sort is stable for small frames but not promised to be for large ones, so on
//! big ns-resolution traces HTA itself may differ run to run by such slivers.

use super::classify::{hta_kernel_type, HtaKernelType};
use super::parse::{GpuEvent, Trace};

/// One GPU activity as the breakdown counts it: times after HTA's rounding.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    pub ts: f64,
    pub end: f64,
    /// Index into [`Trace::gpu`].
    pub index: usize,
}

/// The breakdown of one rank (or one device), µs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Breakdown {
    /// First start.
    pub start: f64,
    /// HTA's `kernel_time`: last end − first start.
    pub span: f64,
    pub idle: f64,
    pub compute: f64,
    pub noncompute: f64,
}

impl Breakdown {
    pub fn idle_share(&self) -> f64 {
        share(self.idle, self.span)
    }
    pub fn compute_share(&self) -> f64 {
        share(self.compute, self.span)
    }
    pub fn noncompute_share(&self) -> f64 {
        share(self.noncompute, self.span)
    }
}

/// `part / whole`, 0 for an empty whole.
pub fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

/// HTA's time rounding for one event: (start, end).
pub fn hta_times(t: &Trace, ts: f64, dur: f64) -> (f64, f64) {
    if t.float_ts {
        (ts.ceil(), (ts + dur).floor())
    } else {
        (ts, ts + dur)
    }
}

fn round_start(t: &Trace, ts: f64) -> f64 {
    if t.float_ts {
        ts.ceil()
    } else {
        ts
    }
}

/// The events HTA's temporal breakdown counts, in file order.
pub fn activities(t: &Trace) -> Vec<Activity> {
    let cutoff = if t.step_symbols >= 2 {
        // no CPU event named ProfilerStep: HTA's cut-off is NaN and keeps nothing
        Some(
            t.last_step_ts
                .map_or(f64::NEG_INFINITY, |s| round_start(t, s)),
        )
    } else {
        None
    };
    let keep = |e: &GpuEvent| match cutoff {
        None => true,
        Some(c) if e.hta_gpu => t
            .cpu
            .get(&e.correlation)
            .is_some_and(|cpu| round_start(t, cpu.min_ts) < c),
        Some(c) => round_start(t, e.ts) < c,
    };
    let act = |(index, e): (usize, &GpuEvent)| {
        let (ts, end) = hta_times(t, e.ts, e.dur);
        Activity { ts, end, index }
    };
    let events = t.gpu.iter().enumerate().filter(|(_, e)| keep(e));
    if cutoff.is_some() {
        // HTA's order: the GPU kernels, then the other events
        let (gpu, other): (Vec<_>, Vec<_>) = events.partition(|(_, e)| e.hta_gpu);
        gpu.into_iter().chain(other).map(act).collect()
    } else {
        events.map(act).collect()
    }
}

/// HTA's `merge_kernel_intervals` on (start, end) pairs: the groups, sorted.
pub fn merge(mut iv: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    iv.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut max_end = f64::NEG_INFINITY;
    for (ts, end) in iv {
        match out.last_mut() {
            Some(g) if ts <= max_end => g.1 = g.1.max(end),
            _ => out.push((ts, end)),
        }
        max_end = max_end.max(end);
    }
    out
}

/// Σ (end − start) of merged groups.
pub fn covered(groups: &[(f64, f64)]) -> f64 {
    groups.iter().fold(0.0, |acc, (s, e)| acc + (e - s))
}

/// The breakdown of `acts` (HTA's `idle_time_per_rank`); `None` if there are none.
pub fn breakdown(t: &Trace, acts: &[&Activity]) -> Option<Breakdown> {
    let all = merge(acts.iter().map(|a| (a.ts, a.end)).collect());
    let (first, last) = (all.first()?, all.last()?);
    let span = last.1 - first.0;
    let idle = span - covered(&all);
    let compute_iv = acts
        .iter()
        .filter(|a| {
            t.gpu
                .get(a.index)
                .is_some_and(|e| hta_kernel_type(t.name(e.name)) == HtaKernelType::Computation)
        })
        .map(|a| (a.ts, a.end))
        .collect();
    let compute = covered(&merge(compute_iv));
    // HTA's rounding can make a negative-duration memset shrink the union of all
    // activities below the union of the compute kernels: non-compute would then
    // be a negative sliver, which HTA refuses (`assert non_compute_time >= 0`,
    // an AssertionError on h200_matmul_bf16). brrr takes the sliver out of idle
    // instead, so the three parts stay ≥ 0 and still sum to the span.
    let noncompute = span - compute - idle;
    let (idle, noncompute) = if noncompute < 0.0 {
        ((span - compute).max(0.0), 0.0)
    } else {
        (idle, noncompute)
    };
    Some(Breakdown {
        start: first.0,
        span,
        idle,
        compute,
        noncompute,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse::parse;

    fn trace(events: &str) -> Trace {
        parse(
            format!(r#"{{"traceEvents": [{events}]}}"#).as_bytes(),
            &mut |_| true,
        )
        .unwrap()
    }

    fn k(name: &str, ts: f64, dur: f64, stream: i64, corr: i64) -> String {
        format!(
            r#"{{"ph":"X","cat":"kernel","name":"{name}","ts":{ts},"dur":{dur},"args":{{"stream":{stream},"correlation":{corr},"device":0}}}}"#
        )
    }

    fn cpu(name: &str, ts: f64, dur: f64, corr: i64) -> String {
        format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"{name}","ts":{ts},"dur":{dur},"args":{{"correlation":{corr}}}}}"#
        )
    }

    fn bd(t: &Trace) -> Breakdown {
        let acts = activities(t);
        breakdown(t, &acts.iter().collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn merge_is_htas() {
        assert_eq!(
            merge(vec![(0.0, 10.0), (5.0, 7.0), (10.0, 12.0), (13.0, 14.0)]),
            vec![(0.0, 12.0), (13.0, 14.0)]
        );
        assert_eq!(merge(vec![]), vec![]);
        // a negative duration opens its own group when it starts after every end
        assert_eq!(
            merge(vec![(0.0, 1.0), (2.0, 1.0), (3.0, 5.0)]),
            vec![(0.0, 1.0), (2.0, 1.0), (3.0, 5.0)]
        );
    }

    #[test]
    fn gaps_and_classes() {
        // two streams overlapping, a gap, a memcpy, an nccl kernel
        let t = trace(&[
            k("ampere_sgemm", 0.0, 10.0, 7, 1),
            k("elementwise", 5.0, 10.0, 8, 2),
            k("ncclDevKernel_AllReduce", 20.0, 5.0, 9, 3),
            r#"{"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","ts":30,"dur":10,"args":{"stream":7,"correlation":4}}"#.into(),
            cpu("aten::mm", 0.0, 1.0, -1),
        ]
        .join(","));
        let b = bd(&t);
        assert_eq!(b.span, 40.0);
        assert_eq!(b.idle, 10.0); // 15..20 and 25..30
        assert_eq!(b.compute, 15.0);
        assert_eq!(b.noncompute, 15.0);
        assert!((b.idle_share() + b.compute_share() + b.noncompute_share() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn zero_and_negative_durations() {
        let t = trace(
            &[
                k("a", 0.0, 0.0, 7, 1),
                k("b", 10.0, -5.0, 7, 2),
                k("c", 12.0, 3.0, 7, 3),
            ]
            .join(","),
        );
        let b = bd(&t);
        // groups (0,0), (10,5), (12,15): span 15, covered 0 - 5 + 3 = -2, idle 17
        assert_eq!(b.span, 15.0);
        assert_eq!(b.idle, 17.0);
    }

    #[test]
    fn float_ts_rounds_like_hta() {
        let t = trace(&[k("a", 0.5, 2.0, 7, 1), k("b", 3.2, 0.5, 7, 2)].join(","));
        assert!(t.float_ts);
        let acts = activities(&t);
        assert_eq!((acts[0].ts, acts[0].end), (1.0, 2.0));
        assert_eq!((acts[1].ts, acts[1].end), (4.0, 3.0));
    }

    #[test]
    fn profiler_step_rule() {
        // two steps: kernels launched from a CPU event before the last step's start count
        let events = [
            cpu("ProfilerStep#1", 0.0, 100.0, -1),
            cpu("ProfilerStep#2", 100.0, 100.0, -1),
            cpu("cudaLaunchKernel", 10.0, 1.0, 1),
            cpu("cudaLaunchKernel", 150.0, 1.0, 2),
            k("a", 20.0, 10.0, 7, 1),
            k("b", 160.0, 10.0, 7, 2),
            k("orphan", 300.0, 10.0, 7, 99),
        ]
        .join(",");
        let t = trace(&events);
        assert_eq!(t.step_symbols, 2);
        let acts = activities(&t);
        assert_eq!(acts.len(), 1);
        assert_eq!(bd(&t).span, 10.0);
        // one step only: every event with a stream counts
        let t = trace(&events.replace("ProfilerStep#2", "ProfilerStep#1"));
        assert_eq!(t.step_symbols, 1);
        assert_eq!(activities(&t).len(), 3);
        assert_eq!(bd(&t).span, 290.0);
    }
}
