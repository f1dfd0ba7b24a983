//! The serving model against published runs it was not fitted to:
//! NVIDIA NIM 1.8.0's concurrency sweeps on H100s (tests/data/serve-nim-h100.json)
//! and TensorRT-LLM's maximum-throughput table (tests/data/serve-trtllm.json), each
//! with its sources and what it does not state.
//!
//! **How each row is modelled.** The row's model (Llama-3.3-70B has
//! Llama-3-70B's shape, Llama-3.1-8B Llama-3-8B's), its GPU preset with
//! achievable roofs, fp8 weights and an fp8 KV cache, CUDA graphs and
//! FlashAttention, tensor parallel over NVLink 4, the engine's CPU time at its
//! default ([`super::ENGINE_US`]); the serving keys at the widget's defaults
//! (`serve_chunk` 8192, `serve_max_seqs` 256) for NIM, and at the published
//! `serve_c=4096&serve_max_seqs=2048&serve_chunk=8192` for `trtllm-bench`'s
//! unbounded request rate. Nothing here is tuned to a row.

use super::{Serve, ServeRun};
use crate::model::llm::{KvDtype, LlmModel, LlmRun, Parallel, Phase, WeightDtype};
use crate::model::setting::Setting;

/// Who published a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// NVIDIA NIM 1.8.0 under AIPerf at a fixed concurrency.
    Nim,
    /// `trtllm-bench throughput` (TensorRT-LLM, PyTorch backend): every request
    /// queued at once.
    TrtllmBench,
}

impl Engine {
    pub fn label(self) -> &'static str {
        match self {
            Engine::Nim => "NVIDIA NIM 1.8.0",
            Engine::TrtllmBench => "TensorRT-LLM trtllm-bench",
        }
    }
}

/// One published row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    pub engine: Engine,
    pub model: LlmModel,
    /// The hardware preset's id.
    pub hw: &'static str,
    pub tp: u32,
    pub isl: u32,
    pub osl: u32,
    pub concurrency: u32,
    pub max_seqs: u32,
    /// Seconds; `None` where the source gives none.
    pub ttft_s: Option<f64>,
    pub itl_s: Option<f64>,
    /// Output tokens per second of the whole deployment.
    pub tok_s: f64,
    /// Held to the serving targets ([`Compared::within_targets`]).
    pub target: bool,
}

impl Published {
    /// The model's name as the source writes it.
    pub fn model_name(&self) -> &'static str {
        match self.model {
            LlmModel::Llama3_70b => "Llama-3.3-70B",
            _ => "Llama-3.1-8B",
        }
    }
}

#[allow(clippy::too_many_arguments)]
const fn nim(
    model: LlmModel,
    tp: u32,
    isl: u32,
    osl: u32,
    concurrency: u32,
    ttft_ms: f64,
    itl_ms: f64,
    tok_s: f64,
    target: bool,
) -> Published {
    Published {
        engine: Engine::Nim,
        model,
        hw: "h100-sxm",
        tp,
        isl,
        osl,
        concurrency,
        max_seqs: MAX_SEQS,
        ttft_s: Some(ttft_ms / 1e3),
        itl_s: Some(itl_ms / 1e3),
        tok_s,
        target,
    }
}

const fn trt(
    model: LlmModel,
    hw: &'static str,
    tp: u32,
    isl: u32,
    osl: u32,
    tok_s: f64,
    target: bool,
) -> Published {
    Published {
        engine: Engine::TrtllmBench,
        model,
        hw,
        tp,
        isl,
        osl,
        concurrency: 4096,
        max_seqs: 2048,
        ttft_s: None,
        itl_s: None,
        tok_s,
        target,
    }
}

/// The chunk both engines are modelled with (the widget's default).
pub const CHUNK: u32 = 8192;
/// The most sequences NIM's rows run (the widget's default).
pub const MAX_SEQS: u32 = 256;

