//! What the profiler itself cost, estimated from the trace: the step an
//! unprofiled run would take.
//!
//! `torch.profiler` records every aten op and every runtime call, and each
//! record costs the CPU a little time. An eager run launches thousands of ops a
//! step from the CPU, so that cost adds up: the decode pairs in
//! `tests/data/traces` ran 1.3-1.5× slower profiled than not, and a faster
//! host's profiler slowed the same kind of step 1.7×. No fixed factor covers
//! both, so the cost is read from the trace:
//!
//! - **the cost of one record.** An aten op that does nothing but call one other
//!   aten op (`aten::to` → `aten::_to_copy`, `aten::reshape` → `aten::view`)
//!   lasts as long as its child plus its own dispatch plus the profiler's record
//!   of the child. The median of that excess, over every op with exactly one
//!   aten child, is the estimate of what one record costs ([`per_record`]);
//!   fewer than [`MIN_SAMPLES`] such ops give no estimate.
//! - **the step without it.** Each step's recorded CPU events (aten ops and
//!   runtime/driver calls within its CPU span) times that cost is taken off its
//!   wall time, never below the GPU's busy time in the step (the profiler does
//!   not slow the kernels); a step whose GPU window outlasted its CPU span ran
//!   at the GPU's pace and keeps its wall time. Where that would take off more than
//!   [`MAX_SHARE`] of a step, the estimate is refused: the excess then is
//!   not the profiler's.
//!
//! Checked, not fitted, against the decode pairs' unprofiled `step_ms`
//! (`tests/trace_fixtures.rs`): the estimates of the eager steps fall within
//! 10 % of them on both GPUs. A graph replay records a handful of CPU events a
//! step and gets no estimate: its profiled step is within 5-11 % of its
//! unprofiled one there.

use super::parse::{CpuSpan, Trace};
use super::steps::Steps;

/// Ops with exactly one aten child needed for an estimate of one record's cost.
pub const MIN_SAMPLES: usize = 16;

/// The most of a step the profiler's cost may be estimated to take.
pub const MAX_SHARE: f64 = 0.5;

/// The estimated cost of one profiler record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerRecord {
    /// µs per recorded CPU event (the median excess).
    pub us: f64,
    /// Ops with exactly one aten child it was taken over.
    pub samples: usize,
}

/// The median excess of an aten op's CPU time over its single aten child's,
/// over every op with exactly one aten child (nesting by thread); `None` with
/// fewer than [`MIN_SAMPLES`] such ops.
pub fn per_record(t: &Trace) -> Option<PerRecord> {
    let mut aten: Vec<&CpuSpan> = t.cpu_spans.iter().filter(|s| s.aten).collect();
    // by thread, then start; an enclosing op (longer) before the one it holds
    aten.sort_by(|a, b| {
        a.tid
            .cmp(&b.tid)
            .then(a.ts.total_cmp(&b.ts))
            .then(b.end.total_cmp(&a.end))
    });
    // (index of the parent, its children so far, the first child's length)
    let mut kids: Vec<(usize, f64)> = vec![(0, 0.0); aten.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, s) in aten.iter().enumerate() {
        while let Some(&top) = stack.last() {
            let p = aten[top];
            if p.tid != s.tid || p.end <= s.ts {
                stack.pop();
            } else {
                break;
            }
        }
        if let Some(&top) = stack.last() {
            if s.end <= aten[top].end {
                let k = &mut kids[top];
                k.0 += 1;
                if k.0 == 1 {
                    k.1 = s.end - s.ts;
                }
            }
        }
        stack.push(i);
    }
    let mut excess: Vec<f64> = aten
        .iter()
        .zip(&kids)
        .filter(|(_, k)| k.0 == 1)
        .map(|(s, k)| (s.end - s.ts) - k.1)
        .filter(|x| x.is_finite() && *x >= 0.0)
        .collect();
    if excess.len() < MIN_SAMPLES {
        return None;
    }
    excess.sort_by(f64::total_cmp);
    let n = excess.len();
    let us = if n % 2 == 1 {
        excess[n / 2]
    } else {
        0.5 * (excess[n / 2 - 1] + excess[n / 2])
    };
    Some(PerRecord { us, samples: n })
}

