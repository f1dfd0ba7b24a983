//! The llm model against published measurements: gpt-fast's decode speeds at
//! batch 1 on an A100-80GB (tests/data/gpt-fast.json, with its sources), as the
//! microbenchmark compares the essay's experiments with an H100.
//!
//! **How each row is modelled.** The same model the widget runs: the row's
//! architecture, weights and compile mode; a 5-token prompt prefilled, then 200
//! tokens decoded at the mean context (105); tokens/s = 200 ÷ (prefill + 200
//! decode steps), as gpt-fast's `generate.py` times the whole call. Achievable
//! roofs, with the decode matmuls at their measured streaming fraction
//! ([`super::stream`], from other models' runs, not these rows).
//!
//! **The power limit.** gpt-fast's A100s were capped at 330 W (of 400 W), and its
//! README reports about 1.7 TB/s as the empirical peak bandwidth, 7 % under the
//! 1.84 TB/s brrr's achievable roof assumes for an A100-80GB (90 % of 2,039
//! GB/s). The comparison does not lower the bandwidth: the decode rates it uses
//! were measured by torchao on an A100-80GB of unstated power, and torchao's own
//! runs of gpt-fast's models decode as fast as gpt-fast's capped ones (Llama-2-7B
//! in bf16: 105.1 and 107.4 tok/s in two torchao READMEs against 104.9), so a
//! batch-1 decode, which draws little power, does not feel the cap. Lowering the
//! bandwidth to 1.7 TB/s would make every modelled row up to 7 % slower
//! ([`capped_bw_factor`]).

use super::{step, LlmConfig, LlmRun, Phase, WeightDtype};
use crate::json::Json;
use crate::model::achievable::{self, Roof};
use crate::model::hardware::{self, Dtype};
use crate::model::setting::Setting;
use crate::model::timeline::Regime;
use std::sync::OnceLock;

/// gpt-fast README: empirical peak bandwidth of its power-limited A100s, bytes/s.
pub const EMPIRICAL_PEAK_BW: f64 = 1.7e12;
pub const PROMPT_TOKENS: u32 = 5;
pub const NEW_TOKENS: u32 = 200;

/// One published row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    /// The model's name as the source writes it.
    pub model: &'static str,
    pub config: LlmConfig,
    pub wdtype: WeightDtype,
    /// `torch.compile(mode="reduce-overhead")` (a CUDA graph) or eager.
    pub compiled: bool,
    pub tokens_per_s: f64,
    /// From the README's single-GPU table (the eager row is the blog's).
    pub readme: bool,
    /// Tensor-parallel GPUs (1: one GPU), joined by the A100's NVLink 3.
    pub gpus: u32,
}

const fn dense(layers: u32, hidden: u32, heads: u32, kv: u32, ffn: u32, vocab: u32) -> LlmConfig {
    LlmConfig {
        layers,
        hidden,
        heads,
        kv_heads: kv,
        ffn,
        vocab,
        experts: 1,
        top_k: 1,
        arch: super::moe::Arch::PLAIN,
    }
}

/// meta-llama config.json files (Hugging Face).
const LLAMA2_7B: LlmConfig = dense(32, 4096, 32, 32, 11008, 32000);
const LLAMA2_70B: LlmConfig = dense(80, 8192, 64, 8, 28672, 32000);
const LLAMA31_8B: LlmConfig = dense(32, 4096, 32, 8, 14336, 128256);
const LLAMA31_70B: LlmConfig = dense(80, 8192, 64, 8, 28672, 128256);

/// The published rows' files (their sources inside them and in tests/data/README.md).
const GPT_FAST_FILE: &str = include_str!("../../../tests/data/gpt-fast.json");
const GPT_FAST_TP_FILE: &str = include_str!("../../../tests/data/gpt-fast-tp.json");
const NIM_H100_TP_FILE: &str = include_str!("../../../tests/data/nim-h100-tp.json");