/// tests/data/serve-nim-h100.json's rows, in its order.
pub const NIM: [Published; 79] = [
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        1,
        406.77,
        18.58,
        51.67,
        true,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        5,
        546.7,
        21.83,
        218.48,
        true,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        25,
        688.69,
        38.75,
        623.4,
        true,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        50,
        834.51,
        59.73,
        814.37,
        true,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        100,
        7996.25,
        92.91,
        917.26,
        true,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        150,
        34794.22,
        92.86,
        920.9,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        200,
        61680.22,
        93.06,
        920.54,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        5000,
        500,
        250,
        88605.32,
        93.2,
        920.12,
        true,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        500,
        2000,
        1,
        47.77,
        18.91,
        52.85,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        500,
        2000,
        5,
        126.53,
        19.04,
        261.83,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        500,
        2000,
        25,
        147.63,
        21.69,
        1149.05,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        500,
        2000,
        50,
        181.64,
        23.97,
        2078.43,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        500,
        2000,
        100,
        229.77,
        29.98,
        3322.87,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        500,
        2000,
        150,
        296.74,
        37.85,
        3948.26,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        500,
        2000,
        200,
        4867.89,
        40.72,
        4624.14,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        1,
        31.22,
        18.8,
        53.0,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        5,
        88.7,
        18.83,
        260.67,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        25,
        138.98,
        20.61,
        1178.68,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        50,
        156.28,
        23.33,
        2081.24,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        100,
        176.8,
        29.87,
        3263.31,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        150,
        195.51,
        37.75,
        3883.1,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        200,
        253.36,
        42.95,
        4534.54,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        200,
        200,
        250,
        264.22,
        48.16,
        5067.05,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        1,
        82.46,
        18.67,
        53.37,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        5,
        145.62,
        19.07,
        260.48,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        25,
        250.49,
        22.45,
        1102.23,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        50,
        278.62,
        25.87,
        1912.93,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        100,
        334.23,
        34.21,
        2895.49,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        150,
        428.54,
        44.44,
        3342.67,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        200,
        558.23,
        50.66,
        3901.74,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        1000,
        1000,
        250,
        3499.83,
        56.3,
        4167.39,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        1,
        1833.01,
        19.58,
        48.8,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        5,
        2910.33,
        25.24,
        186.8,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        25,
        18781.26,
        48.26,
        415.33,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        50,
        123969.71,
        49.22,
        418.65,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        100,
        333564.85,
        49.81,
        425.1,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        150,
        543226.4,
        50.01,
        423.95,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        200,
        753417.03,
        50.06,
        425.74,
        false,
    ),
    nim(
        LlmModel::Llama3_70b,
        2,
        20000,
        2000,
        250,
        963222.96,
        50.13,
        427.06,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        1,
        10.26,
        4.63,
        214.56,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        5,
        16.81,
        4.58,
        1076.88,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        25,
        36.34,
        5.19,
        4678.88,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        50,
        67.41,
        5.91,
        8018.23,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        100,
        119.97,
        7.57,
        12214.97,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        150,
        346.53,
        9.81,
        12988.89,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        200,
        465.18,
        12.65,
        13348.4,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        200,
        200,
        250,
        605.6,
        16.14,
        12964.72,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        1,
        13.84,
        4.56,
        218.86,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        5,
        30.88,
        4.81,
        1035.85,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        25,
        97.07,
        5.82,
        4263.49,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        50,
        135.26,
        7.06,
        7009.01,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        100,
        239.92,
        9.51,
        10379.22,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        150,
        376.95,
        13.34,
        11053.75,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        200,
        1664.34,
        14.96,
        12549.74,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        500,
        2000,
        250,
        6550.46,
        16.97,
        12268.82,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        1,
        19.03,
        4.53,
        220.1,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        5,
        55.87,
        4.8,
        1031.3,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        25,
        268.42,
        5.84,
        4098.01,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        50,
        414.87,
        7.26,
        6514.66,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        100,
        615.16,
        10.04,
        9392.43,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        150,
        885.53,
        14.14,
        9982.74,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        200,
        1258.79,
        16.02,
        11553.34,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        1000,
        1000,
        250,
        1885.04,
        19.68,
        11527.61,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        1,
        77.45,
        4.62,
        209.96,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        5,
        279.92,
        5.42,
        838.03,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        25,
        724.14,
        9.67,
        2251.44,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        50,
        817.73,
        16.47,
        2765.71,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        100,
        915.15,
        29.67,
        3180.16,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        150,
        1080.0,
        43.35,
        3301.68,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        200,
        4361.35,
        50.41,
        3378.48,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        5000,
        500,
        250,
        11717.42,
        50.53,
        3372.0,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        1,
        403.2,
        5.06,
        189.96,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        5,
        1141.22,
        7.39,
        627.76,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        25,
        2371.46,
        19.35,
        1217.04,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        50,
        11071.41,
        30.73,
        1330.57,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        100,
        78187.07,
        31.08,
        1336.09,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        150,
        145290.54,
        31.31,
        1337.0,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        200,
        211735.71,
        31.46,
        1338.24,
        false,
    ),
    nim(
        LlmModel::Llama3_8b,
        1,
        20000,
        2000,
        250,
        278580.85,
        31.62,
        1337.66,
        false,
    ),
];

