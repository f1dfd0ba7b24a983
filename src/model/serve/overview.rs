//! The serving model against TensorRT-LLM's later performance overview
//! (tests/data/trtllm-perf-overview.json: `trtllm-bench` at maximum throughput,
//! output tokens per second per GPU): the mixtures of experts GPT-OSS-120B and
//! GPT-OSS-20B on one GPU, and Llama-3.3-70B on two, modelled as
//! [`super::measured`] models `trtllm-bench`'s older rows
//! (`serve_c=4096&serve_max_seqs=2048&serve_chunk=8192`, CUDA graphs,
//! achievable roofs), the weights in the checkpoint's dtype
//! ([`super::measured::checkpoint_wdtype`]: Llama-3.3-70B's ModelOpt checkpoint
//! fp8; GPT-OSS's bf16 beside its MXFP4 experts, which run W4A16 as TensorRT-LLM
//! runs them on Hopper, [`crate::model::llm::moe::mxfp4_stored`]). The KV cache
//! is in the dtype the page's configuration gives: GPT-OSS on Hopper `auto`
//! (bf16), Llama-3.3-70B fp8. The rows the issue quotes are held to 30 %;
//! the others to a median within 30 %. The rows run with attention data
//! parallelism and experts spread over GPUs (TensorRT-LLM's "DEP n":
//! GPT-OSS-120B DEP4 on H100, Qwen3-235B-A22B DEP4 and DEP8, DeepSeek-R1-0528
//! DEP8 with DeepSeek-V3's shape, Llama-4-Maverick DEP8) are modelled with
//! [`crate::model::llm::dep`]: `serve_c` and `serve_max_seqs` are the
//! deployment's, split evenly over the ranks, and the chunk is each rank's.
//! Every row runs as `trtllm-bench` ran it: its dataset's requests queued at
//! once and served to the last token ([`super::queued`]; the DEP ranks in
//! step), the steady state shown beside it.
//! Their KV cache: DeepSeek-R1's options set fp8; the ModelOpt FP8
//! checkpoints leave it `auto`, taken as fp8 as Llama-3.3-70B's.

use super::measured::{median, whole, Compared, Engine, Published};
use crate::json::Json;
use crate::model::llm::{KvDtype, LlmModel};

const FILE: &str = include_str!("../../../tests/data/trtllm-perf-overview.json");

/// One row of the file, `None` for a model or spread not modelled.
fn row(r: &Json) -> Option<Published> {
    let model = match r.get("model")?.as_str()? {
        "gpt-oss-120b" => LlmModel::GptOss120b,
        "gpt-oss-20b" => LlmModel::GptOss20b,
        "llama-3.3-70b" => LlmModel::Llama3_70b,
        // DeepSeek-R1-0528 has DeepSeek-V3's shape
        "deepseek-r1-0528" => LlmModel::DeepseekV3,
        "qwen3-235b-a22b" => LlmModel::Qwen3_235b,
        "llama4-maverick" => LlmModel::Llama4Maverick,
        _ => return None,
    };
    let (tp, dep) = spread(r.get("parallelism")?.as_str()?)?;
    let hw = match r.get("gpu")?.as_str()? {
        "H200 SXM 141GB" => "h200",
        "H100 SXM 80GB" => "h100-sxm",
        _ => return None,
    };
    let gpus = whole(r, "gpus")?;
    let per_gpu = r.get("output_tok_s_per_gpu")?.as_f64()?;
    Some(Published {
        engine: Engine::TrtllmOverview,
        model,
        hw,
        tp,
        dep,
        isl: whole(r, "isl")?,
        osl: whole(r, "osl")?,
        concurrency: 4096,
        max_seqs: 2048,
        ttft_s: None,
        itl_s: None,
        tok_s: per_gpu * f64::from(gpus),
        kvdtype: kv_dtype(model),
        target: r.get("quoted").is_some(),
        requests: None,
    })
}

