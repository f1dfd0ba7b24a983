//! Speculative decoding on the decode step: a cheap drafter proposes `k`
//! tokens per sequence, the target checks all of them in one step of `k + 1`
//! tokens per sequence ([`super::step::verify_layout`]) and keeps the longest
//! accepted prefix plus one token of its own (the "bonus" token). Pure; the
//! `llm` and `serve` widgets show what [`spec_step`] and [`sweep`] return.
//!
//! **Acceptance.** `accept` is the rate at which the first draft position is
//! accepted. Each later position is accepted, *given* that all before it were,
//! at [`DECAY`] times the position before it: conditional rates
//! `cᵢ = accept · DECAY^(i−1)`. A chain keeps position `i` only if every
//! position before it was kept, so the cumulative (unconditional) rate is
//! `pᵢ = c₁·c₂·…·cᵢ`, and a step emits `τ = 1 + p₁ + … + p_k` tokens per
//! sequence (the bonus token included), the "accepted length" engines report.
//! vLLM's per-position acceptance is cumulative (`pᵢ`); convert by
//! `cᵢ = pᵢ / pᵢ₋₁`.
//!
//! **Cost of one speculative step**: the drafter's `k` steps, each a decode
//! step of the drafter's own model priced by the same step model (`eagle`: one
//! dense layer of the target's width with a 32 k-token draft vocabulary;
//! `draft`: a smaller model of the family, sharing the target's vocabulary;
//! `mtp`: one layer of the target's own shape, its experts included; `ngram`:
//! free, a lookup in the text), then the target's verify step. Tokens per
//! second with speculation ÷ without is `τ · t_step / (t_verify + t_draft)`.
//!
//! **What it leaves out**: trees of drafts (a published tree run is matched by
//! a chain of its accepted length), rejection sampling (under 2 % of a step),
//! EAGLE-3's fusion of three hidden layers (one more `3h × h` matmul a
//! cycle), the drafter's first pass running over the accepted tokens rather
//! than one (SGLang runs it and `k − 1` draft steps: as many passes as the
//! model prices), and an engine's work outside its graphed passes (SGLang's
//! tree building, sampling, waits for the GPU, and its scheduler, whose overlap
//! it turns off for EAGLE: [`measured`]).

pub mod measured;

use super::step::{self, KvRead};
use super::{spread, KvDtype, LlmConfig, LlmRun, Parallel, Phase};
use crate::model::limit::{pace_words, Limit};
use crate::model::setting::Setting;
use crate::model::units;

/// Conditional acceptance of each draft position after the first, as a
/// fraction of the one before it: SpecDecode-Bench's MTP head on GLM-4.5-Air
/// (GPQA-Main, vLLM v0.10.1) accepted positions 1–3 at 0.92, 0.68 and 0.38
/// cumulative (https://github.com/SpecDecode-Bench/specdecode-bench.github.io,
/// index.md @ 514270c), conditional 0.92, 0.739, 0.559: ratios 0.80 and 0.76.
pub const DECAY: f64 = 0.8;

/// The drafter (URL `llm_spec`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecKind {
    Off,
    Eagle,
    Draft,
    Mtp,
    Ngram,
}

impl SpecKind {
    pub const ALL: [SpecKind; 5] = [
        SpecKind::Off,
        SpecKind::Eagle,
        SpecKind::Draft,
        SpecKind::Mtp,
        SpecKind::Ngram,
    ];
    pub const IDS: [&'static str; 5] = ["off", "eagle", "draft", "mtp", "ngram"];
    pub fn id(self) -> &'static str {
        Self::IDS[self as usize]
    }
}

/// A draft model's shape (URL `llm_spec_draft`), with the target's vocabulary
/// (a draft shares its family's tokenizer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DraftModel {
    Llama32_1b,
    Llama32_3b,
    Llama3_8b,
}

