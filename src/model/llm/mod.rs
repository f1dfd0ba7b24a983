//! A decoder-only LLM (Llama / Mistral / Mixtral shape) as kernels on the roofline:
//! one decode step (every sequence of the batch emits one token) or one prefill (every
//! sequence's prompt at once). Pure; the `llm` widget formats what [`step::full`]
//! returns.
//!
//! **Parameters** from the config (`h` hidden, `H` heads, `G` KV heads, `d = h/H`
//! head dim, `F` FFN width, `V` vocab, `E` experts, `k` experts per token, `L`
//! layers), no biases (none of these models has any):
//! - attention per layer: `Wq` and `Wo` are `h·h` each, `Wk` and `Wv` are `h·G·d`
//!   each (grouped-query attention: `G < H` KV heads shared by `H/G` query heads);
//! - MLP per expert (SwiGLU: gate, up, down): `3·h·F`; a dense model is `E = k = 1`;
//!   a mixture of experts adds a router `h·E`;
//! - two RMSNorm weights `h` per layer, one final norm `h`;
//! - embedding `V·h` and an untied LM head `V·h` (none of the four ties them).
//!
//! Llama-3-8B: 32·(41.9 M + 176.2 M + 8 K) + 2·525.3 M = 8.03 B.
//! Mixtral-8x7B: 46.7 B in all, 12.9 B active per token (2 of 8 experts).
//!
//! **KV cache** per sequence: `2 · L · G · d · context · bytes` (K and V of every layer
//! and KV head); Llama-3-8B in bf16: 128 KiB per token.

pub mod advice;
pub mod dep;
pub mod eager;
pub mod fit;
pub mod kernels;
pub mod launch;
pub mod layer;
pub mod measured;
pub mod mla;
pub mod moe;
pub mod roof;
pub mod spec;
pub mod step;
pub mod view;
pub mod vs_measured;
pub mod vs_tp;

use super::hardware::Dtype;
pub use super::parallel::Parallel;
use super::setting::{preset_flops, Setting};
use super::workload::Machine;

/// The shape of a decoder-only transformer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LlmConfig {
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub ffn: u32,
    pub vocab: u32,
    /// Experts per MLP (1 = dense).
    pub experts: u32,
    /// Experts each token is routed to.
    pub top_k: u32,
    /// What the model adds to the plain decoder ([`moe::Arch::PLAIN`]: nothing).
    pub arch: moe::Arch,
}

/// The models offered (URL `llm_model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LlmModel {
    Llama3_8b,
    Llama3_70b,
    Mistral7b,
    Mixtral8x7b,
    DeepseekV3,
    Qwen3_235b,
    Qwen3_30b,
    GptOss120b,
    GptOss20b,
    Llama4Maverick,
    Custom,
}

