//! The trace worker's JSON row (`trace::report::Row`) read back on the page with
//! the page's own small JSON reader (`gpu::json`), so the page's .wasm never
//! links serde_json. Missing numbers read as NaN (shown as "—", raw "").

use crate::gpu::json::{self, Json};

/// One rank as the worker reported it (`trace::report::Row`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Rank {
    pub file: String,
    pub rank: Option<f64>,
    pub device: Option<String>,
    pub preset: Option<String>,
    pub f: Vec<(String, f64)>,
    pub regime: String,
    pub best_remedy: Option<String>,
    pub remedies: Vec<(String, String, f64)>,
    pub classes: Vec<(String, f64, f64, f64)>,
    pub top: Vec<(String, String, f64, f64, f64)>,
    pub devices: Vec<[f64; 5]>,
    pub halvings: Vec<(String, f64)>,
    /// The preset the kernels are placed on (the chosen one, else the matched).
    pub roof_preset: Option<String>,
    /// Kernels placed by their op's shapes, most time first.
    pub placed: Vec<Placed>,
    pub timeline: Option<Timeline>,
}

/// One (op, kernel) pair placed on the roofline (`report::PlacedRow`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Placed {
    pub op: String,
    pub kernel: String,
    pub class: String,
    pub dtype: Option<String>,
    pub count: f64,
    pub time_s: f64,
    pub flops: f64,
    pub bytes: f64,
}

/// The busiest second (`report::TimelineRow`): times in seconds from the span's
/// start; each span `[start, duration, class index, name index]`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Timeline {
    pub start: f64,
    pub end: f64,
    pub classes: Vec<String>,
    pub names: Vec<String>,
    pub lanes: Vec<Lane>,
    pub merged: bool,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Lane {
    pub label: String,
    pub cpu: bool,
    pub spans: Vec<[f64; 4]>,
}

fn timeline(j: &Json) -> Timeline {
    Timeline {
        start: n(j.get("start_s")),
        end: n(j.get("end_s")),
        classes: arr(j.get("classes"))
            .iter()
            .map(|c| c.as_str().unwrap_or_default().to_string())
            .collect(),
        names: arr(j.get("names"))
            .iter()
            .map(|c| c.as_str().unwrap_or_default().to_string())
            .collect(),
        lanes: arr(j.get("lanes"))
            .iter()
            .map(|l| Lane {
                label: s(l.get("label")).unwrap_or_default(),
                cpu: l.get("kind").and_then(Json::as_str) == Some("cpu"),
                spans: arr(l.get("spans"))
                    .iter()
                    .filter_map(|x| {
                        let v = x.as_arr()?;
                        let f = |i: usize| v.get(i).and_then(Json::as_f64);
                        Some([f(0)?, f(1)?, f(2)?, f(3)?])
                    })
                    .collect(),
            })
            .collect(),
        merged: j.get("merged").and_then(Json::as_bool).unwrap_or(false),
    }
}

impl Rank {
    pub fn num(&self, key: &str) -> f64 {
        self.f
            .iter()
            .find(|(k, _)| k == key)
            .map_or(f64::NAN, |(_, v)| *v)
    }
}

fn s(v: Option<&Json>) -> Option<String> {
    v.and_then(Json::as_str).map(str::to_string)
}
fn n(v: Option<&Json>) -> f64 {
    v.and_then(Json::as_f64).unwrap_or(f64::NAN)
}
fn arr(v: Option<&Json>) -> &[Json] {
    v.and_then(Json::as_arr).unwrap_or_default()
}

const NUMS: [&str; 18] = [
    "kernels",
    "span_s",
    "idle_share",
    "compute_share",
    "noncompute_share",
    "comm_share",
    "memory_share",
    "launch_wait_share",
    "short_kernel_share",
    "placed_kernels",
    "best_speedup",
    "activities",
    "matmul_share",
    "launches_per_s",
    "matmul_flops",
    "matmul_kernel_s",
    "matmul_bytes",
    "short_kernel_time_share",
];

pub fn decode(text: &str) -> Option<Rank> {
    let j = json::parse(text).ok()?;
    Some(Rank {
        file: s(j.get("file")).unwrap_or_default(),
        rank: j.get("rank").and_then(Json::as_f64),
        device: s(j.get("device")),
        preset: s(j.get("preset")),
        f: NUMS.iter().map(|k| (k.to_string(), n(j.get(k)))).collect(),
        regime: s(j.get("regime")).unwrap_or_default(),
        best_remedy: s(j.get("best_remedy")),
        remedies: arr(j.get("remedy_list"))
            .iter()
            .map(|r| {
                (
                    s(r.get("id")).unwrap_or_default(),
                    s(r.get("label")).unwrap_or_default(),
                    n(r.get("speedup")),
                )
            })
            .collect(),
        classes: arr(j.get("classes"))
            .iter()
            .map(|c| {
                (
                    s(c.get("class")).unwrap_or_default(),
                    n(c.get("count")),
                    n(c.get("time_s")),
                    n(c.get("share")),
                )
            })
            .collect(),
        top: arr(j.get("top_kernels"))
            .iter()
            .map(|k| {
                (
                    s(k.get("name")).unwrap_or_default(),
                    s(k.get("class")).unwrap_or_default(),
                    n(k.get("count")),
                    n(k.get("time_s")),
                    n(k.get("share")),
                )
            })
            .collect(),
        devices: arr(j.get("devices"))
            .iter()
            .map(|d| {
                [
                    n(d.get("device")),
                    n(d.get("span_s")),
                    n(d.get("idle_share")),
                    n(d.get("compute_share")),
                    n(d.get("noncompute_share")),
                ]
            })
            .collect(),
        halvings: match j.get("halving_saves") {
            Some(Json::Obj(v)) => v
                .iter()
                .map(|(k, x)| (k.clone(), x.as_f64().unwrap_or(f64::NAN)))
                .collect(),
            _ => Vec::new(),
        },
        roof_preset: s(j.get("roof_preset")),
        placed: arr(j.get("roofline"))
            .iter()
            .map(|p| Placed {
                op: s(p.get("op")).unwrap_or_default(),
                kernel: s(p.get("kernel")).unwrap_or_default(),
                class: s(p.get("class")).unwrap_or_default(),
                dtype: s(p.get("dtype")),
                count: n(p.get("count")),
                time_s: n(p.get("time_s")),
                flops: n(p.get("flops")),
                bytes: n(p.get("bytes")),
            })
            .collect(),
        timeline: j
            .get("timeline")
            .filter(|t| t.get("lanes").is_some())
            .map(timeline),
    })
}
