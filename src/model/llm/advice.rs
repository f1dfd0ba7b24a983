//! The `llm` widget's sentences, each built from the model run for the current
//! state and its counterfactuals (the same model with one thing changed), never
//! looked up. A change is said to help by the page's one rule ([`crate::model::verdict`]:
//! it predicts ≥ 1.05×, as the remedies do).

use super::kernels::{repeats_kv, KvRead};
use super::step::{self, LlmStep};
use super::{LlmRun, Phase, WeightDtype};
use crate::model::limit;
use crate::model::roofline::Bound;
use crate::model::timeline::Regime;

use crate::model::setting::Setting;
use crate::model::units;

use crate::model::verdict::helps;
/// Speedup from which a change is said to help (the page's one rule).
pub use crate::model::verdict::HELPS_FROM;

fn part_words(largest: &str) -> &'static str {
    match largest {
        "weights" => "reading the weights",
        "kv" => "reading the KV cache",
        "activations" => "moving activations",
        "compute" => "arithmetic on the tensor cores",
        "comm" => "waiting on the other GPUs",
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
        "comm" => sp.comm,
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
    // the copies of K and V for every query head, named where they are a large
    // part of each layer's kernel time and the activations lead
    let layer_time: f64 = st.layer.iter().map(|k| k.time).sum();
    let copies: f64 = st
        .layer
        .iter()
        .filter(|k| k.name.starts_with("repeat "))
        .map(|k| k.time)
        .sum();
    let named = if part == "activations" && copies >= 0.25 * layer_time && layer_time > 0.0 {
        format!(
            "; copying K and V out to every query head takes {} of each layer's kernel time",
            units::percent(copies / layer_time)
        )
    } else {
        String::new()
    };
    format!(
        "{}{what} takes {} ({} tokens/s); the largest part is {} ({}){named}. {}",
        if st.fits {
            ""
        } else {
            "Hypothetically (it does not fit in memory): "
        },
        units::si(st.wall, "s"),
        units::sig3(st.tokens_per_s),
        part_words(part),
        units::percent(share),
        limit::verdict(&st.limit)
    )
}

/// Below or above the critical batch, against the largest batch that fits: a
/// critical batch the memory cannot reach is said to be out of reach, and a
/// state that does not fit is said to be hypothetical. `hw_name` names the GPU;
/// `s` runs the model once more at the largest batch that fits when the critical
/// batch is out of reach (is any kernel compute-bound even there?).
pub fn critical(st: &LlmStep, s: &Setting, hw_name: &str) -> String {
    let b = f64::from(st.run.batch);
    let cb = st.critical_batch;
    let tokens = units::amount(step::tokens(&st.run), "token", "tokens");
    let head = format!(
        "The weight matmuls reach the compute roof from a batch of about {} tokens (ridge {} FLOP/B × {} B per weight ÷ 2{})",
        units::sig3(cb),
        units::sig3(st.machine.matmul_flops / st.machine.bw),
        st.run.wdtype.bytes(),
        if st.run.config.experts > 1 { ", × experts ÷ experts per token" } else { "" },
    );
    let fit = &st.fit;
    match (fit.max_batch, fit.critical_reachable) {
        (Some(max), Some(false)) => {
            let room = if max == 0 {
                format!("at this context not even the weights fit in the {} GB of the {hw_name}", units::gb(fit.capacity))
            } else {
                format!(
                    "at this context only {} {} in the {} GB of the {hw_name}",
                    units::count(max, "sequence", "sequences"),
                    if max == 1 { "fits" } else { "fit" },
                    units::gb(fit.capacity)
                )
            };
            // is any kernel on the compute roof at the largest batch that fits?
            let never = max > 0 && max <= super::limits::BATCH.1 && {
                let at_max = step::layer(&LlmRun { batch: max, ..st.run }, s);
                !at_max.iter().any(|k| k.bound == Bound::Compute && !k.floored)
            };
            format!(
                "{head}, but {room}: {}.",
                if never {
                    "the weight matmuls never get there, and no batch that fits puts any kernel of a layer on the compute roof (at the largest, every one sits under the memory roof)"
                } else {
                    "the weight matmuls never get there"
                }
            )
        }
        (Some(max), _) if !fit.fits => format!(
            "{head}; {} do not fit at this context ({max} {}), so a step at {tokens} is hypothetical.",
            units::count(st.run.batch, "sequence", "sequences"),
            if max == 1 { "does" } else { "do" }
        ),
        _ if b < cb => format!(
            "{head}; at {tokens} per step you are below it, each weight read is shared by too few tokens to keep the tensor cores busy."
        ),
        _ => {
            let whole = if st.regime == Regime::Compute {
                String::new()
            } else {
                let (part, share) = largest_part(st);
                format!(
                    ", though the step as a whole is {}: its largest part is {} ({})",
                    st.regime.label(),
                    part_words(part),
                    units::percent(share)
                )
            };
            format!("{head}; at {tokens} per step you are above it, and the weight matmuls sit on the compute roof{whole}.")
        }
    }
}

