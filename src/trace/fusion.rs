//! Fusion as a compiler would do it: which back-to-back memory-bound kernels
//! one fused kernel could replace, and what that saves.
//!
//! A **fusible run** is a maximal sequence of GPU activities on one stream, in
//! start order, each a pointwise, normalisation or reduction kernel (by name)
//! whose real limit is memory ([`super::bound`]). A run never crosses:
//! - a kernel of another class (a matmul, a copy, a collective) or any other
//!   event on the stream (a `cuda_sync`, a CPU op recording the stream);
//! - a host sync: a `…Synchronize` runtime call ending between two starts (what
//!   follows was launched after the CPU waited, so no graph holds both);
//! - a step boundary (`ProfilerStep#N`, [`super::steps`]): a compiler fuses
//!   within one call of the model, never across two;
//! - the edge of a CUDA-graph replay: the kernels one graph launch replays are
//!   what the compiler made of its region, and it cannot fuse them with kernels
//!   launched outside it (`torch.compile`'s input copies before the graph);
//! - two launches of one kernel by one aten op outside a graph (the same
//!   `External id` and name): they are its chunks (`_foreach_copy_`'s
//!   multi-tensor launches each copy other tensors), so fusing them saves
//!   launches, not traffic.
//!
//! **Its estimate is the traffic it saves.** A fused run reads its inputs and
//! writes its outputs once instead of once per kernel; with nothing but the
//! durations known, the fused kernel is taken to last as long as the run's
//! longest member (one pass over the largest tensor it touches). `n` same-size
//! kernels so become one: close to `n`× less time, never more, since the fused
//! kernel's extra inputs and FLOPs are not modelled (an optimistic bound).

use super::classify::{is_gpu_cat, CostClass, KernelClass};
use super::parse::Trace;
use std::collections::BTreeMap;

/// One fusible run of two or more kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Its members (indices into [`Trace::gpu`]), by start.
    pub members: Vec<usize>,
    /// Σ of their durations and the longest, µs.
    pub sum: f64,
    pub max: f64,
}

impl Run {
    /// The time fusing it saves, µs.
    pub fn saves(&self) -> f64 {
        self.sum - self.max
    }
}

/// Whether fusion merges a kernel of this class with its neighbours: pointwise,
/// normalisation and reduction kernels (not copies, not collectives, not matmuls).
pub fn fusible(c: KernelClass) -> bool {
    matches!(
        c,
        KernelClass::Pointwise | KernelClass::Normalisation | KernelClass::Reduction
    )
}

/// Whether a host sync (sorted by end) ended after `from` and no later than `to`.
pub fn host_sync_between(syncs: &[(f64, f64)], from: f64, to: f64) -> bool {
    let i = syncs.partition_point(|s| s.1 <= from);
    syncs.get(i).is_some_and(|s| s.1 <= to)
}

/// Every fusible run of the trace. `class` gives each GPU event's name class,
/// `cost` its real limit, `step_of` its step (events of no step count as one
/// more step of their own).
pub fn runs(
    t: &Trace,
    class: &dyn Fn(usize) -> KernelClass,
    cost: &dyn Fn(usize) -> CostClass,
    step_of: &[Option<usize>],
) -> Vec<Run> {
    // per (device, stream): (start, end, GPU event index)
    type Items = Vec<(f64, f64, usize)>;
    let mut streams: BTreeMap<(i64, i64), Items> = BTreeMap::new();
    for (i, e) in t.gpu.iter().enumerate() {
        let (ts, end) = e.span();
        streams
            .entry((e.device, e.stream))
            .or_default()
            .push((ts, end, i));
    }
    let fusible_at = |i: usize| {
        t.gpu.get(i).is_some_and(|e| is_gpu_cat(t.name(e.cat)))
            && fusible(class(i))
            && cost(i) == CostClass::Memory
    };
    // the graph launch that replayed an event, if one did
    let region = |i: usize| {
        t.gpu
            .get(i)
            .filter(|e| super::launch::replayed(t, e))
            .map(|e| e.correlation)
    };
    // chunks: one kernel launched twice by one aten op call, outside a graph
    let same_op = |a: usize, b: usize| match (t.gpu.get(a), t.gpu.get(b)) {
        (Some(x), Some(y)) => {
            x.external_id >= 0
                && x.external_id == y.external_id
                && x.name == y.name
                && region(a).is_none()
                && region(b).is_none()
        }
        _ => false,
    };
    let mut out = Vec::new();
    for mut v in streams.into_values() {
        v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let mut run: Option<Run> = None;
        let mut prev: Option<(f64, usize)> = None;
        for &(ts, end, i) in &v {
            let joins = prev.is_some_and(|(pts, pi)| {
                !host_sync_between(&t.host_syncs, pts, ts)
                    && step_of.get(pi) == step_of.get(i)
                    && region(pi) == region(i)
                    && !same_op(pi, i)
            });
            if !(joins && fusible_at(i)) {
                out.extend(run.take().filter(|r| r.members.len() >= 2));
            }
            if fusible_at(i) {
                let d = (end - ts).max(0.0);
                let r = run.get_or_insert(Run {
                    members: Vec::new(),
                    sum: 0.0,
                    max: 0.0,
                });
                r.members.push(i);
                r.sum += d;
                r.max = r.max.max(d);
            }
            prev = Some((ts, i));
        }
        out.extend(run.take().filter(|r| r.members.len() >= 2));
    }
    out
}