impl LlmModel {
    pub const ALL: [LlmModel; 11] = [
        LlmModel::Llama3_8b,
        LlmModel::Llama3_70b,
        LlmModel::Mistral7b,
        LlmModel::Mixtral8x7b,
        LlmModel::DeepseekV3,
        LlmModel::Qwen3_235b,
        LlmModel::Qwen3_30b,
        LlmModel::GptOss120b,
        LlmModel::GptOss20b,
        LlmModel::Llama4Maverick,
        LlmModel::Custom,
    ];
    pub const IDS: [&'static str; 11] = [
        "llama3-8b",
        "llama3-70b",
        "mistral-7b",
        "mixtral-8x7b",
        "deepseek-v3",
        "qwen3-235b-a22b",
        "qwen3-30b-a3b",
        "gpt-oss-120b",
        "gpt-oss-20b",
        "llama4-maverick",
        "custom",
    ];
    pub fn id(self) -> &'static str {
        Self::IDS[self as usize]
    }
    pub fn label(self) -> &'static str {
        match self {
            LlmModel::Llama3_8b => "Llama-3-8B",
            LlmModel::Llama3_70b => "Llama-3-70B",
            LlmModel::Mistral7b => "Mistral-7B",
            LlmModel::Mixtral8x7b => "Mixtral-8x7B (MoE, 2 of 8 experts)",
            LlmModel::Custom => "custom",
            m => moe::label(m),
        }
    }
    /// The published config, or for `custom` (which has none) a one-layer toy
    /// shape: for code that needs some shape for any model (tests, sweeps).
    pub fn config_or_toy(self) -> LlmConfig {
        self.config().map(|c| c.0).unwrap_or(LlmConfig {
            layers: 1,
            hidden: 64,
            heads: 1,
            kv_heads: 1,
            ffn: 64,
            vocab: 256,
            experts: 1,
            top_k: 1,
            arch: moe::Arch::PLAIN,
        })
    }

    /// The published config (`None` for custom) and where it comes from.
    pub fn config(self) -> Option<(LlmConfig, &'static str)> {
        let dense = |layers, hidden, heads, kv_heads, ffn, vocab| LlmConfig {
            layers,
            hidden,
            heads,
            kv_heads,
            ffn,
            vocab,
            experts: 1,
            top_k: 1,
            arch: moe::Arch::PLAIN,
        };
        Some(match self {
            LlmModel::Llama3_8b => (
                dense(32, 4096, 32, 8, 14336, 128256),
                "meta-llama/Meta-Llama-3-8B config.json (Hugging Face): 32 layers, hidden 4096, 32 heads, 8 KV heads, intermediate 14336, vocab 128256, untied",
            ),
            LlmModel::Llama3_70b => (
                dense(80, 8192, 64, 8, 28672, 128256),
                "meta-llama/Meta-Llama-3-70B config.json (Hugging Face): 80 layers, hidden 8192, 64 heads, 8 KV heads, intermediate 28672, vocab 128256, untied",
            ),
            LlmModel::Mistral7b => (
                dense(32, 4096, 32, 8, 14336, 32000),
                "mistralai/Mistral-7B-v0.1 config.json (Hugging Face): 32 layers, hidden 4096, 32 heads, 8 KV heads, intermediate 14336, vocab 32000, untied",
            ),
            LlmModel::Mixtral8x7b => (
                LlmConfig {
                    experts: 8,
                    top_k: 2,
                    ..dense(32, 4096, 32, 8, 14336, 32000)
                },
                "mistralai/Mixtral-8x7B-v0.1 config.json (Hugging Face): as Mistral-7B with num_local_experts 8, num_experts_per_tok 2",
            ),
            LlmModel::Custom => return None,
            m => return moe::preset(m),
        })
    }
}

/// Decode one token per sequence, or prefill the prompts (URL `llm_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Decode,
    Prefill,
}

impl Phase {
    pub const ALL: [Phase; 2] = [Phase::Decode, Phase::Prefill];
    pub const IDS: [&'static str; 2] = ["decode", "prefill"];
    pub fn id(self) -> &'static str {
        Self::IDS[self as usize]
    }
}

/// How weights are stored (URL `llm_wdtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WeightDtype {
    Bf16,
    Fp8,
    /// 8-bit integers dequantised to bf16 in the kernel (weight-only, W8A16): runs
    /// on GPUs without fp8, such as the A100.
    Int8,
    /// 4-bit integers with the matmul in bf16 (weight-only quantisation, W4A16).
    Int4,
}

