//! THE TRACE ANALYSER (pure, native-tested; no web imports, all targets):
//! a PyTorch-profiler (Kineto) trace → where the GPU's time went and which
//! regime the run is in.
//!
//! - [`mod@parse`]: streaming parse of the Chrome-trace JSON (any size, progress,
//!   cancellation, defensive about every field);
//! - [`mod@breakdown`]: HTA 0.5.0's temporal breakdown (idle / compute / non-compute),
//!   reproduced exactly, per rank and per device;
//! - [`classify`]: kernel classes by name, HTA's kernel types, device → preset;
//! - [`counterfactual`]: the time warp that prices halving a cost class, the
//!   regime verdict and the remedies;
//! - [`shapes`]: FLOPs/bytes of matmul-like aten ops from recorded shapes;
//! - [`diagnose`] puts them together into a [`Diagnosis`].

pub mod breakdown;
pub mod classify;
pub mod counterfactual;
pub mod parse;
pub mod report;
pub mod shapes;

use breakdown::{activities, breakdown, share, Activity, Breakdown};
use classify::{kernel_class, preset_for_device, CostClass, KernelClass};
use counterfactual::{Halving, Remedy};
pub use parse::{parse, Trace, TraceError};
use std::collections::{BTreeMap, HashMap};

/// A gap counts as the GPU waiting for a launch when the kernel after it starts
/// within this many µs of its launch call's return and the call returned after
/// the GPU went idle (nothing was queued).
pub const LAUNCH_SLACK_US: f64 = 10.0;

/// Kernels shorter than this (µs) are "short": launch overhead is of their order.
pub const SHORT_KERNEL_US: f64 = 10.0;

/// Time per kernel class.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassTime {
    pub class: KernelClass,
    pub count: usize,
    /// Σ durations, µs.
    pub time: f64,
    /// Share of Σ durations of all activities.
    pub share: f64,
}

/// One kernel name's total.
#[derive(Clone, Debug, PartialEq)]
pub struct TopKernel {
    pub name: String,
    pub class: KernelClass,
    pub count: usize,
    pub time: f64,
}

/// Everything `brrr-trace` reports for one rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosis {
    pub rank: Option<i64>,
    pub device: Option<String>,
    pub preset: Option<&'static str>,
    /// HTA's breakdown of the rank (all devices together), µs.
    pub hta: Breakdown,
    /// The same per GPU device id.
    pub per_device: Vec<(i64, Breakdown)>,
    /// Events HTA's breakdown counts (kernels, memcpy, memset, and any other
    /// event with a stream).
    pub activities: usize,
    /// Kernels ([`is_gpu_cat`], not copies).
    pub kernels: usize,
    /// Idle time in gaps where the GPU waited for a launch, µs.
    pub launch_wait: f64,
    pub short_kernels: usize,
    /// Σ durations of short kernels / Σ durations of all kernels.
    pub short_kernel_time_share: f64,
    /// Kernels per second of span.
    pub launches_per_s: f64,
    pub classes: Vec<ClassTime>,
    /// Union of each cost class's activities / span.
    pub compute_class_share: f64,
    pub memory_class_share: f64,
    pub comm_share: f64,
    pub top_kernels: Vec<TopKernel>,
    pub regime: CostClass,
    pub halvings: Vec<Halving>,
    pub remedies: Vec<Remedy>,
    /// Kernels linked (by External id) to an aten matmul with shapes.
    pub placed_kernels: usize,
    /// FLOPs and bytes of those ops, and Σ their kernels' time (µs).
    pub matmul_flops: f64,
    pub matmul_bytes: f64,
    pub matmul_time: f64,
}

impl Diagnosis {
    pub fn span_s(&self) -> f64 {
        self.hta.span * 1e-6
    }
    pub fn launch_wait_share(&self) -> f64 {
        share(self.launch_wait, self.hta.span)
    }
    pub fn short_kernel_share(&self) -> f64 {
        share(self.short_kernels as f64, self.kernels as f64)
    }
    pub fn best_remedy(&self) -> Option<&Remedy> {
        self.remedies.first()
    }
}

