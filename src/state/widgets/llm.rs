//! Widget `llm`: a decoder-only LLM's decode step or prefill
//! (`model::llm`). Its keys (`llm_*`; the custom shape's apply with
//! `llm_model=custom`), more than one GPU (`llm_tp`, `llm_pp` and the
//! link, [`super::common`]), and its one model call, [`view`].

use super::common::{self, Degree, LinkChoice, Row};
use crate::model::llm::spec::{DraftModel, SpecKind, SpecRun};
use crate::model::llm::{self, step, view::LlmView, KvDtype, LlmModel, Phase, WeightDtype};
use crate::model::mygpu;
use crate::model::setting::Setting;
use crate::state::data::State;
use crate::state::params::{model_choice, params};
use crate::state::spec::{inputs, NativeOnly, Reads, Spec};

model_choice!(LlmModel {
    Llama3_8b = "Llama-3-8B",
    Llama3_70b = "Llama-3-70B",
    Mistral7b = "Mistral-7B",
    Mixtral8x7b = "Mixtral-8x7B (MoE, 2 of 8 experts)",
    DeepseekV3 = "DeepSeek-V3 (MoE, 671B total, 37B active)",
    Qwen3_235b = "Qwen3-235B-A22B (MoE, 235B total, 22B active)",
    Qwen3_30b = "Qwen3-30B-A3B (MoE, 30B total, 3B active)",
    GptOss120b = "GPT-OSS-120B (MoE, 117B total, 5.1B active)",
    GptOss20b = "GPT-OSS-20B (MoE, 21B total, 3.6B active)",
    Llama4Maverick = "Llama-4-Maverick (MoE, 400B total, 17B active)",
    Custom = "custom shape",
});
model_choice!(Phase {
    Decode = "decode (one new token per sequence)",
    Prefill = "prefill (the whole prompt)",
});
model_choice!(WeightDtype {
    Bf16 = "bf16",
    Fp8 = "fp8",
    Int8 = "int8 (weight-only)",
    Int4 = "int4 (weight-only)",
} needs WeightDtype::needs);
model_choice!(SpecKind {
    Off = "off",
    Eagle = "EAGLE (a one-layer draft head)",
    Draft = "a smaller draft model",
    Mtp = "MTP (the model's own next-token layer)",
    Ngram = "n-gram (drafts from the text, free)",
});
model_choice!(DraftModel {
    Llama32_1b = "Llama-3.2-1B shape",
    Llama32_3b = "Llama-3.2-3B shape",
    Llama3_8b = "Llama-3-8B shape",
});
model_choice!(KvDtype {
    Bf16 = "bf16",
    Fp8 = "fp8",
} needs KvDtype::needs);

