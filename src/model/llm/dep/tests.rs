use crate::model::hardware;
use crate::model::llm::step::{self, KvRead};
use crate::model::llm::{spread, KvDtype, LlmModel, LlmRun, Parallel, Phase, WeightDtype};
use crate::model::parallel::{link, Link};
use crate::model::setting::Setting;
use crate::state::State;

fn setting(hw: &str) -> Setting {
    let mut s = State::default();
    if let Some(p) = hardware::preset(hw) {
        s.select_preset(p);
    }
    s.setting
}

fn run(m: LlmModel, batch: u32, dep: u32, tp: u32, l: &str) -> LlmRun {
    LlmRun {
        config: m.config_or_toy(),
        phase: Phase::Decode,
        batch,
        context: 2048,
        wdtype: WeightDtype::Fp8,
        kvdtype: KvDtype::Fp8,
        graphs: true,
        flash: true,
        par: Parallel {
            tp,
            pp: 1,
            dep,
            link: link(l).copied().unwrap_or(Link::NONE),
            overlap: false,
            rank_tokens: 0,
        },
    }
}

/// DEP 1 is no DEP, bit for bit: the same kernels, wall, split and fit.
#[test]
fn dep_one_is_no_dep() {
    let s = setting("h200");
    for m in LlmModel::ALL {
        for batch in [1, 7, 256] {
            let r = run(m, batch, 1, 1, "nvlink4");
            let base = LlmRun {
                par: Parallel { dep: 1, ..r.par },
                ..r
            };
            assert_eq!(step::full(&r, &s), step::full(&base, &s), "{m:?}");
            assert_eq!(super::rank_run(&r), base);
        }
    }
}

/// A dense model, or DEP beside tensor parallel, is refused with a notice
/// and runs DEP 1; a MoE runs the DEP asked.
#[test]
fn dep_on_a_dense_model_or_beside_tp_is_refused() {
    let dense = run(LlmModel::Llama3_70b, 8, 4, 1, "nvlink4");
    let (par, notes) = spread(&dense.config, dense.par);
    assert_eq!(par.dep, 1);
    assert!(notes.iter().any(|n| n.contains("dense")), "{notes:?}");
    let both = run(LlmModel::Qwen3_235b, 8, 4, 2, "nvlink4");
    let (par, notes) = spread(&both.config, both.par);
    assert_eq!((par.dep, par.tp), (1, 2));
    assert!(notes
        .iter()
        .any(|n| n.contains("tensor parallel must be 1")));
    let moe = run(LlmModel::Qwen3_235b, 8, 4, 1, "nvlink4");
    let (par, notes) = spread(&moe.config, moe.par);
    assert_eq!((par.dep, par.gpus()), (4, 4));
    assert!(notes.is_empty(), "{notes:?}");
}

/// Memory per rank: the routed experts fall as 1/n, the rest stays whole;
/// each rank holds its own sequences' cache.
#[test]
fn memory_per_rank_falls_with_n_for_the_experts() {
    let s = setting("h200");
    let at = |n| step::full(&run(LlmModel::Qwen3_235b, 64, n, 1, "nvlink4"), &s);
    let (one, two, four, eight) = (at(1), at(2), at(4), at(8));
    assert!(one.weight_bytes > two.weight_bytes && two.weight_bytes > four.weight_bytes);
    assert!(four.weight_bytes > eight.weight_bytes);
    // halving the experts each time: the drop halves too (what is whole stays)
    let d1 = one.weight_bytes - two.weight_bytes;
    let d2 = two.weight_bytes - four.weight_bytes;
    assert!((d1 / d2 - 2.0).abs() < 1e-9, "{d1} {d2}");
    assert!((one.kv_bytes / eight.kv_bytes - 8.0).abs() < 1e-9);
    // Qwen3-235B in fp8 does not fit on one H200 but does on four
    assert!(!one.fits && four.fits);
}

/// The all-to-all's share of the step grows with the ranks on a slow link.
#[test]
fn the_all_to_all_share_grows_with_n_on_a_slow_link() {
    let s = setting("h100-sxm");
    let mut last = 0.0;
    for n in [2, 4, 8] {
        let st = step::full(&run(LlmModel::Qwen3_235b, 512, n, 1, "pcie4"), &s);
        let share = st.a2a / st.wall;
        assert!(share > last, "{n}: {share} after {last}");
        assert!(st.a2a > 0.0 && st.a2a <= st.split.comm * (1.0 + 1e-12));
        last = share;
    }
    assert!(last > 0.3, "{last}");
    let one = step::full(&run(LlmModel::Qwen3_235b, 512, 1, 1, "pcie4"), &s);
    assert_eq!(one.a2a, 0.0);
}