impl WeightDtype {
    pub const ALL: [WeightDtype; 4] = [
        WeightDtype::Bf16,
        WeightDtype::Fp8,
        WeightDtype::Int8,
        WeightDtype::Int4,
    ];
    pub const IDS: [&'static str; 4] = ["bf16", "fp8", "int8", "int4"];
    pub fn id(self) -> &'static str {
        Self::IDS[self as usize]
    }
    /// How the GEMM model streams weights stored this way.
    pub fn stored(self) -> crate::model::gemm::Stored {
        use crate::model::gemm::Stored;
        match self {
            WeightDtype::Bf16 => Stored::Bf16,
            WeightDtype::Fp8 => Stored::Fp8,
            WeightDtype::Int8 => Stored::Int8,
            WeightDtype::Int4 => Stored::Int4,
        }
    }
    /// The preset dtype these weights need ([`crate::model::hardware::Preset::check`]):
    /// fp8 weights need fp8; bf16 and the integer weights (dequantised to bf16
    /// in the kernel) run wherever the preset has bf16 or fp32.
    pub fn needs(self) -> Option<Dtype> {
        (self == WeightDtype::Fp8).then_some(Dtype::Fp8)
    }
    pub fn bytes(self) -> f64 {
        match self {
            WeightDtype::Bf16 => 2.0,
            WeightDtype::Fp8 | WeightDtype::Int8 => 1.0,
            // 4 bits, and a bf16 scale and zero point per group of 64 weights
            WeightDtype::Int4 => 0.5 + 4.0 / INT4_GROUP,
        }
    }
}

/// How the KV cache is stored (URL `llm_kvdtype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KvDtype {
    Bf16,
    Fp8,
}

impl KvDtype {
    pub const IDS: [&'static str; 2] = ["bf16", "fp8"];
    pub fn id(self) -> &'static str {
        Self::IDS[self as usize]
    }
    /// The preset dtype this cache needs: an fp8 cache needs fp8.
    pub fn needs(self) -> Option<Dtype> {
        (self == KvDtype::Fp8).then_some(Dtype::Fp8)
    }
    pub fn bytes(self) -> f64 {
        match self {
            KvDtype::Bf16 => 2.0,
            KvDtype::Fp8 => 1.0,
        }
    }
}

/// Bytes per activation element: bf16 throughout.
pub const ACT_BYTES: f64 = 2.0;

/// Weights per int4 group (one bf16 scale and one bf16 zero point each), as
/// torchao's `int4wo-64`, whose measured bandwidth [`stream`] uses.
pub const INT4_GROUP: f64 = 64.0;

/// CPU seconds per op an eager PyTorch model dispatches (each kernel launch, view
/// or reshape), measured inside a real model on the lent H100's host (PyTorch
/// 2.11): an eager Llama-2-7B-shaped decode step dispatched 2,616 ops (a
/// TorchDispatchMode count) in 38.66 ms, 14.78 µs each, where a bare `a + a` took
/// 10.18 µs on the same host (tests/data/h100.json's reference host: 9.69 µs): a
/// model's ops cost ~1.45× a bare one (module calls and Python between them).
/// tests/data/eager-ops-h100.json, written by tests/data/record_eager_ops.py.
pub const EAGER_OP_S: f64 = 14.78e-6;

/// The same on the lent H200's host: the same eager step (the same 2,616 ops)
/// ran 27.97 ms a token back to back (tests/data/traces/h200-decode-pairs.json,
/// `llama2_7b_decode_eager_b1`), 10.69 µs per op: that host's CPU is faster.
pub const EAGER_OP_S_H200_HOST: f64 = 10.69e-6;

/// CPU seconds per dispatched op of an eager model on `hw`'s host, and where the
/// number comes from. The eager step is the CPU's: it is measured on the hosts of
/// the GPUs lent to brrr (an H100 SXM's, an H200's); another GPU's host is
/// estimated as the reference host's bare op × the 1.45 a model's op costs
/// beyond a bare one on the H100's host. The explorer's overhead slider stays
/// the essay's 2022 bare loop (3.57 µs) and the overhead widget shows the bare op.
pub fn eager_op_s(hw: &crate::model::hardware::Preset) -> (f64, &'static str) {
    match hw.datasheet().id {
        "h100-sxm" => (
            EAGER_OP_S,
            "measured on the lent H100 SXM's host: an eager Llama-2-7B decode, 2,616 ops in 38.7 ms",
        ),
        "h200" => (
            EAGER_OP_S_H200_HOST,
            "measured on the lent H200's host: an eager Llama-2-7B decode, 2,616 ops in 28.0 ms",
        ),
        _ => (
            crate::model::reference::h100::EAGER_TINY_OP_S * EAGER_OP_S / BARE_OP_H100_HOST_S,
            "estimate: a bare eager op (9.7 µs) × 1.45, a model's op over a bare one on the lent H100's host",
        ),
    }
}

