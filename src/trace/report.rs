//! The diagnosis as JSON: the one row per rank that `brrr-trace --json` writes
//! and the page's trace worker posts (`src/bin/brrr-trace-worker.rs`), so the
//! browser's readouts and the CLI's file are the same numbers. The schema is
//! written once, here: the CLI and the worker serialise [`Row`], and the page
//! (`ui/widgets/trace.rs`) and the tests deserialise the same type. Shares are
//! fractions (0–1), times seconds, unrounded. Fields are added, never renamed.

use super::breakdown::share;
pub use super::place::PlacedRow;
pub use super::timeline::{LaneRow, TimelineRow};
use super::Diagnosis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One rank in `--json`'s `ranks` array.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub file: String,
    pub rank: Option<i64>,
    pub device: Option<String>,
    pub preset: Option<String>,
    pub kernels: usize,
    pub span_s: f64,
    pub idle_share: f64,
    pub compute_share: f64,
    pub noncompute_share: f64,
    pub comm_share: f64,
    pub memory_share: f64,
    pub launch_wait_share: f64,
    pub short_kernel_share: f64,
    pub placed_kernels: usize,
    pub regime: String,
    pub best_remedy: Option<String>,
    pub best_speedup: Option<f64>,
    // beyond HTA's analyses
    pub activities: usize,
    pub matmul_share: f64,
    pub short_kernel_time_share: f64,
    pub launches_per_s: f64,
    pub halving_saves: BTreeMap<String, f64>,
    pub remedies: BTreeMap<String, f64>,
    pub class_time_share: BTreeMap<String, f64>,
    pub matmul_flops: f64,
    pub matmul_kernel_s: f64,
    pub devices: Vec<DeviceRow>,
    // what the page's trace widget draws beyond the figures above
    pub matmul_bytes: f64,
    /// Remedies best first, with their sentences and predicted steps.
    pub remedy_list: Vec<RemedyRow>,
    /// Kernel classes in `KernelClass::ALL` order (only those present).
    pub classes: Vec<ClassRow>,
    /// The ten kernel names with the most time, most first.
    pub top_kernels: Vec<KernelRow>,
    /// The preset the kernels are placed against, classed by and
    /// `matmuls_at_roof` priced on: the one asked for (`--gpu`, the worker's
    /// `preset`), else `preset`.
    pub roof_preset: Option<String>,
    /// Kernels placed by shape, one point per (aten op, kernel name), most time
    /// first, at most 300 (`trace::place`).
    pub roofline: Vec<PlacedRow>,
    /// The busiest second's lanes (`trace::timeline`); null without GPU activity.
    pub timeline: Option<TimelineRow>,
    // per step, graphs, HTA's other analyses
    /// Distinct `ProfilerStep#N` (0 without markers).
    pub steps: usize,
    /// The mean step, s: the longer of its GPU window and CPU span
    /// (`step_basis` says which: `gpu`, `cpu`; `trace` without markers, when
    /// it is HTA's span).
    pub step_s: f64,
    pub step_basis: String,
    /// The step an unprofiled run would take: the step less the profiler's
    /// cost as this trace shows it (`trace::profiler`); null where the trace
    /// gives no estimate (too few nested aten ops, as in a graph replay).
    pub step_unprofiled_s: Option<f64>,
    /// What one profiler record cost the CPU in this trace, s (the median
    /// excess of an aten op over its single aten child, `trace::profiler`);
    /// null with too few such ops.
    pub profiler_record_s: Option<f64>,
    /// The run replays CUDA graphs: graph launch calls, activities replayed.
    pub graph_replay: bool,
    pub graph_launches: usize,
    pub replayed_kernels: usize,
    /// The run went through torch.compile.
    pub compiled: bool,
    /// Replayed kernels placed by their name (of `placed_kernels`).
    pub placed_by_name: usize,
    /// Kernel time whose class was decided by its name, not by the roof, s.
    pub unplaced_kernel_s: f64,
    /// HTA's idle time breakdown: each category's share of the rank's idle
    /// time summed over its streams (they sum to 1); null without idle time.
    pub idle_host_share: Option<f64>,
    pub idle_kernel_share: Option<f64>,
    pub idle_other_share: Option<f64>,
    /// HTA's communication–computation overlap (a fraction); null without
    /// communication.
    pub comm_overlap: Option<f64>,
    /// HTA's kernel launch statistics: the median launch delay, s, the pairs
    /// counted, and the share of them that ran shorter than their launch call.
    pub launch_delay_median_s: Option<f64>,
    pub launch_pairs: usize,
    pub launch_short_share: Option<f64>,
    /// Every distinct kernel name, sorted (for a comparison).
    pub kernel_names: Vec<String>,
    // checked on the recorded decode pairs
    /// Steps whose work is in HTA's span (HTA leaves out what the last
    /// ProfilerStep launched).
    pub steps_in_span: usize,
    /// Launch pairs whose call returned while the stream still ran earlier
    /// work (their delay is a queue wait, not the CPU's).
    pub launch_queued: usize,
    /// Kernel time not placed by shape but memory-bound by its name's tile and
    /// launch grid, s (`trace::launch`).
    pub launch_classed_kernel_s: f64,
    /// The kernels not placed by shape, by name, most time first (at most 8):
    /// how each was classed and why.
    pub unplaced: Vec<UnplacedRow>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnplacedRow {
    pub name: String,
    pub class: String,
    /// `compute`, `memory`, `communication`.
    pub cost: String,
    /// What decided it: `launch` (its tile and grid) or `name`.
    pub basis: String,
    pub count: usize,
    pub time_s: f64,
    /// Why it is not placed and what classed it, a sentence.
    pub why: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceRow {
    pub device: i64,
    pub span_s: f64,
    pub idle_share: f64,
    pub compute_share: f64,
    pub noncompute_share: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RemedyRow {
    pub id: String,
    /// What it is and what it buys on this trace, a sentence.
    pub label: String,
    pub speedup: f64,
    /// The step after the fix, s, as a trace of the fixed run would show it.
    pub step_after_s: f64,
    /// Against the unprofiled step estimate (`step_unprofiled_s`), where there is one.
    pub speedup_unprofiled: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassRow {
    pub class: String,
    pub count: usize,
    pub time_s: f64,
    pub share: f64,
    /// Its time per step, s.
    pub step_s: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelRow {
    pub name: String,
    pub class: String,
    pub count: usize,
    pub time_s: f64,
    /// Of all GPU activities' summed time.
    pub share: f64,
}

/// `--json`'s top level.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Out {
    pub ranks: Vec<Row>,
}

/// The row of `file`'s diagnosis.
pub fn row(file: &str, d: &Diagnosis) -> Row {
    let best = d.best_remedy();
    let idle = d.idle.shares();
    let mut r = Row {
        file: file.to_string(),
        rank: d.rank,
        device: d.device.clone(),
        preset: d.preset.map(str::to_string),
        kernels: d.kernels,
        span_s: d.span_s(),
        idle_share: d.hta.idle_share(),
        compute_share: d.hta.compute_share(),
        noncompute_share: d.hta.noncompute_share(),
        comm_share: d.comm_share,
        memory_share: d.memory_class_share,
        launch_wait_share: d.launch_wait_share(),
        short_kernel_share: d.short_kernel_share(),
        placed_kernels: d.placed_kernels,
        regime: d.regime.id().to_string(),
        best_remedy: best.map(|r| r.id.to_string()),
        best_speedup: best.map(|r| r.speedup),
        activities: d.activities,
        matmul_share: d.compute_class_share,
        short_kernel_time_share: d.short_kernel_time_share,
        launches_per_s: d.launches_per_s,
        halving_saves: d
            .halvings
            .iter()
            .map(|h| (h.class.id().to_string(), h.saving))
            .collect(),
        remedies: d
            .remedies
            .iter()
            .map(|r| (r.id.to_string(), r.speedup))
            .collect(),
        class_time_share: d
            .classes
            .iter()
            .map(|c| (c.class.id().to_string(), c.share))
            .collect(),
        matmul_flops: d.matmul_flops,
        matmul_kernel_s: d.matmul_time * 1e-6,
        matmul_bytes: d.matmul_bytes,
        roof_preset: d.roof_preset.map(str::to_string),
        roofline: d.roofline.clone(),
        timeline: d.timeline.clone(),
        steps: d.steps.count,
        step_s: d.steps.mean * 1e-6,
        step_basis: d.steps.basis.to_string(),
        step_unprofiled_s: d.steps.unprofiled.map(|x| x * 1e-6),
        profiler_record_s: d.steps.per_record.map(|x| x * 1e-6),
        graph_replay: d.graphs.replay(),
        graph_launches: d.graphs.launches,
        replayed_kernels: d.graphs.replayed,
        compiled: d.compiled,
        placed_by_name: d.placed_by_name,
        unplaced_kernel_s: d.unplaced_time * 1e-6,
        idle_host_share: idle.map(|x| x.0),
        idle_kernel_share: idle.map(|x| x.1),
        idle_other_share: idle.map(|x| x.2),
        comm_overlap: d.comm_overlap,
        launch_delay_median_s: d.launch.delay_median.map(|x| x * 1e-6),
        launch_pairs: d.launch.count,
        launch_short_share: (d.launch.count > 0)
            .then(|| share(d.launch.short as f64, d.launch.count as f64)),
        kernel_names: d.kernel_names.clone(),
        steps_in_span: d.steps.in_span,
        launch_queued: d.launch.queued,
        launch_classed_kernel_s: d.launch_time * 1e-6,
        unplaced: d
            .unplaced
            .iter()
            .map(|u| UnplacedRow {
                name: u.name.clone(),
                class: u.class.id().to_string(),
                cost: u.cost.id().to_string(),
                basis: u.basis.id().to_string(),
                count: u.count,
                time_s: u.time * 1e-6,
                why: u.why.clone(),
            })
            .collect(),
        ..Row::default()
    };
    lists(&mut r, d);
    r
}

/// The row's lists: devices, remedies, classes, top kernels.
fn lists(r: &mut Row, d: &Diagnosis) {
    let total: f64 = d.classes.iter().map(|c| c.time).sum();
    r.devices = d
        .per_device
        .iter()
        .map(|(dev, b)| DeviceRow {
            device: *dev,
            span_s: b.span * 1e-6,
            idle_share: b.idle_share(),
            compute_share: b.compute_share(),
            noncompute_share: b.noncompute_share(),
        })
        .collect();
    r.remedy_list = d
        .remedies
        .iter()
        .map(|x| RemedyRow {
            id: x.id.to_string(),
            label: x.label.clone(),
            speedup: x.speedup,
            step_after_s: x.step_after * 1e-6,
            speedup_unprofiled: x.speedup_unprofiled,
        })
        .collect();
    r.classes = d
        .classes
        .iter()
        .map(|c| ClassRow {
            class: c.class.id().to_string(),
            count: c.count,
            time_s: c.time * 1e-6,
            share: c.share,
            step_s: c.per_step * 1e-6,
        })
        .collect();
    r.top_kernels = d
        .top_kernels
        .iter()
        .map(|k| KernelRow {
            name: k.name.clone(),
            class: k.class.id().to_string(),
            count: k.count,
            time_s: k.time * 1e-6,
            share: share(k.time, total),
        })
        .collect();
}

/// A row as the worker posted it (the page's side of the one schema); `None`
/// when the text is not one.
pub fn decode(text: &str) -> Option<Row> {
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::analyse;

    #[test]
    fn the_row_lists_what_the_maps_hold() {
        let body = r#"{"traceEvents": [
            {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","ts":0,"dur":100,"args":{"stream":7,"correlation":1,"device":0}},
            {"ph":"X","cat":"kernel","name":"vectorized_elementwise_kernel","ts":150,"dur":20,"args":{"stream":7,"correlation":2,"device":0}}
        ]}"#;
        let d = analyse(body.as_bytes(), &mut |_| true).unwrap();
        let r = row("t.json", &d);
        // remedies: the list is the map, best first, and the best is the row's
        assert_eq!(r.remedy_list.len(), r.remedies.len());
        for x in &r.remedy_list {
            assert_eq!(r.remedies.get(&x.id), Some(&x.speedup));
            assert!(!x.label.is_empty());
        }
        assert_eq!(r.remedy_list.first().map(|x| x.id.clone()), r.best_remedy);
        assert!(r
            .remedy_list
            .windows(2)
            .all(|w| w[0].speedup >= w[1].speedup));
        // classes and top kernels: the same shares, times in seconds
        for c in &r.classes {
            assert_eq!(r.class_time_share.get(&c.class), Some(&c.share));
        }
        assert_eq!(
            r.top_kernels.first().map(|k| k.name.as_str()),
            Some("ampere_sgemm_128x64_nn")
        );
        assert!((r.top_kernels[0].time_s - 100e-6).abs() < 1e-15);
        assert!((r.top_kernels.iter().map(|k| k.share).sum::<f64>() - 1.0).abs() < 1e-12);
        // and it serialises (the worker posts exactly this)
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"remedy_list\":[{\"id\":"));
    }

    #[test]
    fn the_row_serialises_the_roofline_the_timeline_and_the_roof_preset() {
        let body = r#"{"deviceProperties":[{"id":0,"name":"Mystery GPU"}],"traceEvents": [
            {"ph":"X","cat":"cpu_op","name":"aten::mm","tid":1,"ts":0,"dur":5,"args":{"External id":7,"Input Dims":[[64,128],[128,32]],"Input type":["c10::BFloat16","c10::BFloat16"]}},
            {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","tid":1,"ts":3,"dur":2,"args":{"correlation":1,"External id":7}},
            {"ph":"X","cat":"kernel","name":"sm80_gemm","ts":4,"dur":10,"args":{"stream":7,"correlation":1,"device":0,"External id":7}}
        ]}"#;
        let o = crate::trace::Options::with_preset("a100-40gb").unwrap();
        let d = crate::trace::analyse_with(body.as_bytes(), &mut |_| true, &o).unwrap();
        let v: serde_json::Value = serde_json::to_value(row("t.json", &d)).unwrap();
        assert_eq!(v["preset"], serde_json::Value::Null);
        assert_eq!(v["roof_preset"], "a100-40gb");
        assert_eq!(v["placed_kernels"], 1);
        assert!(v["remedies"].get("matmuls_at_roof").is_some());
        assert!(v["remedies"].get("faster_matmuls").is_none());
        // one point: {op, kernel, class, dtype, count, time_s, flops, bytes}
        let p = &v["roofline"][0];
        let keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        let mut want = [
            "op", "kernel", "class", "dtype", "count", "time_s", "flops", "bytes",
        ];
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(
            (p["op"].as_str(), p["kernel"].as_str()),
            (Some("aten::mm"), Some("sm80_gemm"))
        );
        assert_eq!(
            (
                p["class"].as_str(),
                p["dtype"].as_str(),
                p["count"].as_u64()
            ),
            (Some("matmul"), Some("bf16"), Some(1))
        );
        assert_eq!(p["flops"].as_f64(), Some(2.0 * 64.0 * 128.0 * 32.0));
        assert_eq!(
            p["bytes"].as_f64(),
            Some(2.0 * (64.0 * 128.0 + 128.0 * 32.0 + 64.0 * 32.0))
        );
        assert!((p["time_s"].as_f64().unwrap() - 10e-6).abs() < 1e-18);
        // the timeline: {start_s, end_s, classes, names, lanes: [{label, kind, spans}], merged}
        let t = &v["timeline"];
        assert_eq!(
            (t["start_s"].as_f64(), t["merged"].as_bool()),
            (Some(0.0), Some(false))
        );
        assert!((t["end_s"].as_f64().unwrap() - 10e-6).abs() < 1e-18);
        assert_eq!(t["classes"][0], "matmul");
        assert_eq!(t["classes"][7], "launch");
        let lanes = t["lanes"].as_array().unwrap();
        assert_eq!(lanes.len(), 2);
        assert_eq!(
            (lanes[0]["label"].as_str(), lanes[0]["kind"].as_str()),
            (Some("GPU 0 · stream 7"), Some("gpu"))
        );
        assert_eq!(
            (lanes[1]["label"].as_str(), lanes[1]["kind"].as_str()),
            (Some("CPU thread 1 (launches)"), Some("cpu"))
        );
        // a span is [start_s, dur_s, class index, name index]; the launch starts
        // 1 µs before the span (the first kernel) and overlaps the window
        let k = lanes[0]["spans"][0].as_array().unwrap();
        assert_eq!(k.len(), 4);
        assert_eq!(t["names"][k[3].as_f64().unwrap() as usize], "sm80_gemm");
        let l = lanes[1]["spans"][0].as_array().unwrap();
        assert!((l[0].as_f64().unwrap() + 1e-6).abs() < 1e-18);
        assert_eq!(t["classes"][l[2].as_f64().unwrap() as usize], "launch");
        assert_eq!(
            t["names"][l[3].as_f64().unwrap() as usize],
            "cudaLaunchKernel"
        );
        // a trace with no preset and no --gpu: both null, no roof remedy
        let d = analyse(body.as_bytes(), &mut |_| true).unwrap();
        let v = serde_json::to_value(row("t.json", &d)).unwrap();
        assert_eq!(v["roof_preset"], serde_json::Value::Null);
        assert!(v["remedies"].get("matmuls_at_roof").is_none());
    }
}
