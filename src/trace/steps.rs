//! Per step: the `ProfilerStep#N` annotations `torch.profiler`'s schedule writes
//! (one on the CPU, `user_annotation`, and one on the GPU, `gpu_user_annotation`),
//! the GPU activities (kernels, memcpy, memset) that belong to each step, and a
//! step's wall time.
//!
//! - **Which step a GPU activity belongs to**: the step whose CPU annotation holds
//!   its launch call (by correlation id), else the step whose GPU annotation
//!   holds its start. A step's CPU and GPU annotations count once, and unlike HTA's
//!   breakdown the last step counts too.
//! - **A step's wall time** is the longer of its GPU window (its first activity's
//!   start to its last one's end) and its CPU span (the CPU annotation): a step
//!   the GPU keeps busy is as long as its kernels, one the CPU holds up (a host
//!   sync waiting, Python between launches) as long as its CPU span.
//!   [`Steps::basis`] says which was longer in most steps.
//! - **No markers**: the whole trace is one step ([`Steps::marked`] false): its
//!   window runs from its first GPU activity to its last (HTA's span, but with
//!   the times as written) and [`Steps::count`] is 0.
//!
//! Times are as written ([`super::parse::GpuEvent::span`]), not rounded as HTA's
//! breakdown rounds them.

use super::classify::is_gpu_cat;
use super::parse::Trace;
use std::collections::BTreeMap;

/// One step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Step {
    /// N of `ProfilerStep#N` (`None` for the whole trace).
    pub number: Option<i64>,
    /// The CPU annotation's (start, end), µs.
    pub cpu: Option<(f64, f64)>,
    /// The GPU annotation's (start, end), µs.
    pub gpu: Option<(f64, f64)>,
    /// Its GPU activities (indices into [`Trace::gpu`]), by start.
    pub acts: Vec<usize>,
    /// The first activity's start and the last one's end, µs.
    pub window: Option<(f64, f64)>,
}

impl Step {
    /// The GPU window's length, µs (0 without activity).
    pub fn gpu_s(&self) -> f64 {
        self.window.map_or(0.0, |(a, b)| (b - a).max(0.0))
    }

    /// The CPU span's length, µs (0 without a CPU annotation).
    pub fn cpu_s(&self) -> f64 {
        self.cpu.map_or(0.0, |(a, b)| (b - a).max(0.0))
    }

    /// The step's wall time, µs: the longer of the two.
    pub fn wall(&self) -> f64 {
        self.gpu_s().max(self.cpu_s())
    }
}

/// The steps of a trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Steps {
    /// By number; the whole trace as one step when [`Steps::marked`] is false.
    pub steps: Vec<Step>,
    /// The trace has `ProfilerStep#N` annotations.
    pub marked: bool,
}

impl Steps {
    /// Distinct `ProfilerStep#N` (0 without markers).
    pub fn count(&self) -> usize {
        if self.marked {
            self.steps.len()
        } else {
            0
        }
    }

    /// The mean step wall time, µs.
    pub fn mean(&self) -> f64 {
        mean(self.steps.iter().map(Step::wall))
    }

    /// What the step time is: `cpu` (the CPU span was the longer in most steps),
    /// `gpu` (the GPU window was), `trace` (no markers: the whole trace).
    pub fn basis(&self) -> &'static str {
        if !self.marked {
            return "trace";
        }
        let cpu = self.steps.iter().filter(|s| s.cpu_s() > s.gpu_s()).count();
        if 2 * cpu > self.steps.len() {
            "cpu"
        } else {
            "gpu"
        }
    }

    /// The step of each of the `n` GPU events (by index into [`Trace::gpu`];
    /// `None` outside every step).
    pub fn step_of(&self, n: usize) -> Vec<Option<usize>> {
        let mut m = vec![None; n];
        for (si, s) in self.steps.iter().enumerate() {
            for a in &s.acts {
                if let Some(x) = m.get_mut(*a) {
                    *x = Some(si);
                }
            }
        }
        m
    }
}