/// With a link that costs nothing, DEP n's step is never slower than the
/// one-GPU step at a batch of at least n (each rank does at most what one
/// GPU does for the whole batch).
#[test]
fn an_infinitely_fast_link_never_makes_dep_slower_than_one_gpu() {
    let s = setting("h200");
    for m in [
        LlmModel::Mixtral8x7b,
        LlmModel::Qwen3_30b,
        LlmModel::GptOss20b,
        LlmModel::Qwen3_235b,
        LlmModel::DeepseekV3,
    ] {
        for n in [2, 4, 8] {
            for batch in [n, 3 * n + 1, 64, 1024] {
                let mut r = run(m, batch, n, 1, "nvlink4");
                r.par.link = Link {
                    hop: 0.0,
                    base: 0.0,
                    ..Link::NONE
                };
                let one = LlmRun {
                    par: Parallel::ONE,
                    ..r
                };
                let (d, o) = (
                    step::wall(&r, &s, KvRead::AsWritten),
                    step::wall(&one, &s, KvRead::AsWritten),
                );
                assert!(
                    d <= o * (1.0 + 1e-9),
                    "{m:?} dep {n} batch {batch}: {d} > {o}"
                );
            }
        }
    }
}

/// The all-to-all carries each rank's routed tokens' hidden states: `(n−1)/n`
/// of `t·k·h·2` bytes each way per MoE layer.
#[test]
fn the_all_to_all_moves_the_routed_tokens() {
    let r = run(LlmModel::Qwen3_235b, 64, 4, 1, "nvlink4");
    let ks = crate::model::llm::launch::layer_kernels(&r);
    let a2a: Vec<_> = ks
        .iter()
        .filter(|k| k.group.name.starts_with("all-to-all"))
        .collect();
    assert_eq!(a2a.len(), 2);
    let c = &r.config;
    let s = 16.0 * f64::from(c.top_k) * f64::from(c.hidden) * 2.0;
    for k in a2a {
        assert!(
            (k.group.bytes - s * 3.0 / 4.0).abs() < 1e-6,
            "{}",
            k.group.bytes
        );
    }
    // a dense model's layer has none
    let d = run(LlmModel::Llama3_8b, 64, 4, 1, "nvlink4");
    assert!(crate::model::llm::launch::layer_kernels(&d)
        .iter()
        .all(|k| !k.group.name.starts_with("all-to-all")));
}

/// Against tensor parallel on the same GPUs: at batch 1 a DEP rank reads the
/// whole attention's weights for one sequence, where TP reads a quarter of
/// them, so DEP is slower; at a large batch DEP avoids TP's all-reduces and
/// is faster. The crossover is found in the model and said with the part
/// that decides it.
#[test]
fn dep_stops_paying_at_small_batch_against_tp() {
    let s = setting("h200");
    let at = |b| {
        crate::model::llm::vs_tp::against_tp(&run(LlmModel::Qwen3_235b, b, 4, 1, "nvlink4"), &s)
    };
    let (one, many) = (at(1).unwrap(), at(1024).unwrap());
    assert!(one.dep.total() > one.tp.total(), "{one:?}");
    assert!(many.dep.total() < many.tp.total(), "{many:?}");
    let from = one.from.unwrap();
    assert!(from > 1 && from <= 1024, "{from}");
    // below the crossover DEP loses most in weight reads
    assert_eq!(one.part.0, "weights");
    assert!(one.part.1 > one.part.2);
    let words = crate::model::llm::vs_tp::vs_tp_words(&one, 1);
    assert!(
        words.contains(&format!("DEP pays from batch {from}")),
        "{words}"
    );
    assert!(
        words.contains("slower") && words.contains("weight reads"),
        "{words}"
    );
    // tensor parallel 8 does not split Qwen3-235B's 4 KV heads: no comparison
    let r8 = run(LlmModel::Qwen3_235b, 64, 8, 1, "nvlink4");
    assert!(crate::model::llm::vs_tp::against_tp(&r8, &s).is_none());
    assert!(crate::model::llm::vs_tp::no_tp_words(&r8).contains("4 KV heads"));
    // GPT-OSS-120B: TP's all-reduce beside the experts' all-to-alls costs
    // more than DEP's all-to-alls alone at every batch
    let oss =
        crate::model::llm::vs_tp::against_tp(&run(LlmModel::GptOss120b, 64, 4, 1, "nvlink4"), &s)
            .unwrap();
    assert_eq!((oss.from, oss.part.0), (Some(1), "comm"));
}