/// Memory capacity: fits or not, by how much it misses, and each single change
/// that makes it fit. Figures that are compared are printed with the digits that
/// tell them apart.
pub fn capacity(st: &LlmStep, hw_name: &str) -> String {
    let fit = fit_words(st, hw_name);
    match experts_words(st) {
        Some(e) => format!("{fit} {e}"),
        None => fit,
    }
}

/// A mixture of experts' memory and traffic: every expert held, the ones the
/// step's tokens touch read.
pub fn experts_words(st: &LlmStep) -> Option<String> {
    let c = &st.run.config;
    if c.experts <= 1 {
        return None;
    }
    let shared = match c.arch.shared {
        0 => String::new(),
        n => format!(
            " and {} every token runs",
            units::count(n, "shared expert", "shared experts")
        ),
    };
    Some(format!(
        "Memory holds all {} experts of every MoE layer; this step's {} route to {} each{shared}, so a MoE layer reads {} of its {} experts' weights (routing taken as uniform).",
        c.experts,
        units::count(super::kernels::tokens(&st.run) as u32, "token", "tokens"),
        c.top_k,
        units::sig3(st.experts_touched),
        c.experts
    ))
}

fn fit_words(st: &LlmStep, hw_name: &str) -> String {
    let f = &st.fit;
    if f.capacity <= 0.0 {
        return format!(
            "Weights {} + KV cache {}; the memory size of {hw_name} is not known.",
            units::si(f.weights, "B"),
            units::si(f.kv, "B")
        );
    }
    let total = f.weights + f.kv;
    // the reserve, in words: the rule and what it keeps back
    let kept = format!(
        "the KV cache may fill {} of what the weights leave, {} is kept for activations and CUDA graphs",
        units::percent(super::fit::KV_FRACTION),
        units::si(f.reserve, "B")
    );
    if f.fits {
        return format!(
            "Weights {} + KV cache {} = {} of the {} GB on {hw_name} ({kept}): it fits (up to {} at this context).",
            units::si(f.weights, "B"),
            units::si(f.kv, "B"),
            units::percent(total / f.capacity),
            units::gb(f.capacity),
            units::count(f.max_batch.unwrap_or(0), "sequence", "sequences")
        );
    }
    let miss = if f.weights > f.capacity {
        let (w, cap) = units::gb_apart(f.weights, f.capacity);
        format!("the weights alone ({w} GB) exceed the {cap} GB on {hw_name}")
    } else {
        let (t, cap) = units::gb_apart(total + f.reserve, f.capacity);
        format!(
            "weights {} + KV cache {} + the reserve {} = {t} GB exceed the {cap} GB on {hw_name} ({kept})",
            units::si(f.weights, "B"),
            units::si(f.kv, "B"),
            units::si(f.reserve, "B"),
        )
    };
    let fixes: Vec<String> = f.fixes.iter().map(|x| x.words()).collect();
    let cure = match fixes.len() {
        0 => "no single change of weight dtype, KV-cache dtype, context or batch makes it fit; it needs more GPUs".to_string(),
        1 => format!("it would fit with {}", fixes.join("")),
        _ => format!("it would fit with any one of: {}", fixes.join("; ")),
    };
    format!(
        "Does not fit, by {}: {miss}. The figures above are hypothetical; {cure}.",
        units::si(f.over(), "B")
    )
}