/// The models the files name: their id there, the name as the source writes
/// it, and the shape (Llama-3.3-70B has Llama-3.1-70B's).
const MODELS: [(&str, &str, LlmConfig); 5] = [
    ("llama-2-7b", "Llama-2-7B", LLAMA2_7B),
    ("llama-2-70b", "Llama-2-70B", LLAMA2_70B),
    ("llama-3.1-8b", "Llama-3.1-8B", LLAMA31_8B),
    ("llama-3.1-70b", "Llama-3.1-70B", LLAMA31_70B),
    ("llama-3.3-70b", "Llama-3.3-70B", LLAMA31_70B),
];

/// A file's `rows` (none where it would not parse: a test reads each file).
fn file_rows(file: &str) -> Vec<Json> {
    match crate::json::parse(file) {
        Ok(j) => j.get("rows").and_then(Json::as_arr).unwrap_or(&[]).to_vec(),
        Err(_) => Vec::new(),
    }
}

/// A row's model (its name and shape), weights and tokens per second; `None`
/// for a row that names another model or has no speed (out of memory).
fn row_of(r: &Json) -> Option<(&'static str, LlmConfig, WeightDtype, f64)> {
    let id = r.get("model")?.as_str()?;
    let (_, name, config) = MODELS.iter().find(|m| m.0 == id)?;
    let w = r.get("weights")?.as_str()?;
    let wdtype = WeightDtype::ALL.into_iter().find(|d| d.id() == w)?;
    let tokens_per_s = r
        .get("tokens_per_s")
        .and_then(Json::as_f64)
        .unwrap_or(f64::NAN);
    Some((name, *config, wdtype, tokens_per_s))
}

/// tests/data/gpt-fast.json's rows: batch 1 on one A100-80GB, compiled (the
/// README's table) or eager (the blog's starting point).
pub fn gpt_fast() -> &'static [Published] {
    static ROWS: OnceLock<Vec<Published>> = OnceLock::new();
    ROWS.get_or_init(|| {
        file_rows(GPT_FAST_FILE)
            .iter()
            .filter_map(|r| {
                let (model, config, wdtype, tokens_per_s) = row_of(r)?;
                let compiled = r.get("compiled")?.as_bool()?;
                Some(Published {
                    model,
                    config,
                    wdtype,
                    compiled,
                    tokens_per_s,
                    readme: compiled,
                    gpus: 1,
                })
            })
            .collect()
    })
}

/// gpt-fast's tensor-parallel rows (tests/data/gpt-fast-tp.json, with its
/// sources): compiled, batch 1, on 2–8 A100-80GB joined by NVLink; the file's
/// one-GPU rows are the README's single-GPU table ([`gpt_fast`]), and the rows
/// that ran out of memory have no speed.
pub fn gpt_fast_tp() -> &'static [Published] {
    static ROWS: OnceLock<Vec<Published>> = OnceLock::new();
    ROWS.get_or_init(|| {
        file_rows(GPT_FAST_TP_FILE)
            .iter()
            .filter_map(|r| {
                let (model, config, wdtype, tokens_per_s) = row_of(r)?;
                let gpus = r.get("gpus")?.as_f64()?;
                (gpus > 1.0 && tokens_per_s.is_finite()).then_some(Published {
                    model,
                    config,
                    wdtype,
                    compiled: true,
                    tokens_per_s,
                    readme: true,
                    gpus: gpus as u32,
                })
            })
            .collect()
    })
}

/// What lowering the A100's achievable bandwidth to gpt-fast's empirical peak
/// would multiply it by (1.7 ÷ 1.84 = 0.93; not applied, see the module docs).
pub fn capped_bw_factor() -> f64 {
    let hw = a100();
    EMPIRICAL_PEAK_BW / (achievable::fractions(hw).bw * hw.mem_bw)
}
fn a100() -> &'static hardware::Preset {
    hardware::preset("a100-80gb").unwrap_or(&hardware::PRESETS[0])
}

/// The setting a measured run is compared on: `hw` with achievable roofs, bf16,
/// and PyTorch's measured CPU cost per op.
pub fn setting_on(hw: &'static hardware::Preset) -> Setting {
    Setting {
        overhead: crate::model::overhead::PYTORCH_OPS_PER_S.recip(),
        ..Setting::on(hw, Dtype::Bf16, Roof::Achievable)
    }
}

/// The setting the rows ran on: the A100-80GB preset with achievable roofs.
pub fn setting() -> Setting {
    setting_on(a100())
}