/// Tensor parallel and DEP ranks of the file's `parallelism` ("TP2",
/// "DEP8", "DEP4 (attention data-parallel 4 + expert-parallel 4)").
fn spread(p: &str) -> Option<(u32, u32)> {
    let word = p.split_whitespace().next()?;
    let n = |s: &str| s.parse::<u32>().ok().filter(|n| [1, 2, 4, 8].contains(n));
    if let Some(t) = word.strip_prefix("TP") {
        return Some((n(t)?, 1));
    }
    Some((1, n(word.strip_prefix("DEP")?)?))
}

/// The KV cache's dtype in the source's configuration: GPT-OSS on Hopper
/// `auto` (bf16); DeepSeek-R1's options set fp8; NVIDIA's ModelOpt FP8
/// checkpoints (Llama-3.3-70B, Qwen3-235B-A22B, Llama-4-Maverick) leave it
/// `auto`, the checkpoint's, taken as fp8 as for Llama-3.3-70B's older row.
fn kv_dtype(model: LlmModel) -> KvDtype {
    match model {
        LlmModel::GptOss120b | LlmModel::GptOss20b => KvDtype::Bf16,
        _ => KvDtype::Fp8,
    }
}

/// The file's rows the model runs, in its order.
pub fn rows() -> Vec<Published> {
    super::measured::queued_rows_in(FILE, row)
}

/// Every modelled row against the model.
pub fn compare() -> Vec<Compared> {
    rows().iter().map(super::measured::model).collect()
}

/// The median |throughput error| of the rows not held to a target (infinite
/// where there are none).
pub fn median_other(rows: &[Compared]) -> f64 {
    median(
        rows.iter()
            .filter(|c| !c.row.target)
            .map(|c| c.tok_error().map_or(f64::INFINITY, f64::abs))
            .collect(),
    )
}

/// The comparison in words: the rows held to 30 %, the others' median, and
/// the rows the model misses by more than 30 %, each with its error.
pub fn words(rows: &[Compared]) -> String {
    let held: Vec<&Compared> = rows.iter().filter(|c| c.row.target).collect();
    let within = held.iter().filter(|c| c.within_targets()).count();
    let worst = held
        .iter()
        .filter_map(|c| c.tok_error())
        .fold(0.0, |m: f64, e| if e.abs() > m.abs() { e } else { m });
    let others = rows.len() - held.len();
    let miss = super::measured::beyond(rows);
    format!(
        "Rows held to 30 %: {within} of {} within (the largest error {:+.0} %); the other {others} rows' median error {:.0} %.{}{miss}{}",
        held.len(),
        worst * 100.0,
        median_other(rows) * 100.0,
        queued_words(rows),
        gpt_oss_words(rows)
    ) + &dep_words(rows)
}

/// What running each row as `trtllm-bench` ran it changes: the range of the
/// change from the steady state to the queued run, on the rows without DEP
/// and on the DEP rows, and how many held rows the steady state would have
/// within 30 % (empty without queued rows).
fn queued_words(rows: &[Compared]) -> String {
    let both: Vec<(&Compared, f64, f64)> = rows
        .iter()
        .filter_map(|c| Some((c, c.queued?.tok_s, c.model?.tok_s)))
        .collect();
    if both.is_empty() {
        return String::new();
    }
    let range = |dep: bool| {
        let ch: Vec<f64> = both
            .iter()
            .filter(|x| (x.0.row.dep > 1) == dep)
            .map(|x| (x.1 / x.2 - 1.0) * 100.0)
            .collect();
        let lo = ch.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ch.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (!ch.is_empty()).then(|| format!("{lo:+.0} % to {hi:+.0} %"))
    };
    let requests: Vec<u32> = both.iter().filter_map(|x| x.0.row.requests).collect();
    let fewest = requests.iter().copied().min().unwrap_or(0);
    let most = requests.iter().copied().max().unwrap_or(0);
    let held: Vec<_> = both.iter().filter(|x| x.0.row.target).collect();
    let steady_within = held
        .iter()
        .filter(|x| (x.2 / x.0.row.tok_s - 1.0).abs() <= 0.30)
        .count();
    format!(
        " Each row runs as trtllm-bench ran it: its dataset's requests ({} to {}) queued at once and served until the last one finishes, the output over the whole run. Requests of the same lengths that join together finish together, so the engine runs in waves, and the last wave, what is left of the queue, decodes at a smaller batch that still reads every weight. Against the model's steady state (an endless loop of requests) that moves the answer by {}{}; as a steady state {steady_within} of the {} held rows would be within 30 %.",
        crate::model::units::grouped(f64::from(fewest)),
        crate::model::units::grouped(f64::from(most)),
        range(false).map_or(String::new(), |r| format!("{r} on the rows without DEP")),
        range(true).map_or(String::new(), |r| format!(" and by {r} on the DEP rows, whose ranks, all refilled together, no longer wait for one holding a whole prompt")),
        held.len()
    )
}