/// What compiling (fused kernels in one CUDA graph), FlashAttention, one-byte
/// weights the GPU runs (fp8, else int8) and, where the step copies K and V to
/// every query head, reading them in place ([`repeat_kv`]) would buy from here:
/// the model run with each one changed.
pub fn counterfactuals(r: &LlmRun, s: &Setting, st: &LlmStep) -> Vec<(&'static str, f64, String)> {
    let speed = |alt: LlmRun| {
        let t = step::wall(&alt, s, step::KvRead::AsWritten);
        if t > 0.0 {
            st.wall / t
        } else {
            1.0
        }
    };
    let say = |what: &str, x: f64, on: bool| {
        if on && helps(1.0 / x) {
            format!(
                "{what} are on; turning them off would make the step {:.2}× slower.",
                1.0 / x
            )
        } else if on {
            format!("{what} are on; turning them off would change the step by less than 5 %.")
        } else if helps(x) {
            format!("{what} would make the step {:.2}× faster.", x)
        } else {
            format!("{what} would change the step by less than 5 %.")
        }
    };
    let other = LlmRun {
        graphs: !r.graphs,
        ..*r
    };
    let g = speed(other);
    let f = speed(LlmRun {
        flash: !r.flash,
        ..*r
    });
    // the copies of K and V for every query head: what reading them in place
    // buys, from whichever of this step and the other one makes them
    let (eager, compiled) = if r.graphs { (&other, r) } else { (r, &other) };
    let repeat = if repeats_kv(eager, KvRead::AsWritten) && !repeats_kv(compiled, KvRead::AsWritten)
    {
        let as_written = if r.graphs {
            step::wall(eager, s, step::KvRead::AsWritten)
        } else {
            st.wall
        };
        let in_place = step::wall(eager, s, step::KvRead::InPlace);
        (in_place > 0.0).then(|| as_written / in_place)
    } else {
        None
    };
    let graphs_text = {
        let what = "Compiled kernels in one CUDA graph (torch.compile, mode=\"reduce-overhead\")";
        match repeat {
            // most of what compiling buys is the attention reading the grouped
            // K/V in place: credited to that, the rest to fusion and the graph
            Some(x) if helps(x) => {
                let whole = if r.graphs { 1.0 / g } else { g };
                let (all, rep) = limit::two_speedups(whole, x);
                let rest = units::sig3(whole / x);
                if r.graphs {
                    format!(
                        "{what} are on; turning them off would make the step {all}× slower, {rep}× of it because the eager attention would copy K and V out to every query head (repeat_interleave) and {rest}× from the separate kernels and their launches."
                    )
                } else {
                    format!(
                        "{what} would make the step {all}× faster, not all through the graph: {rep}× of it is the attention reading the grouped K/V in place, as Inductor's generated decode attention does (an eager attention that reads grouped K/V gets that alone), and {rest}× is fusing the kernels and launching them as one graph."
                    )
                }
            }
            _ => say(what, g, r.graphs),
        }
    };
    let mut out = vec![
        ("graphs", g, graphs_text),
        ("flash", f, say("FlashAttention kernels", f, r.flash)),
    ];
    if let Some(text) = repeat_kv(r, s, st) {
        out.push(text);
    }
    // one-byte weights the GPU runs (the one dtype rule): fp8 where it has
    // fp8, else int8 (weight-only, dequantised in the kernel) in place of bf16
    let small = if s.hw.supports(crate::model::hardware::Dtype::Fp8) {
        (r.wdtype != WeightDtype::Fp8).then_some(WeightDtype::Fp8)
    } else {
        (r.wdtype == WeightDtype::Bf16).then_some(WeightDtype::Int8)
    };
    if let Some(w) = small {
        let alt = LlmRun { wdtype: w, ..*r };
        let q = speed(alt);
        // and what they do to the fit (the figures of a state that does not fit
        // are hypothetical; int4 weights are smaller than fp8)
        let fits = super::fit::fits(&alt, st.capacity);
        let mut text = say(&format!("{} weights", w.id()), q, false);
        match (st.fits, fits) {
            (false, true) => text.push_str(" They would also make it fit in memory."),
            (false, false) => text.push_str(" It would still not fit in memory."),
            (true, false) => text.push_str(" But it would no longer fit in memory."),
            (true, true) => {}
        }
        out.push((w.id(), q, text));
    }
    out
}