impl DraftModel {
    pub const ALL: [DraftModel; 3] = [
        DraftModel::Llama32_1b,
        DraftModel::Llama32_3b,
        DraftModel::Llama3_8b,
    ];
    pub const IDS: [&'static str; 3] = ["llama3.2-1b", "llama3.2-3b", "llama3-8b"];
    pub fn id(self) -> &'static str {
        Self::IDS[self as usize]
    }
    /// The published shape (vocabulary set by the target).
    pub fn config(self, vocab: u32) -> LlmConfig {
        let c = |layers, hidden, heads, ffn| LlmConfig {
            layers,
            hidden,
            heads,
            kv_heads: 8,
            ffn,
            vocab,
            experts: 1,
            top_k: 1,
            arch: crate::model::llm::moe::Arch::PLAIN,
        };
        match self {
            // https://huggingface.co/meta-llama/Llama-3.2-1B config.json: 16 layers,
            // hidden 2048, 32 heads, 8 KV heads, intermediate 8192
            DraftModel::Llama32_1b => c(16, 2048, 32, 8192),
            // https://huggingface.co/meta-llama/Llama-3.2-3B config.json: 28 layers, hidden 3072,
            // 24 heads, 8 KV heads, intermediate 8192
            DraftModel::Llama32_3b => c(28, 3072, 24, 8192),
            DraftModel::Llama3_8b => c(32, 4096, 32, 14336),
        }
    }
}

/// EAGLE-3's draft vocabulary: its heads predict over the 32,000 most frequent
/// tokens (an EAGLE-3 head's card lists "Vocab Size 154,880 (draft: 32,000)",
/// https://huggingface.co/thoughtworks/GLM-4.7-Flash-Eagle3).
pub const EAGLE_VOCAB: u32 = 32_000;

/// What the speculation controls choose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpecRun {
    pub kind: SpecKind,
    /// Draft tokens per step, 1…8.
    pub k: u32,
    /// Acceptance of the first draft position, 0…0.99.
    pub accept: f64,
    pub draft: DraftModel,
}

impl SpecRun {
    pub const OFF: SpecRun = SpecRun {
        kind: SpecKind::Off,
        k: 3,
        accept: 0.7,
        draft: DraftModel::Llama32_1b,
    };
}

/// The cumulative acceptance of positions 1…k (`pᵢ`, see the module's docs).
pub fn cumulative(accept: f64, k: u32) -> Vec<f64> {
    let a = accept.clamp(0.0, 0.99);
    let mut p = 1.0;
    let mut c = a;
    (0..k)
        .map(|_| {
            p *= c;
            c *= DECAY;
            p
        })
        .collect()
}

/// Tokens a step emits per sequence: `1 + Σ pᵢ`.
pub fn tokens_per_step(accept: f64, k: u32) -> f64 {
    1.0 + cumulative(accept, k).iter().sum::<f64>()
}