use llm::limits as l;
params! {
    in llm;
    model: Choice<LlmModel> = LlmModel::Llama3_8b, "llm_model", "Model";
    phase: Choice<Phase> = Phase::Decode, "llm_phase", "Phase";
    batch: Int[l::BATCH.0, l::BATCH.1] = 1, "llm_batch", "Batch (sequences)";
    /// Tokens in the KV cache (decode), or the prompt's length (prefill).
    context: Int[l::CONTEXT.0, l::CONTEXT.1] = 4096, "llm_context", "Context (tokens)";
    /// `int8` and `int4` are weight-only, dequantised to bf16 in the kernel, int4
    /// in groups of 64; `fp8` only on a preset with fp8 (else a notice, "<GPU> has
    /// no fp8 mode", and the value before it kept; choosing such a GPU falls back
    /// to `bf16`).
    wdtype: Choice<WeightDtype> = WeightDtype::Bf16, "llm_wdtype", "Weights";
    /// `fp8` only on a preset with fp8, as `llm_wdtype`.
    kvdtype: Choice<KvDtype> = KvDtype::Bf16, "llm_kvdtype", "KV cache";
    /// `1`: a compiled step, `torch.compile(mode="reduce-overhead")`: fused
    /// kernels replayed as one CUDA graph; `0`: eager, every op dispatched.
    graphs: Flag = false, "llm_graphs", common::label::GRAPHS;
    flash: Flag = true, "llm_flash", common::label::FLASH;
    // the custom shape (with `llm_model=custom`)
    /// The custom model's shape (with `llm_model=custom`), as the keys after it.
    layers: Int[l::LAYERS.0, l::LAYERS.1] = 32, "llm_layers", "Layers";
    hidden: Int[l::HIDDEN.0, l::HIDDEN.1] = 4096, "llm_hidden", "Hidden size";
    heads: Int[l::HEADS.0, l::HEADS.1] = 32, "llm_heads", "Attention heads";
    /// KV heads above the heads count as the heads.
    kv_heads: Int[l::HEADS.0, l::HEADS.1] = 8, "llm_kv_heads", "KV heads";
    ffn: Int[l::FFN.0, l::FFN.1] = 14336, "llm_ffn", "FFN width";
    vocab: Int[l::VOCAB.0, l::VOCAB.1] = 128256, "llm_vocab", "Vocabulary";
    /// The custom model's experts (with `llm_model=custom`): 1 is a dense
    /// model; more, every layer's FFN is that many experts and a router.
    experts: Int[l::EXPERTS.0, l::EXPERTS.1] = 1, "llm_experts", "Experts";
    /// Experts each token is routed to; above `llm_experts` it counts as all.
    active_experts: Int[l::EXPERTS.0, l::EXPERTS.1] = 1, "llm_active_experts", "Active experts per token";
    /// Each expert's FFN width; 0: `llm_ffn`'s.
    expert_ffn: Int[0, l::FFN.1] = 0, "llm_expert_ffn", "Expert FFN width";
    /// Shared experts every token runs besides its routed ones (each
    /// `llm_expert_ffn` wide), with more than one expert.
    shared_experts: Int[l::SHARED.0, l::SHARED.1] = 0, "llm_shared_experts", "Shared experts";
    // more than one GPU (`model::parallel`)
    /// A degree that does not divide the heads and KV heads falls to the largest
    /// that does, with a message.
    tp: Choice<Degree> = Degree::One, "llm_tp", "Tensor parallel (GPUs per stage)";
    /// A degree above the layers falls to the largest that fits, with a message.
    pp: Choice<Degree> = Degree::One, "llm_pp", "Pipeline stages";
    /// TensorRT-LLM's "DEP n": n GPUs each hold the whole attention and their
    /// own sequences (batch/n each), the routed experts spread over all n, an
    /// all-to-all each way per MoE layer. A mixture of experts only (a dense
    /// model runs DEP 1, with a message); above 1 it needs `llm_tp=1` (else
    /// refused with a message, the last good value kept), and `llm_tp` above 1
    /// needs `llm_dep=1`.
    dep: Choice<Degree> = Degree::One, "llm_dep", "DEP (attention data parallel, experts spread)";
    /// `preset`: the GPU's own link, PCIe 4.0 for one with none.
    link: Choice<LinkChoice> = LinkChoice::Preset, "llm_link", common::label::LINK;
    /// Typed in, it replaces the chosen link's figure; choosing another link, or
    /// a GPU whose own link differs while `llm_link=preset`, starts again from the
    /// new link's own; typing the link's own figure back drops the key. Zero,
    /// negative and non-numbers are refused with a message, the last good value kept.
    link_bw: Milli[common::BW_MILLI.0, common::BW_MILLI.1] = 0, "llm_link_bw", common::label::LINK_BW;
    /// Typed in, as `llm_link_bw`; NCCL's base latency of a call stays its own.
    link_lat: Milli[common::LAT_MILLI.0, common::LAT_MILLI.1] = 0, "llm_link_lat", common::label::LINK_LAT;
    /// Collectives run beside the kernels after them (the ideal of overlap).
    overlap: Flag = false, "llm_overlap", "Overlap communication with compute";
    // speculative decoding (`model::llm::spec`), decode only
    /// `eagle`: a one-layer draft head of the model's width on its features (a
    /// 32,000-token draft vocabulary); `draft`: a smaller model of the family
    /// (`llm_spec_draft`); `mtp`: one layer of the model's own shape; `ngram`:
    /// drafts looked up in the text, free. The drafts form a chain.
    spec: Choice<SpecKind> = SpecKind::Off, "llm_spec", "Speculative decoding";
    /// Draft tokens proposed per step, verified in one step of `k + 1` tokens
    /// per sequence.
    spec_k: Int[1, 8] = 3, "llm_spec_k", "Draft tokens per step";
    /// Percent (0–99, i.e. 0–0.99) of first draft tokens accepted; each later
    /// position is accepted, given the ones before it were, at 0.8× the rate
    /// of the one before (conditional rates; the cumulative ones are their
    /// products).
    spec_accept: Int[0, 99] = 70, "llm_spec_accept", "First draft accepted (%)";
    /// The draft model's shape with `llm_spec=draft` (the target's vocabulary).
    spec_draft: Choice<DraftModel> = DraftModel::Llama32_1b, "llm_spec_draft", "Draft model";
}

