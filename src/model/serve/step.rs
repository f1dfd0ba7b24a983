//! One engine step of continuous batching: the decode tokens of the running
//! sequences and a chunk of prompt tokens in one pass through the model
//! (chunked prefill, as vLLM and TensorRT-LLM schedule it), timed by the `llm`
//! widget's step model ([`crate::model::llm::step`]) on the merged kernels.
//!
//! **The merge.** Three runs of [`launch::kernels`] with the same model, dtypes, graphs,
//! FlashAttention and spread: `dec`, a decode step of the `d` decoding sequences
//! at their mean context; `pre`, the prefill of one whole prompt of `isl` tokens;
//! `all`, a decode step of all `T = d + q` tokens (`q` the chunk's prompt tokens).
//! Every kernel whose work grows with the tokens alone (the projections, the MLP,
//! norms, RoPE, residuals, the embedding, the all-reduces) is `all`'s: one matmul
//! over `T` rows reads its weights once for the decode and the prompt tokens
//! together, which is why a prefill chunk rides along a memory-bound decode step
//! almost for free and a decode token rides along a compute-bound chunk. The
//! attention and the LM head differ by phase: they are `dec`'s plus `q / isl` of
//! `pre`'s (a chunk of `q` prompt tokens does `q / isl` of a whole prompt's
//! attention on average over its chunks; the LM head runs on the last token of a
//! prompt only).
//!
//! A step with no prompt tokens is the `llm` widget's decode step itself
//! ([`step::run_plain`]), so one request reproduces it exactly.

use crate::model::llm::step::{self, LlmKernel, Part, Split};
use crate::model::llm::{launch, LlmRun, Phase};
use crate::model::setting::Setting;
use crate::model::timeline::Timeline;
use crate::model::workload::Machine;

/// One mixed step and where its time goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Mixed {
    /// Sequences decoding (one token each) and prompt tokens prefilled.
    pub decode: u32,
    pub prompt: f64,
    /// Wall time of the step on the GPU, seconds (the engine's CPU time is not
    /// in it).
    pub wall: f64,
    pub split: Split,
    /// One GPU's FLOPs and DRAM bytes in the step.
    pub flops: f64,
    pub bytes: f64,
    /// The merged kernels (one GPU's share) and the machine they ran on.
    pub kernels: Vec<LlmKernel>,
    pub machine: Machine,
    pub timeline: Timeline,
}

/// `run` as a decode step of `batch` sequences at `context` tokens.
pub fn decode_run(run: &LlmRun, batch: u32, context: u32) -> LlmRun {
    LlmRun {
        phase: Phase::Decode,
        batch: batch.max(1),
        context: context.max(1),
        ..*run
    }
}

/// The prefill of one prompt of `isl` tokens.
pub fn prefill_run(run: &LlmRun, isl: u32) -> LlmRun {
    LlmRun {
        phase: Phase::Prefill,
        batch: 1,
        context: isl.max(1),
        ..*run
    }
}

/// Whether kernel lists `a` and `b` are the same kernels in the same order
/// (names may differ only in the attention, whose kernels depend on the phase).
fn aligned(a: &[LlmKernel], b: &[LlmKernel]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.part == y.part && (x.part == Part::Attention || x.group.name == y.group.name)
        })
}

/// `x·kx + y·ky` of two kernels of the same place: FLOPs, KV-cache and
/// activation bytes add, weights are read once.
fn combine(x: &LlmKernel, kx: f64, y: &LlmKernel, ky: f64) -> LlmKernel {
    let act = |k: &LlmKernel| (k.group.bytes - k.weight_bytes - k.kv_bytes).max(0.0);
    let weight_bytes = if kx > 0.0 { x.weight_bytes } else { 0.0 }.max(if ky > 0.0 {
        y.weight_bytes
    } else {
        0.0
    });
    let kv_bytes = kx * x.kv_bytes + ky * y.kv_bytes;
    let mut out = if kx > 0.0 { x.clone() } else { y.clone() };
    out.group.flops = kx * x.group.flops + ky * y.group.flops;
    out.group.bytes = weight_bytes + kv_bytes + kx * act(x) + ky * act(y);
    out.weight_bytes = weight_bytes;
    out.kv_bytes = kv_bytes;
    out
}

/// The kernels of `r` that differ by phase, built cheaply: one layer's (its
/// attention) and the LM head's, from a one-layer model of the same shape (the
/// kernels around the layers do not depend on how many there are).
fn by_phase(r: &LlmRun) -> (Vec<LlmKernel>, Vec<LlmKernel>) {
    let layer = launch::layer_kernels(r);
    let one = LlmRun {
        config: crate::model::llm::LlmConfig {
            layers: 1,
            ..r.config
        },
        par: crate::model::llm::Parallel { pp: 1, ..r.par },
        ..*r
    };
    let head = launch::kernels(&one)
        .into_iter()
        .filter(|k| !k.in_layer && k.part == Part::LmHead)
        .collect();
    (layer, head)
}

