//! Every kernel of one LLM step in launch order, eager ([`super::eager`]) or
//! compiled ([`super::kernels`]) as the run says. Both lists are written in the
//! kernel vocabulary of `kernels.rs` (kernel, part, sizes, the tensor-parallel
//! split); only this module chooses between them.

use super::eager;
use super::kernels::{
    collective, compiled_after, compiled_before, per_gpu_layer, tokens, KvRead, LlmKernel,
};
use super::layer::compiled_layer_with;
use super::{LlmRun, ACT_BYTES};

/// The kernels of one layer, in launch order: eager ([`eager::layer`]) or
/// compiled ([`super::layer::compiled_layer`]) as `r.graphs` says; for a model
/// whose layers differ, the layers of its repeated period
/// ([`super::moe::layers`]) one after the other.
pub fn layer_kernels(r: &LlmRun) -> Vec<LlmKernel> {
    layer_kernels_with(r, KvRead::AsWritten)
}

/// [`layer_kernels`] with the grouped K/V read as `read` says.
pub fn layer_kernels_with(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    if r.config.arch == super::moe::Arch::PLAIN {
        return one_layer(r, read);
    }
    let ls = super::moe::layers(&r.config);
    each_layer(r, &ls.period, read)
}

/// The kernels of the layers `cs` of `r`'s model, one after the other.
fn each_layer(r: &LlmRun, cs: &[super::LlmConfig], read: KvRead) -> Vec<LlmKernel> {
    cs.iter()
        .flat_map(|c| one_layer(&super::moe::layer_run(r, c), read))
        .collect()
}

/// One plain layer's kernels on one GPU of `r`'s spread (with DEP, the
/// slowest rank's: [`super::dep::layer`]).
fn one_layer(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    if r.par.dep > 1 {
        return super::dep::layer(r, read, one_layer);
    }
    let layer = if r.graphs || super::moe::beyond_plain(&r.config) {
        compiled_layer_with(r, read)
    } else {
        eager::layer(r, read)
    };
    per_gpu_layer(layer, r)
}

/// The kernels of the lead layers of `r`'s model (run once each before the
/// repeated period: [`super::moe::layers`]); none for a plain model.
pub fn lead_kernels_with(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    if r.config.arch == super::moe::Arch::PLAIN {
        return Vec::new();
    }
    each_layer(r, &super::moe::layers(&r.config).lead, read)
}

/// Times the period of [`layer_kernels`] repeats.
pub fn repeats(c: &super::LlmConfig) -> u32 {
    if c.arch == super::moe::Arch::PLAIN {
        return c.layers;
    }
    super::moe::layers(c).repeats
}

/// Every kernel of the step in launch order: eager, as [`eager`] counts them,
/// or compiled: the embedding, `layers` × the compiled layer, the final norm, the LM
/// head and the sampler (top-k, then softmax and the draw fused).
pub fn kernels(r: &LlmRun) -> Vec<LlmKernel> {
    kernels_with(r, KvRead::AsWritten)
}

/// [`kernels`] with the grouped K/V read as `read` says.
pub fn kernels_with(r: &LlmRun, read: KvRead) -> Vec<LlmKernel> {
    layout_with(r, read).to_vec()
}

/// One step's kernels in launch order with its repeated layer held once:
/// `before`, the `lead` layers (a model whose first layers differ), then
/// `layers` copies of `layer` (one layer, or a period of layers) with `send`
/// between a pipeline's stages (before every `per_stage`-th copy but the
/// first), then `after`.
/// [`kernels_with`] is its [`Layout::iter`]; a wall-time-only simulation
/// prices `layer` once ([`super::step::layout_wall`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Layout<K> {
    pub before: Vec<K>,
    pub lead: Vec<K>,
    pub layer: Vec<K>,
    pub send: K,
    pub after: Vec<K>,
    pub layers: u32,
    pub per_stage: u32,
}

impl<K> Layout<K> {
    /// Every kernel in launch order.
    pub fn iter(&self) -> impl Iterator<Item = &K> {
        let per_stage = self.per_stage.max(1);
        self.before
            .iter()
            .chain(&self.lead)
            .chain((0..self.layers).flat_map(move |i| {
                (i > 0 && i % per_stage == 0)
                    .then_some(&self.send)
                    .into_iter()
                    .chain(&self.layer)
            }))
            .chain(&self.after)
    }
    /// Calls `f` on each kernel of this layout and the one at the same place
    /// of `other` (the same shape: [`Layout::map`]'s), in [`Layout::iter`]'s
    /// order, with plain loops: a step's ~1,600 kernels walked by chained
    /// iterators cost several times the simulation they feed.
    pub fn zip_each<'a, U>(&'a self, other: &'a Layout<U>, mut f: impl FnMut(&'a K, &'a U)) {
        let per_stage = self.per_stage.max(1);
        let mut pairs = |a: &'a [K], b: &'a [U]| {
            debug_assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(b) {
                f(x, y);
            }
        };
        pairs(&self.before, &other.before);
        pairs(&self.lead, &other.lead);
        for i in 0..self.layers {
            if i > 0 && i % per_stage == 0 {
                pairs(
                    std::slice::from_ref(&self.send),
                    std::slice::from_ref(&other.send),
                );
            }
            pairs(&self.layer, &other.layer);
        }
        pairs(&self.after, &other.after);
    }
    /// Every kernel in launch order, cloned into one list ([`Layout::iter`]'s
    /// order, with [`Layout::zip_each`]'s loops).
    pub fn to_vec(&self) -> Vec<K>
    where
        K: Clone,
    {
        let mut out = Vec::with_capacity(self.len());
        self.zip_each(self, |k, _| out.push(k.clone()));
        out
    }
    /// Kernels in the step.
    pub fn len(&self) -> usize {
        let sends = (self.layers.max(1) - 1) / self.per_stage.max(1);
        self.before.len()
            + self.lead.len()
            + self.layer.len() * self.layers as usize
            + sends as usize
            + self.after.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The same layout with `f` of each kernel (each of the layer's once).
    pub fn map<U>(&self, f: impl Fn(&K) -> U) -> Layout<U> {
        Layout {
            before: self.before.iter().map(&f).collect(),
            lead: self.lead.iter().map(&f).collect(),
            layer: self.layer.iter().map(&f).collect(),
            send: f(&self.send),
            after: self.after.iter().map(&f).collect(),
            layers: self.layers,
            per_stage: self.per_stage,
        }
    }
}

/// [`kernels_with`]'s step as a [`Layout`].
pub fn layout_with(r: &LlmRun, read: KvRead) -> Layout<LlmKernel> {
    let c = &r.config;
    // with DEP, the slowest rank's embedding, LM head and sends (its own
    // sequences'); `r` itself without
    let rank = super::dep::rank_run(r);
    let (before, after) = if r.graphs {
        (compiled_before(&rank), compiled_after(&rank))
    } else {
        (eager::before(&rank), eager::after(&rank))
    };
    Layout {
        before: before.into_iter().map(outer).collect(),
        lead: lead_kernels_with(r, read),
        layer: layer_kernels_with(r, read),
        // a pipeline hands the activations to the next stage between its stages
        send: outer(collective(
            "send to the next stage",
            crate::model::parallel::Collective::Send,
            2,
            tokens(&rank) * f64::from(c.hidden) * ACT_BYTES,
            r,
        )),
        after: after.into_iter().map(outer).collect(),
        layers: repeats(c),
        per_stage: repeats(c).div_ceil(r.par.pp.max(1)).max(1),
    }
}

fn outer(mut k: LlmKernel) -> LlmKernel {
    k.in_layer = false;
    k
}
