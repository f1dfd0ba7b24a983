//! What CUDA graphs (and `torch.compile(mode="reduce-overhead")`, which fuses
//! and then replays a graph) really buy: each step predicted as a replay.
//!
//! A replayed step runs its kernels back to back, launched by one call: the
//! CPU's per-kernel work (Python, dispatch, each launch call) is gone, but not
//! the GPU's work, nor the wait for the host syncs the step makes. So a step
//! after the fix lasts, as a trace of the fixed run would show it:
//!
//! - **one launch**: the time from the step's first launch call to its first
//!   activity, as measured in the step (the eager launch stands in for the
//!   graph's: in `h200_mlp_eager` the first launch took 8–29 µs, in
//!   `h200_mlp_graph` a `cudaGraphLaunch` to its first kernel 20–21 µs), and one
//!   more for every host sync that ends before the step's last activity starts
//!   (a graph cannot hold a sync: the step becomes one graph per piece);
//! - **its kernels, back to back**: their measured durations (for compile, each
//!   fusible run as long as its longest member, [`super::fusion`]), with
//!   [`GRAPH_GAP_US`] between consecutive ones;
//! - **its host syncs**: each sync's return after the GPU work it waited on ended
//!   (its whole duration where it did not wait);
//! - **the rest of the step's CPU span after its last sync** (the loop's own
//!   bookkeeping, which a replay keeps).
//!
//! A step is never predicted slower than it was recorded (kernels already back
//! to back with less than the in-graph gap between them keep their step).
//!
//! The Python before the first launch is left out (a replay does not run the
//! model's code; the replay call's own is a few µs). Where the model misses: the
//! kernels are taken at the durations they had in the profiled eager run; run
//! back to back they can take longer (the Llama-3-8B-shaped decode's kernels took
//! 5.19 ms per token alone and 6.97 ms in its graph replay,
//! `tests/data/h200-decode.json`), and `torch.compile`'s own per-call CPU work
//! (Dynamo's guards, Inductor's wrapper: 80–160 µs per call in
//! `h200_chain_compiled`) is not in an eager trace.

use super::parse::Trace;
use super::steps::{Step, Steps};
use super::LAUNCH_SLACK_US;
use rustc_hash::FxHashMap as HashMap;

/// The gap between consecutive kernels of a CUDA-graph replay, µs: the median
/// of the 45 gaps between the 16 kernels of each of the 3 replayed steps of
/// `tests/data/traces/h200_mlp_graph` (H200, PyTorch 2.11, a `torch.cuda.graph`
/// replay; they range 0.22–0.35 µs). The Llama-3-8B-shaped decode's graph on the
/// same kind of machine had a median of 0.42 µs and a mean of 0.47 µs
/// (`tests/data/h200-decode.json`, `graph_profiled`), not used here: its step is
/// what the decode check compares with.
pub const GRAPH_GAP_US: f64 = 0.29;

