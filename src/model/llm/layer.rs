//! One compiled layer's kernels in launch order: a norm, the attention block
//! (grouped-query, or DeepSeek's latent attention, [`crate::model::llm::mla`]),
//! a residual add, a norm, the MLP (dense or experts) and a residual add. It sits
//! above both attention modules, which share the kernel types of
//! [`crate::model::llm::kernels`].

use crate::model::llm::kernels::{
    attention_block, layer_norm, mlp, residual, Dims, KvRead, LlmKernel,
};
use crate::model::llm::LlmRun;

/// The kernels of one compiled layer (what `torch.compile` fuses them into), in
/// launch order.
pub fn compiled_layer(r: &LlmRun) -> Vec<LlmKernel> {
    compiled_layer_with(r, KvRead::AsWritten)
}

pub(super) fn compiled_layer_with(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    let dm = Dims::of(r);
    let mut out = vec![layer_norm(&dm, "RMSNorm (attention)")];
    if r.config.arch.mla.on() {
        crate::model::llm::mla::attention_block(r, &dm, &mut out);
    } else {
        attention_block(r, read, &dm, &mut out);
    }
    out.push(residual(&dm));
    out.push(layer_norm(&dm, "RMSNorm (MLP)"));
    mlp(r, &dm, &mut out);
    out.push(residual(&dm));
    out
}