/// Grouped-query attention's copies ([`repeats_kv`]): what they are, how much
/// they move, and what an attention that reads the grouped K/V in place would
/// buy (the model run without them) and which changes give one. `None` where
/// the step makes no copies.
pub fn repeat_kv(r: &LlmRun, s: &Setting, st: &LlmStep) -> Option<(&'static str, f64, String)> {
    if !repeats_kv(r, KvRead::AsWritten) {
        return None;
    }
    let c = &r.config;
    let tp = f64::from(r.par.tp.max(1));
    let keys = f64::from(r.batch.max(1)) * f64::from(r.context.max(1));
    // K and V written for every query head, and the cache they copy, per layer
    // on one GPU (its heads)
    let written = 2.0 * keys * f64::from(c.hidden) * r.kvdtype.bytes() / tp;
    let cache = 2.0 * keys * c.kv_width() * r.kvdtype.bytes() / tp;
    let t = step::wall(r, s, step::KvRead::InPlace);
    let x = if t > 0.0 { st.wall / t } else { 1.0 };
    let gain = if helps(x) {
        format!("would make the step {x:.2}× faster")
    } else {
        "would change the step by less than 5 %".to_string()
    };
    let how = if r.phase == Phase::Decode {
        "SDPA's enable_gqa=True, FlashAttention's grouped heads, or compiling, whose generated decode attention indexes the cache"
    } else {
        "SDPA's enable_gqa=True or FlashAttention's grouped heads; compiling keeps the copies, as the prefill's attention stays a library kernel that takes K and V for every head"
    };
    Some((
        "repeat_kv",
        x,
        format!(
            "Grouped-query attention: {} query heads share {} K/V heads, but this step first copies K and V out to every query head (repeat_interleave, as gpt-fast's model.py does; Hugging Face's repeat_kv alike): {} written per layer on each GPU, {}× the {} of cache they copy, then read back by the attention. An attention that reads the grouped K/V in place ({how}) {gain}.",
            c.heads,
            c.kv_heads,
            units::si(written, "B"),
            units::sig3(written / cache.max(f64::MIN_POSITIVE)),
            units::si(cache, "B"),
        ),
    ))
}

/// What more or fewer GPUs, a faster link and overlap would buy: the
/// model run with each changed (twice and half the tensor-parallel GPUs read
/// from the scaling sweep `sc`, which ran them). Twice the GPUs is offered while
/// the model splits over them; the rest only where more than one GPU runs.
pub fn parallel_counterfactuals(
    r: &LlmRun,
    s: &Setting,
    st: &LlmStep,
    sc: &step::Scaling,
) -> Vec<(&'static str, f64, String)> {
    let ratio = |t: f64| if t > 0.0 { st.wall / t } else { 1.0 };
    let speed = |alt: &LlmRun| ratio(step::wall(alt, s, step::KvRead::AsWritten));
    // the sweep's point at `tp` GPUs: its speedup over this step and whether it fits
    let at = |tp: u32| {
        sc.points
            .iter()
            .find(|p| p.tp == tp)
            .map(|p| (ratio(p.wall), p.fits))
    };
    let change = |x: f64| {
        if helps(x) {
            format!("make the step {x:.2}× faster")
        } else if helps(1.0 / x) {
            format!("make the step {:.2}× slower", 1.0 / x)
        } else {
            "change the step by less than 5 %".to_string()
        }
    };
    let fit_words = |fits: bool| match (st.fits, fits) {
        (false, true) => " and it would fit in memory",
        (true, false) => ", but it would no longer fit in memory",
        _ => "",
    };
    let mut out = Vec::new();
    let tp = r.par.tp.max(1);
    if let Some((x, fits)) = at(tp * 2) {
        out.push((
            "tp_up",
            x,
            format!(
                "Tensor parallelism over {} would {}{} ({} tokens/s per GPU instead of {}).",
                units::count(tp * 2, "GPU", "GPUs"),
                change(x),
                fit_words(fits),
                units::sig3(st.tokens_per_s * x / f64::from(2 * r.par.gpus())),
                units::sig3(st.tokens_per_s / f64::from(r.par.gpus())),
            ),
        ));
    }
    if let Some((x, fits)) = (tp > 1).then(|| at(tp / 2)).flatten() {
        out.push((
            "tp_down",
            x,
            format!(
                "Half the tensor-parallel GPUs ({}) would {}{}.",
                tp / 2,
                change(x),
                fit_words(fits)
            ),
        ));
    }
    if r.par.gpus() > 1 {
        let x = st.limit.link2;
        out.push((
            "link",
            x,
            format!(
                "A link with 2× the bandwidth and half the latency of {} would {}.",
                r.par.link.name,
                change(x)
            ),
        ));
        let alt = LlmRun {
            par: super::Parallel {
                overlap: !r.par.overlap,
                ..r.par
            },
            ..*r
        };
        let x = speed(&alt);
        out.push((
            "overlap",
            x,
            if r.par.overlap {
                format!(
                    "Collectives are overlapped with the kernels after them (the ideal: a decoder's next layer needs the sum, so only independent work can hide them); in line they would {}.",
                    change(x)
                )
            } else {
                format!(
                    "Overlapping the collectives with the kernels after them (the ideal, an upper bound) would {}.",
                    change(x)
                )
            },
        ));
    }
    out
}

