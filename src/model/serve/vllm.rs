//! The serving model against vLLM runs it was not fitted to: GPUStack's
//! performance lab on H100 SXM (tests/data/gpustack-vllm.json, `vllm bench
//! serve`): GPT-OSS-120B at four requests at once on one and two GPUs, where a
//! step's time is its weight and KV-cache reads, and prefill-bound bursts (100
//! or 500 requests of 2,000-32,000 prompt tokens sent at once) of GPT-OSS-120B,
//! GPT-OSS-20B and Qwen3-235B-A22B, where it is the prompts' compute (GPT-OSS's
//! MXFP4 experts at the measured W4A16 rate, [`crate::model::gemm::w4a16`]).
//!
//! Each row runs as vLLM's defaults on an H100 run it: `serve_chunk` 8192,
//! `serve_max_seqs` 1024, a bf16 KV cache, CUDA graphs, the weights as shipped
//! (GPT-OSS's MXFP4 experts as [`super::measured::checkpoint_wdtype`] prices
//! them; Qwen3-235B-A22B's bf16 checkpoint in bf16), at the run's measured mean
//! prompt and output lengths (the random dataset's requests stop at the end
//! token, short of what was asked). A burst is priced as the steady state of as
//! many requests in flight as it sent; its last requests decode few at a time,
//! a tail the steady state does not have, which can only make a real burst
//! slower than the model. No number of the model was set from these rows.

use super::measured::{checkpoint_wdtype, median, rows_in, whole, Compared, Engine};
use super::measured::{serve_run, Published};
use crate::json::Json;
use crate::model::llm::{KvDtype, LlmModel, WeightDtype};

const FILE: &str = include_str!("../../../tests/data/gpustack-vllm.json");

/// vLLM's `max_num_seqs` for `vllm serve` on a GPU of 70 GiB or more.
pub const MAX_SEQS: u32 = 1024;

/// The most requests at once for a row to count as decode-bound (the
/// four-request runs).
const FEW: u32 = 8;

/// One row: the run as published and the weights' dtype it ran in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    pub row: Published,
    pub wdtype: WeightDtype,
}

/// A row of the file (`None` for a model the page has no preset of, or a
/// row missing a figure).
fn run(r: &Json) -> Option<Run> {
    let model = match r.get("model")?.as_str()? {
        "gpt-oss-120b" => LlmModel::GptOss120b,
        "gpt-oss-20b" => LlmModel::GptOss20b,
        "qwen3-235b-a22b" => LlmModel::Qwen3_235b,
        _ => return None,
    };
    let num = |k: &str| r.get(k).and_then(Json::as_f64).filter(|x| x.is_finite());
    let requests = num("requests").filter(|&n| n >= 1.0)?;
    let mean = |k: &str| Some((num(k)? / requests).round()).filter(|&x| x >= 1.0);
    let ms = |k: &str| num(k).map(|x| x / 1e3);
    let wdtype = match r.get("weights")?.as_str()? {
        w if w.starts_with("bf16") => WeightDtype::Bf16,
        _ => checkpoint_wdtype(model),
    };
    Some(Run {
        row: Published {
            engine: Engine::Vllm,
            model,
            hw: crate::model::hardware::preset(r.get("hw")?.as_str()?)?.id,
            tp: whole(r, "tp")?,
            dep: 1,
            isl: mean("total_input_tokens")? as u32,
            osl: mean("total_generated_tokens")? as u32,
            concurrency: whole(r, "max_concurrency")?,
            max_seqs: MAX_SEQS,
            ttft_s: ms("mean_ttft_ms"),
            itl_s: ms("mean_tpot_ms"),
            tok_s: num("output_tok_s")?,
            kvdtype: KvDtype::Bf16,
            target: false,
            requests: None,
        },
        wdtype,
    })
}

/// The file's rows, in its order.
pub fn runs() -> Vec<Run> {
    rows_in(FILE, run)
}