/// The first position's acceptance whose chain of `k` emits `tau` tokens a
/// step (a published run's accepted length); `None` beyond what 0.99 gives.
pub fn accept_for_length(tau: f64, k: u32) -> Option<f64> {
    if !(1.0..=tokens_per_step(0.99, k)).contains(&tau) {
        return None;
    }
    let (mut lo, mut hi) = (0.0, 0.99);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if tokens_per_step(mid, k) < tau {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The drafter's own model for target `c`, `None` where drafts are free.
pub fn drafter(s: &SpecRun, c: &LlmConfig) -> Option<LlmConfig> {
    match s.kind {
        SpecKind::Off | SpecKind::Ngram => None,
        SpecKind::Eagle => Some(LlmConfig {
            layers: 1,
            experts: 1,
            top_k: 1,
            arch: crate::model::llm::moe::Arch::PLAIN,
            vocab: c.vocab.min(EAGLE_VOCAB),
            ..*c
        }),
        SpecKind::Mtp => Some(LlmConfig { layers: 1, ..*c }),
        SpecKind::Draft => Some(s.draft.config(c.vocab)),
    }
}

/// The drafter's run beside target run `r`: the same batch, context, dtypes
/// and launch mode, on the target's tensor-parallel GPUs where its heads
/// split over them (else fewer), one pipeline stage.
pub fn draft_run(r: &LlmRun, dc: &LlmConfig) -> LlmRun {
    let par = spread(dc, Parallel { pp: 1, ..r.par }).0;
    LlmRun {
        config: *dc,
        phase: Phase::Decode,
        par,
        ..*r
    }
}

/// One speculative step against the plain decode step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpecStep {
    pub k: u32,
    /// Tokens emitted per sequence per step (`llm_spec_tokens_per_step`).
    pub tokens_per_step: f64,
    /// The plain step, the verify step and the drafter's `k` steps, seconds.
    pub base_s: f64,
    pub verify_s: f64,
    pub draft_s: f64,
    /// Tokens per second with speculation ÷ without (`llm_spec_speedup`).
    pub speedup: f64,
    /// Bytes per GPU the speculation adds: the drafter's weights and KV cache
    /// and the target's cache slots for the drafts.
    pub extra_bytes: f64,
}

/// The speculative step of `r` (decode) under `s`, against the plain step's
/// wall `base_s`; `None` when speculation is off or `r` prefills.
pub fn spec_step(r: &LlmRun, s: &SpecRun, setting: &Setting, base_s: f64) -> Option<SpecStep> {
    if s.kind == SpecKind::Off || r.phase != Phase::Decode {
        return None;
    }
    let k = s.k.clamp(1, 8);
    Some(at_length(
        r,
        s,
        setting,
        base_s,
        tokens_per_step(s.accept, k),
    ))
}

/// [`spec_step`] for a chain that emits `tau` tokens a step, whatever
/// acceptances give it (a published run's accepted length), against the
/// plain step's wall `base_s`.
pub fn at_length(r: &LlmRun, s: &SpecRun, setting: &Setting, base_s: f64, tau: f64) -> SpecStep {
    at_width(r, s, setting, base_s, tau, s.k.clamp(1, 8) + 1)
}

/// [`at_length`] with a verify step `q` tokens wide per sequence (a tree of
/// `q − 1` drafts, drafted in `s.k` steps).
pub fn at_width(
    r: &LlmRun,
    s: &SpecRun,
    setting: &Setting,
    base_s: f64,
    tau: f64,
    q: u32,
) -> SpecStep {
    let k = s.k.clamp(1, 8);
    let verify_s = step::verify_wall(r, setting, q.max(1));
    let dc = drafter(s, &r.config);
    let draft_s = dc.map_or(0.0, |dc| {
        f64::from(k) * step::wall(&draft_run(r, &dc), setting, KvRead::AsWritten)
    });
    let speedup = crate::model::limit::ratio(tau * base_s, verify_s + draft_s);
    SpecStep {
        k,
        tokens_per_step: tau,
        base_s,
        verify_s,
        draft_s,
        speedup,
        extra_bytes: extra_bytes(r, s, dc.as_ref(), k),
    }
}

/// Bytes per GPU speculation adds: the drafter's weights (EAGLE shares the
/// target's embedding, MTP its embedding and LM head) and its KV cache for
/// the batch's context, and the target's cache slots for `k` drafts.
fn extra_bytes(r: &LlmRun, s: &SpecRun, dc: Option<&LlmConfig>, k: u32) -> f64 {
    let tp = f64::from(r.par.tp.max(1));
    let b = f64::from(r.batch.max(1));
    let kvb = |c: &LlmConfig, kv: KvDtype| c.kv_bytes_per_token(kv);
    let slots = kvb(&r.config, r.kvdtype) * b * f64::from(k);
    let draft = dc.map_or(0.0, |dc| {
        let shared = match s.kind {
            SpecKind::Eagle => dc.embedding_params(),
            SpecKind::Mtp => 2.0 * dc.embedding_params(),
            _ => 0.0,
        };
        (dc.total_params() - shared) * r.wdtype.bytes()
            + kvb(dc, r.kvdtype) * b * f64::from(r.context.max(1))
    });
    (draft + slots) / tp
}

/// One point of the speedup-against-batch line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpecPoint {
    pub batch: u32,
    pub speedup: f64,
}

/// The batches the line is drawn at: 1, 2, 4 … 4096.
pub fn batches() -> impl Iterator<Item = u32> {
    (0..=12).map(|i| 1u32 << i)
}

/// The speedup of `s` at each of [`batches`] for `r`'s other settings, up to
/// the largest batch that fits in memory (`fits`; `None`: memory unknown,
/// all of them; at least batch 1).
pub fn sweep(r: &LlmRun, s: &SpecRun, setting: &Setting, fits: Option<u32>) -> Vec<SpecPoint> {
    let top = fits.map_or(u32::MAX, |m| m.max(1));
    batches()
        .filter(|&b| b <= top)
        .filter_map(|batch| {
            let rb = LlmRun { batch, ..*r };
            let base = step::wall(&rb, setting, KvRead::AsWritten);
            spec_step(&rb, s, setting, base).map(|st| SpecPoint {
                batch,
                speedup: st.speedup,
            })
        })
        .collect()
}

