use super::*;
use crate::model::hardware;
use crate::model::llm::{KvDtype, LlmModel, WeightDtype};

fn h100() -> Setting {
    crate::model::llm::measured::setting_on(hardware::preset("h100-sxm").expect("h100"))
}

fn run(model: LlmModel, batch: u32, graphs: bool) -> LlmRun {
    LlmRun {
        config: model.config_or_toy(),
        phase: Phase::Decode,
        batch,
        context: 1024,
        wdtype: WeightDtype::Bf16,
        kvdtype: KvDtype::Bf16,
        graphs,
        flash: true,
        par: Parallel::ONE,
    }
}

fn spec(kind: SpecKind, k: u32, accept: f64) -> SpecRun {
    SpecRun {
        kind,
        k,
        accept,
        ..SpecRun::OFF
    }
}

fn speedup(r: &LlmRun, s: &SpecRun) -> f64 {
    let set = h100();
    let base = step::wall(r, &set, KvRead::AsWritten);
    spec_step(r, s, &set, base).expect("on").speedup
}

/// The stated decay reproduces the measured MTP head's cumulative rates
/// within 0.02, and converting vLLM's cumulative rates gives the
/// conditional ones (0.92, 0.739, 0.559).
#[test]
fn acceptances_are_cumulative_products_of_conditional_rates() {
    let p = cumulative(0.92, 3);
    for (got, want) in p.iter().zip([0.92, 0.68, 0.38]) {
        assert!((got - want).abs() < 0.02, "{p:?}");
    }
    let measured = [0.92, 0.68, 0.38];
    let cond: Vec<f64> = (0..3)
        .map(|i| measured[i] / if i == 0 { 1.0 } else { measured[i - 1] })
        .collect();
    assert!((cond[1] - 0.739).abs() < 1e-3 && (cond[2] - 0.559).abs() < 1e-3);
    assert_eq!(tokens_per_step(0.0, 8), 1.0);
    assert!((tokens_per_step(0.92, 3) - (1.0 + p.iter().sum::<f64>())).abs() < 1e-15);
    // more drafts or a likelier draft never emit fewer tokens
    for k in 1..8 {
        assert!(tokens_per_step(0.7, k + 1) > tokens_per_step(0.7, k));
        assert!(tokens_per_step(0.8, k) > tokens_per_step(0.7, k));
    }
    let a = accept_for_length(2.25, 3).expect("reachable");
    assert!((tokens_per_step(a, 3) - 2.25).abs() < 1e-9);
    assert_eq!(accept_for_length(4.5, 3), None);
}

/// One token per sequence is the decode step itself, bit for bit; the verify
/// step of q tokens reads the weights once and the cache once per sequence,
/// so it costs less than q steps, and more than one.
#[test]
fn the_verify_step_is_the_decode_step_q_tokens_wide() {
    let set = h100();
    for graphs in [false, true] {
        for b in [1, 16, 256] {
            let r = run(LlmModel::Llama3_8b, b, graphs);
            let one = step::wall(&r, &set, KvRead::AsWritten);
            assert_eq!(step::verify_wall(&r, &set, 1).to_bits(), one.to_bits());
            let four = step::verify_wall(&r, &set, 4);
            assert!(four < 4.0 * one, "{b}: {four} vs {one}");
            // (the GEMM model prices some small-M tiles slower than a wider
            // M, so between 8 and 32 sequences a wider step can be quicker)
            if b == 1 || b == 256 {
                assert!(four > one, "{b}: {four} vs {one}");
            }
            // at most the step of 4·B sequences, which reads the cache 4 times
            let wide = step::wall(&LlmRun { batch: 4 * b, ..r }, &set, KvRead::AsWritten);
            assert!(four <= wide, "{b}: {four} vs {wide}");
            // the attention's KV bytes are the batch's, not 4× them
            let (wide, lay) = step::verify_layout(&r, 4);
            assert_eq!(wide.batch, 4 * b);
            let kv4: f64 = lay
                .layer
                .iter()
                .filter(|k| k.part == step::Part::Attention)
                .map(|k| k.kv_bytes)
                .sum();
            let (_, lay1) = step::verify_layout(&r, 1);
            let kv1: f64 = lay1
                .layer
                .iter()
                .filter(|k| k.part == step::Part::Attention)
                .map(|k| k.kv_bytes)
                .sum();
            assert!((kv4 - kv1).abs() <= 1e-9 * kv1, "{kv4} {kv1}");
        }
    }
}

