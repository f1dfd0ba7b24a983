//! Kernels placed by shape: each GPU kernel linked to the aten op that launched
//! it (by `External id`, else the innermost shaped op around its launch call on
//! the same thread, [`super::enclosing_op`]) gets a share of that op's FLOPs and
//! bytes ([`super::shapes::cost`]), and the (op, kernel) pairs become points for
//! the roofline.
//!
//! **Several kernels per op.** An op that launches several kernels (a matmul with
//! a split-K reduction, a norm with a statistics pass) has its FLOPs and bytes
//! shared among them in proportion to their durations (equally if they all last
//! 0), so each kernel sits at the op's intensity and the op's own achieved rate,
//! and the points' FLOPs add up to the ops'. Only kernels are placed (category
//! `kernel`): memcpy/memset have no roofline.

use super::breakdown::Activity;
use super::classify::{kernel_class, KernelClass};
use super::parse::Trace;
use super::shapes::OpKind;
use serde::Serialize;
use std::collections::HashMap;

/// At most this many points in [`Placement::roofline`] (the longest).
pub const MAX_POINTS: usize = 300;

/// One point of the roofline: an (aten op, kernel name) pair over all its calls.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacedRow {
    /// The aten op's name, e.g. `aten::addmm`.
    pub op: String,
    /// The kernel's name.
    pub kernel: String,
    /// The kernel's class ([`KernelClass::id`]).
    pub class: &'static str,
    /// The op's first tensor input's dtype ([`super::shapes::dtype_id`]), `tf32`
    /// for fp32 where the kernel's name says TF32 ([`tf32_kernel`]); `None`
    /// when unknown or when calls of the pair disagree.
    pub dtype: Option<&'static str>,
    pub count: usize,
    /// Σ the kernels' durations, s.
    pub time_s: f64,
    /// Σ the kernels' shares of their ops' FLOPs and bytes.
    pub flops: f64,
    pub bytes: f64,
}

/// One placed kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedKernel {
    /// Index into the activities the placement was given.
    pub act: usize,
    pub class: KernelClass,
    /// Duration, µs (0 for HTA's negative sub-µs slivers).
    pub dur: f64,
    pub flops: f64,
    pub bytes: f64,
    pub dtype: Option<&'static str>,
    /// An fp32 kernel whose name says it runs on TF32 tensor cores (`tf32`, or
    /// CUTLASS's `s1688gemm` / `s16816gemm` TF32 tiles).
    pub tf32: bool,
}

/// Whether a kernel's name says TF32 ([`PlacedKernel::tf32`]).
pub fn tf32_kernel(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("tf32") || n.contains("s1688gemm") || n.contains("s16816gemm")
}

/// Every kernel placed by shape, and the sums brrr reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    pub kernels: Vec<PlacedKernel>,
    /// FLOPs and bytes of the matmul-family ops (`aten::mm`, `addmm`, `bmm`,
    /// `baddbmm`, `matmul`, `linear`) with a placed kernel, and Σ those kernels'
    /// time (µs): the figures `matmul_flops`, `matmul_bytes`, `matmul_kernel_s`
    /// always meant.
    pub matmul_flops: f64,
    pub matmul_bytes: f64,
    pub matmul_time: f64,
    /// Points, most time first, at most [`MAX_POINTS`].
    pub roofline: Vec<PlacedRow>,
}

/// Places the kernels among `acts` on their shaped ops.
pub fn place(t: &Trace, acts: &[Activity]) -> Placement {
    let mut by_ext: Vec<(i64, usize)> = t
        .ops
        .iter()
        .enumerate()
        .map(|(i, o)| (o.external_id, i))
        .collect();
    by_ext.sort_unstable();
    let find_ext = |ext: i64| {
        let k = by_ext.partition_point(|(x, _)| *x < ext);
        by_ext.get(k).filter(|(x, _)| *x == ext).map(|(_, i)| *i)
    };
    // (activity, op, duration, class) of every kernel with an op
    let mut linked: Vec<(usize, usize, f64, KernelClass)> = Vec::new();
    let mut op_time: HashMap<usize, (f64, usize)> = HashMap::new();
    let mut class_of: HashMap<(u32, u32), KernelClass> = HashMap::new();
    for (ai, a) in acts.iter().enumerate() {
        let Some(e) = t
            .gpu
            .get(a.index)
            .filter(|e| t.name(e.cat).eq_ignore_ascii_case("kernel"))
        else {
            continue;
        };
        let by_id = (e.external_id >= 0)
            .then(|| find_ext(e.external_id))
            .flatten();
        let Some(i) = by_id.or_else(|| super::enclosing_op(t, e.correlation)) else {
            continue;
        };
        let dur = (a.end - a.ts).max(0.0);
        let class = *class_of
            .entry((e.name, e.cat))
            .or_insert_with(|| kernel_class(t.name(e.name), t.name(e.cat)));
        linked.push((ai, i, dur, class));
        let s = op_time.entry(i).or_insert((0.0, 0));
        s.0 += dur;
        s.1 += 1;
    }
    let mut p = Placement::default();
    let mut points: HashMap<(u32, u32), (usize, PlacedRow)> = HashMap::new();
    let mut counted = vec![false; t.ops.len()];
    for (ai, i, dur, class) in linked {
        let (Some(op), Some(a)) = (t.ops.get(i), acts.get(ai)) else {
            continue;
        };
        let (total, n) = op_time.get(&i).copied().unwrap_or((0.0, 1));
        let share = if total > 0.0 {
            dur / total
        } else {
            1.0 / n.max(1) as f64
        };
        let (flops, bytes) = (op.flops * share, op.bytes * share);
        let tf32 = op.dtype == Some("fp32")
            && t.gpu
                .get(a.index)
                .is_some_and(|e| tf32_kernel(t.name(e.name)));
        let dtype = if tf32 { Some("tf32") } else { op.dtype };
        p.kernels.push(PlacedKernel {
            act: ai,
            class,
            dur,
            flops,
            bytes,
            dtype: op.dtype,
            tf32,
        });
        if op.kind == OpKind::Matmul {
            p.matmul_time += dur;
            if let Some(c @ false) = counted.get_mut(i) {
                *c = true;
                p.matmul_flops += op.flops;
                p.matmul_bytes += op.bytes;
            }
        }
        let Some(kernel) = t.gpu.get(a.index).map(|e| e.name) else {
            continue;
        };
        let order = points.len();
        let pt = points.entry((op.name, kernel)).or_insert_with(|| {
            (
                order,
                PlacedRow {
                    op: t.name(op.name).to_string(),
                    kernel: t.name(kernel).to_string(),
                    class: class.id(),
                    dtype,
                    count: 0,
                    time_s: 0.0,
                    flops: 0.0,
                    bytes: 0.0,
                },
            )
        });
        let r = &mut pt.1;
        if r.dtype != dtype {
            r.dtype = None;
        }
        r.count += 1;
        r.time_s += dur * 1e-6;
        r.flops += flops;
        r.bytes += bytes;
    }
    let mut rows: Vec<(usize, PlacedRow)> = points.into_values().collect();
    rows.sort_by(|a, b| b.1.time_s.total_cmp(&a.1.time_s).then(a.0.cmp(&b.0)));
    rows.truncate(MAX_POINTS);
    p.roofline = rows.into_iter().map(|(_, r)| r).collect();
    p
}
