//! Speculative decoding against published runs (tests/data/spec-decode.json,
//! its sources in tests/data/README.md): checks, not fits. Each row runs the
//! model at the run's GPU, model, batch, drafter and accepted length (a tree
//! matched by a chain of its mean accepted length) and sets its speedup
//! beside the published one; a row whose accepted length was not published
//! says what the model would need instead.

use super::{at_width, DraftModel, SpecKind, SpecRun};
use crate::model::hardware;
use crate::model::llm::step::{self, KvRead};
use crate::model::llm::{KvDtype, LlmConfig, LlmModel, LlmRun, Parallel, Phase, WeightDtype};
use crate::model::setting::Setting;

/// https://huggingface.co/Qwen/Qwen3-8B config.json: 36 layers, hidden 4096, 32
/// heads, 8 KV heads, intermediate 12288, vocab 151936, untied.
pub const QWEN3_8B: LlmConfig = LlmConfig {
    layers: 36,
    hidden: 4096,
    heads: 32,
    kv_heads: 8,
    ffn: 12288,
    vocab: 151_936,
    experts: 1,
    top_k: 1,
    arch: crate::model::llm::moe::Arch::PLAIN,
};

/// What a row checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// The model's speedup within `tol` (a fraction) of the published one.
    Within(f64),
    /// Only the direction: the model's speedup at this row is below this,
    /// the model's for the same drafter and acceptance at batch 1.
    Below(f64),
    /// No accepted length was published: nothing to check.
    None,
}

/// One published run and the model's answer for it.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecRow {
    pub id: &'static str,
    pub what: &'static str,
    /// A few words naming the run in a sentence.
    pub short: &'static str,
    pub published: f64,
    pub model: f64,
    /// The published accepted length (`None`: not published; `needed` is
    /// then the one the model needs for the published speedup) and the one
    /// the model ran at.
    pub tau: Option<f64>,
    pub ran_at: f64,
    pub needed: f64,
    pub check: Check,
    pub source: &'static str,
}

impl SpecRow {
    /// The model's error against the published speedup, as a fraction.
    pub fn error(&self) -> f64 {
        self.model / self.published - 1.0
    }
    /// Whether the row holds (a direction row is judged with its pair).
    pub fn holds(&self) -> bool {
        match self.check {
            Check::Within(t) => self.error().abs() <= t,
            Check::Below(b1) => self.model < b1,
            Check::None => true,
        }
    }
}

const SGLANG_DOCS: &str = "https://docs.sglang.io/advanced_features/speculative_decoding.html";
const SPECDECODE_BENCH: &str =
    "https://github.com/SpecDecode-Bench/specdecode-bench.github.io (index.md @ 514270c)";

/// The H100 SXM with achievable roofs, as the other published runs.
pub fn h100() -> Setting {
    match hardware::preset("h100-sxm") {
        Some(p) => crate::model::llm::measured::setting_on(p),
        None => crate::model::llm::measured::setting(),
    }
}

fn run(config: LlmConfig, batch: u32, context: u32, tp: u32) -> LlmRun {
    let par = Parallel {
        tp,
        ..Parallel::ONE
    };
    LlmRun {
        config,
        phase: Phase::Decode,
        batch,
        context,
        wdtype: WeightDtype::Bf16,
        kvdtype: KvDtype::Bf16,
        graphs: true,
        flash: true,
        par: crate::model::llm::spread(&config, par).0,
    }
}

/// The model's speedup for `r` with EAGLE drafting `k` steps, verified `q`
/// tokens wide, at accepted length `tau`, and the length it needs for
/// `published`.
fn eagle(r: &LlmRun, k: u32, q: u32, tau: f64, published: f64) -> (f64, f64) {
    let set = h100();
    let s = SpecRun {
        kind: SpecKind::Eagle,
        k,
        accept: 0.7,
        draft: DraftModel::Llama32_1b,
    };
    let base = step::wall(r, &set, KvRead::AsWritten);
    let st = at_width(r, &s, &set, base, tau, q);
    // the speedup is τ · base / cost: the τ that gives `published`
    (st.speedup, published * (st.verify_s + st.draft_s) / base)
}

