//! Every kernel of one LLM step in launch order, eager ([`super::eager`]) or
//! compiled ([`super::kernels`]) as the run says. Both lists are written in the
//! kernel vocabulary of `kernels.rs` (kernel, part, sizes, the tensor-parallel
//! split); only this module chooses between them.

use super::eager;
use super::kernels::{
    collective, compiled_after, compiled_before, compiled_layer_with, per_gpu_layer, stage_layers,
    tokens, KvRead, LlmKernel,
};
use super::{LlmRun, ACT_BYTES};

/// The kernels of one layer, in launch order: eager ([`eager::layer`]) or
/// compiled ([`super::kernels::compiled_layer`]) as `r.graphs` says.
pub fn layer_kernels(r: &LlmRun) -> Vec<LlmKernel> {
    layer_kernels_with(r, KvRead::AsWritten)
}

/// [`layer_kernels`] with the grouped K/V read as `read` says.
pub fn layer_kernels_with(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    let layer = if r.graphs {
        compiled_layer_with(r, read)
    } else {
        eager::layer(r, read)
    };
    per_gpu_layer(layer, r)
}

/// Every kernel of the step in launch order: eager, as [`eager`] counts them,
/// or compiled: the embedding, `layers` × the compiled layer, the final norm, the LM
/// head and the sampler (top-k, then softmax and the draw fused).
pub fn kernels(r: &LlmRun) -> Vec<LlmKernel> {
    kernels_with(r, KvRead::AsWritten)
}

/// [`kernels`] with the grouped K/V read as `read` says.
pub fn kernels_with(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    let c = &r.config;
    let layer = layer_kernels_with(r, read);
    let (before, after) = if r.graphs {
        (compiled_before(r), compiled_after(r))
    } else {
        (eager::before(r), eager::after(r))
    };
    let mut out = Vec::with_capacity(layer.len() * c.layers as usize + before.len() + after.len());
    out.extend(before.into_iter().map(outer));
    // a pipeline hands the activations to the next stage between its stages
    let per_stage = stage_layers(r);
    for i in 0..c.layers {
        if i > 0 && i % per_stage == 0 {
            out.push(outer(collective(
                "send to the next stage",
                super::super::parallel::Collective::Send,
                2,
                tokens(r) * f64::from(c.hidden) * ACT_BYTES,
                r,
            )));
        }
        out.extend(layer.iter().cloned());
    }
    out.extend(after.into_iter().map(outer));
    out
}

fn outer(mut k: LlmKernel) -> LlmKernel {
    k.in_layer = false;
    k
}
