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
//! prompt only). The phases' attention need not launch the same kernels: a
//! grouped-query model's compiled prefill copies K and V out to every head
//! before its attention and its compiled decode does not
//! ([`crate::model::llm::kernels::repeats_kv`]). So each attention stretch of a
//! layer is merged on its own: the kernels both phases launch at the same place
//! are paired (`dec`'s work plus `q / isl` of `pre`'s, the weights read once), and
//! a copy only one phase launches is kept where that phase launches it, scaled by
//! that phase's factor alone (`q / isl` of the prompt's copies: the chunk's
//! share; none when the phase has no tokens in the step).
//!
//! A step with no prompt tokens is the `llm` widget's decode step itself
//! ([`step::plain`]), so one request reproduces it exactly.

use crate::model::llm::kernels::KvRead;
use crate::model::llm::launch::Layout;
use crate::model::llm::step::{self, LlmKernel, Part, Split};
use crate::model::llm::{kernels, launch, LlmRun, Phase};
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

/// `run` with its slowest DEP rank's own tokens in a step of `decode`
/// sequences and `prompt` prompt tokens, in pieces of `piece` tokens (a prompt,
/// or a chunk of one, belongs to one rank: its requests are its own). The
/// decode sequences split evenly; the prompt tokens do only when there are
/// many pieces: the slowest rank carries at least one whole piece whenever one
/// joins (`max(q/n, min(q, piece))`, a lower bound on its expected share), and
/// every rank waits for it at each layer's expert exchange. `run` itself without DEP
/// or without prompt tokens.
pub fn slowest_rank(run: &LlmRun, decode: u32, prompt: f64, piece: u32) -> LlmRun {
    let n = crate::model::llm::dep::ranks(run);
    let q = prompt.max(0.0);
    if n <= 1 || q <= 0.0 {
        return *run;
    }
    let share = (q / f64::from(n)).max(q.min(f64::from(piece.max(1))));
    let own = f64::from(decode.div_ceil(n)) + share.round();
    LlmRun {
        par: crate::model::parallel::Parallel {
            rank_tokens: own.clamp(1.0, f64::from(u32::MAX)) as u32,
            ..run.par
        },
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

/// Whether `x` and `y` are the same kernel of the same place: the same part,
/// and the same name outside the attention (whose kernels depend on the phase).
fn same_place(x: &LlmKernel, y: &LlmKernel) -> bool {
    x.part == y.part && (x.part == Part::Attention || x.group.name == y.group.name)
}

/// Whether kernel lists `a` and `b` are the same kernels in the same order
/// ([`same_place`] pairwise).
fn aligned(a: &[LlmKernel], b: &[LlmKernel]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_place(x, y))
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

/// `dec·kd + pre·kp` of one stretch of kernels that differs by phase (a layer's
/// attention, the LM head; see the module docs): kernels both phases launch at
/// the same place are paired ([`combine`]); a copy of K or V that one phase
/// launches and the other does not ([`kernels::is_kv_copy`]) is kept where that
/// phase launches it, scaled by that phase's factor alone (and left out at a
/// factor of 0). `None` where the lists differ by more than such copies.
fn merge_phases(dec: &[LlmKernel], kd: f64, pre: &[LlmKernel], kp: f64) -> Option<Vec<LlmKernel>> {
    let mut out = Vec::with_capacity(dec.len().max(pre.len()));
    let alone = |out: &mut Vec<LlmKernel>, k: &LlmKernel, f: f64| {
        if f > 0.0 {
            out.push(combine(k, f, k, 0.0));
        }
    };
    let (mut i, mut j) = (0, 0);
    loop {
        match (dec.get(i), pre.get(j)) {
            (None, None) => return Some(out),
            (Some(d), Some(p)) if kernels::is_kv_copy(d) == kernels::is_kv_copy(p) => {
                if !same_place(d, p) || d.group.name != p.group.name && kernels::is_kv_copy(d) {
                    return None;
                }
                out.push(combine(d, kd, p, kp));
                i += 1;
                j += 1;
            }
            (Some(d), _) if kernels::is_kv_copy(d) => {
                alone(&mut out, d, kd);
                i += 1;
            }
            (_, Some(p)) if kernels::is_kv_copy(p) => {
                alone(&mut out, p, kp);
                j += 1;
            }
            _ => return None,
        }
    }
}

/// `ks` cut where it enters and leaves the attention: its stretches, each with
/// whether it is attention.
fn stretches(ks: &[LlmKernel]) -> Vec<(bool, &[LlmKernel])> {
    let mut out: Vec<(bool, &[LlmKernel])> = Vec::new();
    let mut start = 0;
    for i in 1..=ks.len() {
        let at = |j: usize| ks[j].part == Part::Attention;
        if i == ks.len() || at(i) != at(start) {
            out.push((at(start), &ks[start..i]));
            start = i;
        }
    }
    out
}

/// One layer of the merged step: `all`'s kernels outside the attention, and
/// each attention stretch merged from `dec`'s and `pre`'s ([`merge_phases`]).
/// `None` where the three layers do not have the same kernels outside the
/// attention, in the same order.
fn merge_layer(
    all: &[LlmKernel],
    dec: &[LlmKernel],
    kd: f64,
    pre: &[LlmKernel],
    kp: f64,
) -> Option<Vec<LlmKernel>> {
    let (sa, sd, sp) = (stretches(all), stretches(dec), stretches(pre));
    if sa.len() != sd.len() || sa.len() != sp.len() {
        return None;
    }
    let mut out = Vec::with_capacity(all.len() + 2);
    for ((a, d), p) in sa.iter().zip(&sd).zip(&sp) {
        if a.0 != d.0 || a.0 != p.0 {
            return None;
        }
        if a.0 {
            out.extend(merge_phases(d.1, kd, p.1, kp)?);
        } else if aligned(a.1, d.1) && aligned(a.1, p.1) {
            out.extend(a.1.iter().cloned());
        } else {
            return None;
        }
    }
    Some(out)
}

/// The kernels of `r` that differ by phase: one layer's (its attention) and the
/// LM head's, from the step's [`Layout`] (its layer held once).
fn by_phase(r: &LlmRun) -> (Vec<LlmKernel>, Vec<LlmKernel>, Vec<LlmKernel>) {
    let lay = launch::layout_with(r, KvRead::AsWritten);
    let head = heads(&lay);
    (lay.layer, head, lay.lead)
}

/// The LM head's kernels of a step laid out as `lay`.
fn heads(lay: &Layout<LlmKernel>) -> Vec<LlmKernel> {
    lay.before
        .iter()
        .chain(&lay.after)
        .filter(|k| k.part == Part::LmHead)
        .cloned()
        .collect()
}

/// The merged layer and LM head of a step (see the module docs) from `all`'s
/// layout (already built by the caller) and the other two runs' [`by_phase`]
/// kernels; `None` where they do not merge.
fn merged_parts(
    all: &Layout<LlmKernel>,
    dec: &LlmRun,
    kd: f64,
    pre: &LlmRun,
    kp: f64,
) -> Option<Merged> {
    let (layer_all, head_all) = (&all.layer, heads(all));
    let (layer_d, head_d, lead_d) = by_phase(dec);
    let (layer_p, head_p, lead_p) = by_phase(pre);
    if layer_all.is_empty() || !aligned(&head_all, &head_d) || !aligned(&head_all, &head_p) {
        return None;
    }
    let layer = merge_layer(layer_all, &layer_d, kd, &layer_p, kp)?;
    let lead = merge_layer(&all.lead, &lead_d, kd, &lead_p, kp)?;
    let head = merge_phases(&head_d, kd, &head_p, kp)?;
    (head.len() == head_all.len()).then_some((layer, head, lead))
}

/// A merged step's layer (or period of layers), LM head and lead layers.
type Merged = (Vec<LlmKernel>, Vec<LlmKernel>, Vec<LlmKernel>);

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
    let (lay, all) = layout_of(run, decode, context, prompt, isl);
    (lay.to_vec(), all)
}

/// [`kernels_of`]'s step as a [`Layout`]: `all`'s with its layer and each LM-head
/// kernel replaced by the merged ones.
pub fn layout_of(
    run: &LlmRun,
    decode: u32,
    context: u32,
    prompt: f64,
    isl: u32,
) -> (Layout<LlmKernel>, LlmRun) {
    let q = prompt.max(0.0);
    let total = (f64::from(decode) + q)
        .round()
        .clamp(1.0, f64::from(u32::MAX)) as u32;
    let all = decode_run(run, total, context);
    let mut lay = launch::layout_with(&all, KvRead::AsWritten);
    if q <= 0.0 {
        return (lay, all);
    }
    let kd = if decode > 0 { 1.0 } else { 0.0 };
    // the slowest DEP rank's attention does its prompt tokens: those
    // [`slowest_rank`] gave it, else an even share
    let n = crate::model::llm::dep::ranks(run);
    let even = LlmRun {
        par: crate::model::parallel::Parallel {
            rank_tokens: 0,
            ..run.par
        },
        ..*run
    };
    let rank_prompt = if n > 1 && run.par.rank_tokens > 0 {
        f64::from(run.par.rank_tokens.saturating_sub(decode.div_ceil(n)))
    } else {
        q / f64::from(n)
    };
    let kp = rank_prompt / f64::from(isl.max(1));
    let dec = decode_run(&even, decode, context);
    let Some((layer, head, lead)) = merged_parts(&lay, &dec, kd, &prefill_run(&even, isl), kp)
    else {
        // (never for the models offered: `tests::every_shape_merges`) the prompt
        // tokens are priced as decode tokens at the decode context
        return (lay, all);
    };
    lay.layer = layer;
    lay.lead = lead;
    let mut heads = head.into_iter();
    for side in [&mut lay.before, &mut lay.after] {
        let outer = std::mem::take(side);
        for k in outer {
            if k.part == Part::LmHead {
                side.extend(heads.next());
            } else {
                side.push(k);
            }
        }
    }
    (lay, all)
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
    let gs: Vec<_> = ks.iter().map(|k| k.group.clone()).collect();
    // each kernel priced once, for the timeline and the split alike
    let parts = crate::model::timeline::priced(&gs, &m);
    let tl = step::timeline(&shape, &gs, &parts, &m);
    let split = step::split(&ks, &gs, &parts, &tl);
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
/// ([`step::plain`]); else the merged step ([`mixed`]). Bit for bit their
/// wall times (`tests::the_wall_is_the_steps`), from the time-only path
/// ([`step::wall`], [`step::layout_wall`]), remembered ([`super::memo`]).
pub fn wall(
    run: &LlmRun,
    decode: u32,
    context: u32,
    prompt: f64,
    isl: u32,
    setting: &Setting,
) -> f64 {
    let key = super::memo::StepKey::of(run, decode, context, prompt, isl, setting);
    super::memo::step_wall(key, || {
        wall_fresh(run, decode, context, prompt, isl, setting)
    })
}

/// [`wall`] computed, not remembered (for callers that keep their own memo,
/// as [`super::queued`] does, and should not crowd out the widget's).
pub fn wall_fresh(
    run: &LlmRun,
    decode: u32,
    context: u32,
    prompt: f64,
    isl: u32,
    setting: &Setting,
) -> f64 {
    if prompt <= 0.0 {
        step::wall(
            &decode_run(run, decode, context),
            setting,
            step::KvRead::AsWritten,
        )
    } else {
        let (lay, shape) = layout_of(run, decode, context, prompt, isl);
        step::layout_wall(&shape, &lay, &step::machine(&shape, setting))
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
                dep: 1,
                link: link("nvlink4").copied().unwrap_or(Link::NONE),
                overlap: false,
                rank_tokens: 0,
            },
        }
    }

    fn copies(ks: &[LlmKernel]) -> usize {
        ks.iter().filter(|k| kernels::is_kv_copy(k)).count()
    }

    #[test]
    fn every_shape_merges() {
        for m in LlmModel::ALL {
            for (tp, pp) in [(1, 1), (2, 1), (8, 1), (2, 2)] {
                for graphs in [true, false] {
                    for flash in [true, false] {
                        let mut r = run(m, tp, graphs, flash);
                        r.par.pp = pp;
                        let what = format!("{m:?} tp {tp} pp {pp} graphs {graphs} flash {flash}");
                        let (all, dec) = (decode_run(&r, 40, 600), decode_run(&r, 8, 600));
                        let pre = prefill_run(&r, 500);
                        let (la, ha, _) = by_phase(&all);
                        let (ld, _, _) = by_phase(&dec);
                        let (lp, hp, _) = by_phase(&pre);
                        let Some((layer, head, lead)) = merged_parts(
                            &launch::layout_with(&all, KvRead::AsWritten),
                            &dec,
                            1.0,
                            &pre,
                            0.5,
                        ) else {
                            panic!("{what}: does not merge")
                        };
                        assert!(!ha.is_empty() && la.iter().any(|k| k.part == Part::Attention));
                        // outside the attention, the layer is `all`'s
                        let outside = |ks: &[LlmKernel]| -> Vec<LlmKernel> {
                            ks.iter()
                                .filter(|k| k.part != Part::Attention)
                                .cloned()
                                .collect()
                        };
                        assert_eq!(outside(&layer), outside(&la), "{what}");
                        // the copies: a grouped model's prompt copies K and V
                        // (and its decode too, eager); merged, they are one pair
                        let grouped = r.config.kv_heads < r.config.heads;
                        // (two per layer of a period of layers: `moe::layers`)
                        let per = 2 * crate::model::llm::moe::layers(&r.config).period.len();
                        assert_eq!(copies(&lp), if grouped { per } else { 0 }, "{what}");
                        // (a layer beyond gpt-fast's eager one is priced by its
                        // compiled kernels, eager too: `moe::beyond_plain`)
                        let eager = crate::model::llm::moe::layers(&r.config)
                            .period
                            .iter()
                            .filter(|l| !graphs && !crate::model::llm::moe::beyond_plain(l))
                            .count();
                        assert_eq!(copies(&ld), if grouped { 2 * eager } else { 0 }, "{what}");
                        assert_eq!(copies(&layer), copies(&lp), "{what}");
                        // the attention's other kernels, one for one
                        let rest = |ks: &[LlmKernel]| {
                            ks.iter()
                                .filter(|k| k.part == Part::Attention && !kernels::is_kv_copy(k))
                                .count()
                        };
                        assert_eq!(rest(&layer), rest(&ld), "{what}");
                        assert_eq!(rest(&layer), rest(&lp), "{what}");
                        assert_eq!(head.len(), hp.len(), "{what}");
                        // the full list is the merged layer L times and the merged head
                        let (full, _) = kernels_of(&r, 8, 600, 250.0, 500);
                        let layers = full.iter().filter(|k| k.in_layer).count();
                        // (a model whose layers differ: its lead layers once, then
                        // its period of layers repeated)
                        assert_eq!(
                            layers,
                            lead.len() + layer.len() * launch::repeats(&r.config) as usize,
                            "{what}"
                        );
                        let heads: Vec<_> = full
                            .iter()
                            .filter(|k| k.part == Part::LmHead)
                            .cloned()
                            .collect();
                        assert_eq!(heads, head, "{what}");
                    }
                }
            }
        }
    }

    /// The `n`-th attention stretch of a whole kernel list.
    fn attention(ks: &[LlmKernel], n: usize) -> Vec<LlmKernel> {
        stretches(ks)
            .into_iter()
            .filter(|s| s.0)
            .nth(n)
            .map(|s| s.1.to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn the_merge_is_the_whole_lists_merge() {
        // merging one layer and the LM head is merging every kernel of the step:
        // outside the attention the step is `all`'s; in each layer's attention,
        // a kernel both phases launch is decode's plus half (700 of 1400 tokens)
        // of the prompt's, and a copy only the prompt makes is half the prompt's
        for (model, graphs, both_copy) in [
            // compiled: the prompt copies K and V, the decode does not
            (LlmModel::Mixtral8x7b, true, false),
            (LlmModel::Llama3_70b, true, false),
            // eager: both copy, and the copies pair like the rest
            (LlmModel::Llama3_8b, false, true),
        ] {
            let r = run(model, 2, graphs, true);
            let (ks, _) = kernels_of(&r, 12, 900, 700.0, 1400);
            let all = launch::kernels(&decode_run(&r, 712, 900));
            let dec = launch::kernels(&decode_run(&r, 12, 900));
            let pre = launch::kernels(&prefill_run(&r, 1400));
            let mut want = Vec::new();
            let (mut layer, mut head) = (0, 0);
            for (i, a) in all.iter().enumerate() {
                match a.part {
                    Part::Attention if i > 0 && all[i - 1].part == Part::Attention => {}
                    Part::Attention => {
                        let (d, p) = (attention(&dec, layer), attention(&pre, layer));
                        layer += 1;
                        if both_copy {
                            assert_eq!(d.len(), p.len());
                            want.extend(d.iter().zip(&p).map(|(d, p)| combine(d, 1.0, p, 0.5)));
                        } else {
                            assert_eq!(p.len(), d.len() + 2, "{model:?}");
                            assert_eq!([p[0].group.name, p[1].group.name], kernels::REPEAT_KV);
                            want.extend(p[..2].iter().map(|c| combine(c, 0.5, c, 0.0)));
                            want.extend(
                                d.iter().zip(&p[2..]).map(|(d, p)| combine(d, 1.0, p, 0.5)),
                            );
                        }
                    }
                    Part::LmHead => {
                        let f = |ks: &[LlmKernel]| {
                            ks.iter()
                                .filter(|k| k.part == Part::LmHead)
                                .nth(head)
                                .cloned()
                        };
                        if let (Some(d), Some(p)) = (f(&dec), f(&pre)) {
                            want.push(combine(&d, 1.0, &p, 0.5));
                        }
                        head += 1;
                    }
                    _ => want.push(a.clone()),
                }
            }
            assert_eq!(layer, r.config.layers as usize);
            assert_eq!(ks.len(), want.len(), "{model:?}");
            for (i, (k, w)) in ks.iter().zip(&want).enumerate() {
                assert_eq!(k, w, "{model:?} {i}");
            }
            // the copies are there, half the prompt's work
            let c = ks.iter().find(|k| kernels::is_kv_copy(k));
            let pc = pre.iter().find(|k| kernels::is_kv_copy(k));
            let ratio = c.zip(pc).map(|(c, p)| c.kv_bytes / p.kv_bytes);
            let want_ratio = if both_copy {
                // eager: the decode's copies too
                dec.iter()
                    .find(|k| kernels::is_kv_copy(k))
                    .zip(pc)
                    .map(|(d, p)| (d.kv_bytes + 0.5 * p.kv_bytes) / p.kv_bytes)
            } else {
                Some(0.5)
            };
            assert_eq!(ratio, want_ratio, "{model:?}");
        }
    }

    #[test]
    fn the_ends_are_the_llm_steps() {
        let s = h100();
        let r = run(LlmModel::Llama3_8b, 1, true, true);
        // no prompt tokens: the llm widget's decode step, exactly
        let d = step::plain(&decode_run(&r, 16, 3000), &s, step::KvRead::AsWritten).wall;
        assert_eq!(wall(&r, 16, 3000, 0.0, 2000, &s), d);
        // the merged step with no prompt tokens is that step too
        assert!((mixed(&r, 16, 3000, 0.0, 2000, &s).wall / d - 1.0).abs() < 1e-12);
        // no decode tokens, one whole prompt: the llm widget's prefill, within
        // the LM head's rows and the context the shared kernels are built at
        // (neither changes a matmul's FLOPs or bytes)
        let p = step::plain(&prefill_run(&r, 2000), &s, step::KvRead::AsWritten).wall;
        let m = wall(&r, 0, 3000, 2000.0, 2000, &s);
        assert!((m / p - 1.0).abs() < 0.01, "{m} {p}");
    }

    #[test]
    fn the_wall_is_the_steps() {
        let s = h100();
        for m in LlmModel::ALL {
            for (tp, pp) in [(1, 1), (2, 1), (2, 2)] {
                for graphs in [true, false] {
                    let mut r = run(m, tp, graphs, true);
                    r.par.pp = pp;
                    for (d, ctx, q, isl) in [
                        (16, 3000, 0.0, 2000),
                        (0, 1, 512.0, 700),
                        (40, 600, 250.5, 500),
                    ] {
                        let full = if q > 0.0 {
                            mixed(&r, d, ctx, q, isl, &s).wall
                        } else {
                            step::plain(&decode_run(&r, d, ctx), &s, step::KvRead::AsWritten).wall
                        };
                        crate::model::serve::memo::forget();
                        let cold = wall(&r, d, ctx, q, isl, &s);
                        let warm = wall(&r, d, ctx, q, isl, &s);
                        assert_eq!(
                            cold.to_bits(),
                            full.to_bits(),
                            "{m:?} {tp} {pp} {graphs} {d} {q}"
                        );
                        assert_eq!(warm.to_bits(), full.to_bits());
                    }
                }
            }
        }
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

    /// A prompt stays with one DEP rank: with one piece joining, the slowest
    /// rank runs it whole beside its share of the decodes, and its step is
    /// slower than an even spread of the same tokens; with a piece for every
    /// rank, the spread is even again; without DEP or prompt nothing changes.
    #[test]
    fn the_slowest_dep_rank_runs_a_whole_prompt() {
        let s = crate::model::llm::measured::setting_on(
            crate::model::hardware::preset("h200").expect("preset"),
        );
        let mut r = run(LlmModel::Qwen3_235b, 1, true, true);
        r.par.dep = 4;
        let (d, ctx, isl) = (400, 1500, 1000);
        // one prompt: the slowest rank carries all 1000 of its tokens
        let one = slowest_rank(&r, d, 1000.0, isl);
        assert_eq!(one.par.rank_tokens, 100 + 1000);
        let even = wall(&r, d, ctx, 1000.0, isl, &s);
        let whole = wall(&one, d, ctx, 1000.0, isl, &s);
        assert!(whole > 1.05 * even, "{whole} vs {even}");
        // a piece for every rank: the even spread
        let four = slowest_rank(&r, d, 4000.0, isl);
        assert_eq!(four.par.rank_tokens, 100 + 1000);
        let (a, b) = (
            wall(&four, d, ctx, 4000.0, isl, &s),
            wall(&r, d, ctx, 4000.0, isl, &s),
        );
        assert!((a / b - 1.0).abs() < 0.01, "{a} vs {b}");
        // chunks of 250 tokens: a piece is the chunk
        assert_eq!(slowest_rank(&r, d, 1000.0, 250).par.rank_tokens, 100 + 250);
        // no prompt, or no DEP: the run itself
        assert_eq!(slowest_rank(&r, d, 0.0, isl), r);
        let one_gpu = LlmRun {
            par: Parallel { dep: 1, ..r.par },
            ..r
        };
        assert_eq!(slowest_rank(&one_gpu, d, 1000.0, isl), one_gpu);
    }
}