/// The merged kernels of a step that decodes `decode` sequences at `context`
/// tokens and prefills `prompt` tokens of prompts of `isl` tokens (see the module
/// docs), and the run whose shape the step's shared kernels have.
pub fn kernels_of(
    run: &LlmRun,
    decode: u32,
    context: u32,
    prompt: f64,
    isl: u32,
) -> (Vec<LlmKernel>, LlmRun) {
    let q = prompt.max(0.0);
    let total = (f64::from(decode) + q)
        .round()
        .clamp(1.0, f64::from(u32::MAX)) as u32;
    let all = decode_run(run, total, context);
    let ks_all = launch::kernels(&all);
    if q <= 0.0 {
        return (ks_all, all);
    }
    let kd = if decode > 0 { 1.0 } else { 0.0 };
    let kp = q / f64::from(isl.max(1));
    let (layer_all, head_all) = by_phase(&all);
    let (layer_d, head_d) = by_phase(&decode_run(run, decode, context));
    let (layer_p, head_p) = by_phase(&prefill_run(run, isl));
    let n = layer_all.len();
    if !(aligned(&layer_all, &layer_d)
        && aligned(&layer_all, &layer_p)
        && aligned(&head_all, &head_d)
        && aligned(&head_all, &head_p))
        || n == 0
    {
        // (never for the models offered: `tests::every_shape_aligns`) the prompt
        // tokens are priced as decode tokens at the decode context
        return (ks_all, all);
    }
    let (mut in_layer, mut head) = (0usize, 0usize);
    let merged = ks_all
        .iter()
        .map(|a| {
            if a.in_layer {
                let i = in_layer % n;
                in_layer += 1;
                match (a.part, layer_d.get(i), layer_p.get(i)) {
                    (Part::Attention, Some(d), Some(p)) => combine(d, kd, p, kp),
                    _ => a.clone(),
                }
            } else if a.part == Part::LmHead {
                let i = head;
                head += 1;
                match (head_d.get(i), head_p.get(i)) {
                    (Some(d), Some(p)) => combine(d, kd, p, kp),
                    _ => a.clone(),
                }
            } else {
                a.clone()
            }
        })
        .collect();
    (merged, all)
}

/// The step of `decode` sequences at `context` tokens with `prompt` prompt tokens
/// of `isl`-token prompts, on `setting`.
pub fn mixed(
    run: &LlmRun,
    decode: u32,
    context: u32,
    prompt: f64,
    isl: u32,
    setting: &Setting,
) -> Mixed {
    let (ks, shape) = kernels_of(run, decode, context, prompt, isl);
    let m = step::machine(&shape, setting);
    let gs = step::groups(&shape, &ks, setting);
    let tl = step::simulate(&shape, &gs, &m);
    let split = step::split_of(&ks, &gs, &m, &tl);
    let (mut flops, mut bytes) = (0.0, 0.0);
    for g in &gs {
        flops += g.flops;
        if !matches!(g.unit, crate::model::workload::Unit::Collective { .. }) {
            bytes += g.bytes;
        }
    }
    Mixed {
        decode,
        prompt: prompt.max(0.0),
        wall: tl.wall,
        split,
        flops,
        bytes,
        kernels: ks,
        machine: m,
        timeline: tl,
    }
}