/// One row and what the model says for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compared {
    pub row: Published,
    pub model_tokens_per_s: f64,
    /// What limits the modelled decode step.
    pub regime: Regime,
}

impl Compared {
    /// model ÷ measured − 1.
    pub fn error(&self) -> f64 {
        self.model_tokens_per_s / self.row.tokens_per_s - 1.0
    }
}

/// A published row's run at batch 1 (FlashAttention, a bf16 KV cache), `gpus`-way
/// tensor parallel over the link `link_id`, for a phase and context.
fn batch_one(
    config: LlmConfig,
    wdtype: WeightDtype,
    graphs: bool,
    gpus: u32,
    link_id: &str,
) -> impl Fn(Phase, u32) -> LlmRun {
    use crate::model::parallel::{link, Link, Parallel};
    let par = Parallel {
        tp: gpus,
        pp: 1,
        dep: 1,
        link: link(link_id).copied().unwrap_or(Link::NONE),
        overlap: false,
        rank_tokens: 0,
    };
    move |phase, context| LlmRun {
        config,
        phase,
        batch: 1,
        context,
        wdtype,
        kvdtype: super::KvDtype::Bf16,
        graphs,
        flash: true,
        par,
    }
}

/// The model for one row.
pub fn model(p: &Published) -> Compared {
    let s = setting();
    let run = batch_one(p.config, p.wdtype, p.compiled, p.gpus, "nvlink3");
    let prefill = step::full(&run(Phase::Prefill, PROMPT_TOKENS), &s);
    let decode = step::full(&run(Phase::Decode, PROMPT_TOKENS + NEW_TOKENS / 2), &s);
    let total = prefill.wall + f64::from(NEW_TOKENS) * decode.wall;
    Compared {
        row: *p,
        model_tokens_per_s: if total > 0.0 {
            f64::from(NEW_TOKENS) / total
        } else {
            0.0
        },
        regime: decode.regime,
    }
}

/// Every row against the model.
pub fn compare() -> Vec<Compared> {
    gpt_fast().iter().map(model).collect()
}

/// The model against every tensor-parallel row.
pub fn compare_tp() -> Vec<Compared> {
    gpt_fast_tp().iter().map(model).collect()
}

/// The largest |error| over the tensor-parallel rows
/// (`llm_tp_vs_measured_max_error`).
pub fn tp_max_error(rows: &[Compared]) -> f64 {
    rows.iter()
        .filter(|c| c.row.gpus > 1)
        .map(|c| c.error().abs())
        .fold(0.0, f64::max)
}

/// A published per-token decode latency at concurrency 1 on H100s
/// (tests/data/nim-h100-tp.json, with its source): NVIDIA NIM for Llama-3.3-70B,
/// a TensorRT-LLM engine, fp8 weights, tensor parallel over 2 H100 80GB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PublishedItl {
    pub model: &'static str,
    pub config: LlmConfig,
    pub wdtype: WeightDtype,
    pub gpus: u32,
    pub input_tokens: u32,
    pub output_tokens: u32,
    /// Inter-token latency, seconds (one request at a time).
    pub itl_s: f64,
}

/// NVIDIA NIM LLM benchmarking, "Performance", Llama-3.3-70b-instruct, NIM 1.8.0,
/// 2 × H100 80G, fp8 TP2, concurrency 1 (tests/data/nim-h100-tp.json).
pub fn nim_h100_tp() -> &'static [PublishedItl] {
    static ROWS: OnceLock<Vec<PublishedItl>> = OnceLock::new();
    let whole = |r: &Json, k: &str| r.get(k).and_then(Json::as_f64).map(|x| x as u32);
    ROWS.get_or_init(|| {
        file_rows(NIM_H100_TP_FILE)
            .iter()
            .filter_map(|r| {
                let (model, config, wdtype, _) = row_of(r)?;
                Some(PublishedItl {
                    model,
                    config,
                    wdtype,
                    gpus: whole(r, "tp")?,
                    input_tokens: whole(r, "input_tokens")?,
                    output_tokens: whole(r, "output_tokens")?,
                    itl_s: r.get("itl_ms")?.as_f64()? / 1e3,
                })
            })
            .collect()
    })
}

