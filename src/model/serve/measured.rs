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
use crate::json::{self, Json};
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
    /// The same, from the later performance overview's per-GPU tables
    /// ([`super::overview`]).
    TrtllmOverview,
    /// `vllm bench serve` against vLLM's `vllm serve`, from GPUStack's
    /// performance lab ([`super::vllm`]).
    Vllm,
}

impl Engine {
    pub fn label(self) -> &'static str {
        match self {
            Engine::Nim => "NVIDIA NIM 1.8.0",
            Engine::TrtllmBench => "TensorRT-LLM trtllm-bench",
            Engine::TrtllmOverview => "TensorRT-LLM perf overview",
            Engine::Vllm => "vLLM (GPUStack)",
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
    /// DEP's ranks ([`crate::model::llm::dep`]; 1: none).
    pub dep: u32,
    pub isl: u32,
    pub osl: u32,
    pub concurrency: u32,
    pub max_seqs: u32,
    /// Seconds; `None` where the source gives none.
    pub ttft_s: Option<f64>,
    pub itl_s: Option<f64>,
    /// Output tokens per second of the whole deployment.
    pub tok_s: f64,
    /// The KV cache's dtype (fp8 in ModelOpt's fp8 checkpoints; GPT-OSS's
    /// `auto` on Hopper: bf16).
    pub kvdtype: KvDtype,
    /// Held to the serving targets ([`Compared::within_targets`]).
    pub target: bool,
    /// `trtllm-bench`'s dataset size: that many requests queued at once and
    /// run to the last token ([`super::queued`]); `None` for a steady loop.
    pub requests: Option<u32>,
}

impl Published {
    /// Stable id: `nim-llama-3.3-70b-h100-sxm-tp2-5000-500-c50`.
    pub fn id(&self) -> String {
        let engine = match self.engine {
            Engine::Nim => "nim",
            Engine::TrtllmBench => "trtllm",
            Engine::TrtllmOverview => "trtllm-overview",
            Engine::Vllm => "vllm",
        };
        let spread = if self.dep > 1 {
            format!("dep{}", self.dep)
        } else {
            format!("tp{}", self.tp)
        };
        format!(
            "{engine}-{}-{}-{spread}-{}-{}-c{}",
            self.model_name().to_lowercase(),
            self.hw,
            self.isl,
            self.osl,
            self.concurrency
        )
    }
    /// The model's name as the source writes it.
    pub fn model_name(&self) -> &'static str {
        match self.model {
            LlmModel::Llama3_70b => "Llama-3.3-70B",
            LlmModel::GptOss120b => "GPT-OSS-120B",
            LlmModel::GptOss20b => "GPT-OSS-20B",
            LlmModel::DeepseekV3 => "DeepSeek-R1-0528",
            LlmModel::Qwen3_235b => "Qwen3-235B-A22B",
            LlmModel::Llama4Maverick => "Llama-4-Maverick",
            _ => "Llama-3.1-8B",
        }
    }
}

/// The chunk both engines are modelled with (the widget's default).
pub const CHUNK: u32 = 8192;
/// The most sequences NIM's rows run (the widget's default).
pub const MAX_SEQS: u32 = 256;

/// The data files, each with its sources and what it does not state; the
/// rows are read from them as they are (`tests::the_rows_are_the_files`).
pub(super) const NIM_FILE: &str = include_str!("../../../tests/data/serve-nim-h100.json");
const TRTLLM_FILE: &str = include_str!("../../../tests/data/serve-trtllm.json");

/// A data file's `rows` (none where the file does not parse).
pub(super) fn rows_in<T>(text: &str, row: impl Fn(&Json) -> Option<T>) -> Vec<T> {
    json::parse(text).map_or_else(|_| Vec::new(), |j| rows_of(&j, row))
}

/// The `rows` of a parsed data file.
fn rows_of<T>(j: &Json, row: impl Fn(&Json) -> Option<T>) -> Vec<T> {
    j.get("rows")
        .and_then(Json::as_arr)
        .unwrap_or(&[])
        .iter()
        .filter_map(row)
        .collect()
}

/// The columns every row has: the model, the tensor-parallel GPUs, the prompt
/// and output tokens, and whether the row is held to a target.
fn columns(r: &Json) -> Option<(LlmModel, u32, u32, u32, bool)> {
    let model = match r.get("model")?.as_str()? {
        "llama-3.3-70b" => LlmModel::Llama3_70b,
        "llama-3.1-8b" => LlmModel::Llama3_8b,
        _ => return None,
    };
    let target = r
        .get("issue_target")
        .and_then(Json::as_bool)
        .unwrap_or(false);
    Some((
        model,
        whole(r, "tp")?,
        whole(r, "input_tokens")?,
        whole(r, "output_tokens")?,
        target,
    ))
}