/// Every row against the model.
pub fn compare() -> Vec<Compared> {
    runs()
        .iter()
        .map(|r| {
            let mut s = serve_run(&r.row);
            s.llm.wdtype = r.wdtype;
            super::measured::model_of(&r.row, &s)
        })
        .collect()
}

fn is_gpt_oss(m: LlmModel) -> bool {
    matches!(m, LlmModel::GptOss120b | LlmModel::GptOss20b)
}

/// The lowest and highest throughput error of `rows` (`None` where empty or
/// a row has no answer).
fn span<'a>(rows: impl Iterator<Item = &'a Compared>) -> Option<(f64, f64)> {
    rows.map(Compared::tok_error).try_fold(None, |acc, e| {
        let e = e?;
        Some(Some(acc.map_or((e, e), |(lo, hi): (f64, f64)| {
            (lo.min(e), hi.max(e))
        })))
    })?
}

/// The largest |error| of the decode step's figures (time per output token
/// and throughput) over `rows` (infinite where a row has no answer).
fn decode_step_error(rows: &[&Compared]) -> f64 {
    rows.iter()
        .flat_map(|c| [c.itl_error(), c.tok_error()])
        .map(|e| e.map_or(f64::INFINITY, f64::abs))
        .fold(0.0, f64::max)
}

fn pct(e: f64) -> String {
    format!("{:+.0} %", e * 100.0)
}