/// The memory class's time after fusion ÷ before, over the GPU events `keep`
/// accepts (HTA's activities): (Σ memory-bound time − what the runs wholly
/// among them save) ÷ Σ memory-bound time; 1 with no memory-bound time.
pub fn fuse_factor(
    t: &Trace,
    runs: &[Run],
    cost: &dyn Fn(usize) -> CostClass,
    keep: &dyn Fn(usize) -> bool,
) -> f64 {
    let total: f64 = t
        .gpu
        .iter()
        .enumerate()
        .filter(|(i, e)| keep(*i) && is_gpu_cat(t.name(e.cat)) && cost(*i) == CostClass::Memory)
        .map(|(_, e)| e.dur.max(0.0))
        .sum();
    let saved: f64 = runs
        .iter()
        .filter(|r| r.members.iter().all(|i| keep(*i)))
        .map(Run::saves)
        .sum();
    if total > 0.0 {
        ((total - saved) / total).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::classify::kernel_class;
    use crate::trace::testing::{kernel, trace};

    fn k(name: &str, ts: f64, dur: f64, corr: i64) -> String {
        kernel(name, ts, dur, corr, 7)
    }

    fn class_of(t: &Trace) -> impl Fn(usize) -> KernelClass + '_ {
        |i| {
            t.gpu.get(i).map_or(KernelClass::Pointwise, |e| {
                crate::trace::classify::kernel_class(t.name(e.name), t.name(e.cat))
            })
        }
    }

    fn by_name(t: &Trace) -> impl Fn(usize) -> CostClass + '_ {
        |i| {
            t.gpu.get(i).map_or(CostClass::Memory, |e| {
                kernel_class(t.name(e.name), t.name(e.cat)).cost()
            })
        }
    }

    #[test]
    fn runs_break_at_other_classes_syncs_and_steps() {
        // pw 4, norm 6, red 2 | gemm 10 | pw 3 | memcpy 5 | pw 1, pw 1 | sync | pw 2, pw 2
        let mut ev = vec![
            k("elementwise", 0.0, 4.0, 1),
            k("layer_norm", 4.0, 6.0, 2),
            k("reduce_kernel", 10.0, 2.0, 3),
            k("sgemm", 12.0, 10.0, 4),
            k("elementwise", 22.0, 3.0, 5),
            r#"{"cat":"gpu_memcpy","name":"Memcpy DtoD","ts":25,"dur":5,"args":{"stream":7,"correlation":6,"device":0}}"#.into(),
            k("elementwise", 30.0, 1.0, 7),
            k("elementwise", 31.0, 1.0, 8),
            k("elementwise", 40.0, 2.0, 9),
            k("elementwise", 42.0, 2.0, 10),
        ];
        ev.push(r#"{"cat":"cuda_runtime","name":"cudaDeviceSynchronize","ts":33,"dur":5,"args":{"correlation":99}}"#.into());
        let t = trace(&ev);
        let cost = by_name(&t);
        let r = runs(&t, &class_of(&t), &cost, &[]);
        let shape: Vec<(usize, f64, f64)> =
            r.iter().map(|r| (r.members.len(), r.sum, r.max)).collect();
        // the sync (ends at 38, between the starts 31 and 40) splits the last four
        assert_eq!(shape, vec![(3, 12.0, 6.0), (2, 2.0, 1.0), (2, 4.0, 2.0)]);
        // memory time 4+6+2+3+5+1+1+2+2 = 26; runs save 6 + 1 + 2 = 9
        assert_eq!(fuse_factor(&t, &r, &cost, &|_| true), 17.0 / 26.0);
        // a step boundary between the last two
        let mut steps = vec![None; t.gpu.len()];
        steps[8] = Some(0);
        steps[9] = Some(1);
        let r = runs(&t, &class_of(&t), &cost, &steps);
        assert_eq!(r.len(), 2);
        // a memory-bound kernel by its real limit that is a matmul by name still
        // breaks a run; a norm found compute-bound is not fused
        let all_compute = |_: usize| CostClass::Compute;
        assert!(runs(&t, &class_of(&t), &all_compute, &[]).is_empty());
    }

    #[test]
    fn n_same_size_kernels_save_at_most_n_times() {
        // 8 × the same pointwise kernel back to back: one pass instead of 8
        let ev: Vec<String> = (0..8)
            .map(|i| k("mul_kernel", f64::from(i) * 10.0, 10.0, i.into()))
            .collect();
        let t = trace(&ev);
        let cost = by_name(&t);
        let r = runs(&t, &class_of(&t), &cost, &[]);
        assert_eq!(r.len(), 1);
        assert_eq!(fuse_factor(&t, &r, &cost, &|_| true), 1.0 / 8.0);
        assert!(host_sync_between(&[(0.0, 5.0)], 1.0, 5.0));
        assert!(!host_sync_between(&[(0.0, 5.0)], 5.0, 9.0));
    }
}
