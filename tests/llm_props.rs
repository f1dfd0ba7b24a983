//! Property tests of the `llm` and `dit` models over their declared ranges.

use brrr::model::dit::{self, DitModel, DitRun};
use brrr::model::limit::{self, Halving};
use brrr::model::llm::kernels::LlmKernel;
use brrr::model::llm::step::{self, Part};
use brrr::model::llm::{
    self, limits, KvDtype, LlmConfig, LlmModel, LlmRun, Parallel, Phase, WeightDtype,
};
use brrr::model::parallel::{DEGREES, LINKS};
use brrr::model::timeline::priced;
use brrr::model::workload::{KernelGroup, Machine};
use brrr::model::{hardware, Setting};
use brrr::state::State;
use proptest::prelude::*;

fn arb_setting() -> impl Strategy<Value = Setting> {
    let presets = hardware::PRESETS;
    (0..presets.len(), any::<bool>()).prop_map(|(i, graphs_dtype)| {
        let mut s = State::for_preset(&presets[i]);
        if graphs_dtype {
            s.select_dtype(brrr::model::Dtype::Fp32);
        }
        s.setting
    })
}

fn arb_config() -> impl Strategy<Value = LlmConfig> {
    let published = (0usize..4).prop_map(|i| LlmModel::ALL[i].config_or_toy());
    let custom = (
        limits::LAYERS.0..=limits::LAYERS.1,
        limits::HIDDEN.0..=limits::HIDDEN.1,
        limits::HEADS.0..=limits::HEADS.1,
        limits::HEADS.0..=limits::HEADS.1,
        limits::FFN.0..=limits::FFN.1,
        limits::VOCAB.0..=limits::VOCAB.1,
    )
        .prop_map(|(layers, hidden, heads, kv, ffn, vocab)| LlmConfig {
            layers,
            hidden,
            heads,
            kv_heads: kv.min(heads),
            ffn,
            vocab,
            experts: 1,
            top_k: 1,
            arch: brrr::model::llm::moe::Arch::PLAIN,
        });
    prop_oneof![published, custom]
}

fn arb_run() -> impl Strategy<Value = LlmRun> {
    (
        arb_config(),
        any::<bool>(),
        limits::BATCH.0..=limits::BATCH.1,
        limits::CONTEXT.0..=limits::CONTEXT.1,
        0u32..3,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        (0usize..4, 0usize..4, 0usize..LINKS.len(), any::<bool>()),
    )
        .prop_map(
            |(config, prefill, batch, context, w, kv, graphs, flash, (tp, pp, link, overlap))| {
                LlmRun {
                    config,
                    phase: if prefill {
                        Phase::Prefill
                    } else {
                        Phase::Decode
                    },
                    batch,
                    context,
                    wdtype: WeightDtype::ALL[w as usize],
                    kvdtype: if kv { KvDtype::Fp8 } else { KvDtype::Bf16 },
                    graphs,
                    flash,
                    // any spread the widget can ask for, made valid as the widget does
                    par: llm::spread(
                        &config,
                        Parallel {
                            tp: DEGREES[tp],
                            pp: DEGREES[pp],
                            dep: 1,
                            link: LINKS[link],
                            overlap,
                            rank_tokens: 0,
                        },
                    )
                    .0,
                }
            },
        )
}

/// `r` as a decode step (one micro-batch) with its machine, kernels and kernel
/// groups, built as the step model builds them: what the properties below
/// simulate again to check the model's shortcuts against.
/// A step's limit (2× FLOP/s, 2× bandwidth, half the overhead) is its `wall`
/// over the full simulation `after` each halving, bit for bit.
fn halvings_are_the_simulations(
    l: &limit::Limit,
    wall: f64,
    after: impl Fn(Halving) -> f64,
) -> Result<(), TestCaseError> {
    let want =
        [Halving::Flops, Halving::Bw, Halving::Overhead].map(|h| limit::ratio(wall, after(h)));
    let got = [l.flops2, l.bw2, l.overhead_half];
    prop_assert_eq!(
        got.map(f64::to_bits),
        want.map(f64::to_bits),
        "{:?} vs {:?}",
        got,
        want
    );
    Ok(())
}