/// A bare eager `a + a` on the lent H100's host (tests/data/eager-ops-h100.json).
pub const BARE_OP_H100_HOST_S: f64 = 10.18e-6;

/// Everything the `llm` widget's controls choose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LlmRun {
    pub config: LlmConfig,
    pub phase: Phase,
    pub batch: u32,
    /// Tokens in the KV cache (decode) or the prompt length (prefill).
    pub context: u32,
    pub wdtype: WeightDtype,
    pub kvdtype: KvDtype,
    /// CUDA graphs: one launch for the whole step.
    pub graphs: bool,
    /// FlashAttention: one attention kernel, no scores in DRAM.
    pub flash: bool,
    /// How the model is spread over GPUs; [`Parallel::ONE`]: one GPU.
    pub par: Parallel,
}

impl LlmRun {
    /// Whether `hw` runs these weights and this cache, by the one dtype rule
    /// ([`crate::model::hardware::Preset::check`]); `Err` is its reason.
    pub fn check_on(&self, hw: &crate::model::hardware::Preset) -> Result<(), String> {
        for d in [self.wdtype.needs(), self.kvdtype.needs()]
            .into_iter()
            .flatten()
        {
            hw.check(d)?;
        }
        Ok(())
    }
}

/// The spread `want` made valid for `c`: tensor parallelism splits the heads and
/// the KV heads, so its degree must divide both; a pipeline stage holds at least
/// one layer. Each degree that does not fit falls to the largest one of
/// [`super::parallel::DEGREES`] below it that does; the strings say what changed
/// and why (shown beside the control). A link without bandwidth is no link.
pub fn spread(c: &LlmConfig, want: Parallel) -> (Parallel, Vec<String>) {
    let mut notes = Vec::new();
    // the largest offered degree up to the one asked for that `ok` accepts
    let fall = |asked: u32, ok: &dyn Fn(u32) -> bool| {
        super::parallel::DEGREES
            .into_iter()
            .filter(|&d| d <= asked.max(1) && ok(d))
            .max()
            .unwrap_or(1)
    };
    let tp = fall(want.tp, &|d| c.splits_over(d));
    if tp != want.tp.max(1) {
        notes.push(format!(
            "Tensor parallel {} does not divide the {} attention heads and {} KV heads evenly: showing {tp}.",
            want.tp, c.heads, c.kv_heads
        ));
    }
    let pp = fall(want.pp, &|d| d <= c.layers.max(1));
    if pp != want.pp.max(1) {
        notes.push(format!(
            "{} need at least {}, the model has {}: showing {pp}.",
            super::units::count(want.pp, "pipeline stage", "pipeline stages"),
            super::units::count(want.pp, "layer", "layers"),
            c.layers
        ));
    }
    let dep = dep_for(c, want, tp, &mut notes);
    let mut par = Parallel {
        tp,
        pp,
        dep,
        ..want
    };
    // (the link is kept on one GPU, where it costs nothing: the scaling chart
    // draws more GPUs over it)
    if !par.link.valid() {
        notes.push("The link has no bandwidth: showing one GPU.".into());
        par = Parallel::ONE;
    }
    (par, notes)
}