/// A whole number in `r` under `key`.
pub(super) fn whole(r: &Json, key: &str) -> Option<u32> {
    let x = r.get(key)?.as_f64()?;
    (x >= 0.0 && x <= f64::from(u32::MAX) && x.fract() == 0.0).then_some(x as u32)
}

/// tests/data/serve-nim-h100.json's rows, in its order: NIM's concurrency
/// sweeps on H100s, each with its TTFT and ITL (ms in the file).
pub fn nim() -> Vec<Published> {
    rows_in(NIM_FILE, |r| {
        let (model, tp, isl, osl, target) = columns(r)?;
        let ms = |k: &str| r.get(k).and_then(Json::as_f64).map(|x| x / 1e3);
        Some(Published {
            engine: Engine::Nim,
            model,
            hw: "h100-sxm",
            tp,
            dep: 1,
            isl,
            osl,
            concurrency: whole(r, "concurrency")?,
            max_seqs: MAX_SEQS,
            ttft_s: Some(ms("ttft_ms")?),
            itl_s: Some(ms("itl_ms")?),
            tok_s: r.get("throughput_tokens_per_s")?.as_f64()?,
            kvdtype: KvDtype::Fp8,
            target,
            requests: None,
        })
    })
}

/// tests/data/serve-trtllm.json's rows, in its order: `trtllm-bench`'s
/// maximum throughput, every request queued at once.
pub fn trtllm() -> Vec<Published> {
    queued_rows_in(TRTLLM_FILE, trtllm_row)
}

/// A `trtllm-bench` data file's `rows`, each with its `requests` from the
/// file's table of dataset sizes (`requests.rows`: `isl`, `osl`, `requests`;
/// a row of lengths the table does not list keeps `None`), the file parsed
/// once.
pub(super) fn queued_rows_in(
    text: &str,
    row: impl Fn(&Json) -> Option<Published>,
) -> Vec<Published> {
    let Ok(j) = json::parse(text) else {
        return Vec::new();
    };
    let table: Vec<(u32, u32, u32)> = j
        .get("requests")
        .and_then(|t| t.get("rows"))
        .and_then(Json::as_arr)
        .unwrap_or(&[])
        .iter()
        .filter_map(|r| Some((whole(r, "isl")?, whole(r, "osl")?, whole(r, "requests")?)))
        .collect();
    let mut rows = rows_of(&j, row);
    for p in &mut rows {
        p.requests = table
            .iter()
            .find(|t| (t.0, t.1) == (p.isl, p.osl))
            .map(|t| t.2)
            .filter(|&n| n > 0);
    }
    rows
}

/// One row of tests/data/serve-trtllm.json.
fn trtllm_row(r: &Json) -> Option<Published> {
    let (model, tp, isl, osl, target) = columns(r)?;
    Some(Published {
        engine: Engine::TrtllmBench,
        model,
        hw: crate::model::hardware::preset(r.get("hw")?.as_str()?)?.id,
        tp,
        dep: 1,
        isl,
        osl,
        concurrency: 4096,
        max_seqs: 2048,
        ttft_s: None,
        itl_s: None,
        tok_s: r.get("output_tokens_per_s")?.as_f64()?,
        kvdtype: KvDtype::Fp8,
        target,
        requests: None,
    })
}

/// The dtype of a row's weights outside any MXFP4 experts: fp8 for NVIDIA's
/// ModelOpt FP8 checkpoints (Llama); bf16 for GPT-OSS, whose public checkpoint
/// keeps attention, router and embeddings in bf16 beside its MXFP4 experts (the
/// overview's FP8 model list does not name it), so its experts run W4A16 as
/// TensorRT-LLM runs MXFP4 checkpoints on Hopper
/// ([`crate::model::llm::moe::mxfp4_stored`]).
pub fn checkpoint_wdtype(m: LlmModel) -> WeightDtype {
    match m {
        LlmModel::GptOss120b | LlmModel::GptOss20b => WeightDtype::Bf16,
        _ => WeightDtype::Fp8,
    }
}

