//! The `llm` widget's sentences, each built from the model run for the current
//! state and its counterfactuals (the same model with one thing changed), never
//! looked up. A change is said to help when it predicts ≥ 1.05× (as the remedies do).

use super::step::{self, LlmStep};
use super::{LlmRun, Phase, WeightDtype};
use crate::model::overhead::{verdict, BatchVerdict};
use crate::model::setting::Setting;
use crate::model::units;

/// Speedup from which a change is said to help.
pub const HELPS_FROM: f64 = 1.05;

fn part_words(largest: &str) -> &'static str {
    match largest {
        "weights" => "reading the weights",
        "kv" => "reading the KV cache",
        "activations" => "moving activations",
        "compute" => "arithmetic on the tensor cores",
        _ => "waiting for kernel launches",
    }
}

/// What doubling the batch does, in words: the overhead section's test.
pub fn double_batch(r: &LlmRun, s: &Setting, st: &LlmStep) -> String {
    let ratio = step::double_batch_ratio(r, s);
    let pct = (ratio - 1.0) * 100.0;
    let head = format!(
        "Doubling the batch to {} costs {:+.0} % time per step",
        r.batch.saturating_mul(2),
        pct
    );
    let why = match (verdict(ratio), st.split.largest()) {
        (BatchVerdict::OverheadBound, "weights") => {
            "the weights are read once for the whole batch, so you are memory-bound on them and batching is nearly free"
        }
        (BatchVerdict::OverheadBound, "overhead") => {
            "the GPU mostly waits for launches, so you are overhead-bound and batching is nearly free"
        }
        (BatchVerdict::OverheadBound, _) => "batching is nearly free here",
        (BatchVerdict::Partly, _) => "batching still pays, but less than it did at small batch",
        (BatchVerdict::ScalesWithWork, "kv") => {
            "each sequence reads its own KV cache, so time grows with the batch and batching no longer pays"
        }
        (BatchVerdict::ScalesWithWork, _) => {
            "the work grows with the batch and so does the time: you are compute-bound and batching no longer pays"
        }
    };
    format!("{head}: {why}.")
}

/// Where the time goes and the regime.
pub fn where_time_goes(st: &LlmStep) -> String {
    let w = st.wall.max(f64::MIN_POSITIVE);
    let what = match st.run.phase {
        Phase::Decode => "One decode step",
        Phase::Prefill => "The prefill",
    };
    format!(
        "{what} takes {} ({} tokens/s); most of it is {} ({}), so the step is {}.",
        units::si(st.wall, "s"),
        units::sig3(st.tokens_per_s),
        part_words(st.split.largest()),
        units::percent(
            [
                st.split.weights,
                st.split.kv,
                st.split.activations,
                st.split.compute,
                st.split.overhead
            ]
            .into_iter()
            .fold(0.0, f64::max)
                / w
        ),
        st.regime.label()
    )
}

/// Below or above the critical batch.
pub fn critical(st: &LlmStep) -> String {
    let b = f64::from(st.run.batch);
    let cb = st.critical_batch;
    let side = if b < cb {
        "below it, each weight read is shared by too few tokens to keep the tensor cores busy"
    } else {
        "above it, the weight matmuls are compute-bound"
    };
    format!(
        "The weight matmuls turn compute-bound from a batch of about {} tokens (ridge {} FLOP/B × {} B per weight ÷ 2{}); at {} per step you are {side}.",
        units::sig3(cb),
        units::sig3(st.machine.matmul_flops / st.machine.bw),
        st.run.wdtype.bytes(),
        if st.run.config.experts > 1 { ", × experts ÷ experts per token" } else { "" },
        if step::tokens(&st.run) == 1.0 {
            "1 token".to_string()
        } else {
            format!("{} tokens", units::sig3(step::tokens(&st.run)))
        },
    )
}