/// What running on more GPUs does, in words: the collectives' share of the
/// step, the scaling efficiency, where adding GPUs stops paying, and (for an
/// eager step) why the CPU's launches do not shrink with more GPUs. Empty on
/// one GPU.
pub fn parallel(r: &LlmRun, st: &LlmStep, sc: &step::Scaling) -> Vec<String> {
    let mut out = Vec::new();
    let n = r.par.gpus();
    if n > 1 {
        let spread = if r.par.dep > 1 {
            format!("DEP {}", r.par.dep)
        } else {
            format!("{} tensor parallel", r.par.tp)
        };
        out.push(format!(
            "On {} ({spread} × {}) over {}: {} of the step waits on the other GPUs, {} per pass through the model.",
            units::count(n, "GPU", "GPUs"),
            units::count(r.par.pp, "pipeline stage", "pipeline stages"),
            r.par.link.name,
            units::percent(st.split.comm / st.wall.max(f64::MIN_POSITIVE)),
            units::count(st.collectives, "collective", "collectives"),
        ));
        if r.par.pp > 1 {
            out.push(if r.phase == Phase::Prefill && r.batch > 1 {
                format!(
                    "The pipeline runs the {} sequences as micro-batches one stage apart; each GPU still idles {} of the step while the pipeline fills and drains.",
                    r.batch,
                    units::percent(f64::from(r.par.pp - 1) / f64::from(r.batch + r.par.pp - 1)),
                )
            } else {
                "A pipeline lets the model fit, but this step passes through the stages one after another: each GPU works on its stage and waits for the rest.".to_string()
            });
        }
        if !r.graphs && st.regime == Regime::Overhead {
            out.push("Each GPU has its own CPU process launching every one of its kernels, so more GPUs do not shorten the launches: the eager step stays overhead-bound.".to_string());
        }
    }
    let e = sc.efficiency;
    if r.par.tp > e.base {
        out.push(format!(
            "Scaling efficiency at tensor parallel {}: {}, that is {}× the speed of {} on {}× as many GPUs.",
            r.par.tp,
            units::percent(e.value),
            units::sig3(e.speedup),
            if e.base == 1 {
                "one GPU".to_string()
            } else {
                format!("{} (the fewest that fit)", units::count(e.base, "GPU", "GPUs"))
            },
            units::sig3(f64::from(r.par.tp) / f64::from(e.base)),
        ));
    }
    out.push(match sc.stops_paying {
        Some(at) => format!(
            "Over {}, adding tensor-parallel GPUs stops paying {}: the next doubling buys less than {}×.",
            r.par.link.name,
            crate::model::parallel::stops_words(Some(at)),
            crate::model::parallel::PAYS
        ),
        None => format!(
            "Over {}, every doubling of the tensor-parallel GPUs up to 8 still buys at least {}×.",
            r.par.link.name,
            crate::model::parallel::PAYS
        ),
    });
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
        s.setting
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
            par: crate::model::parallel::Parallel::ONE,
        }
    }

    #[test]
    fn sentences_follow_the_state() {
        let s = h100();
        // eager at batch 1: the launches set the pace
        let r = run8b(1, 1024);
        let st = step::full(&r, &s);
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
        let st = step::full(&r, &s);
        let d = double_batch(&r, &s, &st);
        assert!(
            d.contains("here it misleads: the weights, most of its bytes, are read once")
                && d.contains("memory-bandwidth-bound"),
            "{d}"
        );
        assert!(where_time_goes(&st).contains("reading the weights"));
        assert!(critical(&st, &s, "H100").contains("below it"));
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
        let st = step::full(&r, &s);
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
        let c = capacity(
            &step::plain(&r70, &h200.setting, step::KvRead::AsWritten),
            "H200",
        );
        assert!(
            c.contains("the weights alone (141.1 GB) exceed the 141.0 GB"),
            "{c}"
        );
        // big batch: compute-bound
        let r = LlmRun {
            graphs: true,
            ..run8b(2048, 16)
        };
        let st = step::full(&r, &s);
        assert!(critical(&st, &s, "H100").contains("above it"));
        let d = double_batch(&r, &s, &st);
        assert!(d.contains("compute-bound"), "{d}");
    }

    fn on(hw: &str) -> Setting {
        let mut s = State::default();
        if let Some(p) = crate::model::hardware::preset(hw) {
            s.select_preset(p);
        }
        s.setting
    }

    #[test]
    fn feasibility_in_words() {
        let h100 = on("h100-sxm");
        // Llama-3-8B at batch 512 and 4 k on an H100: the KV cache does
        // not fit, the critical batch is out of reach, and the page says so instead
        // of placing the weight matmuls on the compute roof
        let r = run8b(512, 4096);
        let st = step::full(&r, &h100);
        assert!(!st.fits);
        let c = critical(&st, &h100, "H100");
        assert!(!c.contains("sit on the compute roof"), "{c}");
        let max = st.fit.max_batch.unwrap_or(0);
        assert!(
            c.contains(&format!(
                "only {max} sequences fit in the 80 GB of the H100"
            )),
            "{c}"
        );
        assert!(
            c.contains("never get there") && c.contains("no batch that fits puts any kernel"),
            "{c}"
        );
        let cap = capacity(&st, "H100");
        assert!(
            cap.starts_with("Does not fit, by ") && cap.contains("hypothetical"),
            "{cap}"
        );
        assert!(
            cap.contains(&format!("a batch of at most {max} sequences")),
            "{cap}"
        );
        assert!(cap.contains("a context of at most "), "{cap}");
        assert!(where_time_goes(&st).starts_with("Hypothetically (it does not fit in memory): "));
        // Llama-3-70B in bf16 on an H100: fp8 weights or a second GPU make it fit
        let r70 = LlmRun {
            config: LlmModel::Llama3_70b.config_or_toy(),
            ..run8b(1, 4096)
        };
        let st = step::full(&r70, &h100);
        let cap = capacity(&st, "H100");
        assert!(
            cap.contains("the weights alone (141 GB) exceed the 80 GB on H100"),
            "{cap}"
        );
        assert!(
            cap.ends_with(
                "it would fit with any one of: fp8 weights; tensor parallelism over 2 GPUs."
            ),
            "{cap}"
        );
        assert!(critical(&st, &h100, "H100").contains("not even the weights fit"));
        // the fp8 weights' counterfactual sentence
        fn fp8_of(cf: &[(&str, f64, String)]) -> String {
            cf.iter()
                .find(|c| c.0 == "fp8")
                .map(|c| c.2.clone())
                .unwrap_or_default()
        }
        // the fp8 counterfactual says it makes the model fit
        let cf = counterfactuals(&r70, &h100, &st);
        let fp8 = fp8_of(&cf);
        assert!(
            fp8.ends_with("They would also make it fit in memory."),
            "{fp8}"
        );
        // at batch 512 and 4 k, fp8 weights leave the KV cache too big
        let st512 = step::full(&run8b(512, 4096), &h100);
        let cf = counterfactuals(&run8b(512, 4096), &h100, &st512);
        let fp8 = fp8_of(&cf);
        assert!(fp8.ends_with("It would still not fit in memory."), "{fp8}");
        // int4 weights that fit where fp8 ones would not (Mixtral at 80 × 4 k on an
        // H100): said so
        let mx = LlmRun {
            config: LlmModel::Mixtral8x7b.config_or_toy(),
            wdtype: WeightDtype::Int4,
            ..run8b(80, 4096)
        };
        let st4 = step::full(&mx, &h100);
        assert!(st4.fits, "{}", capacity(&st4, "H100"));
        let cf = counterfactuals(&mx, &h100, &st4);
        let fp8 = fp8_of(&cf);
        assert!(
            fp8.ends_with("But it would no longer fit in memory."),
            "{fp8}"
        );
        // a V100 has no fp8: none is offered (and int4 weights are smaller than
        // the int8 it runs)
        let v100 = on("v100");
        let mx1 = LlmRun { batch: 1, ..mx };
        let cf = counterfactuals(&mx1, &v100, &step::full(&mx1, &v100));
        assert!(
            cf.iter()
                .all(|c| !c.2.contains("fp8") && !c.2.contains("int8")),
            "{cf:?}"
        );
        // on an A100, which has no fp8 tensor cores, the 1-byte weights named are int8
        let a100 = on("a100-80gb");
        let cap = capacity(&step::plain(&r70, &a100, step::KvRead::AsWritten), "A100");
        assert!(
            cap.ends_with(
                "it would fit with any one of: int8 weights; tensor parallelism over 2 GPUs."
            ),
            "{cap}"
        );
        // at batch 1 and 4 k on an H100, Llama-3-8B fits, below the critical batch
        let st = step::full(&run8b(1, 4096), &h100);
        assert!(st.fits && st.fit.critical_reachable == Some(false));
        assert!(capacity(&st, "H100").contains(&format!(
            "up to {} sequences",
            st.fit.max_batch.unwrap_or(0)
        )));
        // a short context reaches the critical batch; above it with a step that is
        // not compute-bound, the sentence says both
        let mut both = 0;
        for ctx in [64, 256, 1024, 2048] {
            for batch in [512, 1024, 2048] {
                let r = LlmRun {
                    graphs: true,
                    ..run8b(batch, ctx)
                };
                let st = step::full(&r, &h100);
                let c = critical(&st, &h100, "H100");
                if st.fits && f64::from(batch) >= st.critical_batch {
                    assert!(
                        c.contains("above it, and the weight matmuls sit on the compute roof"),
                        "{c}"
                    );
                    if st.regime != crate::model::timeline::Regime::Compute {
                        both += 1;
                        assert!(
                            c.contains(&format!(
                                "though the step as a whole is {}",
                                st.regime.label()
                            )),
                            "{c}"
                        );
                    }
                }
            }
        }
        assert!(
            both > 0,
            "no state above the critical batch whose step is not compute-bound"
        );
    }

    #[test]
    fn parallel_sentences_are_the_models_numbers() {
        let s = h100();
        let r = LlmRun {
            config: LlmModel::Llama3_70b.config_or_toy(),
            graphs: true,
            par: crate::model::parallel::Parallel {
                tp: 8,
                pp: 1,
                dep: 1,
                link: crate::model::parallel::link("pcie4")
                    .copied()
                    .unwrap_or(crate::model::parallel::Link::NONE),
                overlap: false,
                rank_tokens: 0,
            },
            ..run8b(64, 4096)
        };
        let st = step::full(&r, &s);
        let sc = step::scaling(&r, &s);
        let v = parallel(&r, &st, &sc);
        assert!(v[0].starts_with(&format!(
            "On 8 GPUs (8 tensor parallel × 1 pipeline stage) over PCIe 4.0 x16: {} of the step waits on the other GPUs, 160 collectives",
            units::percent(st.split.comm / st.wall)
        )), "{}", v[0]);
        // 70B fits from 4 H100s at this batch: efficiency is against 4
        assert_eq!(sc.efficiency.base, 4);
        assert!(v.iter().any(|t| t.starts_with(&format!(
            "Scaling efficiency at tensor parallel 8: {}, that is {}× the speed of 4 GPUs (the fewest that fit) on 2× as many GPUs.",
            units::percent(sc.efficiency.value),
            units::sig3(sc.efficiency.speedup)
        ))), "{v:?}");
        // one GPU: only where scaling stops paying
        let one = LlmRun {
            par: crate::model::parallel::Parallel { tp: 1, ..r.par },
            ..r
        };
        let v1 = parallel(&one, &step::full(&one, &s), &step::scaling(&one, &s));
        assert_eq!(v1.len(), 1, "{v1:?}");
    }

    /// Llama-3-70B, 8 H100s, fp8 weights and cache, 128 k
    /// context, 16 sequences, eager: most of the step is the copies of K and V
    /// for every query head; the sentences say what they are and credit what
    /// compiling buys to reading the grouped K/V in place, not to the graph.
    #[test]
    fn the_repeat_of_k_and_v_is_named_and_credited() {
        let s = h100();
        let r = LlmRun {
            config: LlmModel::Llama3_70b.config_or_toy(),
            wdtype: WeightDtype::Fp8,
            kvdtype: KvDtype::Fp8,
            par: crate::model::parallel::Parallel {
                tp: 8,
                ..crate::model::parallel::Parallel::ONE
            },
            ..run8b(16, 131072)
        };
        let st = step::full(&r, &s);
        let w = where_time_goes(&st);
        assert!(
            w.contains("the largest part is moving activations")
                && w.contains("copying K and V out to every query head takes"),
            "{w}"
        );
        let cf = counterfactuals(&r, &s, &st);
        let get = |id: &str| cf.iter().find(|c| c.0 == id).cloned();
        let (_, x, rep) = get("repeat_kv").expect("the repeat's sentence");
        // the copies are more than half the step (2.3× at the measured CPU cost
        // of a model's eager op, 14.8 µs on the lent H100's host)
        assert!(x > 2.0, "{x}");
        assert!(
            rep.contains("64 query heads share 8 K/V heads")
                && rep.contains("enable_gqa=True")
                && rep.contains(&format!("would make the step {x:.2}× faster")),
            "{rep}"
        );
        // 16 × 131072 positions × 2 (K, V) × 8192 wide ÷ 8 GPUs × 1 byte
        assert!(
            rep.contains("4.29 GB written per layer on each GPU, 8× the 537 MB"),
            "{rep}"
        );
        let (_, g, graphs) = get("graphs").expect("the graphs' sentence");
        assert!(g > x, "{g} vs {x}");
        assert!(
            graphs.contains(&format!(
                "{}× of it is the attention reading the grouped K/V in place",
                limit::two_speedups(g, x).1
            )),
            "{graphs}"
        );
        // the part left to fusion and the graph is what they buy without the copies
        let ip = step::plain(&r, &s, step::KvRead::InPlace).wall;
        let compiled = step::plain(&LlmRun { graphs: true, ..r }, &s, step::KvRead::AsWritten).wall;
        assert!(
            graphs.contains(&format!(
                "{}× is fusing the kernels",
                units::sig3(ip / compiled)
            )),
            "{graphs}"
        );
        // compiled, the step makes no copies and says so from the other side
        let on = LlmRun { graphs: true, ..r };
        let st_on = step::full(&on, &s);
        let cf_on = counterfactuals(&on, &s, &st_on);
        assert!(cf_on.iter().all(|c| c.0 != "repeat_kv"));
        let off = &cf_on.iter().find(|c| c.0 == "graphs").expect("graphs").2;
        assert!(
            off.contains("because the eager attention would copy K and V out to every query head"),
            "{off}"
        );
        // a model whose heads each have their own K and V makes no copies
        let mha = LlmRun {
            config: crate::model::llm::LlmConfig {
                kv_heads: 32,
                ..LlmModel::Llama3_8b.config_or_toy()
            },
            ..run8b(16, 4096)
        };
        let st = step::full(&mha, &s);
        assert!(counterfactuals(&mha, &s, &st)
            .iter()
            .all(|c| c.0 != "repeat_kv" && !c.2.contains("grouped K/V")));
        // prefill: compiling keeps the copies, and the sentence says so
        let pre = LlmRun {
            phase: Phase::Prefill,
            graphs: true,
            ..run8b(1, 4096)
        };
        let st = step::full(&pre, &s);
        let cf = counterfactuals(&pre, &s, &st);
        let rep = &cf
            .iter()
            .find(|c| c.0 == "repeat_kv")
            .expect("prefill copies")
            .2;
        assert!(rep.contains("compiling keeps the copies"), "{rep}");
    }

    /// No sentence offers fp8 weights on a GPU without fp8
    /// (the one dtype rule); there the one-byte weights offered are int8.
    #[test]
    fn one_byte_weights_offered_are_ones_the_gpu_runs() {
        for p in crate::model::hardware::PRESETS {
            let s = on(p.id);
            let r = run8b(1, 4096);
            let st = step::full(&r, &s);
            let cf = counterfactuals(&r, &s, &st);
            let said: Vec<&String> = cf.iter().map(|c| &c.2).collect();
            let fp8 = said.iter().any(|t| t.contains("fp8"));
            assert_eq!(
                fp8,
                p.supports(crate::model::hardware::Dtype::Fp8),
                "{}: {said:?}",
                p.id
            );
            if !fp8 {
                assert!(
                    said.iter().any(|t| t.starts_with("int8 weights would")),
                    "{}: {said:?}",
                    p.id
                );
            }
            assert!(!capacity(&st, p.name).contains("fp8") || fp8, "{}", p.id);
        }
    }
}
