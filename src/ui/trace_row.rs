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
    })
}