/// What the rows say, in words built from their errors: the median, the
/// decode-bound rows' largest error, the bursts' range per family, and, where
/// the decode rows are close, that the bursts test the compute rates (GPT-OSS's
/// W4A16 rate among them, [`crate::model::gemm::w4a16`]).
pub fn words(rows: &[Compared]) -> String {
    let all = median(
        rows.iter()
            .map(|c| c.tok_error().map_or(f64::INFINITY, f64::abs))
            .collect(),
    );
    let few: Vec<&Compared> = rows.iter().filter(|c| c.row.concurrency <= FEW).collect();
    let step_max = decode_step_error(&few);
    let ttft_max = few
        .iter()
        .filter_map(|c| c.ttft_error())
        .fold(0.0, |m: f64, e| m.max(e.abs()));
    let burst = |gpt: bool| {
        span(
            rows.iter()
                .filter(|c| c.row.concurrency > FEW && is_gpt_oss(c.row.model) == gpt),
        )
    };
    let mut out = format!(
        "Against {} vLLM runs the model was not fitted to, the median throughput error is {:.0} %.",
        rows.len(),
        all * 100.0
    );
    if !few.is_empty() {
        out += &format!(
            " At four requests at once, where a step's time is the weights and KV cache it reads, the model is within {:.0} % of the time per output token and the throughput of GPT-OSS-120B on one and two H100s (TTFT within {:.0} %).",
            step_max * 100.0,
            ttft_max * 100.0
        );
    }
    let (Some(g), Some(o)) = (burst(true), burst(false)) else {
        return out;
    };
    out += &format!(
        " In the prefill-bound bursts (every request sent at once, 2,000-32,000 prompt tokens each) it is fast by {} to {} on GPT-OSS and by {} to {} on Qwen3-235B-A22B.",
        pct(g.0),
        pct(g.1),
        pct(o.0),
        pct(o.1)
    );
    if step_max <= 0.15 {
        let share = crate::model::hardware::preset("h100-sxm")
            .and_then(crate::model::gemm::w4a16)
            .map_or(String::new(), |w| format!(" (GPT-OSS's MXFP4 experts at {:.1} % of the bf16 peak, the rate a W4A16 MoE kernel was measured at on an H100)", w.share * 100.0));
        out += &format!(" Decoding four sequences costs the weights' bytes, which the model has right; the bursts cost the prompts' compute, priced at the kernels' measured rates{share}.");
    }
    out + " A burst also ends with its last requests decoding few at a time, a tail the steady state the model prices does not have: it can only make a real burst slower."
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows are the file's: 14, the four-request runs with TTFT and time
    /// per output token, the bursts with throughput only, at the measured mean
    /// lengths (GPT-OSS-120B's ShareGPT: 22946 / 100 and 21691 / 100 tokens).
    #[test]
    fn the_rows_are_the_files() {
        let rs = runs();
        assert_eq!(rs.len(), 14);
        let few: Vec<&Run> = rs.iter().filter(|r| r.row.concurrency == 4).collect();
        assert_eq!(few.len(), 2);
        for r in &few {
            assert!(r.row.ttft_s.is_some() && r.row.itl_s.is_some());
            assert_eq!((r.row.isl, r.row.osl), (229, 217));
        }
        assert_eq!(few[0].row.itl_s, Some(8.31e-3));
        assert!(rs
            .iter()
            .filter(|r| r.row.concurrency > 4)
            .all(|r| r.row.ttft_s.is_none() && r.row.itl_s.is_none()));
        let qwen: Vec<&Run> = rs
            .iter()
            .filter(|r| r.row.model == LlmModel::Qwen3_235b)
            .collect();
        assert_eq!(qwen.len(), 3);
        assert!(qwen
            .iter()
            .all(|r| r.wdtype == WeightDtype::Bf16 && r.row.tp == 8));
        let first_burst = rs.iter().find(|r| r.row.concurrency == 100).unwrap();
        assert_eq!((first_burst.row.isl, first_burst.row.osl), (32000, 99));
        assert!(rs
            .iter()
            .all(|r| r.row.engine == Engine::Vllm && !r.row.target));
    }

    /// Every row has an answer; the words give the errors the rows give; the
    /// decode-bound runs' steps are close (time per output token and
    /// throughput within 15 %), and the GPT-OSS bursts, priced at the measured
    /// W4A16 rate, no further off than Qwen3-235B-A22B's. Were the decode runs
    /// far off, the words would not say the model has them right.
    #[test]
    fn the_words_are_the_rows_errors() {
        let cs = compare();
        assert!(cs.iter().all(|c| c.model.is_some()), "{cs:?}");
        let said = words(&cs);
        let few: Vec<&Compared> = cs.iter().filter(|c| c.row.concurrency <= FEW).collect();
        let worst = decode_step_error(&few);
        assert!(worst <= 0.15, "{worst}");
        assert!(
            said.contains(&format!("within {:.0} %", worst * 100.0)),
            "{said}"
        );
        let (g, o) = (
            span(
                cs.iter()
                    .filter(|c| c.row.concurrency > FEW && is_gpt_oss(c.row.model)),
            )
            .unwrap(),
            span(
                cs.iter()
                    .filter(|c| c.row.concurrency > FEW && !is_gpt_oss(c.row.model)),
            )
            .unwrap(),
        );
        assert!(
            said.contains(&format!("{} to {} on GPT-OSS", pct(g.0), pct(g.1))),
            "{said}"
        );
        assert!(
            said.contains(&format!("{} to {} on Qwen3-235B-A22B", pct(o.0), pct(o.1))),
            "{said}"
        );
        // GPT-OSS's experts priced at the measured W4A16 rate: its bursts
        // within a median of 30 %, no further off than Qwen3-235B-A22B's
        let gpt: Vec<f64> = cs
            .iter()
            .filter(|c| c.row.concurrency > FEW && is_gpt_oss(c.row.model))
            .filter_map(|c| c.tok_error().map(f64::abs))
            .collect();
        assert!(median(gpt) <= 0.30, "{said}");
        assert!(g.1 <= o.1, "{g:?} {o:?}");
        assert!(said.contains("25.7 % of the bf16 peak"), "{said}");
        // the model is fast on every burst: never slower than a real one
        assert!(cs
            .iter()
            .filter(|c| c.row.concurrency > FEW)
            .all(|c| c.tok_error().unwrap() > 0.0));
        // decode rows far off: no claim of where the gap lies
        let mut off = cs.clone();
        for c in off.iter_mut().filter(|c| c.row.concurrency <= FEW) {
            c.row.itl_s = c.row.itl_s.map(|x| x * 2.0);
        }
        assert!(
            !words(&off).contains("which the model has right"),
            "{}",
            words(&off)
        );
    }
}