/// The DEP degree `want.dep` made valid for `c` beside tensor parallel `tp`:
/// only a mixture of experts spreads its experts (a dense model runs DEP 1);
/// DEP holds the whole attention on each GPU, so it needs tensor parallel 1
/// (asked with both, DEP falls to 1); each GPU holds the same number of
/// experts (a degree that does not divide them falls to the largest offered
/// one that does). Each change is said in `notes`.
fn dep_for(c: &LlmConfig, want: Parallel, tp: u32, notes: &mut Vec<String>) -> u32 {
    let asked = want.dep.max(1);
    if asked == 1 {
        return 1;
    }
    if c.experts <= 1 {
        notes.push(format!(
            "DEP {asked} spreads a mixture's experts over the GPUs; this model is dense: showing DEP 1."
        ));
        return 1;
    }
    if tp > 1 {
        notes.push(format!(
            "DEP {asked} holds the whole attention on each GPU, so tensor parallel must be 1: showing DEP 1 with tensor parallel {tp}."
        ));
        return 1;
    }
    let dep = super::parallel::DEGREES
        .into_iter()
        .filter(|&d| d <= asked && c.experts.is_multiple_of(d))
        .max()
        .unwrap_or(1);
    if dep != asked {
        notes.push(format!(
            "DEP {asked} does not split the {} experts evenly: showing {dep}.",
            c.experts
        ));
    }
    dep
}

impl LlmConfig {
    /// Whether tensor parallelism over `tp` GPUs gives each the same number of
    /// heads and KV heads.
    pub fn splits_over(&self, tp: u32) -> bool {
        tp > 0 && self.heads.is_multiple_of(tp) && self.kv_heads.is_multiple_of(tp)
    }

    /// How many GPUs of a tensor-parallel group of `tp` hold each KV head: one
    /// where the group is no wider than the KV heads; where it is wider, each
    /// GPU holds one whole head, so each head is held `tp / kv_heads` times
    /// (TensorRT-LLM: "Each GPU in TP group has at least 1 kv head",
    /// https://github.com/NVIDIA/TensorRT-LLM/blob/04cba882084a25665e7f80f5bda71b35b9790b6f/tensorrt_llm/bench/build/tuning.py).
    /// MLA's latent is every head's and counted where it is split.
    pub fn kv_replicas(&self, tp: u32) -> f64 {
        if self.arch.mla.on() {
            return 1.0;
        }
        (f64::from(tp.max(1)) / f64::from(self.kv_heads.max(1))).max(1.0)
    }