common::link_fields!(llm);

/// The run as the controls ask for it: the model (the custom shape from its
/// keys, KV heads at most the heads), the controls and the spread, before
/// [`llm::spread`] checks the spread against the model.
pub(super) fn asked(s: &State) -> llm::LlmRun {
    let w = &s.widgets.llm;
    let config = w.model.config().map(|c| c.0).unwrap_or(llm::LlmConfig {
        layers: w.layers,
        hidden: w.hidden,
        heads: w.heads,
        kv_heads: w.kv_heads.min(w.heads),
        ffn: w.ffn,
        vocab: w.vocab,
        experts: w.experts,
        top_k: w.active_experts.min(w.experts),
        arch: llm::moe::Arch {
            expert_ffn: w.expert_ffn,
            shared: if w.experts > 1 { w.shared_experts } else { 0 },
            ..llm::moe::Arch::PLAIN
        },
    });
    llm::LlmRun {
        config,
        phase: w.phase,
        batch: w.batch,
        context: w.context,
        wdtype: w.wdtype,
        kvdtype: w.kvdtype,
        graphs: w.graphs,
        flash: w.flash,
        par: parallel(s),
    }
}

/// The widget's run: [`asked`] with the spread the model can split.
pub fn run(s: &State) -> llm::LlmRun {
    let r = asked(s);
    llm::LlmRun {
        par: llm::spread(&r.config, r.par).0,
        ..r
    }
}

/// The spread the controls ask for, before [`llm::spread`] checks it against
/// the model.
pub fn parallel(s: &State) -> llm::Parallel {
    let w = &s.widgets.llm;
    llm::Parallel {
        tp: w.tp.n(),
        pp: w.pp.n(),
        dep: w.dep.n(),
        link: LINK.link(s),
        overlap: w.overlap,
        rank_tokens: 0,
    }
}

/// The speculation the controls choose.
pub fn spec(s: &State) -> SpecRun {
    let w = &s.widgets.llm;
    SpecRun {
        kind: w.spec,
        k: w.spec_k,
        accept: f64::from(w.spec_accept) / 100.0,
        draft: w.spec_draft,
    }
}

/// THE WIDGET'S ONE MODEL CALL: everything it shows ([`llm::view::widget`]);
/// what is only drawn where `drawn`.
pub fn view(s: &State, drawn: bool) -> LlmView {
    llm::view::widget(&asked(s), &spec(s), &s.beyond(), &s.hw_name(), drawn)
}

/// The headline (tokens per second) at the low and the high end of a
/// measured GPU's spread ([`State::beyond_ends`]: two plain steps), in words;
/// `None` on a datasheet preset.
pub fn range(s: &State) -> Option<String> {
    let [lo, hi] = rates(s)?;
    Some(format!(
        "Across the measured spread: {}.",
        mygpu::range(lo, hi, "tok/s")
    ))
}

/// [`range`]'s two numbers: tokens per second at the low and the high end.
pub fn rates(s: &State) -> Option<[f64; 2]> {
    let r = run(s);
    Some(
        s.beyond_ends()?
            .map(|t| step::plain(&r, &t, step::KvRead::AsWritten).tokens_per_s),
    )
}

/// One row of "Compare GPUs": this state's step on a preset's setting; none
/// on a preset the one dtype rule refuses these weights or this cache on
/// (`LlmRun::check_on`: fp8 on a GPU without fp8).
pub fn compare_row(s: &State, on: &Setting) -> Result<Row, String> {
    let r = run(s);
    r.check_on(on.hw)?;
    let st = step::full(&r, on);
    Ok(Row {
        step: st.wall,
        rate: st.tokens_per_s,
        fit: Some((st.fits, st.fit.over(), st.fit.max_batch)),
        regime: st.regime,
    })
}