/// The mean of `xs` (0 when empty).
pub fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (n, sum) = xs.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    if n > 0 {
        sum / n as f64
    } else {
        0.0
    }
}

/// The steps of `t`; `span` is HTA's (start, end), the whole trace's window when
/// there are no markers.
pub fn steps(t: &Trace, span: (f64, f64)) -> Steps {
    let mut by_number: BTreeMap<i64, Step> = BTreeMap::new();
    for m in &t.step_marks {
        let (ts, end) = (m.ts, m.ts + m.dur.max(0.0));
        let s = by_number.entry(m.number).or_insert_with(|| Step {
            number: Some(m.number),
            ..Step::default()
        });
        let slot = if m.gpu { &mut s.gpu } else { &mut s.cpu };
        *slot = Some(slot.map_or((ts, end), |(a, b)| (a.min(ts), b.max(end))));
    }
    if by_number.is_empty() {
        let acts = gpu_acts(t, |_, _| true);
        let window = window(t, &acts).or((!acts.is_empty()).then_some(span));
        return Steps {
            steps: vec![Step {
                acts,
                window,
                ..Step::default()
            }],
            marked: false,
        };
    }
    let mut steps: Vec<Step> = by_number.into_values().collect();
    let cpu: Vec<(f64, f64, usize)> = sorted_spans(&steps, |s| s.cpu);
    let gpu: Vec<(f64, f64, usize)> = sorted_spans(&steps, |s| s.gpu);
    let mut acts: Vec<Vec<usize>> = vec![Vec::new(); steps.len()];
    for (i, e) in t.gpu.iter().enumerate() {
        if !is_gpu_cat(t.name(e.cat)) {
            continue;
        }
        let launch = t.cpu.get(&e.correlation).and_then(|c| c.launch);
        let by_launch = launch.and_then(|(ts, _)| holder(&cpu, ts));
        let by_start = || holder(&gpu, e.ts);
        if let Some(list) = by_launch.or_else(by_start).and_then(|s| acts.get_mut(s)) {
            list.push(i);
        }
    }
    for (s, list) in steps.iter_mut().zip(acts) {
        s.window = window(t, &list);
        s.acts = sorted_by_start(t, list);
    }
    Steps {
        steps,
        marked: true,
    }
}

/// Every GPU activity (kernel, memcpy, memset) `keep` accepts, by start.
fn gpu_acts(t: &Trace, keep: impl Fn(usize, &super::parse::GpuEvent) -> bool) -> Vec<usize> {
    let list = t
        .gpu
        .iter()
        .enumerate()
        .filter(|(i, e)| is_gpu_cat(t.name(e.cat)) && keep(*i, e))
        .map(|(i, _)| i)
        .collect();
    sorted_by_start(t, list)
}

fn sorted_by_start(t: &Trace, mut list: Vec<usize>) -> Vec<usize> {
    let start = |i: &usize| t.gpu.get(*i).map_or(0.0, |e| e.ts);
    list.sort_by(|a, b| start(a).total_cmp(&start(b)).then(a.cmp(b)));
    list
}

/// The first start and last end of `list`, µs.
fn window(t: &Trace, list: &[usize]) -> Option<(f64, f64)> {
    list.iter()
        .filter_map(|i| t.gpu.get(*i))
        .map(|e| e.span())
        .fold(None, |w: Option<(f64, f64)>, (a, b)| {
            Some(w.map_or((a, b), |(x, y)| (x.min(a), y.max(b))))
        })
}