/// Parses and diagnoses in one go.
pub fn analyse<R: std::io::Read>(
    reader: R,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Diagnosis, TraceError> {
    diagnose(&parse(reader, progress)?)
}

fn is_copy_cat(cat: &str) -> bool {
    let c = cat.to_ascii_lowercase();
    c == "gpu_memcpy" || c == "gpu_memset" || c == "memcpy" || c == "memset"
}

/// A GPU activity proper: a kernel, memcpy or memset (Kineto's categories, and
/// the capitalised ones of PyTorch 1.8). HTA's breakdown counts every event with
/// a stream, which can include CPU ops that record one (`triton_…` launches,
/// for one) and `cuda_sync` events (`Stream Sync`, `Context Sync`, and `Stream
/// Wait Event`, which HTA even counts as computation: no `Sync` in its name);
/// brrr's own figures (classes, short kernels, the regime) count only these.
pub fn is_gpu_cat(cat: &str) -> bool {
    cat.eq_ignore_ascii_case("kernel") || is_copy_cat(cat)
}

/// The diagnosis of one parsed trace; [`TraceError::NoGpuEvents`] when HTA's
/// rules leave no GPU activity.
pub fn diagnose(t: &Trace) -> Result<Diagnosis, TraceError> {
    let acts = activities(t);
    let refs: Vec<&Activity> = acts.iter().collect();
    let hta = breakdown(t, &refs).ok_or(TraceError::NoGpuEvents)?;

    // per device
    let mut by_device: BTreeMap<i64, Vec<&Activity>> = BTreeMap::new();
    for a in &acts {
        if let Some(e) = t.gpu.get(a.index) {
            by_device.entry(e.device).or_default().push(a);
        }
    }
    let per_device: Vec<(i64, Breakdown)> = by_device
        .iter()
        .filter_map(|(d, v)| breakdown(t, v).map(|b| (*d, b)))
        .collect();

    // device name: the device with the most activities, else the first listed
    let main_device = by_device
        .iter()
        .max_by_key(|(_, v)| v.len())
        .map(|(d, _)| *d);
    let info = main_device
        .and_then(|d| t.devices.iter().find(|i| i.id == d))
        .or(t.devices.first());
    let device = info.map(|i| i.name.clone());
    let preset = info.and_then(|i| preset_for_device(&i.name, i.memory));

    // classes, short kernels, top kernels, the warp's spans
    let mut class_of: HashMap<(u32, u32), KernelClass> = HashMap::new();
    let mut classes: BTreeMap<KernelClass, (usize, f64)> = BTreeMap::new();
    let mut names: HashMap<u32, (KernelClass, usize, f64)> = HashMap::new();
    let mut spans = Vec::with_capacity(acts.len());
    let (mut kernels, mut short, mut short_time, mut kernel_time, mut total_time) =
        (0usize, 0usize, 0.0, 0.0, 0.0);
    for a in &acts {
        let Some(e) = t.gpu.get(a.index).filter(|e| is_gpu_cat(t.name(e.cat))) else {
            continue;
        };
        let class = *class_of
            .entry((e.name, e.cat))
            .or_insert_with(|| kernel_class(t.name(e.name), t.name(e.cat)));
        // HTA's rounding can leave a sub-µs kernel with end < start: 0 here
        let dur = (a.end - a.ts).max(0.0);
        let c = classes.entry(class).or_insert((0, 0.0));
        c.0 += 1;
        c.1 += dur;
        let n = names.entry(e.name).or_insert((class, 0, 0.0));
        n.1 += 1;
        n.2 += dur;
        total_time += dur;
        if !is_copy_cat(t.name(e.cat)) {
            kernels += 1;
            kernel_time += dur;
            if dur < SHORT_KERNEL_US {
                short += 1;
                short_time += dur;
            }
        }
        spans.push((a.ts, a.end, class.cost()));
    }
    let classes: Vec<ClassTime> = classes
        .into_iter()
        .map(|(class, (count, time))| ClassTime {
            class,
            count,
            time,
            share: share(time, total_time),
        })
        .collect();
    let mut top_kernels: Vec<TopKernel> = names
        .into_iter()
        .map(|(id, (class, count, time))| TopKernel {
            name: t.name(id).to_string(),
            class,
            count,
            time,
        })
        .collect();
    top_kernels.sort_by(|a, b| b.time.total_cmp(&a.time).then_with(|| a.name.cmp(&b.name)));
    top_kernels.truncate(10);

    let union_share = |cost: CostClass| {
        let iv = spans
            .iter()
            .filter(|s| s.2 == cost && s.1 > s.0)
            .map(|s| (s.0, s.1))
            .collect();
        share(breakdown::covered(&breakdown::merge(iv)), hta.span)
    };
    let (compute_class_share, memory_class_share, comm_share) = (
        union_share(CostClass::Compute),
        union_share(CostClass::Memory),
        union_share(CostClass::Communication),
    );
    // the launch-wait gaps, marked for the warp (CUDA graphs remove just these)
    let launch_gaps = launch_gaps(t, &acts);
    spans.extend(
        launch_gaps
            .iter()
            .map(|(a, b)| (*a, *b, CostClass::Overhead)),
    );
    let (regime, halvings) = counterfactual::regime(&spans);
    let remedies = counterfactual::remedies(&spans);

    // matmul FLOPs from shapes: each kernel placed on its aten op
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
    let (mut placed, mut flops, mut bytes, mut mm_time) = (0usize, 0.0, 0.0, 0.0);
    let mut seen_ops = vec![false; t.ops.len()];
    for a in &acts {
        let Some(e) = t.gpu.get(a.index).filter(|e| is_gpu_cat(t.name(e.cat))) else {
            continue;
        };
        let Some(i) = find_ext(e.external_id).or_else(|| enclosing_op(t, e.correlation)) else {
            continue;
        };
        let Some(op) = t.ops.get(i) else { continue };
        placed += 1;
        mm_time += (a.end - a.ts).max(0.0);
        if let Some(seen @ false) = seen_ops.get_mut(i) {
            *seen = true;
            flops += op.flops;
            bytes += op.bytes;
        }
    }

    Ok(Diagnosis {
        rank: t.rank,
        device,
        preset,
        hta,
        per_device,
        activities: acts.len(),
        kernels,
        launch_wait: launch_gaps.iter().fold(0.0, |acc, (a, b)| acc + (b - a)),
        short_kernels: short,
        short_kernel_time_share: share(short_time, kernel_time),
        launches_per_s: share(kernels as f64, hta.span * 1e-6),
        classes,
        compute_class_share,
        memory_class_share,
        comm_share,
        top_kernels,
        regime,
        halvings,
        remedies,
        placed_kernels: placed,
        matmul_flops: flops,
        matmul_bytes: bytes,
        matmul_time: mm_time,
    })
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

/// The gaps of the union (start, end; µs) where the GPU waited for the CPU: the
/// activity that ends the gap was launched by a call that returned after the gap
/// began (nothing was queued) and it started within [`LAUNCH_SLACK_US`] of that
/// return.
pub fn launch_gaps(t: &Trace, acts: &[Activity]) -> Vec<(f64, f64)> {
    let mut order: Vec<&Activity> = acts.iter().collect();
    order.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.end.total_cmp(&a.end)));
    let mut max_end = f64::NEG_INFINITY;
    let mut gaps = Vec::new();
    for a in order {
        if a.ts > max_end && max_end.is_finite() {
            let gap_start = max_end;
            let launch = t
                .gpu
                .get(a.index)
                .and_then(|e| t.cpu.get(&e.correlation))
                .and_then(|c| c.launch);
            if let Some((lts, ldur)) = launch {
                let (_, lend) = breakdown::hta_times(t, lts, ldur);
                if lend > gap_start && a.ts <= lend + LAUNCH_SLACK_US {
                    gaps.push((gap_start, a.ts));
                }
            }
        }
        max_end = max_end.max(a.end);
    }
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(events: &[String]) -> Diagnosis {
        let body = format!(r#"{{"traceEvents": [{}]}}"#, events.join(","));
        analyse(body.as_bytes(), &mut |_| true).unwrap()
    }

    fn k(name: &str, ts: f64, dur: f64, corr: i64) -> String {
        format!(
            r#"{{"ph":"X","cat":"kernel","name":"{name}","ts":{ts},"dur":{dur},"args":{{"stream":7,"correlation":{corr},"device":0}}}}"#
        )
    }

    fn launch(ts: f64, dur: f64, corr: i64) -> String {
        format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":{ts},"dur":{dur},"args":{{"correlation":{corr}}}}}"#
        )
    }

    #[test]
    fn launch_bound_gaps() {
        // k1 0..5; k2 launched 20..24, starts 26 (waited on the CPU: gap 5..26);
        // k3 launched early (1..2) but starts at 40 after a gap (e.g. a dependency)
        let d = diag(&[
            k("a", 0.0, 5.0, 1),
            launch(20.0, 4.0, 2),
            k("b", 26.0, 4.0, 2),
            launch(1.0, 1.0, 3),
            k("c", 40.0, 10.0, 3),
        ]);
        assert_eq!(d.hta.span, 50.0);
        assert_eq!(d.hta.idle, 31.0);
        assert_eq!(d.launch_wait, 21.0);
        assert_eq!(d.kernels, 3);
        assert_eq!(d.short_kernels, 2);
        assert_eq!(d.short_kernel_share(), 2.0 / 3.0);
        assert!((d.launches_per_s - 3.0 / 50e-6).abs() < 1e-6);
        assert_eq!(d.regime, CostClass::Overhead);
        assert_eq!(d.best_remedy().map(|r| r.id), Some("no_idle"));
        assert!((d.best_remedy().unwrap().speedup - 50.0 / 19.0).abs() < 1e-12);
        // CUDA graphs remove only the launch-wait gap 5..26
        let graphs = d.remedies.iter().find(|r| r.id == "cuda_graphs").unwrap();
        assert!((graphs.speedup - 50.0 / 29.0).abs() < 1e-12);
    }

    #[test]
    fn classes_and_regime() {
        let d = diag(&[
            k("ampere_sgemm_128x64_nn", 0.0, 100.0, 1),
            k("vectorized_elementwise_kernel", 100.0, 20.0, 2),
            k("ncclDevKernel_AllReduce", 120.0, 10.0, 3),
            r#"{"cat":"gpu_memcpy","name":"Memcpy HtoD","ts":130,"dur":10,"args":{"stream":7,"correlation":4,"device":0}}"#.into(),
        ]);
        assert_eq!(d.regime, CostClass::Compute);
        assert_eq!(d.kernels, 3);
        assert_eq!(d.activities, 4);
        assert_eq!(d.hta.compute, 120.0);
        assert_eq!(d.hta.noncompute, 20.0);
        assert_eq!(d.comm_share, 10.0 / 140.0);
        assert_eq!(d.memory_class_share, 30.0 / 140.0);
        assert_eq!(d.compute_class_share, 100.0 / 140.0);
        assert_eq!(d.top_kernels[0].name, "ampere_sgemm_128x64_nn");
        let m = d
            .classes
            .iter()
            .find(|c| c.class == KernelClass::Matmul)
            .unwrap();
        assert_eq!((m.count, m.time), (1, 100.0));
        assert!((d.classes.iter().map(|c| c.share).sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn per_device_and_the_device_name() {
        let on = |dev: i64, ts: f64, dur: f64, corr: i64| {
            format!(
                r#"{{"cat":"kernel","name":"k","ts":{ts},"dur":{dur},"args":{{"stream":7,"correlation":{corr},"device":{dev}}}}}"#
            )
        };
        let body = format!(
            r#"{{"deviceProperties":[{{"id":0,"name":"NVIDIA L4"}},{{"id":1,"name":"NVIDIA H100 PCIe"}}],"traceEvents":[{},{},{}]}}"#,
            on(0, 0.0, 10.0, 1),
            on(1, 0.0, 5.0, 2),
            on(1, 15.0, 5.0, 3)
        );
        let d = analyse(body.as_bytes(), &mut |_| true).unwrap();
        // the rank: one timeline over both devices
        assert_eq!((d.hta.span, d.hta.idle), (20.0, 5.0));
        let per: Vec<(i64, f64, f64)> = d
            .per_device
            .iter()
            .map(|(i, b)| (*i, b.span, b.idle))
            .collect();
        assert_eq!(per, vec![(0, 10.0, 0.0), (1, 20.0, 10.0)]);
        // the busiest device names the rank's GPU
        assert_eq!(d.device.as_deref(), Some("NVIDIA H100 PCIe"));
        assert_eq!(d.preset, Some("h100-pcie"));
    }

    #[test]
    fn cpu_only_is_an_error() {
        let body = r#"{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::add","ts":1,"dur":2,"args":{}}]}"#;
        assert_eq!(
            analyse(body.as_bytes(), &mut |_| true),
            Err(TraceError::NoGpuEvents)
        );
    }

    #[test]
    fn placed_by_time_on_the_launching_thread() {
        // older Kineto: a kernel's External id is its correlation; the op is the
        // innermost shaped op around the launch call on the same thread
        let op = |name: &str, ts: f64, dur: f64, ext: i64, tid: i64, m: i64| {
            format!(
                r#"{{"cat":"cpu_op","name":"{name}","tid":{tid},"ts":{ts},"dur":{dur},"args":{{"External id":{ext},"Input Dims":[[{m},8],[8,4]],"Input type":["float","float"]}}}}"#
            )
        };
        let d = diag(&[
            op("aten::matmul", 0.0, 100.0, 5, 1, 16),
            op("aten::mm", 10.0, 80.0, 6, 1, 32),
            op("aten::mm", 0.0, 100.0, 7, 2, 64),
            r#"{"cat":"cuda_runtime","name":"cudaLaunchKernel","tid":1,"ts":20,"dur":5,"args":{"correlation":42}}"#.into(),
            r#"{"cat":"kernel","name":"sgemm","ts":30,"dur":4,"args":{"stream":7,"correlation":42,"External id":42}}"#.into(),
        ]);
        assert_eq!(d.placed_kernels, 1);
        assert_eq!(d.matmul_flops, 2.0 * 32.0 * 8.0 * 4.0);
    }

    #[test]
    fn placed_matmuls() {
        let d = diag(&[
            r#"{"cat":"cpu_op","name":"aten::mm","ts":0,"dur":5,"args":{"External id":7,"Input Dims":[[64,128],[128,32]],"Input type":["float","float"]}}"#.into(),
            r#"{"cat":"kernel","name":"ampere_sgemm","ts":1,"dur":4,"args":{"stream":7,"correlation":1,"External id":7}}"#.into(),
        ]);
        assert_eq!(d.placed_kernels, 1);
        assert_eq!(d.matmul_flops, 2.0 * 64.0 * 128.0 * 32.0);
        assert_eq!(d.matmul_time, 4.0);
    }
}