/// The row of `rows` whose error is the median's (the lower one of an even
/// count).
fn median_row<'a>(rows: &[&'a Compared]) -> Option<&'a Compared> {
    let mut rs: Vec<&Compared> = rows.to_vec();
    crate::model::order::sort_largest_first(&mut rs, |c| c.tok_error().unwrap_or(0.0));
    rs.get(rs.len() / 2).copied()
}

/// How the DEP rows compare, and what the model can say of their gap: their
/// median error beside the one-GPU MoE rows', and, for the DEP row at the
/// median, the model's answer again with a link half as fast (half the
/// bandwidth, twice the latencies), which shows how much of the answer rides
/// on the all-to-all's pricing. Empty without DEP rows.
fn dep_words(rows: &[Compared]) -> String {
    let dep: Vec<&Compared> = rows.iter().filter(|c| c.row.dep > 1).collect();
    let Some(mid) = median_row(&dep) else {
        return String::new();
    };
    let errs = |f: &dyn Fn(&Compared) -> bool| {
        median(
            rows.iter()
                .filter(|c| f(c))
                .filter_map(Compared::tok_error)
                .collect(),
        )
    };
    let dep_med = errs(&|c| c.row.dep > 1);
    let one_gpu = errs(&|c| c.row.dep <= 1 && c.row.tp == 1);
    let slow = slow_link(&mid.row);
    let pct = |e: f64| format!("{:+.0} %", e * 100.0);
    let (Some(now), Some(then)) = (mid.tok_error(), slow.tok_error()) else {
        return String::new();
    };
    format!(
        " The DEP rows (attention data-parallel, the experts spread over the GPUs) miss by a median {}, the mixtures of experts on one GPU (GPT-OSS) by {}. For {} {} / {} on {}, a link half as fast moves the model from {} to {}, {}. All of a row's requests are queued at once with the same lengths, so every rank takes its share of them in the same steps and the model runs the ranks in step: the decoding sequences and the prompts split evenly, the tokens routed uniformly, no rank waiting for another (the serve widget's steady state, with requests arriving one by one, makes every rank wait for the one that holds a whole prompt).",
        pct(dep_med),
        pct(one_gpu),
        mid.row.model_name(),
        mid.row.isl,
        mid.row.osl,
        mid.row.hw,
        pct(now),
        pct(then),
        if (now - then).abs() < 0.5 * now.abs() {
            "less than half the gap: most of it lies in each GPU's own step"
        } else {
            "half the gap or more: the all-to-all's price is much of it"
        }
    ) + &twin_words(&dep)
}

/// A row in the DEP sentences' words: "Qwen3-235B-A22B at 1000 / 1000 on h200".
fn at(p: &Published) -> String {
    format!("{} at {} / {} on {}", p.model_name(), p.isl, p.osl, p.hw)
}