/// With every draft rejected, speculation only costs: the drafter's steps and
/// a wider verify step for the one token a plain step gives.
#[test]
fn acceptance_zero_is_a_slowdown() {
    for kind in [
        SpecKind::Eagle,
        SpecKind::Draft,
        SpecKind::Mtp,
        SpecKind::Ngram,
    ] {
        for b in [1, 64] {
            let s = speedup(&run(LlmModel::Llama3_8b, b, true), &spec(kind, 3, 0.0));
            assert!(s < 1.0, "{kind:?} {b}: {s}");
        }
    }
}

/// Where the plain step is already compute-bound, verifying k + 1 tokens per
/// sequence costs about k + 1 times as much: no gain at any acceptance.
#[test]
fn no_gain_at_a_compute_bound_batch() {
    let r = LlmRun {
        context: 128,
        ..run(LlmModel::Llama3_8b, 2048, true)
    };
    let (_, l) = step::limit(&r, &h100());
    assert_eq!(l.regime, crate::model::timeline::Regime::Compute);
    for kind in [SpecKind::Eagle, SpecKind::Ngram] {
        let s = speedup(&r, &spec(kind, 3, 0.99));
        assert!(!crate::model::verdict::helps(s), "{kind:?}: {s}");
    }
}

/// The speedup falls as the batch grows (the verify step turns
/// compute-bound), and at batch 1 a good drafter gains.
#[test]
fn the_speedup_falls_with_batch() {
    for model in [LlmModel::Llama3_8b, LlmModel::Llama3_70b] {
        // a short context: the KV cache's reads, which the verify step does
        // not multiply, stay small beside the weights' FLOPs
        let r = LlmRun {
            context: 256,
            ..run(model, 1, true)
        };
        let s = spec(SpecKind::Eagle, 3, 0.8);
        // (Llama-3-70B does not fit one H100: its line as if it did, to 1024)
        let fits = match step::full(&r, &h100()).fit.max_batch {
            Some(0) => Some(1024),
            m => m,
        };
        assert!(fits.is_some_and(|m| m >= 1024), "{fits:?}");
        let pts = sweep(&r, &s, &h100(), fits);
        assert!(pts.len() >= 11, "{pts:?}");
        assert!(pts[0].speedup > 1.5, "{pts:?}");
        // from 64 sequences on it only falls; below that the GEMM model's
        // small-M tiles let it wander by a few percent, never above batch 1's
        // by more than 5 %
        for w in pts.windows(2).filter(|w| w[0].batch >= 64) {
            assert!(w[1].speedup <= w[0].speedup, "{model:?} {w:?}");
        }
        assert!(
            pts.iter().all(|p| p.speedup <= 1.05 * pts[0].speedup),
            "{pts:?}"
        );
        let at = crossing(&pts).expect("falls below 1");
        assert!(pts
            .iter()
            .all(|p| (p.batch < at) == (p.speedup >= 1.0) || p.batch > at));
        let words = sentence(
            &LlmRun { batch: 1, ..r },
            &s,
            &h100(),
            &spec_step(&r, &s, &h100(), step::wall(&r, &h100(), KvRead::AsWritten)).expect("on"),
            &pts,
        );
        assert!(
            words.contains(&format!("falls below 1× at batch {at}")),
            "{words}"
        );
    }
}

/// More drafts make the verify step wider and the drafter longer; off and
/// prefill have no speculative step.
#[test]
fn k_widens_the_step_and_off_is_none() {
    let set = h100();
    let r = run(LlmModel::Llama3_8b, 1, true);
    let base = step::wall(&r, &set, KvRead::AsWritten);
    let mut last: Option<SpecStep> = None;
    for k in 1..=8 {
        let st = spec_step(&r, &spec(SpecKind::Eagle, k, 0.7), &set, base).expect("on");
        if let Some(p) = last {
            assert!(st.verify_s >= p.verify_s && st.draft_s > p.draft_s, "{k}");
            assert!(st.tokens_per_step > p.tokens_per_step && st.extra_bytes > p.extra_bytes);
        }
        last = Some(st);
    }
    assert_eq!(spec_step(&r, &SpecRun::OFF, &set, base), None);
    let pre = LlmRun {
        phase: Phase::Prefill,
        ..r
    };
    assert_eq!(
        spec_step(&pre, &spec(SpecKind::Eagle, 3, 0.7), &set, base),
        None
    );
    // a bigger draft model costs more per step than a smaller one
    let d = |draft| {
        spec_step(
            &r,
            &SpecRun {
                draft,
                ..spec(SpecKind::Draft, 3, 0.7)
            },
            &set,
            base,
        )
        .expect("on")
        .draft_s
    };
    assert!(d(DraftModel::Llama32_1b) < d(DraftModel::Llama32_3b));
    assert!(d(DraftModel::Llama32_3b) < d(DraftModel::Llama3_8b));
}