    /// Head dimension: `h / H`, or the model's own where it says otherwise.
    pub fn head_dim(&self) -> f64 {
        if self.arch.head_dim > 0 {
            return f64::from(self.arch.head_dim);
        }
        f64::from(self.hidden) / f64::from(self.heads.max(1))
    }
    /// Query width `H·d` (the hidden width `h` where the head dim is `h / H`).
    pub fn q_width(&self) -> f64 {
        if self.arch.head_dim > 0 {
            return f64::from(self.heads) * self.head_dim();
        }
        f64::from(self.hidden)
    }
    /// KV width `G·d`.
    pub fn kv_width(&self) -> f64 {
        f64::from(self.kv_heads) * self.head_dim()
    }
    /// Attention weights of one layer: `Wq, Wo` (`h·H·d`) and `Wk, Wv` (`h·G·d`);
    /// MLA's projections ([`moe::attn_params`]).
    pub fn attn_params(&self) -> f64 {
        moe::attn_params(self)
    }
    /// One expert's (or the dense MLP's) weights: `3·h·F`.
    pub fn expert_params(&self) -> f64 {
        3.0 * f64::from(self.hidden) * f64::from(self.ffn)
    }
    /// The router, `h·E` (0 for a dense model).
    pub fn router_params(&self) -> f64 {
        if self.experts > 1 {
            f64::from(self.hidden) * f64::from(self.experts)
        } else {
            0.0
        }
    }
    /// Matmul weights of one plain layer used by one token: attention, `k`
    /// experts, router.
    pub fn active_layer_matmul_params(&self) -> f64 {
        self.attn_params() + f64::from(self.top_k) * self.expert_params() + self.router_params()
    }
    /// Embedding (or LM head) matrix, `V·h`.
    pub fn embedding_params(&self) -> f64 {
        f64::from(self.vocab) * f64::from(self.hidden)
    }
    /// Every parameter: all experts, embedding and LM head ([`moe::params`]:
    /// layer by layer).
    pub fn total_params(&self) -> f64 {
        moe::params(self).0
    }
    /// Parameters one token uses: `k` of the experts and the shared ones, with
    /// the embedding table and LM head counted whole, as the published "active
    /// parameters" (12.9 B for Mixtral-8x7B, 37 B for DeepSeek-V3) count them.
    /// (The step itself reads one embedding row per token; see `kernels`.)
    pub fn active_params(&self) -> f64 {
        moe::params(self).1
    }
    /// KV-cache bytes per token of context in every layer (`2·L·G·d·bytes`;
    /// MLA's latent and rotary key), a windowed layer's counted whole: the
    /// cache of a sequence is [`moe::kv_bytes_per_seq`].
    pub fn kv_bytes_per_token(&self, kv: KvDtype) -> f64 {
        if self.arch == moe::Arch::PLAIN {
            return 2.0 * f64::from(self.layers) * self.kv_width() * kv.bytes();
        }
        f64::from(self.layers) * moe::kv_width_cached(self) * kv.bytes()
    }
    /// Expected experts a batch of `tokens` touches per layer when each token picks
    /// `k` of `E` uniformly and independently (the assumption behind the MoE weight
    /// traffic): `E·(1 − (1 − k/E)^tokens)`. Real routers are not uniform; a skewed
    /// router touches fewer experts at small batch.
    pub fn experts_touched(&self, tokens: f64) -> f64 {
        let e = f64::from(self.experts.max(1));
        let k = f64::from(self.top_k.clamp(1, self.experts.max(1)));
        if e <= 1.0 {
            return 1.0;
        }
        (e * (1.0 - (1.0 - k / e).powf(tokens.max(0.0)))).clamp(k.min(e), e)
    }
}

/// Accepted ranges of the custom model's shape (URL keys `llm_layers` …).
pub mod limits {
    pub const BATCH: (u32, u32) = (1, 4096);
    pub const CONTEXT: (u32, u32) = (1, 131072);
    pub const LAYERS: (u32, u32) = (1, 256);
    pub const HIDDEN: (u32, u32) = (64, 65536);
    pub const HEADS: (u32, u32) = (1, 256);
    pub const FFN: (u32, u32) = (64, 262144);
    pub const VOCAB: (u32, u32) = (256, 1 << 20);
    pub const EXPERTS: (u32, u32) = (1, 512);
    pub const SHARED: (u32, u32) = (0, 8);
}