/// The setting the H100 rows ran on: the H100 SXM preset with achievable roofs
/// (an engine's C++ runtime: the CPU cost is set by the CUDA graph, not per op).
pub fn h100_setting() -> Setting {
    setting_on(hardware::preset("h100-sxm").unwrap_or(&hardware::PRESETS[0]))
}

/// One H100 row and what the model says for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComparedItl {
    pub row: PublishedItl,
    /// The modelled decode step at the mean context, seconds.
    pub model_itl_s: f64,
    pub regime: Regime,
    /// Its communication share.
    pub comm_share: f64,
}

impl ComparedItl {
    /// model ÷ measured − 1, in tokens/s (1 / ITL), as the gpt-fast rows.
    pub fn error(&self) -> f64 {
        self.row.itl_s / self.model_itl_s - 1.0
    }
}

/// The model for one H100 row: one decode step at batch 1 at the mean context
/// (the prompt and half the output), compiled into one CUDA graph, over NVLink 4,
/// KV cache in bf16 (the source does not state its dtype).
pub fn model_itl(p: &PublishedItl) -> ComparedItl {
    let run = batch_one(p.config, p.wdtype, true, p.gpus, "nvlink4");
    let st = step::full(
        &run(Phase::Decode, p.input_tokens + p.output_tokens / 2),
        &h100_setting(),
    );
    ComparedItl {
        row: *p,
        model_itl_s: st.wall,
        regime: st.regime,
        comm_share: st.split.comm / st.wall.max(f64::MIN_POSITIVE),
    }
}

/// The model against every H100 row.
pub fn compare_h100() -> Vec<ComparedItl> {
    nim_h100_tp().iter().map(model_itl).collect()
}

/// The largest |error| over the H100 rows; `llm_tp_vs_measured_max_error` is the
/// larger of this and [`tp_max_error`] (every tensor-parallel row).
pub fn itl_max_error(rows: &[ComparedItl]) -> f64 {
    rows.iter().map(|c| c.error().abs()).fold(0.0, f64::max)
}

/// What the eager row says, from its numbers: how far the model is and what it
/// calls the step.
pub fn eager_note(c: &Compared) -> String {
    let side = if c.error() > 0.0 { "faster" } else { "slower" };
    let (op_s, source) = super::eager_op_s(a100());
    format!(
        "The eager row: the model is {:.0} % {side} than measured and calls the step {}; it counts each op at {} ({}).",
        c.error().abs() * 100.0,
        c.regime.label(),
        crate::model::units::si(op_s, "s"),
        source
    )
}