/// tests/data/serve-trtllm.json's rows, in its order.
pub const TRTLLM: [Published; 40] = [
    trt(LlmModel::Llama3_8b, "h100-sxm", 1, 128, 128, 28312.0, true),
    trt(LlmModel::Llama3_8b, "h100-sxm", 1, 128, 2048, 22714.0, true),
    trt(
        LlmModel::Llama3_8b,
        "h100-sxm",
        1,
        128,
        4096,
        14325.0,
        false,
    ),
    trt(
        LlmModel::Llama3_8b,
        "h100-sxm",
        1,
        500,
        2000,
        17660.0,
        false,
    ),
    trt(
        LlmModel::Llama3_8b,
        "h100-sxm",
        1,
        1000,
        1000,
        15220.0,
        false,
    ),
    trt(
        LlmModel::Llama3_8b,
        "h100-sxm",
        1,
        1000,
        2000,
        13899.0,
        false,
    ),
    trt(LlmModel::Llama3_8b, "h100-sxm", 1, 2048, 128, 3450.0, true),
    trt(LlmModel::Llama3_8b, "h100-sxm", 1, 2048, 2048, 9305.0, true),
    trt(LlmModel::Llama3_8b, "h100-sxm", 1, 5000, 500, 3459.0, false),
    trt(
        LlmModel::Llama3_8b,
        "h100-sxm",
        1,
        20000,
        2000,
        1351.0,
        true,
    ),
    trt(LlmModel::Llama3_8b, "h200", 1, 128, 128, 27911.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 128, 2048, 26221.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 128, 4096, 18027.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 500, 2000, 20770.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 1000, 1000, 17744.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 1000, 2000, 16828.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 2048, 128, 3538.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 2048, 2048, 12194.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 5000, 500, 3902.0, false),
    trt(LlmModel::Llama3_8b, "h200", 1, 20000, 2000, 1804.0, false),
    trt(LlmModel::Llama3_70b, "h100-sxm", 2, 128, 128, 6378.0, false),
    trt(
        LlmModel::Llama3_70b,
        "h100-sxm",
        2,
        128,
        2048,
        6651.0,
        false,
    ),
    trt(
        LlmModel::Llama3_70b,
        "h100-sxm",
        2,
        128,
        4096,
        4199.0,
        false,
    ),
    trt(
        LlmModel::Llama3_70b,
        "h100-sxm",
        2,
        500,
        2000,
        5222.0,
        false,
    ),
    trt(
        LlmModel::Llama3_70b,
        "h100-sxm",
        2,
        1000,
        1000,
        4205.0,
        false,
    ),
    trt(
        LlmModel::Llama3_70b,
        "h100-sxm",
        2,
        1000,
        2000,
        4146.0,
        false,
    ),
    trt(LlmModel::Llama3_70b, "h100-sxm", 2, 2048, 128, 762.0, false),
    trt(
        LlmModel::Llama3_70b,
        "h100-sxm",
        2,
        2048,
        2048,
        3082.0,
        false,
    ),
    trt(LlmModel::Llama3_70b, "h100-sxm", 2, 5000, 500, 898.0, false),
    trt(
        LlmModel::Llama3_70b,
        "h100-sxm",
        2,
        20000,
        2000,
        437.0,
        false,
    ),
    trt(LlmModel::Llama3_70b, "h200", 1, 128, 128, 3803.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 128, 2048, 4336.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 128, 4096, 2872.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 500, 2000, 3666.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 1000, 1000, 2909.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 1000, 2000, 2994.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 2048, 128, 442.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 2048, 2048, 2003.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 5000, 500, 566.0, false),
    trt(LlmModel::Llama3_70b, "h200", 1, 20000, 2000, 283.0, false),
];

/// The serving run a row is modelled as.
pub fn serve_run(p: &Published) -> ServeRun {
    use crate::model::parallel::{link, Link};
    ServeRun {
        llm: LlmRun {
            config: p.model.config_or_toy(),
            phase: Phase::Decode,
            batch: 1,
            context: 1,
            wdtype: WeightDtype::Fp8,
            kvdtype: KvDtype::Fp8,
            graphs: true,
            flash: true,
            par: Parallel {
                tp: p.tp,
                pp: 1,
                link: link("nvlink4").copied().unwrap_or(Link::NONE),
                overlap: false,
            },
        },
        isl: p.isl,
        osl: p.osl,
        concurrency: p.concurrency,
        chunk: CHUNK,
        max_seqs: p.max_seqs,
        engine_s: super::ENGINE_US * 1e-6,
    }
}

/// The setting a row ran on: its preset with achievable roofs.
pub fn setting(p: &Published) -> Setting {
    let hw = crate::model::hardware::preset(p.hw).unwrap_or(&crate::model::hardware::PRESETS[0]);
    crate::model::llm::measured::setting_on(hw)
}

/// One row and what the model says for it (`None`: it does not fit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compared {
    pub row: Published,
    pub model: Option<Serve>,
}

