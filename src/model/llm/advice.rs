//! The `llm` widget's sentences, each built from the model run for the current
//! state and its counterfactuals (the same model with one thing changed), never
//! looked up. A change is said to help when it predicts ≥ 1.05× (as the remedies do).

use super::step::{self, LlmStep};
use super::{LlmRun, Phase, WeightDtype};
use crate::model::limit;

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
        _ => "fixed cost per kernel (launch waits, kernel floors)",
    }
}

/// The largest part of the split and its share of the wall time.
fn largest_part(st: &LlmStep) -> (&'static str, f64) {
    let sp = st.split;
    let big = sp.largest();
    let v = match big {
        "weights" => sp.weights,
        "kv" => sp.kv,
        "activations" => sp.activations,
        "compute" => sp.compute,
        _ => sp.overhead,
    };
    (big, v / st.wall.max(f64::MIN_POSITIVE))
}

/// What doubling the batch does, in words: the essay's quick test, read against
/// what limits the step ([`crate::model::limit`]). The test is one-way: a step the
/// launches pace barely slows down when the batch doubles, but a step that barely
/// slows down need not be paced by launches (weights read once for the whole batch
/// give the same signature), and the sentence says which case this is.
pub fn double_batch(r: &LlmRun, s: &Setting, st: &LlmStep) -> String {
    double_batch_with(r, st, step::double_batch_ratio(r, s))
}

/// [`double_batch`] with the ratio already computed.
pub fn double_batch_with(r: &LlmRun, st: &LlmStep, ratio: f64) -> String {
    let cause = match largest_part(st).0 {
        "weights" => "the weights, most of its bytes, are read once for the whole batch",
        "kv" => "the KV cache it reads is small next to the rest",
        _ => "most of its work does not grow with the batch",
    };
    limit::doubling(r.batch.saturating_mul(2), ratio, &st.limit, cause)
}

/// Where the time goes, and what limits the step (with the contrast sentence when
/// the largest share and the limit disagree).
pub fn where_time_goes(st: &LlmStep) -> String {
    let what = match st.run.phase {
        Phase::Decode => "One decode step",
        Phase::Prefill => "The prefill",
    };
    let (part, share) = largest_part(st);
    format!(
        "{what} takes {} ({} tokens/s); the largest part is {} ({}). {}",
        units::si(st.wall, "s"),
        units::sig3(st.tokens_per_s),
        part_words(part),
        units::percent(share),
        limit::verdict(&st.limit)
    )
}

/// Below or above the critical batch.
pub fn critical(st: &LlmStep) -> String {
    let b = f64::from(st.run.batch);
    let cb = st.critical_batch;
    let side = if b < cb {
        "below it, each weight read is shared by too few tokens to keep the tensor cores busy"
    } else {
        "above it, the weight matmuls sit on the compute roof"
    };
    format!(
        "The weight matmuls reach the compute roof from a batch of about {} tokens (ridge {} FLOP/B × {} B per weight ÷ 2{}); at {} per step you are {side}.",
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
        let (w, cap) = units::gb_apart(st.weight_bytes, st.capacity);
        format!(
            "Does not fit: the weights alone ({w} GB) exceed the {cap} GB on {hw_name}; quantised weights or more GPUs are needed.",
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
        let t = step::run_plain(&alt, s).wall;
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
        (
            "graphs",
            g,
            say(
                "Compiled kernels in one CUDA graph (torch.compile, mode=\"reduce-overhead\")",
                g,
                r.graphs,
            ),
        ),
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
        // eager at batch 1: the launches set the pace
        let r = run8b(1, 1024);
        let st = step::run(&r, &s);
        let d = double_batch(&r, &s, &st);
        assert!(
            d.contains("nearly free") && d.contains("overhead-bound"),
            "{d}"
        );
        let w = where_time_goes(&st);
        assert!(
            w.contains("The step is overhead-bound: half the CPU overhead alone buys"),
            "{w}"
        );
        // compiled at batch 1: the weights; the quick test misleads, and says why
        let r = LlmRun {
            graphs: true,
            ..run8b(1, 1024)
        };
        let st = step::run(&r, &s);
        let d = double_batch(&r, &s, &st);
        assert!(
            d.contains("here it misleads: the weights, most of its bytes, are read once")
                && d.contains("memory-bandwidth-bound"),
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
        let r = LlmRun {
            graphs: true,
            ..run8b(64, 32768)
        };
        let st = step::run(&r, &s);
        let d = double_batch(&r, &s, &st);
        assert!(d.contains("the time grows with the work"), "{d}");
        assert_eq!(st.split.largest(), "kv");
        assert!(capacity(&st, "H100").starts_with("Does not fit"));
        // Llama-3-70B on an H200: 141.1 GB of weights against 141 GB, said apart
        let mut h200 = State::default();
        if let Some(p) = crate::model::hardware::preset("h200") {
            h200.select_preset(p);
        }
        let r70 = LlmRun {
            config: LlmModel::Llama3_70b.config_or_toy(),
            ..run8b(1, 16)
        };
        let c = capacity(&step::run_plain(&r70, &h200.setting()), "H200");
        assert!(
            c.contains("the weights alone (141.1 GB) exceed the 141.0 GB"),
            "{c}"
        );
        // big batch: compute-bound
        let r = LlmRun {
            graphs: true,
            ..run8b(2048, 16)
        };
        let st = step::run(&r, &s);
        assert!(critical(&st).contains("above it"));
        let d = double_batch(&r, &s, &st);
        assert!(d.contains("compute-bound"), "{d}");
    }
}