/// The first batch of `points` whose speedup is below 1×.
pub fn crossing(points: &[SpecPoint]) -> Option<u32> {
    points.iter().find(|p| p.speedup < 1.0).map(|p| p.batch)
}

/// What the widget says of speculation at `r` (its step `st`) and along the
/// batch line `points`: the tokens a step emits and the speedup, whether it
/// helps by the page's rule, and where and why it falls below 1×, the verify
/// step's limit by the page's regime rule.
pub fn sentence(
    r: &LlmRun,
    s: &SpecRun,
    setting: &Setting,
    st: &SpecStep,
    points: &[SpecPoint],
) -> String {
    let verdict = if crate::model::verdict::helps(st.speedup) {
        "helps by the page's rule (at least 1.05×)"
    } else {
        "does not help by the page's rule (under 1.05×)"
    };
    let ratio = |t: f64| format!("{:.2}", t / st.base_s.max(f64::MIN_POSITIVE));
    let tau = format!("{:.2}", st.tokens_per_step);
    let mut out = format!(
        "With {} a step, the first accepted {} of the time and each later one {} less often than the one before it (given those before it were), a step emits {} tokens per sequence: {}× the tokens per second at batch {}; speculation {verdict}. The verify step ({} tokens per sequence) takes {}× a plain step and the drafter's steps {}×.",
        units::count(st.k, "draft token", "draft tokens"),
        units::percent(s.accept),
        units::percent(1.0 - DECAY),
        tau,
        units::sig3(st.speedup),
        r.batch,
        st.k + 1,
        ratio(st.verify_s),
        ratio(st.draft_s),
    );
    out.push(' ');
    out.push_str(&crossing_sentence(r, s, setting, points));
    out
}

/// Where the speedup falls below 1× along `points`, and why: the verify step
/// there, limited as [`Limit::decide`] says.
fn crossing_sentence(r: &LlmRun, s: &SpecRun, setting: &Setting, points: &[SpecPoint]) -> String {
    let Some(at) = crossing(points) else {
        return format!(
            "It stays above 1× up to batch {}, the largest on the line that fits in memory: where the KV cache's reads dominate the step, the verify step reads them once for every token it checks.",
            points.last().map_or(r.batch, |p| p.batch)
        );
    };
    let rb = LlmRun { batch: at, ..*r };
    let (_, l): (f64, Limit) = step::verify_limit(&rb, setting, s.k.clamp(1, 8) + 1);
    let below = points
        .iter()
        .find(|p| p.batch == at)
        .map_or(1.0, |p| p.speedup);
    let start = if at == 1 {
        "It is below 1× from batch 1".to_string()
    } else {
        format!("It falls below 1× at batch {at}")
    };
    format!(
        "{start} ({}×): there, in the verify step, {}, so its {} tokens per sequence cost more than the accepted ones pay for.",
        units::sig3(below),
        pace_words(l.regime),
        s.k.clamp(1, 8) + 1
    )
}

/// What the `llm` widget shows of speculation: the step (its readouts),
/// and where drawn the speedup against batch, its crossing below 1× and the
/// sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecView {
    pub step: SpecStep,
    pub points: Vec<SpecPoint>,
    pub crossing: Option<u32>,
    pub sentence: String,
    /// The published runs with the model's answers, and what they say.
    pub checks: Vec<measured::SpecRow>,
    pub checks_note: String,
}

/// [`SpecView`] for `r` (its plain step's wall `base_s`) under `s`; the line
/// and the sentence only where `drawn`.
pub fn view(
    r: &LlmRun,
    s: &SpecRun,
    setting: &Setting,
    base_s: f64,
    fits: Option<u32>,
    drawn: bool,
) -> Option<SpecView> {
    let st = spec_step(r, s, setting, base_s)?;
    if !drawn {
        return Some(SpecView {
            step: st,
            points: Vec::new(),
            crossing: None,
            sentence: String::new(),
            checks: Vec::new(),
            checks_note: String::new(),
        });
    }
    let points = sweep(r, s, setting, fits);
    Some(SpecView {
        sentence: sentence(r, s, setting, &st, &points),
        crossing: crossing(&points),
        step: st,
        points,
        checks: measured::remembered(),
        checks_note: measured::note(&measured::remembered()),
    })
}

#[cfg(test)]
mod tests;