/// The GPU time of a step of `decode` sequences at `context` tokens and `prompt`
/// prompt tokens: with no prompt tokens, the `llm` widget's decode step
/// ([`step::run_plain`]); else the merged step ([`mixed`]).
pub fn wall(
    run: &LlmRun,
    decode: u32,
    context: u32,
    prompt: f64,
    isl: u32,
    setting: &Setting,
) -> f64 {
    if prompt <= 0.0 {
        step::run_plain(&decode_run(run, decode, context), setting).wall
    } else {
        mixed(run, decode, context, prompt, isl, setting).wall
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::llm::{KvDtype, LlmModel, WeightDtype};
    use crate::model::parallel::{link, Link, Parallel};

    pub(crate) fn h100() -> Setting {
        crate::model::llm::measured::h100_setting()
    }

    fn run(model: LlmModel, tp: u32, graphs: bool, flash: bool) -> LlmRun {
        LlmRun {
            config: model.config_or_toy(),
            phase: Phase::Decode,
            batch: 1,
            context: 1,
            wdtype: WeightDtype::Fp8,
            kvdtype: KvDtype::Fp8,
            graphs,
            flash,
            par: Parallel {
                tp,
                pp: 1,
                link: link("nvlink4").copied().unwrap_or(Link::NONE),
                overlap: false,
            },
        }
    }

    #[test]
    fn every_shape_aligns() {
        for m in LlmModel::ALL {
            for (tp, pp) in [(1, 1), (2, 1), (8, 1), (2, 2)] {
                for graphs in [true, false] {
                    for flash in [true, false] {
                        let mut r = run(m, tp, graphs, flash);
                        r.par.pp = pp;
                        let (la, ha) = by_phase(&decode_run(&r, 40, 600));
                        let (ld, hd) = by_phase(&decode_run(&r, 8, 600));
                        let (lp, hp) = by_phase(&prefill_run(&r, 500));
                        assert!(
                            aligned(&la, &ld)
                                && aligned(&la, &lp)
                                && aligned(&ha, &hd)
                                && aligned(&ha, &hp),
                            "{m:?} tp {tp} pp {pp} graphs {graphs} flash {flash}"
                        );
                        assert!(!ha.is_empty() && la.iter().any(|k| k.part == Part::Attention));
                        // the full list is the layer L times and the same LM head
                        let full = launch::kernels(&decode_run(&r, 40, 600));
                        let layers = full.iter().filter(|k| k.in_layer).count();
                        assert_eq!(layers, la.len() * r.config.layers as usize);
                        let heads: Vec<_> = full
                            .iter()
                            .filter(|k| k.part == Part::LmHead)
                            .cloned()
                            .collect();
                        assert_eq!(heads, ha);
                    }
                }
            }
        }
    }

    #[test]
    fn the_merge_is_the_whole_lists_merge() {
        // merging one layer and the LM head is merging every kernel of the step
        let r = run(LlmModel::Mixtral8x7b, 2, true, true);
        let (ks, _) = kernels_of(&r, 12, 900, 700.0, 1400);
        let all = launch::kernels(&decode_run(&r, 712, 900));
        let dec = launch::kernels(&decode_run(&r, 12, 900));
        let pre = launch::kernels(&prefill_run(&r, 1400));
        assert_eq!(ks.len(), all.len());
        for (i, k) in ks.iter().enumerate() {
            let want = match all[i].part {
                Part::Attention | Part::LmHead => combine(&dec[i], 1.0, &pre[i], 0.5),
                _ => all[i].clone(),
            };
            assert_eq!(k, &want, "{i}");
        }
    }

    #[test]
    fn the_ends_are_the_llm_steps() {
        let s = h100();
        let r = run(LlmModel::Llama3_8b, 1, true, true);
        // no prompt tokens: the llm widget's decode step, exactly
        let d = step::run_plain(&decode_run(&r, 16, 3000), &s).wall;
        assert_eq!(wall(&r, 16, 3000, 0.0, 2000, &s), d);
        // the merged step with no prompt tokens is that step too
        assert!((mixed(&r, 16, 3000, 0.0, 2000, &s).wall / d - 1.0).abs() < 1e-12);
        // no decode tokens, one whole prompt: the llm widget's prefill, within
        // the LM head's rows and the context the shared kernels are built at
        // (neither changes a matmul's FLOPs or bytes)
        let p = step::run_plain(&prefill_run(&r, 2000), &s).wall;
        let m = wall(&r, 0, 3000, 2000.0, 2000, &s);
        assert!((m / p - 1.0).abs() < 0.01, "{m} {p}");
    }

    #[test]
    fn a_chunk_rides_a_memory_bound_decode_step() {
        let s = h100();
        let r = run(LlmModel::Llama3_70b, 2, true, true);
        let d = wall(&r, 16, 2000, 0.0, 1000, &s);
        let p = wall(&r, 0, 2000, 256.0, 1000, &s);
        let both = wall(&r, 16, 2000, 256.0, 1000, &s);
        // one pass reads the weights once: far less than the two steps apart,
        // more than either
        assert!(both > d && both > p, "{both} {d} {p}");
        assert!(both < 0.75 * (d + p), "{both} {d} {p}");
        // a larger chunk costs more
        assert!(wall(&r, 16, 2000, 4096.0, 1000, &s) > both);
        // and what is shared is the weights: FLOPs add up
        let f = |dd, q| mixed(&r, dd, 2000, q, 1000, &s).flops;
        let sum = f(16, 0.0) + f(0, 256.0);
        assert!(
            (f(16, 256.0) / sum - 1.0).abs() < 0.01,
            "{} {sum}",
            f(16, 256.0)
        );
    }
}