/// The largest |error| over the README's single-GPU rows (`llm_vs_measured_max_error`).
pub fn max_error(rows: &[Compared]) -> f64 {
    rows.iter()
        .filter(|c| c.row.readme && c.row.gpus == 1)
        .map(|c| c.error().abs())
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    /// A data file's `rows`.
    fn rows_of(j: &json::Json) -> &[json::Json] {
        j.get("rows").and_then(|r| r.as_arr()).unwrap_or(&[])
    }

    /// Every row of the three files is read, none dropped or made up: the
    /// single-GPU table whole, the tensor-parallel rows on 2 or more GPUs
    /// with a speed, NIM's two.
    #[test]
    fn every_row_of_the_files_is_read() {
        let j = json::parse(GPT_FAST_FILE).unwrap_or(json::Json::Null);
        let g = gpt_fast();
        assert_eq!(g.len(), rows_of(&j).len());
        assert_eq!(g.len(), 9);
        let first = (g[0].model, g[0].wdtype, g[0].tokens_per_s, g[0].compiled);
        assert_eq!(first, ("Llama-2-7B", WeightDtype::Bf16, 104.9, true));
        let eager: Vec<_> = g.iter().filter(|p| !p.readme).collect();
        assert_eq!(eager.len(), 1);
        assert!(!eager[0].compiled && eager[0].tokens_per_s == 25.5);
        assert_eq!(
            j.get("empirical_peak_bw").and_then(|x| x.as_f64()),
            Some(EMPIRICAL_PEAK_BW)
        );
        let t = gpt_fast_tp();
        let j = json::parse(GPT_FAST_TP_FILE).unwrap_or(json::Json::Null);
        let on_one = rows_of(&j)
            .iter()
            .filter(|r| r.get("gpus").and_then(|x| x.as_f64()) == Some(1.0))
            .count();
        assert_eq!((rows_of(&j).len(), on_one, t.len()), (19, 4, 15));
        assert!(t.iter().all(|p| p.gpus >= 2 && p.compiled && p.readme));
        let last = (t[14].model, t[14].wdtype, t[14].gpus, t[14].tokens_per_s);
        assert_eq!(last, ("Llama-3.1-70B", WeightDtype::Int8, 8, 75.58));
        let n = nim_h100_tp();
        assert_eq!(n.len(), 2);
        let n0 = (
            n[0].model,
            n[0].wdtype,
            n[0].gpus,
            n[0].input_tokens,
            n[0].output_tokens,
        );
        assert_eq!(n0, ("Llama-3.3-70B", WeightDtype::Fp8, 2, 5000, 500));
        assert_eq!(n[0].config, LLAMA31_70B);
        assert!((n[1].itl_s - 18.91e-3).abs() < 1e-15, "{}", n[1].itl_s);
    }

    /// The rows against the model, for `cargo test -- --nocapture`.
    fn print(rows: &[Compared]) {
        for c in rows {
            eprintln!(
                "{} {} compiled={} gpus={} measured {} model {:.1} ({:+.1} %) {:?}",
                c.row.model,
                c.row.wdtype.id(),
                c.row.compiled,
                c.row.gpus,
                c.row.tokens_per_s,
                c.model_tokens_per_s,
                c.error() * 100.0,
                c.regime
            );
        }
    }

    #[test]
    fn tensor_parallel_rows() {
        let rows = compare_tp();
        print(&rows);
        // 14 of the 15 rows within 12 %; Llama-3.1-70B on 2 GPUs is the one the
        // model misses (+26.5 %): gpt-fast's own bandwidth column puts that run at
        // 1131 GB/s per GPU, against 1482 for Llama-2-70B on 2 GPUs of the same
        // machine with nearly the same bytes per GPU, a slowdown the weights
        // streamed do not explain; the model is not fitted to it
        for c in &rows {
            let outlier = c.row.model == "Llama-3.1-70B" && c.row.gpus == 2;
            let bound = if outlier { 0.30 } else { 0.12 };
            assert!(c.error().abs() <= bound, "{c:?}");
        }
        assert!(
            tp_max_error(&rows) > 0.25,
            "the outlier is fixed: regenerate docs/accuracy.md"
        );
    }

    #[test]
    fn h100_rows_are_the_file_and_the_model_beside_them() {
        for c in compare_h100() {
            eprintln!(
                "{} {} tp={} in={} out={} measured {:.2} ms model {:.2} ms ({:+.1} % tok/s) {:?} comm {:.1} %",
                c.row.model,
                c.row.wdtype.id(),
                c.row.gpus,
                c.row.input_tokens,
                c.row.output_tokens,
                c.row.itl_s * 1e3,
                c.model_itl_s * 1e3,
                c.error() * 100.0,
                c.regime,
                c.comm_share * 100.0
            );
        }
        // +7.4 % and +10.6 %: the model is a little fast, memory-bound with 7 % of
        // the step on the link; not fitted (the KV cache's dtype is not stated,
        // and bf16 is modelled: fp8 would make the model ~1 % faster still)
        let rows = compare_h100();
        for c in &rows {
            assert!(c.error() > 0.0 && c.error() < 0.15, "{c:?}");
            assert_eq!(c.regime, Regime::Memory);
        }
        assert!(itl_max_error(&rows) < tp_max_error(&compare_tp()));
    }

    #[test]
    fn every_readme_row_within_20_percent_and_eager_is_overhead_bound() {
        let rows = compare();
        print(&rows);
        assert!(max_error(&rows) <= 0.20, "{}", max_error(&rows));
        let eager = rows.iter().find(|c| !c.row.compiled);
        assert_eq!(eager.map(|c| c.regime), Some(Regime::Overhead));
    }
}
