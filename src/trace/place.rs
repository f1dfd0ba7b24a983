//! Kernels placed by shape: each GPU kernel linked to the aten op that launched
//! it (by `External id`, else the innermost shaped op around its launch call on
//! the same thread, [`enclosing_op`]) gets a share of that op's FLOPs and bytes
//! ([`super::shapes::cost`]), and the (op, kernel) pairs become points for the
//! roofline.
//!
//! **Several kernels per op.** An op that launches several kernels (a matmul with
//! a split-K reduction, a norm with a statistics pass, an attention done as two
//! batched matmuls and a softmax) has its bytes shared among them in proportion
//! to their durations (equally if they all last 0). Its FLOPs go the same way to
//! its matmul-class kernels (matmul, attention) where it has any, and only then
//! to the others: a softmax or a copy inside an attention op does not get the
//! attention's FLOPs (it would sit far above any roof). The points' FLOPs and
//! bytes still add up to the ops'. Only kernels are placed (category `kernel`):
//! memcpy/memset have no roofline.
//!
//! **Replayed kernels.** A kernel replayed from a CUDA graph has no aten op (the
//! replay records none). Where a kernel of the same name was placed elsewhere in
//! the trace and every such call had the same FLOPs and bytes (a warm-up, the
//! capture), the replayed one is placed with them ([`Placement::by_name`]); else
//! it stays unplaced and keeps its name class.

use super::breakdown::hta_times;
use super::classify::{kernel_class, KernelClass};
use super::parse::Trace;
use super::shapes::OpKind;
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

/// At most this many points in [`Placed::roofline`] (the longest).
pub const MAX_POINTS: usize = 300;

/// One point of the roofline: an (aten op, kernel name) pair over all its calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacedRow {
    /// The aten op's name, e.g. `aten::addmm`.
    pub op: String,
    /// The kernel's name.
    pub kernel: String,
    /// The kernel's class ([`KernelClass::id`]).
    pub class: String,
    /// The op's first tensor input's dtype ([`super::shapes::dtype_id`]), `tf32`
    /// for fp32 where the kernel's name says TF32 ([`tf32_kernel`]); `None`
    /// when unknown or when calls of the pair disagree.
    pub dtype: Option<String>,
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
    /// Index into [`Trace::gpu`].
    pub index: usize,
    /// Index into [`Trace::ops`] of the op it was placed on (for a kernel placed
    /// by name, the op of a call of that name).
    pub op: usize,
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

/// Every kernel placed by shape, by [`PlacedKernel::index`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    pub kernels: Vec<PlacedKernel>,
    /// Of these, kernels placed by their name (replayed ones, see the module doc).
    pub by_name: usize,
}

impl Placement {
    /// The placed kernel of GPU event `index`.
    pub fn get(&self, index: usize) -> Option<&PlacedKernel> {
        self.kernels
            .binary_search_by_key(&index, |k| k.index)
            .ok()
            .and_then(|i| self.kernels.get(i))
    }
}

/// The sums brrr reports over some of the placed kernels ([`summary`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placed {
    /// Kernels counted.
    pub count: usize,
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

/// The innermost shaped op (index into [`Trace::ops`]) whose CPU interval holds
/// the launch call of correlation `corr` on the same thread: older Kineto gives
/// kernels their correlation as `External id`, so the op is found by time.
pub fn enclosing_op(t: &Trace, corr: i64) -> Option<usize> {
    let c = t.cpu.get(&corr)?;
    let (lts, _) = c.launch?;
    let tid = c.launch_tid;
    // ops sorted by (tid, ts): the last op of this thread starting at or before lts
    let after = t
        .ops
        .partition_point(|o| o.tid < tid || (o.tid == tid && o.ts <= lts));
    (0..after)
        .rev()
        .take(64)
        .take_while(|i| t.ops.get(*i).is_some_and(|o| o.tid == tid))
        .find(|i| t.ops.get(*i).is_some_and(|o| o.ts <= lts && lts <= o.end))
}

/// A kernel linked to its op: (GPU event index, op index, duration µs, class).
type Link = (usize, usize, f64, KernelClass);

/// Every kernel of the trace (category `kernel`) linked to its shaped op.
fn links(t: &Trace) -> Vec<Link> {
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
    let mut class_of: HashMap<(u32, u32), KernelClass> = HashMap::default();
    let mut out = Vec::new();
    for (gi, e) in t.gpu.iter().enumerate() {
        if !t.name(e.cat).eq_ignore_ascii_case("kernel") {
            continue;
        }
        let by_id = (e.external_id >= 0)
            .then(|| find_ext(e.external_id))
            .flatten();
        let Some(op) = by_id.or_else(|| enclosing_op(t, e.correlation)) else {
            continue;
        };
        let (ts, end) = hta_times(t, e.ts, e.dur);
        let class = *class_of
            .entry((e.name, e.cat))
            .or_insert_with(|| kernel_class(t.name(e.name), t.name(e.cat)));
        out.push((gi, op, (end - ts).max(0.0), class));
    }
    out
}

fn matmul_class(c: KernelClass) -> bool {
    matches!(c, KernelClass::Matmul | KernelClass::Attention)
}