fn decode_step(r: LlmRun, s: &Setting) -> (LlmRun, Machine, Vec<LlmKernel>, Vec<KernelGroup>) {
    let r = LlmRun {
        phase: Phase::Decode,
        ..r
    };
    let m = step::machine(&r, s);
    let ks = step::kernels(&r);
    let gs = ks.iter().map(|k| k.group.clone()).collect();
    (r, m, ks, gs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn llm_outputs_finite(r in arb_run(), s in arb_setting()) {
        let st = step::full(&r, &s);
        for v in [st.wall, st.tokens_per_s, st.flops, st.bytes, st.weight_bytes, st.kv_bytes,
                  st.critical_batch, st.split.total()] {
            prop_assert!(v.is_finite() && v >= 0.0, "{v}");
        }
        prop_assert!(st.wall > 0.0);
        prop_assert!((st.split.total() - st.wall).abs() <= 1e-9 * st.wall);
    }

    /// The wall-time-only path (each layer priced once, no spans) is the full
    /// step's wall time bit for bit, eager or compiled, any spread.
    #[test]
    fn the_wall_alone_is_the_steps(r in arb_run(), s in arb_setting()) {
        for read in [step::KvRead::AsWritten, step::KvRead::InPlace] {
            let full = step::plain(&r, &s, read).wall;
            let alone = step::wall(&r, &s, read);
            prop_assert_eq!(alone.to_bits(), full.to_bits(), "{:?}: {} vs {}", read, alone, full);
        }
    }

    /// The limit's counterfactual steps (timed wall-only) are the full
    /// simulations of the step on the changed machine, bit for bit.
    #[test]
    fn the_limits_walls_are_the_simulations(r in arb_run(), s in arb_setting()) {
        let (r, m, _, gs) = decode_step(r, &s);
        let st = step::full(&r, &s);
        let pp = r.par.pp.max(1);
        halvings_are_the_simulations(&st.limit, st.wall, |h: Halving| {
            let m = h.apply(&m);
            step::pipeline_wall(step::timeline(&r, &gs, &priced(&gs, &m), &m).wall, 1, pp)
        })?;
    }

    /// One layer's rows asked for alone are the step's, bit for bit.
    #[test]
    fn the_layer_alone_is_the_steps(r in arb_run(), s in arb_setting()) {
        let st = step::plain(&r, &s, step::KvRead::AsWritten);
        prop_assert!(step::layer(&r, &s) == st.layer, "the layer rows differ");
    }

    /// The step priced by its layout (each distinct kernel once) is the step
    /// priced kernel by kernel: the same timeline and (on one stage) the same
    /// split, bit for bit, eager or compiled (one micro-batch: a decode step).
    #[test]
    fn the_layout_priced_step_is_the_kernel_priced_one(r in arb_run(), s in arb_setting()) {
        let (r, m, ks, gs) = decode_step(r, &s);
        let st = step::plain(&r, &s, step::KvRead::AsWritten);
        let parts = priced(&gs, &m);
        let tl = step::timeline(&r, &gs, &parts, &m);
        // the step keeps the lanes' totals, not the spans
        prop_assert!(st.timeline.spans.is_empty());
        prop_assert!(st.timeline == brrr::model::timeline::Timeline { spans: Vec::new(), ..tl }, "the timelines differ");
        // a pipeline's split is this one scaled to its stage (the same either way)
        if r.par.pp <= 1 {
            let split = step::split(&ks, &gs, &parts, &tl);
            prop_assert!(st.split == split, "{:?} vs {:?}", st.split, split);
        }
    }

    /// What limits a step, decided without keeping its spans, is the step's:
    /// the same wall time and limit, bit for bit.
    #[test]
    fn the_limit_alone_is_the_steps(r in arb_run(), s in arb_setting()) {
        let st = step::full(&r, &s);
        let (wall, limit) = step::limit(&r, &s);
        prop_assert_eq!(wall.to_bits(), st.wall.to_bits());
        prop_assert!(limit == st.limit, "{:?} vs {:?}", limit, st.limit);
    }

    /// A layout holds the step's kernels: its length is what it iterates, its
    /// loops visit them in the iterator's order, and a pipeline sends between
    /// its stages only.
    #[test]
    fn a_layout_is_its_kernels(r in arb_run()) {
        let lay = step::layout_with(&r, step::KvRead::AsWritten);
        prop_assert_eq!(lay.len(), lay.iter().count());
        prop_assert_eq!(step::kernels(&r).len(), lay.len());
        // the plain loops (what the wall-only simulation walks) visit the same
        // kernels in the same order as the iterator
        prop_assert!(lay.to_vec() == lay.iter().cloned().collect::<Vec<_>>(), "to_vec's order differs");
        let mut places = Vec::new();
        lay.zip_each(&lay.map(|k| k.group.name), |k, name| places.push((k.group.name, *name)));
        prop_assert!(places.iter().all(|(a, b)| a == b), "zip_each pairs other places");
        prop_assert_eq!(places.len(), lay.len());
        let sends = lay.iter().filter(|k| k.group.name == "send to the next stage").count() as u32;
        let stages = r.config.layers.div_ceil(step::stage_layers(&r));
        prop_assert_eq!(sends, stages.saturating_sub(1));
    }

    #[test]
    fn more_bandwidth_never_slower(r in arb_run(), s in arb_setting(), k in 1.0f64..100.0) {
        let t = step::full(&r, &s).wall;
        let fast = Setting { bw: s.bw * k, ..s };
        prop_assert!(step::full(&r, &fast).wall <= t * (1.0 + 1e-12));
    }

    #[test]
    fn decode_time_non_decreasing_in_context(r in arb_run(), s in arb_setting(), extra in 1u32..65536) {
        let r = LlmRun { phase: Phase::Decode, ..r };
        let longer = LlmRun { context: r.context.saturating_add(extra).min(limits::CONTEXT.1), ..r };
        prop_assert!(step::full(&longer, &s).wall >= step::full(&r, &s).wall * (1.0 - 1e-12));
    }

    #[test]
    fn fp8_weights_never_slower_than_bf16_at_batch_1(r in arb_run(), s in arb_setting()) {
        let r = LlmRun { batch: 1, ..r };
        let bf16 = step::full(&LlmRun { wdtype: WeightDtype::Bf16, ..r }, &s).wall;
        let fp8 = step::full(&LlmRun { wdtype: WeightDtype::Fp8, ..r }, &s).wall;
        prop_assert!(fp8 <= bf16 * (1.0 + 1e-12), "{fp8} vs {bf16}");
    }

    #[test]
    fn prefill_flops_are_two_per_active_parameter_per_token_plus_attention(r in arb_run(), _s in arb_setting()) {
        let r = LlmRun { phase: Phase::Prefill, ..r };
        let t = step::tokens(&r);
        let c = &r.config;
        // linear layers inside the transformer blocks: 2 FLOPs per active weight per
        // token, one GPU's share under tensor parallelism (the router runs whole)
        let tp = f64::from(r.par.tp);
        let linear = kernels_matmul_flops(&r, Part::Projections) + kernels_matmul_flops(&r, Part::Mlp);
        let split = c.active_layer_matmul_params() - c.router_params();
        let want = 2.0 * f64::from(c.layers) * (split / tp + c.router_params()) * t;
        prop_assert!((linear / want - 1.0).abs() < 1e-9, "{linear} vs {want}");
        // attention: 4·B·H·C²·d/2 causal (flash) or the full C² (naive), + softmax
        let (b, h, ctx, d) = (f64::from(r.batch), f64::from(c.heads), f64::from(r.context), c.head_dim());
        let per_layer = if r.flash { 2.0 * b * h * ctx * ctx * d + 2.5 * b * h * ctx * ctx }
                        else { 4.0 * b * h * ctx * ctx * d + 5.0 * b * h * ctx * ctx };
        // the attention's matmuls and softmax (the eager step's masks, scales, cache
        // updates and copies are pointwise kernels of their own)
        let attn: f64 = step::kernels(&r)
            .iter()
            .filter(|k| k.part == Part::Attention
                && (k.group.unit == brrr::model::Unit::Matmul || k.group.name == "softmax"))
            .map(|k| k.group.flops)
            .sum();
        prop_assert!((attn / (f64::from(c.layers) * per_layer / tp) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn dit_outputs_finite_and_shares_sum_to_one(
        video in any::<bool>(), res in 1u32..=1024, batch in 1u32..=256,
        flash in any::<bool>(), graphs in any::<bool>(), fused in any::<bool>(), s in arb_setting(),
        sp in 0usize..4, link in 0usize..LINKS.len())
    {
        let sp = DEGREES[sp];
        let link = if sp > 1 { LINKS[link] } else { brrr::model::parallel::Link::NONE };
        let r = DitRun { model: if video { DitModel::CogVideoX2b } else { DitModel::XL2 },
                         res, batch, flash, graphs, fused, sp, link };
        let st = dit::run(&r, &s);
        let sh = st.shares;
        for v in [st.wall, st.flops, sh.attention, sh.mlp, sh.pointwise, sh.overhead, sh.comm] {
            prop_assert!(v.is_finite() && v >= 0.0, "{v}");
        }
        prop_assert!((sh.attention + sh.mlp + sh.pointwise + sh.overhead + sh.comm - 1.0).abs() < 1e-9);
        // the wall alone is the run's, bit for bit; the limit's counterfactual
        // steps (timed wall-only) are the full simulations'
        prop_assert_eq!(dit::wall(&r, &s).to_bits(), st.wall.to_bits());
        let m = dit::machine(&s);
        let gs: Vec<_> = dit::kernels(&r).into_iter().map(|(k, _)| k).collect();
        let full = |h: Halving| {
            let m = h.apply(&m);
            if r.graphs {
                brrr::model::overhead::simulate_graph(&gs, &m, m.overhead).wall
            } else {
                brrr::model::timeline::simulate(&gs, &m).wall
            }
        };
        halvings_are_the_simulations(&st.limit, st.wall, full)?;
        let fast = Setting { bw: s.bw * 2.0, ..s };
        prop_assert!(dit::run(&r, &fast).wall <= st.wall * (1.0 + 1e-12));
    }
}

/// FLOPs of the matmul kernels of one part (the MLP's pointwise SiLU·mul and top-k
/// excluded).
fn kernels_matmul_flops(r: &LlmRun, part: Part) -> f64 {
    step::kernels(r)
        .iter()
        .filter(|k| k.part == part && k.group.unit == brrr::model::Unit::Matmul)
        .map(|k| k.group.flops)
        .sum()
}