pub const SPEC: Spec = Spec {
    id: "llm",
    title: "LLM inference: decode and prefill",
    // 3679 px at 720 px wide by default (eager: the layer's kernel list folded;
    // the GPU picker, the fit and parallel readouts, the scaling chart, the
    // closed "compare GPUs" and tensor-parallel rows; in an embed the measured
    // rows and the kernel list behind folds); a compiled step 3568, the custom
    // shape 4126, Llama-3-70B on 8 × 2 GPUs more (tests/e2e/llm.test.mjs
    // measures them and wants at most a quarter of the snippet left empty)
    embed_height: 4620,
    gate: true,
    inside: None,
    params: PARAMS,
    sliders: NativeOnly::new(sliders),
    model: NativeOnly::new(Some(|s| view(s, true).step.wall)),
    on_gpu: Some(|s, before| LINK.follow_gpu(s, before)),
    reads: Some(Reads {
        inputs: |s| inputs(s, false, |w, k| k.llm = w.llm),
        same_view: NativeOnly::new(|a, b| view(a, true) == view(b, true)),
    }),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware;
    use crate::model::limit::{Halving, Limit, TIE};
    use crate::model::timeline::Regime;
    use crate::state::params::Choice;
    use crate::state::params::WKind;
    use crate::state::registry::param;
    use crate::state::registry::tests::states;
    use crate::state::url::{decode, encode, Notice};
    use crate::state::widgets::common::{EDITED_NAME, EDITED_SOURCE};
    use crate::state::widgets::dit;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }

    /// The view's figures are the widget's own step at other states: "double
    /// the batch" is the wall at twice the batch over the wall now; each
    /// point of the scaling chart is the step at that tensor-parallel degree
    /// (the run's own among them); the batch sweep passes through the step
    /// now. What limits the step is the largest of its halvings. Off the
    /// screen it publishes the same figures and draws nothing.
    #[test]
    fn its_figures_are_the_step_at_the_changed_state() {
        for s in states() {
            let (v, q) = (view(&s, true), encode(&s));
            let step = |f: &dyn Fn(&mut State)| {
                let mut t = s.clone();
                f(&mut t);
                view(&t, false).step
            };
            let now = v.step.wall;
            let twice = step(&|t| t.widgets.llm.batch *= 2).wall;
            assert!(close(v.double_batch, twice / now), "{q}");
            for p in &v.scaling.points {
                let d = Degree::ALL.iter().copied().find(|d| d.n() == p.tp).unwrap();
                let at = step(&|t| t.widgets.llm.tp = d);
                assert!(close(p.wall, at.wall), "{q}: tp {}", p.tp);
                assert!(close(p.tokens_per_s, at.tokens_per_s), "{q}: tp {}", p.tp);
            }
            let own = v
                .scaling
                .points
                .iter()
                .find(|p| p.tp == v.step.run.par.tp)
                .unwrap();
            assert!(close(own.wall, now), "{q}");
            let here = v
                .sweep
                .iter()
                .find(|p| p.batch == s.widgets.llm.batch)
                .unwrap();
            assert!(
                close(here.wall, now) && close(here.tokens_per_s, v.step.tokens_per_s),
                "{q}"
            );
            let l = &v.step.limit;
            let best = Halving::ALL
                .map(|h| l.speedup(h))
                .into_iter()
                .fold(1.0, f64::max);
            assert_eq!(v.step.regime, l.regime, "{q}");
            assert!(l.speedup(Limit::halving(l.regime)) * TIE >= best, "{q}");
            let off = view(&s, false);
            assert_eq!((&off.step, &off.scaling), (&v.step, &v.scaling), "{q}");
            assert_eq!(off.double_batch.to_bits(), v.double_batch.to_bits(), "{q}");
            assert_eq!(off.spread_notes, v.spread_notes, "{q}");
            assert!(off.sweep.is_empty() && off.sentences.is_empty() && off.fit.is_empty());
            assert!(!v.sweep.is_empty() && !v.sentences.is_empty() && !v.fit.is_empty());
        }
    }

    /// Decoding on one pipeline stage, a larger batch never lowers throughput
    /// where the step is memory-bound (the weights are read once for the whole
    /// batch; with stages, each micro-batch reads its stage's weights again);
    /// on any spread a larger batch never takes less time. CUDA graphs and
    /// FlashAttention never make the step slower.
    #[test]
    fn a_larger_batch_never_lowers_decode_throughput() {
        for s in states() {
            let q = encode(&s);
            let mut d = s.clone();
            d.widgets.llm.phase = Phase::Decode;
            let v = view(&d, true);
            for w in v.sweep.windows(2) {
                assert!(w[1].wall >= w[0].wall, "{q}: batch {}", w[1].batch);
                let mut t = d.clone();
                t.widgets.llm.batch = w[0].batch;
                if s.widgets.llm.pp == Degree::One && view(&t, false).step.regime == Regime::Memory
                {
                    assert!(
                        w[1].tokens_per_s >= w[0].tokens_per_s,
                        "{q}: batch {}",
                        w[1].batch
                    );
                }
            }
            for f in [
                |w: &mut Params, b| w.graphs = b,
                |w: &mut Params, b| w.flash = b,
            ] {
                let (mut off, mut on) = (s.clone(), s.clone());
                f(&mut off.widgets.llm, false);
                f(&mut on.widgets.llm, true);
                assert!(
                    view(&on, false).step.wall <= view(&off, false).step.wall,
                    "{q}"
                );
            }
        }
    }

    #[test]
    fn the_controls_value_texts() {
        assert_eq!(field::context.value_text(4096.0), "4096 tokens");
        assert_eq!(field::context.value_text(1.0), "1 token");
        assert_eq!(field::batch.value_text(1.0), "1 sequence");
        assert_eq!(field::context.key_step(4096.0, true, false), 8192.0);
    }

    fn h100() -> State {
        let mut s = State::default();
        s.select_preset(hardware::preset("h100-sxm").unwrap());
        s
    }

    /// The one dtype rule. fp8 weights or an fp8 cache on a
    /// GPU without fp8 are refused as `dtype=fp8` is, with the same reason, and
    /// the last good value stays; a GPU change falls back from them as the
    /// explorer's dtype does.
    #[test]
    fn fp8_weights_and_cache_follow_the_explorers_dtype_rule() {
        let (s, n) = decode("hw=m2-max&llm_wdtype=fp8&llm_kvdtype=fp8&llm_tp=8&dtype=fp8");
        let why = |key: &str| n.iter().find(|x| x.param == key).map(|x| x.reason.clone());
        for key in ["dtype", "llm_wdtype", "llm_kvdtype"] {
            assert_eq!(
                why(key).as_deref(),
                Some("Apple M2 Max (38-core GPU) has no fp8 mode"),
                "{key}: {n:?}"
            );
        }
        assert_eq!(s.widgets.llm.wdtype, WeightDtype::Bf16);
        assert_eq!(s.widgets.llm.kvdtype, KvDtype::Bf16);
        assert_eq!(s.widgets.llm.tp, Degree::Eight);
        // a V100 and a T4 too; an H100 takes them
        for hw in ["v100", "t4"] {
            let (_, n) = decode(&format!("hw={hw}&llm_wdtype=fp8"));
            assert_eq!(n.len(), 1, "{hw}: {n:?}");
        }
        let (s, n) = on_h100("llm_wdtype=fp8&llm_kvdtype=fp8");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(
            (s.widgets.llm.wdtype, s.widgets.llm.kvdtype),
            (WeightDtype::Fp8, KvDtype::Fp8)
        );
        // choosing a GPU without fp8 falls back to bf16; int8 weights stay
        let mut t = s.clone();
        t.select_preset(hardware::preset("t4").unwrap());
        assert_eq!(
            (t.widgets.llm.wdtype, t.widgets.llm.kvdtype),
            (WeightDtype::Bf16, KvDtype::Bf16)
        );
        let mut t = s.clone();
        t.widgets.llm.wdtype = WeightDtype::Int8;
        t.select_preset(hardware::preset("m2-max").unwrap());
        assert_eq!(t.widgets.llm.wdtype, WeightDtype::Int8);
        // every state the codec makes runs on its GPU by the rule
        let r = run(&t);
        assert!(r.check_on(t.setting.hw).is_ok());
    }

    /// `llm_dep` round-trips through the URL; with `llm_tp` above 1 it is
    /// refused with a reason and the last good value kept (and `llm_tp`
    /// beside a DEP); on a dense model the view runs DEP 1 and says why.
    #[test]
    fn dep_round_trips_and_needs_tensor_parallel_1() {
        let (s, n) = decode("llm_model=qwen3-235b-a22b&llm_dep=4&llm_batch=64");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(s.widgets.llm.dep, Degree::Four);
        assert!(encode(&s).contains("llm_dep=4"));
        assert_eq!(decode(&encode(&s)).0, s);
        let v = view(&s, true);
        assert_eq!((v.step.run.par.dep, v.step.run.par.gpus()), (4, 4));
        assert!(v.step.a2a > 0.0 && v.spread_notes.is_empty());
        assert!(
            v.sentences
                .iter()
                .any(|t| t.starts_with("DEP 4 against tensor parallel 4")),
            "{:?}",
            v.sentences
        );
        for q in ["llm_tp=2&llm_dep=4", "llm_dep=4&llm_tp=2"] {
            let (s, n) = decode(&format!("llm_model=qwen3-235b-a22b&{q}"));
            assert_eq!(
                (s.widgets.llm.tp, s.widgets.llm.dep),
                (Degree::Two, Degree::One),
                "{q}"
            );
            let why = n
                .iter()
                .find(|x| x.param == "llm_dep")
                .map(|x| x.reason.as_str());
            assert!(
                why.is_some_and(|w| w.contains("needs llm_tp=1")),
                "{q}: {n:?}"
            );
        }
        let mut t = s.clone();
        t.widgets.llm.dep = Degree::Four;
        let tp = param("llm_tp").unwrap();
        assert!(tp.check(&t, 1).is_err() && tp.check(&t, 0).is_ok());
        // a dense model: DEP 1, with a note
        let (d, n) = decode("llm_model=llama3-70b&llm_dep=8");
        assert!(n.is_empty(), "{n:?}");
        let v = view(&d, true);
        assert_eq!(v.step.run.par.dep, 1);
        assert!(
            v.spread_notes.iter().any(|t| t.contains("dense")),
            "{:?}",
            v.spread_notes
        );
    }

    /// `q` on an H100 (the explorer's keys of `h100()` first).
    fn on_h100(q: &str) -> (State, Vec<Notice>) {
        decode(&format!("{}&{q}", encode(&h100())))
    }

    #[test]
    fn absent_keys_are_the_links_own_figures() {
        let s = h100();
        let nv4 = crate::model::parallel::link("nvlink4").copied().unwrap();
        assert_eq!(LINK.link(&s), nv4);
        assert_eq!(dit::LINK.link(&s), nv4);
        assert_eq!((LINK_BW.get)(&s), 450e9);
        assert!(((LINK_LAT.get)(&s) - 0.6e-6).abs() < 1e-18);
        assert_eq!(LINK_BW.format_box((LINK_BW.get)(&s)), "450");
        assert_eq!(LINK_LAT.format_box((LINK_LAT.get)(&s)), "0.6");
    }

    #[test]
    fn typed_figures_round_trip_through_the_url() {
        let (s, n) = on_h100("llm_link_bw=900&llm_link_lat=1.25&dit_link_bw=12.5");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(s.widgets.llm.link_bw, 900_000);
        let (l, d) = (LINK.link(&s), dit::LINK.link(&s));
        assert_eq!(l.bw, 900e9);
        assert!((l.hop - 1.25e-6).abs() < 1e-18);
        // NCCL's base latency of a call is not the per-step figure
        assert_eq!(l.base, crate::model::parallel::NCCL_RING_BASE_S);
        assert_eq!(d.bw, 12.5e9);
        assert_eq!(d.hop, 0.6e-6);
        let q = encode(&s);
        assert!(q.contains("llm_link_bw=900&llm_link_lat=1.25"), "{q}");
        assert!(
            q.contains("dit_link_bw=12.5") && !q.contains("dit_link_lat"),
            "{q}"
        );
        assert_eq!(decode(&q), (s.clone(), vec![]));
        // the sentences no longer name the preset the figures replaced
        assert_eq!(l.name, EDITED_NAME);
        assert_eq!(d.source, EDITED_SOURCE);
        // the run the widgets compute uses them
        assert_eq!(parallel(&s).link.bw, 900e9);
        assert_eq!(dit::run(&s).link.bw, 12.5e9);
        // the ends of the ranges
        for q in [
            "llm_link_bw=0.1",
            "llm_link_bw=100000",
            "llm_link_lat=0.001",
            "llm_link_lat=1000",
        ] {
            let (s, n) = decode(q);
            assert!(n.is_empty(), "{q}: {n:?}");
            assert_eq!(decode(&encode(&s)), (s, vec![]), "{q}");
        }
    }

    #[test]
    fn bad_figures_are_refused_with_a_reason_and_the_links_own_kept() {
        for (q, why) in [
            ("llm_link_bw=0", "greater than zero"),
            ("llm_link_bw=-5", "greater than zero"),
            ("llm_link_bw=fast", "not a number"),
            ("llm_link_bw=1e9", "out of range"),
            ("llm_link_bw=0.0001", "out of range"),
            ("llm_link_bw=NaN", "not a finite number"),
            ("dit_link_lat=0", "greater than zero"),
            ("dit_link_lat=5000", "out of range"),
        ] {
            let (s, n) = on_h100(q);
            assert_eq!(n.len(), 1, "{q}");
            assert!(n[0].reason.contains(why), "{q}: {}", n[0].reason);
            assert_eq!(LINK.link(&s).bw, 450e9, "{q}");
            assert_eq!(dit::LINK.link(&s).hop, 0.6e-6, "{q}");
        }
        // the box refuses the same values and says why; the state is not touched
        for t in ["0", "-1", "abc", "1e9", ""] {
            assert!(LINK_BW.parse_box(t).is_err(), "{t}");
        }
        assert!(LINK_LAT.parse_box("0").is_err());
        assert_eq!(LINK_BW.parse_box("900"), Ok(900e9));
    }

    #[test]
    fn the_codec_rows_are_the_controls_ranges() {
        for f in [LINK_BW, LINK_LAT, dit::LINK_BW, dit::LINK_LAT] {
            let p = param(f.id).unwrap();
            let WKind::Milli { min, max } = p.kind else {
                panic!("{}: {:?}", f.id, p.kind)
            };
            // the box's range in its unit is the URL's
            assert_eq!(f.format_box(f.min), p.format(min), "{}", f.id);
            assert_eq!(f.format_box(f.max), p.format(max), "{}", f.id);
            assert_eq!(p.kind.default(), 0);
        }
    }

    #[test]
    fn a_typed_figure_belongs_to_its_link() {
        let mut s = h100();
        (LINK_BW.set)(&mut s, 900e9);
        (LINK_LAT.set)(&mut s, 2e-6);
        (dit::LINK_BW.set)(&mut s, 100e9);
        assert_eq!(LINK.link(&s).bw, 900e9);
        assert_eq!(LINK.link(&s).hop, 2e-6);
        // the link's own figure typed back clears the key
        (LINK_LAT.set)(&mut s, 0.6e-6);
        assert_eq!(s.widgets.llm.link_lat, 0);
        // the same link chosen by its id: kept
        (LINK_SELECT.set)(&mut s, LinkChoice::Nvlink4);
        assert_eq!(LINK.link(&s).bw, 900e9);
        // another link: its own figures, the dit widget's untouched
        (LINK_SELECT.set)(&mut s, LinkChoice::Pcie4);
        assert_eq!(s.widgets.llm.link, LinkChoice::Pcie4);
        assert_eq!(LINK.link(&s).bw, 32e9);
        assert_eq!(LINK.link(&s).hop, 1.0e-6);
        assert_eq!(dit::LINK.link(&s).bw, 100e9);
        // a GPU with another own link: the dit widget (on "the GPU's own") starts
        // again; the llm widget's chosen PCIe 4.0 is the same link, kept typed
        (LINK_BW.set)(&mut s, 16e9);
        s.select_preset(hardware::preset("h100-pcie").unwrap());
        assert_eq!(dit::LINK.link(&s).id, "pcie5");
        assert_eq!(dit::LINK.link(&s).bw, 64e9);
        assert_eq!(LINK.link(&s).bw, 16e9);
        // a GPU with the same own link keeps the figure
        (dit::LINK_BW.set)(&mut s, 20e9);
        s.select_preset(hardware::preset("h100-pcie").unwrap());
        assert_eq!(dit::LINK.link(&s).bw, 20e9);
    }
}