/// A DEP row and the same model, GPU and lengths run tensor parallel on the
/// page's earlier table ([`super::moe_tp`]), each against the model.
#[derive(Clone, Copy, Debug)]
pub struct Twin {
    pub dep: Compared,
    pub tp: Compared,
}

impl Twin {
    /// DEP's output per GPU over TP's, published and in the model (`None`
    /// where the model has no answer).
    pub fn gains(&self) -> Option<(f64, f64)> {
        let per_gpu = |p: &Published, tok_s: f64| tok_s / f64::from(p.tp.max(1) * p.dep.max(1));
        let published =
            per_gpu(&self.dep.row, self.dep.row.tok_s) / per_gpu(&self.tp.row, self.tp.row.tok_s);
        let model =
            per_gpu(&self.dep.row, self.dep.tok_s()?) / per_gpu(&self.tp.row, self.tp.tok_s()?);
        Some((published, model))
    }
}

/// The DEP rows of `dep` that TensorRT-LLM also ran tensor parallel (same
/// model, GPU and lengths), each pair against the model.
pub fn twins(dep: &[&Compared]) -> Vec<Twin> {
    let tp = super::moe_tp::rows();
    dep.iter()
        .filter_map(|d| {
            let t = tp.iter().find(|t| {
                t.model == d.row.model
                    && t.hw == d.row.hw
                    && t.isl == d.row.isl
                    && t.osl == d.row.osl
            })?;
            Some(Twin {
                dep: **d,
                tp: super::measured::model(t),
            })
        })
        .collect()
}

/// How DEP compares with TP where the page ran a model both ways: the
/// published and the modelled gain per GPU, and the model's median error on
/// those TP rows (empty without such pairs). Where the model meets the TP
/// rows and gives DEP the larger gain, the words say what the pairs can and
/// cannot tell: the older page labels its rows TP 8 but its command for
/// mixtures of experts passes `--ep` and sets `enable_attention_dp`, so they
/// may have run spread as DEP is.
fn twin_words(dep: &[&Compared]) -> String {
    let pairs: Vec<(Twin, f64, f64)> = twins(dep)
        .into_iter()
        .filter_map(|t| {
            let (p, m) = t.gains()?;
            Some((t, p, m))
        })
        .collect();
    if pairs.is_empty() {
        return String::new();
    }
    let range = |f: &dyn Fn(&(Twin, f64, f64)) -> f64| {
        let lo = pairs.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = pairs.iter().map(f).fold(0.0, f64::max);
        if (hi - lo) < 0.005 {
            format!("{lo:.2}×")
        } else {
            format!("{lo:.2}–{hi:.2}×")
        }
    };
    let named: Vec<String> = pairs
        .iter()
        .map(|(t, _, _)| {
            format!(
                "{} (DEP {} against TP {})",
                at(&t.dep.row),
                t.dep.row.dep,
                t.tp.row.tp
            )
        })
        .collect();
    let tp_err = median(
        pairs
            .iter()
            .filter_map(|(t, _, _)| t.tp.tok_error().map(f64::abs))
            .collect(),
    );
    let model_gain_larger = pairs.iter().all(|(_, p, m)| m > p);
    let meets = tp_err <= 0.30;
    format!(
        " Where TensorRT-LLM ran the same model, GPU and lengths both ways ({}), DEP gave {} TP's output per GPU and the model gives {}, while it {} those TP rows {} a median {:.0} %{}",
        named.join("; "),
        range(&|x| x.1),
        range(&|x| x.2),
        if meets { "meets" } else { "misses" },
        if meets { "within" } else { "by" },
        tp_err * 100.0,
        if model_gain_larger && meets {
            ": the model makes its own DEP much the cheaper spread where the runs found the two close. Those rows are labelled TP 8, but the older page's command for mixtures of experts also passes --ep (its value not given) and sets enable_attention_dp (written inside cuda_graph_config, where it is not a field), so they may have spread the experts, and the attention too, as DEP does; then the model's TP meets runs spread like its DEP, and its DEP, each rank holding its own sequences' KV cache and so more of them, is the optimistic one. Where the experts are spread over ranks the model routes tokens uniformly, while a router's uneven load holds every rank back to the busiest (TensorRT-LLM measured DeepSeek-R1's busiest rank at 2.56× the mean over 32 GPUs without its load balancer)."
        } else {
            "."
        }
    )
}