/// The machine for a model running in `dtype` on the explorer's setting: the
/// explorer's bandwidth, overhead, pointwise ceiling and roofs, with the matmul
/// ceiling the preset's for `dtype` (fp32 where the preset has no such mode) scaled
/// by however far the peak slider was moved from the preset's peak (with achievable
/// roofs, the explorer's dtype's achievable fraction is kept). Activations are
/// stored in `dtype`.
pub fn machine_for(setting: &Setting, dtype: Dtype) -> Machine {
    let base = setting.machine();
    let scale = preset_flops(setting.hw, dtype) / preset_flops(setting.hw, setting.dtype);
    Machine {
        matmul_flops: base.matmul_flops * scale,
        elem_bytes: dtype.bytes(),
        gemm: base
            .gemm
            .and_then(|_| crate::model::gemm::Hw::of(setting.hw, dtype)),
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(m: LlmModel) -> LlmConfig {
        m.config_or_toy()
    }

    /// fp8 weights or an fp8 cache run only where the preset
    /// has fp8, by the rule the explorer's `dtype` follows, with its reason.
    #[test]
    fn fp8_weights_and_cache_follow_the_one_dtype_rule() {
        use crate::model::hardware::PRESETS;
        let run = |w: WeightDtype, kv: KvDtype| LlmRun {
            config: cfg(LlmModel::Llama3_8b),
            phase: Phase::Decode,
            batch: 1,
            context: 1024,
            wdtype: w,
            kvdtype: kv,
            graphs: false,
            flash: true,
            par: Parallel::ONE,
        };
        let mut refused = 0;
        for p in PRESETS {
            let fp8 = p.supports(Dtype::Fp8);
            for w in WeightDtype::ALL {
                for kv in [KvDtype::Bf16, KvDtype::Fp8] {
                    let wants = w == WeightDtype::Fp8 || kv == KvDtype::Fp8;
                    let got = run(w, kv).check_on(p);
                    assert_eq!(got.is_ok(), fp8 || !wants, "{} {w:?} {kv:?}", p.id);
                    if let Err(e) = got {
                        assert_eq!(e, format!("{} has no fp8 mode", p.name));
                        assert_eq!(Err(e), p.check(Dtype::Fp8));
                        refused += 1;
                    }
                }
            }
        }
        assert!(refused > 0);
        // presets without fp8: an Apple M2 Max, a V100 and a T4 have no fp8
        for id in ["m2-max", "v100", "t4"] {
            let p = crate::model::hardware::preset(id).expect(id);
            assert!(
                run(WeightDtype::Fp8, KvDtype::Bf16).check_on(p).is_err(),
                "{id}"
            );
            assert!(
                run(WeightDtype::Bf16, KvDtype::Fp8).check_on(p).is_err(),
                "{id}"
            );
        }
    }

    #[test]
    fn llama3_8b_parameters_and_kv_per_token() {
        let c = cfg(LlmModel::Llama3_8b);
        let p = c.total_params();
        assert!((p / 1e9 - 8.03).abs() < 0.005, "{p}");
        assert_eq!(c.kv_bytes_per_token(KvDtype::Bf16), 128.0 * 1024.0);
        assert_eq!(c.kv_bytes_per_token(KvDtype::Fp8), 64.0 * 1024.0);
        assert_eq!(c.head_dim(), 128.0);
    }

    #[test]
    fn published_sizes() {
        let b = |m| cfg(m).total_params() / 1e9;
        assert!(
            (b(LlmModel::Llama3_70b) - 70.55).abs() < 0.05,
            "{}",
            b(LlmModel::Llama3_70b)
        );
        assert!(
            (b(LlmModel::Mistral7b) - 7.24).abs() < 0.01,
            "{}",
            b(LlmModel::Mistral7b)
        );
        let mx = cfg(LlmModel::Mixtral8x7b);
        assert!(
            (mx.total_params() / 1e9 - 46.7).abs() < 0.05,
            "{}",
            mx.total_params()
        );
        assert!(
            (mx.active_params() / 1e9 - 12.9).abs() < 0.05,
            "{}",
            mx.active_params()
        );
        // dense: active = total
        let l = cfg(LlmModel::Llama3_8b);
        assert_eq!(l.active_params(), l.total_params());
    }

    #[test]
    fn experts_touched_grows_to_all() {
        let mx = cfg(LlmModel::Mixtral8x7b);
        assert!((mx.experts_touched(1.0) - 2.0).abs() < 1e-12);
        assert!((mx.experts_touched(2.0) - 8.0 * (1.0 - 0.75f64.powi(2))).abs() < 1e-12);
        assert!(mx.experts_touched(64.0) > 7.99);
        assert_eq!(cfg(LlmModel::Llama3_8b).experts_touched(100.0), 1.0);
    }

    #[test]
    fn only_custom_has_no_config() {
        // (ids ↔ variants of every choice: `state::widgets`' choice test)
        for m in LlmModel::ALL {
            assert_eq!(m.config().is_none(), m == LlmModel::Custom);
        }
    }
}
