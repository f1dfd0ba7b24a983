//! Attention data parallelism with the experts spread over the same GPUs:
//! TensorRT-LLM's "DEP n" (`llm_dep=n`, tensor parallel 1).
//!
//! **The spread.** `n` GPUs (ranks) each hold the whole attention, the shared
//! experts, the dense layers, the embedding and the LM head, and `E/n` of each
//! MoE layer's routed experts. The batch's `B` sequences are split evenly: a
//! rank runs the attention, its KV cache and every whole-weight kernel for its
//! own `⌈B/n⌉` sequences (the slowest rank's share: the step waits for it;
//! an even split of the decoding sequences, as a balanced scheduler would keep
//! it; a serving step whose prompts cannot split evenly sets the slowest rank's
//! tokens itself, [`Parallel::rank_tokens`]). The routed
//! experts see every rank's tokens: a rank's share of the whole batch's expert
//! work is `1/n` of it (its `E/n` experts, each as many tokens as on one GPU,
//! the experts the whole batch touches spread evenly over the ranks).
//!
//! **The all-to-all.** In each MoE layer every rank sends its routed tokens'
//! hidden states to the ranks that hold their experts (dispatch) and takes the
//! results back (combine): an all-to-all of `S = t·k·h·2` bytes a rank (`t` its
//! tokens, `k` experts per token, bf16 activations) each way, of which each rank
//! sends `(n−1)/n·S` over the link. nccl-tests' definition
//! (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md): an
//! all-to-all's bus bandwidth is its algorithm bandwidth × `(n−1)/n`, priced by
//! the same link model as tensor parallelism's all-reduce
//! ([`crate::model::parallel::collective`]). The routing is taken as uniform:
//! a skewed router sends more to a hot rank, which then sets the pace.

use super::kernels::{collective, tokens, KvRead, LlmKernel};
use super::{LlmRun, Parallel, ACT_BYTES};
use crate::model::parallel::Collective;

/// The names of the expert kernels a rank runs a `1/n` share of.
fn routed(k: &LlmKernel) -> bool {
    k.group.name.starts_with("experts ")
}

/// The ranks of `r`'s spread (1 without DEP).
pub fn ranks(r: &LlmRun) -> u32 {
    r.par.dep.max(1)
}

/// Tokens the slowest rank runs through its own kernels: `⌈B/n⌉`, or the
/// step's [`Parallel::rank_tokens`] where its prompts are not spread evenly.
pub fn rank_batch(r: &LlmRun) -> u32 {
    if r.par.rank_tokens > 0 && ranks(r) > 1 {
        return r.par.rank_tokens;
    }
    r.batch.max(1).div_ceil(ranks(r))
}

/// One rank's own run: its `⌈B/n⌉` sequences on one GPU (no DEP); `r` itself
/// without DEP.
pub fn rank_run(r: &LlmRun) -> LlmRun {
    LlmRun {
        batch: rank_batch(r),
        par: Parallel {
            dep: 1,
            rank_tokens: 0,
            ..r.par
        },
        ..*r
    }
}

/// One layer's kernels on the slowest rank of `r`'s DEP spread, `build` giving
/// a layer's kernels for a run without DEP: the rank's own sequences'
/// kernels, the routed experts `1/n` of the whole batch's, with the dispatch
/// all-to-all after the routing and the combine before the residual add that
/// follows the experts. A layer without routed experts (a dense lead layer) is
/// the rank's own.
pub fn layer(
    r: &LlmRun,
    read: KvRead,
    build: impl Fn(&LlmRun, KvRead) -> Vec<LlmKernel>,
) -> Vec<LlmKernel> {
    let rank = rank_run(r);
    let own = build(&rank, read);
    let n = ranks(r);
    if n <= 1 || r.config.experts <= 1 {
        return own;
    }
    let whole = build(
        &LlmRun {
            par: Parallel {
                dep: 1,
                rank_tokens: 0,
                ..r.par
            },
            ..*r
        },
        read,
    );
    if whole.len() != own.len() {
        return own;
    }
    let share = 1.0 / f64::from(n);
    let k = f64::from(r.config.top_k.clamp(1, r.config.experts));
    let sent = tokens(&rank) * k * f64::from(r.config.hidden) * ACT_BYTES;
    let mut out = Vec::with_capacity(own.len() + 2);
    let mut after_experts = false;
    for (mine, all) in own.into_iter().zip(whole) {
        if after_experts && mine.group.name == "residual add" {
            out.push(a2a("all-to-all (experts, combine)", n, sent, r));
            after_experts = false;
        }
        if routed(&mine) {
            after_experts = true;
            out.push(scaled(all, share));
            continue;
        }
        let dispatch = mine.group.name == "top-k routing";
        out.push(mine);
        if dispatch {
            out.push(a2a("all-to-all (experts, dispatch)", n, sent, r));
        }
    }
    out
}

/// An all-to-all of `bytes` a rank over `r`'s link on `n` ranks.
fn a2a(name: &'static str, n: u32, bytes: f64, r: &LlmRun) -> LlmKernel {
    collective(name, Collective::AllToAll, n, bytes, r)
}

/// `k`'s work, bytes and experts scaled by `share` (its grouped GEMM runs
/// `share` of the experts, each with as many rows).
fn scaled(mut k: LlmKernel, share: f64) -> LlmKernel {
    k.group.flops *= share;
    k.group.bytes *= share;
    k.weight_bytes *= share;
    k.kv_bytes *= share;
    k.group.gemm = k.group.gemm.map(|g| crate::model::gemm::Gemm {
        batch: crate::model::gemm::dim(f64::from(g.batch) * share),
        ..g
    });
    k
}

#[cfg(test)]
mod tests;