/// SpecDecode-Bench's direction rows (acceptance not stated) run at this
/// accepted length, a k = 3 chain's at the default acceptance 0.7.
fn trend_tau() -> f64 {
    super::tokens_per_step(0.7, 3)
}

/// Every row, in the table's order.
pub fn rows() -> Vec<SpecRow> {
    let llama8 = LlmModel::Llama3_8b.config_or_toy();
    let llama70 = LlmModel::Llama3_70b.config_or_toy();
    let mut out = Vec::new();
    // SGLang's EAGLE-3 figure: its draft tree and accepted length are not
    // given with it; the chain runs at the docs' default depth (5 steps)
    let sg = 373.25 / 158.34;
    let r = run(llama8, 1, 1024, 1);
    let (m, need) = eagle(&r, 5, 6, super::tokens_per_step(0.7, 5), sg);
    out.push(SpecRow {
        id: "sglang-eagle3-llama31-8b",
        short: "SGLang's EAGLE-3 figure",
        ran_at: super::tokens_per_step(0.7, 5),
        what: "SGLang EAGLE-3, Llama-3.1-8B-Instruct, 1× H100, MT-bench, batch 1 (158.34 → 373.25 tok/s); chain of 5",
        published: sg,
        model: m,
        tau: None,
        needed: need,
        check: Check::None,
        source: SGLANG_DOCS,
    });
    for (id, short, what, q, tau, published) in [
        (
            "sdb-sglang-chain-qwen3-8b",
            "the chain",
            "SGLang EAGLE chain k = 3, Qwen3-8B, 1× H100, GSM8K, batch 1, accepted length 2.25",
            4,
            2.25,
            1.65,
        ),
        (
            "sdb-sglang-tree-qwen3-8b",
            "the tree",
            "SGLang EAGLE tree of 21 drafts (depth 3) as a chain of its accepted length 2.92, verified 22 tokens wide, Qwen3-8B, 1× H100, GSM8K, batch 1",
            22,
            2.92,
            1.85,
        ),
    ] {
        let (m, need) = eagle(&run(QWEN3_8B, 1, 512, 1), 3, q, tau, published);
        out.push(SpecRow {
            id,
            short,
            what,
            published,
            model: m,
            tau: Some(tau),
            ran_at: tau,
            needed: need,
            check: Check::Within(0.25),
            source: SPECDECODE_BENCH,
        });
    }
    let t = trend_tau();
    // the same drafter and acceptance on Llama-3.1-8B at batch 1: the
    // trend's other end
    let (b1, _) = eagle(&run(llama8, 1, 1024, 1), 3, 4, t, 1.0);
    for (id, what, r, published, check) in [
        (
            "sdb-eagle-llama3-70b-b1",
            "vLLM EAGLE k = 3, Llama-3-70B, 4× H100 (TP4), batch 1 (\"up to\"; acceptance not stated)",
            run(llama70, 1, 1024, 4),
            1.96,
            Check::None,
        ),
        (
            "sdb-eagle-llama31-8b-b128",
            "vLLM EAGLE k = 3, Llama-3.1-8B, 1× H100, GSM8K, batch 128 (acceptance not stated): below batch 1",
            run(llama8, 128, 1024, 1),
            1.21,
            Check::Below(b1),
        ),
    ] {
        let (m, need) = eagle(&r, 3, 4, t, published);
        out.push(SpecRow {
            id,
            short: "SpecDecode-Bench's trend",
            what,
            published,
            model: m,
            tau: None,
            ran_at: t,
            needed: need,
            check,
            source: SPECDECODE_BENCH,
        });
    }
    out
}

thread_local! {
    static ROWS: std::cell::OnceCell<Vec<SpecRow>> = const { std::cell::OnceCell::new() };
}