/// model ÷ measured − 1.
fn err(model: f64, measured: f64) -> f64 {
    model / measured - 1.0
}

impl Compared {
    pub fn ttft_error(&self) -> Option<f64> {
        Some(err(self.model?.ttft, self.row.ttft_s?))
    }
    pub fn itl_error(&self) -> Option<f64> {
        Some(err(self.model?.itl, self.row.itl_s?))
    }
    pub fn tok_error(&self) -> Option<f64> {
        Some(err(self.model?.tok_s, self.row.tok_s))
    }
    /// The largest |error| of the row's published quantities (infinite where
    /// the model has no answer).
    pub fn max_error(&self) -> f64 {
        if self.model.is_none() {
            return f64::INFINITY;
        }
        [self.ttft_error(), self.itl_error(), self.tok_error()]
            .into_iter()
            .flatten()
            .map(f64::abs)
            .fold(0.0, f64::max)
    }
    /// Whether the row meets the serving targets: ITL and throughput within
    /// 25 %, TTFT within 35 % at concurrency ≤ 50 and within 50 % above
    /// (queueing), for NIM; throughput within 30 % for `trtllm-bench`.
    pub fn within_targets(&self) -> bool {
        let ok = |e: Option<f64>, bound: f64| e.is_none_or(|e| e.abs() <= bound);
        match self.row.engine {
            Engine::Nim => {
                let ttft = if self.row.concurrency <= 50 {
                    0.35
                } else {
                    0.50
                };
                self.model.is_some()
                    && ok(self.itl_error(), 0.25)
                    && ok(self.tok_error(), 0.25)
                    && ok(self.ttft_error(), ttft)
            }
            Engine::TrtllmBench => self.model.is_some() && ok(self.tok_error(), 0.30),
        }
    }
}

/// One row against the model.
pub fn model(p: &Published) -> Compared {
    Compared {
        row: *p,
        model: super::run(&serve_run(p), &setting(p)),
    }
}

/// Every stored row against the model: NIM's, then `trtllm-bench`'s.
pub fn compare() -> Vec<Compared> {
    NIM.iter().chain(TRTLLM.iter()).map(model).collect()
}

/// The rows held to targets (`target`), against the model (the readout's, cheap
/// beside [`compare`]).
pub fn compare_targets() -> Vec<Compared> {
    NIM.iter()
        .chain(TRTLLM.iter())
        .filter(|p| p.target)
        .map(model)
        .collect()
}

/// The largest |error| over the rows held to targets
/// (`serve_vs_measured_max_error`).
pub fn max_error(rows: &[Compared]) -> f64 {
    rows.iter()
        .filter(|c| c.row.target)
        .map(Compared::max_error)
        .fold(0.0, f64::max)
}

/// Where the model misses the NIM rows held to targets, and why, in words built from the
/// rows' errors (`rows` as [`compare`] or [`compare_targets`] gives them).
pub fn misses(rows: &[Compared]) -> String {
    let nim: Vec<&Compared> = rows
        .iter()
        .filter(|c| c.row.target && c.row.engine == Engine::Nim)
        .collect();
    let at = |c: u32| nim.iter().find(|x| x.row.concurrency == c);
    let short = |e: f64| format!("{:.0} %", -e * 100.0);
    let (Some(one), true) = (at(1).and_then(|c| c.ttft_error()), !nim.is_empty()) else {
        return String::new();
    };
    // TTFT at the concurrencies below the queue (2 … 50)
    let loaded: Vec<f64> = nim
        .iter()
        .filter(|c| c.row.concurrency > 1 && c.row.concurrency <= 50)
        .filter_map(|c| c.ttft_error())
        .collect();
    let (lo, hi) = loaded
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &e| (a.min(-e), b.max(-e)));
    let rest = nim
        .iter()
        .flat_map(|c| [c.itl_error(), c.tok_error()])
        .flatten()
        .fold(0.0, |m: f64, e| m.max(e.abs()));
    let side = if one < 0.0 { "short" } else { "long" };
    format!(
        "Where it misses: the modelled prefill of one 5000-token prompt is {} {side} of NIM's (the fp8 matmuls run at the fraction of the peak the H100 reaches in bf16), and under load that counts twice, in a request's own prefill and in its wait behind the others', so TTFT at 5–50 requests is {}–{} short; ITL and throughput are within {:.0} %. With many short requests an engine's CPU work grows with the streams it serves, which the model's constant time per step leaves out: there the model is fast (every stored row below).",
        short(one).trim_start_matches('-'),
        short(-lo).trim_end_matches(" %"),
        short(-hi),
        rest * 100.0
    )
}

#[cfg(test)]
mod tests;