/// (start, end, step index) of one annotation per step, by start.
fn sorted_spans(
    steps: &[Step],
    pick: impl Fn(&Step) -> Option<(f64, f64)>,
) -> Vec<(f64, f64, usize)> {
    let mut v: Vec<(f64, f64, usize)> = steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| pick(s).map(|(a, b)| (a, b, i)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// The step whose span (sorted by start) holds instant `x`: the latest one
/// starting at or before it, if it has not ended.
fn holder(spans: &[(f64, f64, usize)], x: f64) -> Option<usize> {
    let k = spans.partition_point(|s| s.0 <= x);
    let s = spans.get(k.checked_sub(1)?)?;
    (x <= s.1).then_some(s.2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::testing::{call, kernel as k, trace};

    fn mark(n: i64, cat: &str, ts: f64, dur: f64) -> String {
        format!(
            r#"{{"ph":"X","cat":"{cat}","name":"ProfilerStep#{n}","ts":{ts},"dur":{dur},"args":{{}}}}"#
        )
    }

    fn kernel(ts: f64, dur: f64, corr: i64) -> String {
        k("k", ts, dur, corr, 7)
    }

    fn launch(ts: f64, corr: i64) -> String {
        call("cudaLaunchKernel", ts, 2.0, corr)
    }

    #[test]
    fn kernels_go_to_the_step_that_launched_them() {
        // step 1: CPU 0..100, its two kernels run 10..30 and 150..160 (queued
        // past the CPU step: still step 1's); step 2: CPU 200..250, one kernel
        // 300..400 (the GPU window is the longer); the last step counts
        let t = trace(&[
            mark(1, "user_annotation", 0.0, 100.0),
            mark(2, "user_annotation", 200.0, 50.0),
            mark(1, "gpu_user_annotation", 10.0, 150.0),
            mark(2, "gpu_user_annotation", 300.0, 100.0),
            launch(5.0, 1),
            kernel(10.0, 20.0, 1),
            launch(50.0, 2),
            kernel(150.0, 10.0, 2),
            launch(210.0, 3),
            kernel(300.0, 100.0, 3),
        ]);
        let s = steps(&t, (10.0, 400.0));
        assert!(s.marked);
        assert_eq!(s.count(), 2);
        assert_eq!(s.steps[0].acts, vec![0, 1]);
        assert_eq!(s.steps[0].window, Some((10.0, 160.0)));
        assert_eq!(s.steps[0].wall(), 150.0);
        assert_eq!(s.steps[1].acts, vec![2]);
        assert_eq!(s.steps[1].wall(), 100.0);
        assert_eq!(s.mean(), 125.0);
        assert_eq!(s.basis(), "gpu");
        assert_eq!(s.step_of(t.gpu.len()).get(2), Some(&Some(1)));
    }

    #[test]
    fn a_held_up_cpu_makes_the_step() {
        // CPU steps of 100 µs, each with a 5 µs kernel: the CPU span is the step
        let t = trace(&[
            mark(3, "user_annotation", 0.0, 100.0),
            mark(4, "user_annotation", 100.0, 100.0),
            launch(50.0, 1),
            kernel(60.0, 5.0, 1),
            launch(150.0, 2),
            kernel(160.0, 5.0, 2),
        ]);
        let s = steps(&t, (60.0, 165.0));
        assert_eq!((s.count(), s.mean(), s.basis()), (2, 100.0, "cpu"));
        // only GPU annotations: kernels by their start
        let t = trace(&[
            mark(7, "gpu_user_annotation", 0.0, 50.0),
            kernel(10.0, 5.0, 1),
        ]);
        let s = steps(&t, (10.0, 15.0));
        assert_eq!((s.count(), s.steps[0].acts.clone()), (1, vec![0]));
    }

    #[test]
    fn without_markers_the_trace_is_one_step() {
        let t = trace(&[kernel(10.0, 5.0, 1), kernel(100.0, 5.0, 2)]);
        let s = steps(&t, (10.0, 105.0));
        assert!(!s.marked);
        assert_eq!((s.count(), s.mean(), s.basis()), (0, 95.0, "trace"));
        assert_eq!(s.steps[0].acts, vec![0, 1]);
        assert_eq!(step_number_of("ProfilerStep#12"), Some(12));
        assert_eq!(step_number_of("ProfilerStep"), None);
    }

    fn step_number_of(s: &str) -> Option<i64> {
        crate::trace::parse::step_number(s)
    }
}