/// Memory capacity: fits or not, and the largest batch that would.
pub fn capacity(st: &LlmStep, hw_name: &str) -> String {
    if st.capacity <= 0.0 {
        return format!(
            "Weights {} + KV cache {}; the memory size of {hw_name} is not known.",
            units::si(st.weight_bytes, "B"),
            units::si(st.kv_bytes, "B")
        );
    }
    let total = st.weight_bytes + st.kv_bytes;
    let per_seq = st.kv_bytes / f64::from(st.run.batch.max(1));
    let room = st.capacity - st.weight_bytes;
    let max_batch = if per_seq > 0.0 {
        (room / per_seq).floor()
    } else {
        0.0
    };
    if st.fits {
        format!(
            "Weights {} + KV cache {} = {} of the {} GB on {hw_name}: it fits (up to {} sequences at this context).",
            units::si(st.weight_bytes, "B"),
            units::si(st.kv_bytes, "B"),
            units::percent(total / st.capacity),
            units::gb(st.capacity),
            units::sig3(max_batch.max(0.0))
        )
    } else if room <= 0.0 {
        format!(
            "Does not fit: the weights alone ({}) exceed the {} GB on {hw_name}; quantised weights or more GPUs are needed.",
            units::si(st.weight_bytes, "B"),
            units::gb(st.capacity)
        )
    } else {
        format!(
            "Does not fit: weights {} + KV cache {} exceed the {} GB on {hw_name}; at this context at most {} sequences fit.",
            units::si(st.weight_bytes, "B"),
            units::si(st.kv_bytes, "B"),
            units::gb(st.capacity),
            units::sig3(max_batch.max(0.0))
        )
    }
}

/// What CUDA graphs, FlashAttention and fp8 weights would buy from here: the model
/// run with each one changed.
pub fn counterfactuals(r: &LlmRun, s: &Setting, st: &LlmStep) -> Vec<(&'static str, f64, String)> {
    let speed = |alt: LlmRun| {
        let t = step::run(&alt, s).wall;
        if t > 0.0 {
            st.wall / t
        } else {
            1.0
        }
    };
    let say = |what: &str, x: f64, on: bool| {
        if on && 1.0 / x >= HELPS_FROM {
            format!(
                "{what} are on; turning them off would make the step {:.2}× slower.",
                1.0 / x
            )
        } else if on {
            format!("{what} are on; turning them off would change the step by less than 5 %.")
        } else if x >= HELPS_FROM {
            format!("{what} would make the step {:.2}× faster.", x)
        } else {
            format!("{what} would change the step by less than 5 %.")
        }
    };
    let g = speed(LlmRun {
        graphs: !r.graphs,
        ..*r
    });
    let f = speed(LlmRun {
        flash: !r.flash,
        ..*r
    });
    let mut out = vec![
        ("graphs", g, say("CUDA graphs", g, r.graphs)),
        ("flash", f, say("FlashAttention kernels", f, r.flash)),
    ];
    if r.wdtype != WeightDtype::Fp8 {
        let q = speed(LlmRun {
            wdtype: WeightDtype::Fp8,
            ..*r
        });
        out.push(("fp8", q, say("fp8 weights", q, false)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::llm::{KvDtype, LlmModel};
    use crate::state::State;

    fn h100() -> Setting {
        let mut s = State::default();
        if let Some(p) = crate::model::hardware::preset("h100-sxm") {
            s.select_preset(p);
        }
        s.setting()
    }

    fn run8b(batch: u32, context: u32) -> LlmRun {
        LlmRun {
            config: LlmModel::Llama3_8b.config_or_toy(),
            phase: Phase::Decode,
            batch,
            context,
            wdtype: WeightDtype::Bf16,
            kvdtype: KvDtype::Bf16,
            graphs: false,
            flash: true,
        }
    }

    #[test]
    fn sentences_follow_the_state() {
        let s = h100();
        let r = run8b(1, 1024);
        let st = step::run(&r, &s);
        let d = double_batch(&r, &s, &st);
        assert!(
            d.contains("nearly free") && d.contains("memory-bound"),
            "{d}"
        );
        assert!(where_time_goes(&st).contains("reading the weights"));
        assert!(critical(&st).contains("below it"));
        assert!(capacity(&st, "H100").contains("it fits"));
        let cf = counterfactuals(&r, &s, &st);
        let fp8 = cf.iter().find(|c| c.0 == "fp8").map(|c| c.1).unwrap_or(0.0);
        assert!(fp8 > 1.5, "{fp8}");
        assert!(cf
            .iter()
            .any(|c| c.2.contains("fp8 weights would make the step")));
        // long contexts at batch 64: the KV cache, and it does not fit
        let r = run8b(64, 32768);
        let st = step::run(&r, &s);
        assert!(double_batch(&r, &s, &st).contains("own KV cache"));
        assert!(capacity(&st, "H100").starts_with("Does not fit"));
        // big batch: compute-bound
        let r = run8b(2048, 16);
        let st = step::run(&r, &s);
        assert!(critical(&st).contains("above it"));
        assert!(
            double_batch(&r, &s, &st).contains("compute-bound"),
            "{}",
            double_batch(&r, &s, &st)
        );
    }
}