/// `p` against the model with its link half as fast: half the bandwidth,
/// twice the latencies.
fn slow_link(p: &Published) -> Compared {
    let mut run = super::measured::serve_run(p);
    let l = run.llm.par.link;
    run.llm.par.link = crate::model::parallel::Link {
        bw: l.bw / 2.0,
        hop: l.hop * 2.0,
        base: l.base * 2.0,
        ..l
    };
    super::measured::model_of(p, &run)
}

/// Why the model misses GPT-OSS, where every GPT-OSS row it misses it misses
/// on the fast side (empty otherwise): the range of those errors, the rows
/// with the most and the fewest sequences running at once in the model, and
/// what the model leaves out of TensorRT-LLM's Hopper path.
fn gpt_oss_words(rows: &[Compared]) -> String {
    let oss: Vec<(&Compared, f64, u32)> = rows
        .iter()
        .filter(|c| matches!(c.row.model, LlmModel::GptOss120b | LlmModel::GptOss20b))
        .filter(|c| !c.within_targets())
        .filter_map(|c| Some((c, c.tok_error()?, c.model?.running)))
        .collect();
    if oss.is_empty() || oss.iter().any(|x| x.1 < 0.0) {
        return String::new();
    }
    let lo = oss.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    let hi = oss.iter().map(|x| x.1).fold(0.0, f64::max);
    let most = oss.iter().max_by_key(|x| x.2).map_or(oss[0], |x| *x);
    let fewest = oss.iter().min_by_key(|x| x.2).map_or(oss[0], |x| *x);
    let at = |x: (&Compared, f64, u32)| {
        format!(
            "{} {} / {} on {} ({} sequences at once, {:+.0} %)",
            x.0.row.model_name(),
            x.0.row.isl,
            x.0.row.osl,
            x.0.row.hw,
            x.2,
            x.1 * 100.0
        )
    };
    let run = super::measured::serve_run(&most.0.row).llm;
    let hw = crate::model::hardware::preset(most.0.row.hw);
    let experts = match crate::model::llm::moe::mxfp4_stored(run.wdtype) {
        crate::model::gemm::Stored::Int4 => {
            let rate = hw.and_then(crate::model::gemm::w4a16).map_or(String::new(), |w| {
                format!(
                    ", and computed, once a GEMM's M is large, at {:.1} % of the bf16 peak, the rate a W4A16 MoE kernel (Marlin's) was measured at on an H100{}",
                    w.share * 100.0,
                    if w.measured { "" } else { " (estimated for this GPU)" }
                )
            });
            format!("unpacked to bf16 inside the matmul (W4A16) and streamed as a measured 4-bit weight-only kernel streams{rate}")
        }
        _ => "unpacked to fp8 inside the matmul (W4A8) and streamed as a measured fp8 MoE kernel streams".to_string(),
    };
    format!(
        " Where it misses GPT-OSS it is fast, by {:.0}–{:.0} %; of those rows the one with the most sequences running at once is {}, the one with the fewest {}. The model runs GPT-OSS as TensorRT-LLM runs its public checkpoint on Hopper: {} weights outside the experts, the MXFP4 experts {experts}, a {} KV cache of which the windowed layers hold only their {}-token window. It does not know how fast TensorRT-LLM's own (Triton) MoE kernels unpack MXFP4 on Hopper, the engine's CPU work for each running request (the model's is per step), or how TensorRT-LLM's KV-cache pools split the memory between windowed and full layers; the gap is left as it is rather than fitted.",
        lo * 100.0,
        hi * 100.0,
        at(most),
        at(fewest),
        run.wdtype.id(),
        run.kvdtype.id(),
        run.config.arch.window
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::llm::LlmRun;

    /// The rows read are the file's: 5 TP1 and 5 DEP4 of GPT-OSS-120B, 10
    /// of GPT-OSS-20B, 7 of Llama-3.3-70B, and the DEP rows of DeepSeek-R1
    /// (4), Llama-4-Maverick (5) and Qwen3-235B (5 DEP4, 3 DEP8).
    #[test]
    fn the_rows_are_the_files() {
        let rs = rows();
        let n = |m, dep| rs.iter().filter(|p| p.model == m && p.dep == dep).count();
        assert_eq!(
            (
                n(LlmModel::GptOss120b, 1),
                n(LlmModel::GptOss120b, 4),
                n(LlmModel::GptOss20b, 1),
                n(LlmModel::Llama3_70b, 1)
            ),
            (5, 5, 10, 7)
        );
        assert_eq!(
            (
                n(LlmModel::DeepseekV3, 8),
                n(LlmModel::Llama4Maverick, 8),
                n(LlmModel::Qwen3_235b, 4),
                n(LlmModel::Qwen3_235b, 8)
            ),
            (4, 5, 5, 3)
        );
        assert_eq!(rs.len(), 44);
        assert!(rs.iter().all(|p| p.dep == 1 || p.tp == 1));
        let quoted: Vec<_> = rs
            .iter()
            .filter(|p| p.target)
            .map(|p| p.tok_s / f64::from(p.tp))
            .collect();
        assert_eq!(
            quoted,
            [6868.0, 3543.0, 1828.0, 13858.0, 11557.0, 3366.0, 2587.0, 2209.0]
        );
    }

    /// Each row runs its checkpoint: Llama-3.3-70B fp8; GPT-OSS bf16 beside
    /// its MXFP4 experts, whose grouped matmuls stream as a 4-bit weight-only
    /// kernel (W4A16, TensorRT-LLM's default for MXFP4 on Hopper), so its decode
    /// step is slower than with the experts streamed as fp8.
    #[test]
    fn each_row_runs_its_checkpoint() {
        use crate::model::gemm::Stored;
        use crate::model::llm::{layer, WeightDtype};
        for p in rows() {
            let r = crate::model::serve::measured::serve_run(&p).llm;
            let oss = matches!(p.model, LlmModel::GptOss120b | LlmModel::GptOss20b);
            let want = if oss {
                WeightDtype::Bf16
            } else {
                WeightDtype::Fp8
            };
            assert_eq!(r.wdtype, want, "{p:?}");
            let experts: Vec<Stored> = layer::compiled_layer(&r)
                .iter()
                .filter(|k| k.group.name.starts_with("experts"))
                .filter_map(|k| k.group.gemm.map(|g| g.b))
                .collect();
            if oss {
                assert_eq!(experts, [Stored::Int4, Stored::Int4], "{p:?}");
            } else if r.config.experts > 1 {
                // the DEP rows' FP8 checkpoints: the experts in fp8 too
                assert_eq!(experts, [Stored::Fp8, Stored::Fp8], "{p:?}");
            } else {
                assert!(experts.is_empty());
            }
        }
        // the same step with the experts streamed as fp8 (W4A8) is faster
        let p = rows()[0];
        let s = crate::model::serve::measured::setting(&p);
        let at = |w| {
            let llm = LlmRun {
                batch: 256,
                context: 2000,
                wdtype: w,
                ..crate::model::serve::measured::serve_run(&p).llm
            };
            crate::model::llm::step::wall(&llm, &s, crate::model::llm::kernels::KvRead::InPlace)
        };
        assert!(at(WeightDtype::Bf16) > 1.2 * at(WeightDtype::Fp8));
    }

    /// Where the model misses GPT-OSS (fast on every such row), the page names
    /// the missed row with the most sequences running at once and the one with
    /// the fewest, each with the model's batch and its error.
    #[test]
    fn the_gpt_oss_words_name_the_largest_and_smallest_batch() {
        let cs = compare();
        let oss: Vec<&Compared> = cs
            .iter()
            .filter(|c| matches!(c.row.model, LlmModel::GptOss120b | LlmModel::GptOss20b))
            .filter(|c| !c.within_targets())
            .collect();
        let said = gpt_oss_words(&cs);
        if oss.is_empty() || oss.iter().any(|c| c.tok_error().unwrap_or(0.0) < 0.0) {
            assert!(said.is_empty());
            return;
        }
        let n = |c: &Compared| c.model.map_or(0, |m| m.running);
        for c in [
            *oss.iter().max_by_key(|c| n(c)).unwrap(),
            *oss.iter().min_by_key(|c| n(c)).unwrap(),
        ] {
            let named = format!(
                "{} {} / {} on {} ({} sequences at once, {:+.0} %)",
                c.row.model_name(),
                c.row.isl,
                c.row.osl,
                c.row.hw,
                n(c),
                c.tok_error().unwrap() * 100.0
            );
            assert!(said.contains(&named), "{named}: {said}");
        }
        assert!(
            said.contains("W4A16") && said.contains("bf16 weights"),
            "{said}"
        );
    }

    /// The DEP rows are said apart, with their median error beside the
    /// one-GPU MoE rows' and the answer again on a slower link, which can
    /// only slow the model (never fitted: the sentence holds whatever the
    /// errors are).
    #[test]
    fn the_dep_rows_are_said_with_what_the_link_explains() {
        let cs = compare();
        let dep: Vec<&Compared> = cs.iter().filter(|c| c.row.dep > 1).collect();
        assert_eq!(dep.len(), 22);
        let said = dep_words(&cs);
        let mid = median_row(&dep).unwrap();
        let pct = |e: f64| format!("{:+.0} %", e * 100.0);
        assert!(said.contains(&pct(mid.tok_error().unwrap())), "{said}");
        let slow = slow_link(&mid.row);
        assert!(slow.tok_s().unwrap() < mid.tok_s().unwrap());
        assert!(said.contains(&pct(slow.tok_error().unwrap())), "{said}");
        assert!(words(&cs).ends_with(&said));
        // no DEP rows, no sentence
        let tp: Vec<Compared> = cs.iter().filter(|c| c.row.dep == 1).copied().collect();
        assert_eq!(dep_words(&tp), "");
    }

    /// Every row runs queued as trtllm-bench ran it (the dataset's requests,
    /// 3,000 at 1000 / 1000 and 1024 / 1024, 1,500 at 8192 / 1024 and
    /// 1024 / 8192, 1,000 for the longest), and the sentence gives the
    /// queue's range, the change from the steady state on the rows without DEP
    /// as computed, and how many held rows the steady state would meet.
    #[test]
    fn every_row_runs_queued_and_the_sentence_says_what_that_changes() {
        let cs = compare();
        for c in &cs {
            let want = match (c.row.isl, c.row.osl) {
                (1000, 1000) | (1024, 1024) => 3000,
                (8192, 1024) | (1024, 8192) => 1500,
                _ => 1000,
            };
            assert_eq!(c.row.requests, Some(want), "{:?}", c.row);
            let q = c.queued.expect("queued");
            assert_eq!(c.tok_s(), Some(q.tok_s));
            assert_eq!(q.requests, want);
        }
        let said = queued_words(&cs);
        assert!(said.contains("requests (1,000 to 3,000)"), "{said}");
        let change: Vec<f64> = cs
            .iter()
            .filter(|c| c.row.dep == 1)
            .map(|c| (c.queued.unwrap().tok_s / c.model.unwrap().tok_s - 1.0) * 100.0)
            .collect();
        let lo = change.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = change.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(
            said.contains(&format!("{lo:+.0} % to {hi:+.0} % on the rows without DEP")),
            "{said}"
        );
        assert!(lo < 0.0 && hi > 0.0, "{lo} {hi}");
        let steady = cs
            .iter()
            .filter(|c| c.row.target)
            .filter(|c| (c.model.unwrap().tok_s / c.row.tok_s - 1.0).abs() <= 0.30)
            .count();
        assert!(
            said.contains(&format!("as a steady state {steady} of the 8 held rows")),
            "{said}"
        );
        assert!(words(&cs).contains(&said));
        assert_eq!(queued_words(&[]), "");
    }

    /// Every modelled row has the model's answer beside it, and every row the
    /// model misses by more than 30 % is named on the page with its error (the
    /// model is not fitted to any row: where it misses, it says so).
    #[test]
    fn every_row_is_answered_and_every_miss_is_said() {
        let cs = compare();
        let said = words(&cs);
        for c in &cs {
            assert!(c.model.is_some(), "{:?}", c.row);
            let name = format!(
                "{} {} / {} on {}",
                c.row.model_name(),
                c.row.isl,
                c.row.osl,
                c.row.hw
            );
            assert_eq!(said.contains(&name), !c.within_targets(), "{name}: {said}");
        }
    }

    /// Where a model ran both ways, the pairs are found by model, GPU and
    /// lengths, the gains are output per GPU (Qwen3-235B-A22B at 1000 / 1000
    /// on H200: DEP 4's 3288 tok/s a GPU over TP 8's 23789 / 8), and the
    /// sentence gives the published and the modelled range as computed.
    #[test]
    fn the_dep_rows_are_held_against_tp_where_both_ran() {
        let cs = compare();
        let dep: Vec<&Compared> = cs.iter().filter(|c| c.row.dep > 1).collect();
        let tw = twins(&dep);
        assert_eq!(tw.len(), 3);
        for t in &tw {
            let (d, p) = (t.dep.row, t.tp.row);
            assert_eq!((d.model, d.hw, d.isl, d.osl), (p.model, p.hw, p.isl, p.osl));
            assert!(d.dep > 1 && p.dep == 1 && p.tp == 8, "{d:?} {p:?}");
        }
        let q = tw
            .iter()
            .find(|t| t.dep.row.model == LlmModel::Qwen3_235b && t.dep.row.hw == "h200")
            .expect("the Qwen3 H200 pair");
        let (published, model) = q.gains().expect("answered");
        assert!(
            (published - 3288.0 / (23789.0 / 8.0)).abs() < 1e-9,
            "{published}"
        );
        let per_gpu = |c: &Compared| c.tok_s().unwrap() / f64::from(c.row.tp * c.row.dep);
        assert!((model - per_gpu(&q.dep) / per_gpu(&q.tp)).abs() < 1e-12);
        let said = twin_words(&dep);
        let lo = tw
            .iter()
            .map(|t| t.gains().unwrap().0)
            .fold(f64::INFINITY, f64::min);
        let hi = tw.iter().map(|t| t.gains().unwrap().0).fold(0.0, f64::max);
        assert!(
            said.contains(&format!("DEP gave {lo:.2}–{hi:.2}× TP's output per GPU")),
            "{said}"
        );
        assert!(dep_words(&cs).ends_with(&said));
        // the TP rows' page runs mixtures of experts with --ep and sets
        // enable_attention_dp; the words say so rather than call them TP alone
        let tp_page = include_str!("../../../tests/data/trtllm-moe-tp.json");
        assert!(tp_page.contains("--ep $ep_size") && tp_page.contains("enable_attention_dp: true"));
        assert!(
            said.contains("passes --ep") && said.contains("enable_attention_dp"),
            "{said}"
        );
        // no pairs, no sentence
        assert_eq!(twin_words(&[]), "");
    }
}