/// [`rows`], run once (they read no state).
pub fn remembered() -> Vec<SpecRow> {
    ROWS.with(|c| c.get_or_init(rows).clone())
}

/// What the rows say, from their numbers: how many checks hold, the worst
/// error, and for the figure without an accepted length what the model
/// would need.
pub fn note(rows: &[SpecRow]) -> String {
    let within: Vec<&SpecRow> = rows
        .iter()
        .filter(|r| matches!(r.check, Check::Within(_)))
        .collect();
    let held = rows
        .iter()
        .filter(|r| r.check != Check::None && r.holds())
        .count();
    let checked = rows.iter().filter(|r| r.check != Check::None).count();
    let worst =
        within
            .iter()
            .map(|r| r.error())
            .fold(0.0f64, |a, e| if e.abs() > a.abs() { e } else { a });
    let mut out = format!(
        "{held} of {checked} checks hold; the largest error where the accepted length is published is {:+.0} %.",
        100.0 * worst
    );
    let adds: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            // what speculation adds to a step, τ ÷ speedup − 1: the model's
            // against the run's
            r.tau.map(|tau| {
                format!(
                    "{} {} (the run: {})",
                    r.short,
                    crate::model::units::percent(tau / r.model - 1.0),
                    crate::model::units::percent(tau / r.published - 1.0),
                )
            })
        })
        .collect();
    if !adds.is_empty() {
        out.push_str(&format!(
            " The model's drafter and verify step add to a plain step: {}.",
            adds.join("; ")
        ));
    }
    // SGLang's EAGLE loop (sgl-project/sglang @ 3dfff6ae3c33, 2025-12-30):
    // eagle_worker.py runs draft (s − 1 draft forwards after the pass over the
    // accepted tokens, which gives the first draft), verify and the draft
    // extend, all three in CUDA graphs; the tree's construction
    // (build_tree_kernel_efficient), the verification's sampling kernels, the
    // `.tolist()`/`.cpu()`/`.item()` waits and the Python loop over the accepted
    // tokens (eagle_info.py) run eagerly; server_args.py turns the overlap
    // scheduler off for EAGLE unless SGLANG_ENABLE_SPEC_V2 (topk 1 only) is set
    out.push_str(" The model prices the drafter's steps and the verify step on the roofline. It leaves out what SGLang's EAGLE loop does outside its graphed passes: the draft tree's construction, the verification's sampling, its waits for the GPU and its loop over the accepted tokens in Python; and SGLang turns its overlap scheduler off for EAGLE, so the scheduler's own time between steps, hidden behind a plain decode step, adds to every speculative one. So it is optimistic, most for a tree.");
    if let Some(sg) = rows.iter().find(|r| r.id == "sglang-eagle3-llama31-8b") {
        out.push_str(&format!(
            " SGLang's EAGLE-3 figure ({}×) comes without its accepted length: the model reaches it at {} tokens a step from a chain of 5; the model gives {}× at the default acceptance.",
            crate::model::units::sig3(sg.published),
            crate::model::units::sig3(sg.needed),
            crate::model::units::sig3(sg.model),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_runs_hold() {
        let rows = rows();
        for r in &rows {
            eprintln!(
                "{}: published {:.3} model {:.3} need tau {:.2} err {:+.1} %",
                r.id,
                r.published,
                r.model,
                r.needed,
                100.0 * r.error()
            );
        }
        // the chains with a published accepted length and the trend hold;
        // the tree, run as a chain of its length, misses high (the model
        // leaves out the tree's costs; the page says so)
        for r in &rows {
            if r.id == "sdb-sglang-tree-qwen3-8b" {
                assert!(!r.holds() && r.model > r.published, "{r:?}");
            } else {
                assert!(r.holds(), "{r:?}");
            }
        }
        assert_eq!(
            rows.iter()
                .filter(|r| matches!(r.check, Check::Within(_)))
                .count(),
            2
        );
    }
}