/// The serving run a row is modelled as.
pub fn serve_run(p: &Published) -> ServeRun {
    use crate::model::parallel::{link, Link};
    ServeRun {
        llm: LlmRun {
            config: p.model.config_or_toy(),
            phase: Phase::Decode,
            batch: 1,
            context: 1,
            wdtype: checkpoint_wdtype(p.model),
            kvdtype: p.kvdtype,
            graphs: true,
            flash: true,
            par: Parallel {
                tp: p.tp,
                pp: 1,
                dep: p.dep,
                link: link("nvlink4").copied().unwrap_or(Link::NONE),
                overlap: false,
                rank_tokens: 0,
            },
        },
        isl: p.isl,
        osl: p.osl,
        concurrency: p.concurrency,
        chunk: CHUNK,
        max_seqs: p.max_seqs,
        engine_s: super::ENGINE_US * 1e-6,
        spec: crate::model::llm::spec::SpecRun::OFF,
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
    /// The steady state of the row's loop.
    pub model: Option<Serve>,
    /// The row's requests queued at once and run to the last token, where the
    /// row has a dataset size ([`Published::requests`]): its throughput is the
    /// one compared.
    pub queued: Option<super::queued::Queued>,
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
    /// The model's output tokens per second for the row: the queued run's
    /// where there is one, else the steady state's.
    pub fn tok_s(&self) -> Option<f64> {
        self.queued
            .map(|q| q.tok_s)
            .or_else(|| self.model.map(|m| m.tok_s))
    }
    pub fn tok_error(&self) -> Option<f64> {
        Some(err(self.tok_s()?, self.row.tok_s))
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
            Engine::TrtllmBench | Engine::TrtllmOverview => {
                self.model.is_some() && ok(self.tok_error(), 0.30)
            }
            Engine::Vllm => {
                self.model.is_some()
                    && ok(self.tok_error(), 0.30)
                    && ok(self.itl_error(), 0.30)
                    && ok(self.ttft_error(), 0.30)
            }
        }
    }
}

/// One row against the model.
pub fn model(p: &Published) -> Compared {
    compared(p, &serve_run(p), true)
}

/// `p` against the model run as `run` (a changed run: its queued run is run,
/// never read from the stored ones).
pub fn model_of(p: &Published, run: &ServeRun) -> Compared {
    compared(p, run, false)
}

/// `p` against `run`: its steady state, and its requests queued at once where
/// it has a dataset size (read from [`super::queued::stored`] where `stored`
/// and there is one: `run` is then the row's own).
fn compared(p: &Published, run: &ServeRun, stored: bool) -> Compared {
    let s = setting(p);
    let model = super::run(run, &s);
    let queued = p.requests.zip(model).and_then(|(n, m)| {
        stored
            .then(|| super::queued::stored(&p.id()))
            .flatten()
            .or_else(|| super::queued::run(run, &s, n, m.cap))
    });
    Compared {
        row: *p,
        model,
        queued,
    }
}

/// Every stored row against the model: NIM's, then `trtllm-bench`'s.
pub fn compare() -> Vec<Compared> {
    nim().iter().chain(trtllm().iter()).map(model).collect()
}

/// The rows held to targets (`target`), against the model (the readout's, cheap
/// beside [`compare`]).
pub fn compare_targets() -> Vec<Compared> {
    nim()
        .iter()
        .chain(trtllm().iter())
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

/// The median of `e` (infinite where it is empty).
pub fn median(mut e: Vec<f64>) -> f64 {
    if e.is_empty() {
        return f64::INFINITY;
    }
    crate::model::order::sort_largest_first(&mut e, |x| *x);
    let n = e.len();
    if n % 2 == 1 {
        e[n / 2]
    } else {
        0.5 * (e[n / 2 - 1] + e[n / 2])
    }
}

/// The rows beyond their targets, each with its throughput error, as a
/// sentence's last clause (" Beyond 30 %: Qwen3-235B-A22B 5000 / 500 on h200
/// (+54 %); …."); empty where every row is within.
pub fn beyond(rows: &[Compared]) -> String {
    let missed: Vec<String> = rows
        .iter()
        .filter(|c| !c.within_targets())
        .map(|c| {
            format!(
                "{} {} / {} on {} ({})",
                c.row.model_name(),
                c.row.isl,
                c.row.osl,
                c.row.hw,
                c.tok_error()
                    .map_or("no answer".into(), |e| format!("{:+.0} %", e * 100.0))
            )
        })
        .collect();
    if missed.is_empty() {
        String::new()
    } else {
        format!(" Beyond 30 %: {}.", missed.join("; "))
    }
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