/// A step as a replay, µs; `fused` maps a GPU event to its fusible run (compile)
/// and `run_max` gives each run's fused duration.
pub fn replay_step(t: &Trace, s: &Step, fused: &HashMap<usize, usize>, run_max: &[f64]) -> f64 {
    let acts: Vec<(f64, f64, usize)> = s
        .acts
        .iter()
        .filter_map(|i| t.gpu.get(*i).map(|e| (e.span().0, e.span().1, *i)))
        .collect();
    let (Some(first), Some(last)) = (acts.first(), acts.last()) else {
        return s.wall();
    };
    let last_start = last.0;
    let last_end = acts.iter().fold(f64::NEG_INFINITY, |m, a| m.max(a.1));
    // kernels back to back, fusible runs as one
    let mut seen_runs = rustc_hash::FxHashSet::default();
    let (mut busy, mut n) = (0.0, 0usize);
    for &(a, b, i) in &acts {
        match fused.get(&i) {
            Some(r) => {
                if seen_runs.insert(*r) {
                    busy += run_max.get(*r).copied().unwrap_or(b - a);
                    n += 1;
                }
            }
            None => {
                busy += b - a;
                n += 1;
            }
        }
    }
    // one launch: the first activity's launch call to its start
    let launch = t
        .gpu
        .get(first.2)
        .and_then(|e| t.cpu.get(&e.correlation))
        .and_then(|c| c.launch)
        .map_or(0.0, |(ts, dur)| {
            let end = ts + dur.max(0.0);
            if first.0 <= end + LAUNCH_SLACK_US {
                (first.0 - ts).max(0.0)
            } else {
                dur.max(0.0)
            }
        });
    // the host syncs within the step (without a CPU span, within its window:
    // the step starts at its first activity and ends at its last)
    let (lo, hi) = match s.cpu {
        Some((a, b)) => (a.min(first.0), b.max(last_end)),
        None => (first.0, last_end),
    };
    let (mut syncs, mut pieces, mut last_sync) = (0.0, 0usize, f64::NEG_INFINITY);
    for &(s0, s1) in t.host_syncs.iter().filter(|(a, b)| *a >= lo && *b <= hi) {
        let waited_on = acts
            .iter()
            .filter(|a| a.1 <= s1)
            .fold(f64::NEG_INFINITY, |m, a| m.max(a.1));
        syncs += (s1 - s0.max(waited_on)).max(0.0);
        if s1 < last_start {
            pieces += 1;
        }
        last_sync = last_sync.max(s1);
    }
    let after_cpu = s
        .cpu
        .map_or(0.0, |(_, end)| (end - last_end.max(last_sync)).max(0.0));
    // a step without a CPU span starts at its first activity: its first launch
    // is outside it, only the extra ones are in
    let launches = if s.cpu.is_some() { 1 + pieces } else { pieces };
    let after = launch * launches as f64
        + busy
        + n.saturating_sub(1) as f64 * GRAPH_GAP_US
        + syncs
        + after_cpu;
    // never slower than recorded: kernels already back to back with less than
    // the in-graph gap between them keep the step they had
    after.min(s.wall())
}

/// The mean step as a replay, µs, over every step.
pub fn replay(t: &Trace, steps: &Steps, fused: &HashMap<usize, usize>, run_max: &[f64]) -> f64 {
    super::steps::mean(
        steps
            .steps
            .iter()
            .map(|s| replay_step(t, s, fused, run_max)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::steps::steps;
    use crate::trace::testing::trace;

    #[test]
    fn an_overhead_bound_step_replayed() {
        // one step, CPU 0..200: launches at 20, 60, 100 (2 µs each), kernels of
        // 5 µs each 3 µs after each call, a sync 150..154 that did not wait, the
        // step ends 200
        let mut ev = vec![
            r#"{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","ts":0,"dur":200,"args":{}}"#.to_string(),
            r#"{"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","ts":150,"dur":4,"args":{"correlation":99}}"#.to_string(),
        ];
        for (i, at) in [20.0, 60.0, 100.0].iter().enumerate() {
            ev.push(format!(
                r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":{at},"dur":2,"args":{{"correlation":{i}}}}}"#
            ));
            ev.push(format!(
                r#"{{"ph":"X","cat":"kernel","name":"k","ts":{},"dur":5,"args":{{"stream":7,"correlation":{i},"device":0}}}}"#,
                at + 3.0
            ));
        }
        let t = trace(&ev);
        let s = steps(&t, (23.0, 108.0));
        // launch 3 + kernels 15 + 2 gaps + the sync 4 + after it 46
        let after = replay(&t, &s, &HashMap::default(), &[]);
        assert!(
            (after - (3.0 + 15.0 + 2.0 * GRAPH_GAP_US + 4.0 + 46.0)).abs() < 1e-9,
            "{after}"
        );
        // fused (compile): the three kernels one run, as long as the longest
        let fused: HashMap<usize, usize> = s.steps[0].acts.iter().map(|i| (*i, 0)).collect();
        let after = replay(&t, &s, &fused, &[5.0]);
        assert!((after - (3.0 + 5.0 + 4.0 + 46.0)).abs() < 1e-9, "{after}");
    }
}