/// Places every kernel of the trace on its shaped op (see the module doc).
pub fn place(t: &Trace) -> Placement {
    let linked = links(t);
    // per op: Σ durations of all its kernels, and of its matmul-class ones
    let mut per_op: HashMap<usize, [(f64, usize); 2]> = HashMap::default();
    for &(_, op, dur, class) in &linked {
        let s = per_op.entry(op).or_insert([(0.0, 0); 2]);
        s[0].0 += dur;
        s[0].1 += 1;
        if matmul_class(class) {
            s[1].0 += dur;
            s[1].1 += 1;
        }
    }
    let part = |(total, n): (f64, usize), dur: f64| {
        if total > 0.0 {
            dur / total
        } else {
            1.0 / n.max(1) as f64
        }
    };
    let mut kernels = Vec::with_capacity(linked.len());
    for (index, op_i, dur, class) in linked {
        let (Some(op), Some(e)) = (t.ops.get(op_i), t.gpu.get(index)) else {
            continue;
        };
        let [all, mm] = per_op.get(&op_i).copied().unwrap_or([(dur, 1); 2]);
        let flops = if mm.1 > 0 {
            if matmul_class(class) {
                op.flops * part(mm, dur)
            } else {
                0.0
            }
        } else if op.kind.is_compute() {
            // a matmul, conv or attention op none of whose kernels is one: its
            // FLOPs were done by its child ops' kernels (SDPA's math path runs
            // aten::bmm), not by these copies and softmaxes
            0.0
        } else {
            op.flops * part(all, dur)
        };
        kernels.push(PlacedKernel {
            index,
            op: op_i,
            class,
            dur,
            flops,
            bytes: op.bytes * part(all, dur),
            dtype: op.dtype,
            tf32: op.dtype == Some("fp32") && tf32_kernel(t.name(e.name)),
        });
    }
    let by_name = place_by_name(t, &mut kernels);
    kernels.sort_by_key(|k| k.index);
    Placement { kernels, by_name }
}

/// Places kernels replayed from a CUDA graph (launched by a graph launch, so
/// with no op) by the name of kernels placed elsewhere whose every call had the
/// same FLOPs and bytes; returns how many.
fn place_by_name(t: &Trace, kernels: &mut Vec<PlacedKernel>) -> usize {
    // per kernel name: one placed call, or None once two calls disagree
    let mut donor: HashMap<u32, Option<PlacedKernel>> = HashMap::default();
    for k in kernels.iter() {
        let Some(e) = t.gpu.get(k.index) else {
            continue;
        };
        let same = |d: &PlacedKernel| {
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
            close(d.flops, k.flops) && close(d.bytes, k.bytes) && d.dtype == k.dtype
        };
        donor
            .entry(e.name)
            .and_modify(|d| {
                if !d.as_ref().is_some_and(same) {
                    *d = None;
                }
            })
            .or_insert(Some(*k));
    }
    let placed: rustc_hash::FxHashSet<usize> = kernels.iter().map(|k| k.index).collect();
    let mut n = 0;
    for (index, e) in t.gpu.iter().enumerate() {
        if placed.contains(&index) || !t.name(e.cat).eq_ignore_ascii_case("kernel") {
            continue;
        }
        let Some(Some(d)) = donor.get(&e.name).filter(|_| super::launch::replayed(t, e)) else {
            continue;
        };
        let (ts, end) = hta_times(t, e.ts, e.dur);
        kernels.push(PlacedKernel {
            index,
            dur: (end - ts).max(0.0),
            ..*d
        });
        n += 1;
    }
    n
}

/// The sums and the roofline's points over the placed kernels `keep` accepts
/// (the breakdown's activities: HTA drops the last ProfilerStep's).
pub fn summary(t: &Trace, p: &Placement, keep: &dyn Fn(usize) -> bool) -> Placed {
    let mut out = Placed::default();
    let mut points: HashMap<(u32, u32), (usize, PlacedRow)> = HashMap::default();
    let mut counted = vec![false; t.ops.len()];
    for k in p.kernels.iter().filter(|k| keep(k.index)) {
        let (Some(op), Some(e)) = (t.ops.get(k.op), t.gpu.get(k.index)) else {
            continue;
        };
        out.count += 1;
        if op.kind == OpKind::Matmul {
            out.matmul_time += k.dur;
            if let Some(c @ false) = counted.get_mut(k.op) {
                *c = true;
                out.matmul_flops += op.flops;
                out.matmul_bytes += op.bytes;
            }
        }
        let dtype = if k.tf32 { Some("tf32") } else { k.dtype };
        let order = points.len();
        let pt = points.entry((op.name, e.name)).or_insert_with(|| {
            (
                order,
                PlacedRow {
                    op: t.name(op.name).to_string(),
                    kernel: t.name(e.name).to_string(),
                    class: k.class.id().to_string(),
                    dtype: dtype.map(str::to_string),
                    count: 0,
                    time_s: 0.0,
                    flops: 0.0,
                    bytes: 0.0,
                },
            )
        });
        let r = &mut pt.1;
        if r.dtype.as_deref() != dtype {
            r.dtype = None;
        }
        r.count += 1;
        r.time_s += k.dur * 1e-6;
        r.flops += k.flops;
        r.bytes += k.bytes;
    }
    let mut rows: Vec<(usize, PlacedRow)> = points.into_values().collect();
    rows.sort_by(|a, b| b.1.time_s.total_cmp(&a.1.time_s).then(a.0.cmp(&b.0)));
    rows.truncate(MAX_POINTS);
    out.roofline = rows.into_iter().map(|(_, r)| r).collect();
    out
}