/// Recorded CPU events starting within `[a, b)` (all of them for `None`).
pub fn records_in(t: &Trace, window: Option<(f64, f64)>) -> usize {
    let Some((a, b)) = window else {
        return t.cpu_spans.len();
    };
    let from = t.cpu_spans.partition_point(|s| s.ts < a);
    let to = t.cpu_spans.partition_point(|s| s.ts < b);
    to.saturating_sub(from)
}

/// The mean step as an unprofiled run would take it, µs: each step's wall time
/// less its records' cost, never below its kernels' busy time (a step whose
/// GPU window was longer than its CPU span keeps its wall time); `None` without
/// an estimate of one record's cost, or where the cost would be over
/// [`MAX_SHARE`] of a step.
pub fn unprofiled(t: &Trace, steps: &Steps) -> Option<f64> {
    let per = per_record(t)?;
    let mut sum = 0.0;
    for s in &steps.steps {
        let wall = s.wall();
        // an unmarked trace is one step: every record is in it
        let window = if steps.marked { s.cpu } else { None };
        let cost = per.us * records_in(t, window) as f64;
        if cost.is_nan() || cost > MAX_SHARE * wall {
            return None;
        }
        // a step whose GPU window outlasted its CPU span ran at the GPU's
        // pace: the profiler's CPU cost did not lengthen it
        if steps.marked && s.gpu_s() >= s.cpu_s() {
            sum += wall;
            continue;
        }
        let busy: f64 = s
            .acts
            .iter()
            .filter_map(|i| t.gpu.get(*i))
            .map(|e| e.dur.max(0.0))
            .sum();
        sum += (wall - cost).max(busy);
    }
    (!steps.steps.is_empty()).then(|| sum / steps.steps.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(tid: i64, ts: f64, end: f64) -> CpuSpan {
        CpuSpan {
            tid,
            ts,
            end,
            aten: true,
        }
    }

    #[test]
    fn the_median_excess_over_a_single_child() {
        let mut t = Trace::default();
        // 20 parents of one child each: excess 2 µs (10 of them) and 3 µs (10)
        for i in 0..20 {
            let ts = 100.0 * i as f64;
            let x = if i % 2 == 0 { 2.0 } else { 3.0 };
            t.cpu_spans.push(span(1, ts, ts + 10.0 + x));
            t.cpu_spans.push(span(1, ts + 1.0, ts + 11.0));
        }
        // a parent of two children and an op alone count for nothing; a
        // child on another thread is not a child
        t.cpu_spans.push(span(1, 5000.0, 5100.0));
        t.cpu_spans.push(span(1, 5001.0, 5010.0));
        t.cpu_spans.push(span(1, 5020.0, 5030.0));
        t.cpu_spans.push(span(2, 5001.0, 5002.0));
        t.cpu_spans.sort_by(|a, b| a.ts.total_cmp(&b.ts));
        let p = per_record(&t).unwrap();
        assert_eq!((p.us, p.samples), (2.5, 20));
        assert_eq!(records_in(&t, Some((0.0, 150.0))), 4);
        assert_eq!(records_in(&t, None), t.cpu_spans.len());
        // too few samples: no estimate
        t.cpu_spans.truncate(2 * (MIN_SAMPLES - 1));
        assert_eq!(per_record(&t), None);
    }

    /// The same run on two hosts whose profilers cost 2 and 4 µs a record: the
    /// estimate follows each trace's own cost, not a constant.
    #[test]
    fn the_cost_is_read_from_the_trace() {
        use crate::trace::testing::{call, kernel};
        for cost in [2.0, 4.0] {
            let mut ev = Vec::new();
            let mut ts = 0.0;
            for step in 0..3 {
                let start = ts;
                // 20 ops a step, each an aten::to around an aten::_to_copy
                // (10 µs of work) and a launch (4 µs of work): each record
                // costs `cost`
                for k in 0..20 {
                    let corr = step * 100 + k;
                    let child = 10.0 + cost;
                    let parent = child + cost;
                    ev.push(format!(
                        r#"{{"ph":"X","cat":"cpu_op","name":"aten::to","ts":{ts},"dur":{parent},"tid":1}}"#
                    ));
                    ev.push(format!(
                        r#"{{"ph":"X","cat":"cpu_op","name":"aten::_to_copy","ts":{},"dur":{child},"tid":1}}"#,
                        ts + cost / 2.0
                    ));
                    ts += parent;
                    ev.push(call("cudaLaunchKernel", ts, 4.0 + cost, corr));
                    ev.push(kernel("k", ts + 4.0 + cost, 1.0, corr, 7));
                    ts += 4.0 + cost;
                }
                ev.push(format!(
                    r#"{{"ph":"X","cat":"user_annotation","name":"ProfilerStep#{step}","ts":{start},"dur":{},"tid":1}}"#,
                    ts - start
                ));
            }
            let t = crate::trace::testing::trace(&ev);
            let p = per_record(&t).unwrap();
            assert!((p.us - cost).abs() < 1e-9, "{cost}: {p:?}");
            let d = crate::trace::diagnose(&t).unwrap();
            // 20 × (14 µs of work + 3 records) a step: unprofiled 280 µs
            let u = d.steps.unprofiled.unwrap();
            assert!((u - 280.0).abs() < 2.0, "{cost}: {u} of {}", d.steps.mean);
        }
    }

    fn stored(name: &str) -> crate::trace::Diagnosis {
        let dir = format!("{}/tests/data/traces/{name}", env!("CARGO_MANIFEST_DIR"));
        let path = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "gz"))
            .unwrap();
        let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        crate::trace::analyse(
            std::io::BufReader::new(flate2::read::GzDecoder::new(f)),
            &mut |_| true,
        )
        .unwrap()
    }

    /// The decode pairs recorded on a lent H100 and H200: each eager step's
    /// estimate within 10 % of its unprofiled `step_ms`, and the compare's
    /// speedup within 20 % of the ratio of the two `step_ms` (the profiled
    /// ratio is 25-46 % above it). Checked, not fitted: nothing here is read
    /// from `step_ms`.
    #[test]
    fn the_decode_pairs_compare_what_ran() {
        use crate::trace::{compare::compare, report::row};
        for gpu in ["h100", "h200"] {
            let pairs: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!(
                    "{}/tests/data/traces/{gpu}-decode-pairs.json",
                    env!("CARGO_MANIFEST_DIR")
                ))
                .unwrap(),
            )
            .unwrap();
            for b in ["b1", "b64"] {
                let ms = |mode: &str| {
                    pairs["runs"][format!("llama2_7b_decode_{mode}_{b}")]["step_ms"]
                        .as_f64()
                        .unwrap()
                };
                let (e, c) = (
                    stored(&format!("{gpu}_llama2_7b_decode_eager_{b}")),
                    stored(&format!("{gpu}_llama2_7b_decode_compiled_{b}")),
                );
                let est = e.steps.unprofiled.unwrap() * 1e-3;
                assert!(
                    (est / ms("eager") - 1.0).abs() <= 0.10,
                    "{gpu} {b}: {est} ms"
                );
                // the compiled trace records a handful of CPU events a step
                assert_eq!(c.steps.unprofiled, None, "{gpu} {b}");
                let x = compare(&row("eager", &e), &row("compiled", &c));
                let truth = ms("eager") / ms("compiled");
                println!(
                    "{gpu} {b}: eager estimated {est:.1} ms (measured {:.1}); ×{:.2} unprofiled, ×{:.2} profiled, ×{truth:.2} measured",
                    ms("eager"),
                    x.speedup,
                    x.speedup_profiled
                );
                assert!(
                    (x.speedup / truth - 1.0).abs() <= 0.20,
                    "{gpu} {b}: ×{} against ×{truth}",
                    x.speedup
                );
                assert!(x.speedup_profiled > 1.2 * truth, "{gpu} {b}");
                let profiled = e.steps.mean / c.steps.mean;
                assert!(
                    (x.speedup_profiled / profiled - 1.0).abs() < 1e-9,
                    "{gpu} {b}"
                );
                assert!(x.estimated_before && !x.estimated_after);
                assert!(
                    x.sentence.contains("Unprofiled") && x.sentence.contains("as profiled"),
                    "{}",
                    x.sentence
                );
            }
        }
    }
}
