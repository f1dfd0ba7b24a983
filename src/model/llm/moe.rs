//! What the mixtures of experts deployed today add to the plain decoder of
//! [`super`]: shared experts beside the routed ones, dense layers among the MoE
//! layers (DeepSeek-V3's first three, Llama-4's every other layer), an expert FFN
//! narrower than the dense one, a query width `H·d` that is not the hidden size,
//! DeepSeek's multi-head latent attention (MLA), GPT-OSS's sliding-window layers
//! and experts stored in MXFP4.
//!
//! A model whose layers differ is priced layer by layer: [`layers`] splits it into
//! *lead* layers (run once each, before the rest) and a *period* of layers
//! repeated to the end, each layer a plain config of its own (one kind of MLP,
//! one attention), so the kernels of [`super::kernels`] price every layer as it
//! is. A plain model is one period of one layer: its step is unchanged.
//!
//! **MLA** (DeepSeek-V3, `kv_lora_rank` r = 512, `qk_rope_head_dim` ρ = 64,
//! `qk_nope_head_dim` 128, `v_head_dim` 128, `q_lora_rank` 1536): the KV cache
//! holds the compressed latent and the shared rotary key, `r + ρ` = 576 values
//! per token per layer (no factor 2, no heads). Decode is priced in the absorbed
//! form (the up-projections folded into the query and the output, as DeepSeek's
//! `inference/model.py` `attn_impl="absorb"` and FlashMLA run it): every head's
//! query meets the latent, `2·(r + ρ)` FLOPs a key for the scores and `2·r` for the
//! values, and the cache is read once for all heads. Prefill is priced in the
//! plain form: the latent is expanded to every head's K and V (a matmul) and a
//! causal flash attention of head dims 192 (Q, K) and 128 (V) runs on them.
//! Assumed, not measured: both forms run at the roofline of their bytes and
//! FLOPs, as every attention here does.
//!
//! **Sliding windows** (GPT-OSS: a 128-token window on the even layers): a
//! windowed layer's decode reads at most the window of cached keys, its prefill
//! meets at most the window per query, and its cache holds at most the window.
//!
//! **MXFP4 experts** (GPT-OSS ships its expert weights so, whatever
//! `llm_wdtype` says): 4-bit elements with one 8-bit scale per 32, 4.25 bits a
//! weight, at their own bytes. No GPU here multiplies in MXFP4 (the B200's FP4
//! tensor cores are not modelled), so the kernel unpacks the weights into the
//! step's matmul dtype ([`mxfp4_stored`]): with fp8 weights elsewhere into fp8
//! (W4A8, streamed as the fp8 MoE decode calm measured); otherwise into bf16
//! (W4A16, TensorRT-LLM's default for MXFP4 checkpoints on Hopper), the matmul
//! in bf16 and the weights streamed as the 4-bit weight-only kernel torchao
//! measured ([`crate::model::gemm::streamed`]). No MXFP4 kernel itself is
//! measured here.

use super::{KvDtype, LlmConfig, LlmRun, WeightDtype};

/// DeepSeek's multi-head latent attention; `kv_lora` 0: none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mla {
    pub q_lora: u32,
    pub kv_lora: u32,
    pub rope: u32,
    pub nope: u32,
    pub v_head: u32,
}

impl Mla {
    pub const NONE: Mla = Mla {
        q_lora: 0,
        kv_lora: 0,
        rope: 0,
        nope: 0,
        v_head: 0,
    };
    pub fn on(&self) -> bool {
        self.kv_lora > 0
    }
}

/// What a model adds to the plain decoder (all zero/false: a plain one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    /// Head dimension where it is not `hidden / heads` (0: `hidden / heads`).
    pub head_dim: u32,
    /// Each expert's FFN width where it differs from the dense FFN (0: `ffn`).
    pub expert_ffn: u32,
    /// Shared experts each MoE layer runs for every token (each `expert_ffn` wide).
    pub shared: u32,
    /// The first layers with a dense FFN (`ffn` wide) instead of experts.
    pub dense_first: u32,
    /// Every `moe_every`-th layer is a MoE layer (the layer after each
    /// `moe_every - 1` dense ones), the others dense; 0 or 1: every layer.
    pub moe_every: u32,
    /// A sliding window of this many tokens (0: none).
    pub window: u32,
    /// The window on every other layer (the even ones, from 0); else on all.
    pub window_alternates: bool,
    pub mla: Mla,
    /// The experts' weights in MXFP4, whatever the weights' dtype.
    pub mxfp4: bool,
}

impl Arch {
    pub const PLAIN: Arch = Arch {
        head_dim: 0,
        expert_ffn: 0,
        shared: 0,
        dense_first: 0,
        moe_every: 0,
        window: 0,
        window_alternates: false,
        mla: Mla::NONE,
        mxfp4: false,
    };
}

/// MXFP4's bytes per weight: 4-bit elements and an 8-bit scale per 32 of them.
pub const MXFP4_BYTES: f64 = (4.0 + 8.0 / 32.0) / 8.0;

/// How MXFP4 experts stream when the rest of the step's weights are `w`: unpacked
/// to fp8 beside fp8 weights (W4A8, as an fp8 kernel streams), else to bf16 for a
/// bf16 matmul (W4A16, as a 4-bit weight-only kernel streams). TensorRT-LLM runs
/// MXFP4 checkpoints on Hopper as W4A16 by default
/// (https://github.com/NVIDIA/TensorRT-LLM/blob/04a2a261332f7cf2175613f8ad6ade5ffcec318f/docs/source/blogs/tech_blog/blog9_Deploying_GPT_OSS_on_TRTLLM.md,
/// "Using the MXFP4 Checkpoints").
pub fn mxfp4_stored(w: WeightDtype) -> crate::model::gemm::Stored {
    use crate::model::gemm::Stored;
    if w == WeightDtype::Fp8 {
        Stored::Fp8
    } else {
        Stored::Int4
    }
}

/// A model's layers: `lead` once each, then `period` repeated `repeats` times.
#[derive(Clone, Debug, PartialEq)]
pub struct Layers {
    pub lead: Vec<LlmConfig>,
    pub period: Vec<LlmConfig>,
    pub repeats: u32,
}

impl Layers {
    /// Every layer in order.
    pub fn each(&self) -> impl Iterator<Item = &LlmConfig> {
        self.lead
            .iter()
            .chain((0..self.repeats).flat_map(move |_| self.period.iter()))
    }
}

/// Whether the MoE layers of `c` route (more than one expert).
fn routes(c: &LlmConfig) -> bool {
    c.experts > 1
}

/// Layer `i` of `c` as a plain config of its own: its MLP (dense `ffn` wide, or
/// the experts `expert_ffn` wide with the shared ones) and its window.
pub fn layer_config(c: &LlmConfig, i: u32) -> LlmConfig {
    let a = c.arch;
    let every = a.moe_every.max(1);
    let moe = routes(c) && i >= a.dense_first && (i + 1).is_multiple_of(every);
    let window = if a.window_alternates && i % 2 == 1 {
        0
    } else {
        a.window
    };
    let arch = Arch {
        dense_first: 0,
        moe_every: 0,
        window,
        window_alternates: false,
        expert_ffn: 0,
        shared: if moe { a.shared } else { 0 },
        mxfp4: moe && a.mxfp4,
        ..a
    };
    if moe {
        LlmConfig {
            ffn: if a.expert_ffn > 0 {
                a.expert_ffn
            } else {
                c.ffn
            },
            arch,
            ..*c
        }
    } else {
        LlmConfig {
            experts: 1,
            top_k: 1,
            arch,
            ..*c
        }
    }
}

/// `c`'s layers as lead layers and a repeated period ([`Layers`]). A model whose
/// layers are all alike is one period of one layer, `c` itself where it is
/// plain (a dense model, Mixtral).
pub fn layers(c: &LlmConfig) -> Layers {
    let a = c.arch;
    let n = c.layers.max(1);
    let p = if (a.moe_every > 1 && routes(c)) || (a.window_alternates && a.window > 0) {
        2
    } else {
        1
    };
    let lead_n = if routes(c) { a.dense_first.min(n) } else { 0 };
    let rest = n - lead_n;
    let (repeats, extra) = (rest / p, rest % p);
    let lead: Vec<LlmConfig> = (0..lead_n + extra).map(|i| layer_config(c, i)).collect();
    let start = lead_n + extra;
    let period: Vec<LlmConfig> = (0..p).map(|j| layer_config(c, start + j)).collect();
    if repeats == 0 {
        // fewer layers than a period: all lead
        return Layers {
            lead,
            period: Vec::new(),
            repeats: 0,
        };
    }
    Layers {
        lead,
        period,
        repeats,
    }
}

/// `r` with layer config `c`.
pub fn layer_run(r: &LlmRun, c: &LlmConfig) -> LlmRun {
    LlmRun { config: *c, ..*r }
}

/// Attention weights of one layer of `c` (MLA or grouped-query).
pub fn attn_params(c: &LlmConfig) -> f64 {
    let h = f64::from(c.hidden);
    let m = c.arch.mla;
    if m.on() {
        let heads = f64::from(c.heads);
        let (ql, kl, rope, nope, v) = (
            f64::from(m.q_lora),
            f64::from(m.kv_lora),
            f64::from(m.rope),
            f64::from(m.nope),
            f64::from(m.v_head),
        );
        // Q down, Q up, KV down (latent and the rotary key), KV up (K and V
        // per head), output; the two latent norms
        h * ql
            + ql * heads * (nope + rope)
            + h * (kl + rope)
            + kl * heads * (nope + v)
            + heads * v * h
            + ql
            + kl
    } else {
        h * (2.0 * c.q_width() + 2.0 * c.kv_width())
    }
}

/// Parameters of one plain layer config's MLP: all of them, and those one token
/// uses.
fn mlp_params(c: &LlmConfig) -> (f64, f64) {
    let e = c.expert_params();
    let shared = f64::from(c.arch.shared) * e;
    let router = c.router_params();
    (
        f64::from(c.experts) * e + shared + router,
        f64::from(c.top_k.clamp(1, c.experts.max(1))) * e + shared + router,
    )
}

/// Every parameter of `c` and those one token uses (the embedding and the LM
/// head counted whole in both, as the vendors' active counts do).
pub fn params(c: &LlmConfig) -> (f64, f64) {
    let (mut total, mut active) = (0.0, 0.0);
    for l in layers(c).each() {
        let (t, a) = mlp_params(l);
        total += attn_params(l) + t;
        active += attn_params(l) + a;
    }
    let h = f64::from(c.hidden);
    let outer = h * (2.0 * f64::from(c.layers) + 1.0) + 2.0 * c.embedding_params();
    (total + outer, active + outer)
}

/// Bytes of one layer's weights (every expert), the experts in MXFP4 where the
/// model ships them so, the rest in `w`; `tp` splits the attention and MLP,
/// `ep` the routed experts besides (DEP's ranks, [`super::dep`]).
pub fn layer_weight_bytes(c: &LlmConfig, w: WeightDtype, tp: f64, ep: f64) -> f64 {
    let ep = if c.experts > 1 { ep.max(1.0) } else { 1.0 };
    let e = f64::from(c.experts) * c.expert_params() / ep;
    let shared = f64::from(c.arch.shared) * c.expert_params();
    let wb = w.bytes();
    let eb = if c.arch.mxfp4 { MXFP4_BYTES } else { wb };
    ((attn_params(c) + shared) * wb + e * eb) / tp
        + (c.router_params() + 2.0 * f64::from(c.hidden)) * wb
}

/// KV-cache bytes of one layer of `c` for one sequence of `ctx` tokens: the
/// latent and rotary key of MLA, else K and V of every KV head; a windowed layer
/// holds at most its window.
pub fn layer_kv_bytes(c: &LlmConfig, ctx: f64, kv: KvDtype) -> f64 {
    let held = if c.arch.window > 0 {
        ctx.min(f64::from(c.arch.window))
    } else {
        ctx
    };
    held * kv_width_cached(c) * kv.bytes()
}

/// Values cached per token in one layer: `r + ρ` (MLA) or `2·G·d`.
pub fn kv_width_cached(c: &LlmConfig) -> f64 {
    let m = c.arch.mla;
    if m.on() {
        f64::from(m.kv_lora + m.rope)
    } else {
        2.0 * c.kv_width()
    }
}

/// KV-cache bytes of every layer of `c` for one sequence of `ctx` tokens.
pub fn kv_bytes_per_seq(c: &LlmConfig, ctx: f64, kv: KvDtype) -> f64 {
    layers(c).each().map(|l| layer_kv_bytes(l, ctx, kv)).sum()
}

/// Whether any layer of `c` needs more than the plain decoder's kernels (the
/// eager step of such a layer is priced by its compiled kernels, launched one
/// by one: gpt-fast, whose eager ops [`super::eager`] counts, has no such layer).
pub fn beyond_plain(c: &LlmConfig) -> bool {
    let a = c.arch;
    a.mla.on()
        || a.window > 0
        || a.shared > 0
        || a.mxfp4
        || (a.head_dim > 0 && f64::from(a.head_dim) * f64::from(c.heads) != f64::from(c.hidden))
}

/// The select's label of a MoE preset: the vendor's total and active
/// parameters ([`preset`]'s sources).
pub fn label(m: super::LlmModel) -> &'static str {
    use super::LlmModel as M;
    match m {
        M::DeepseekV3 => "DeepSeek-V3 (MoE, 671B total, 37B active)",
        M::Qwen3_235b => "Qwen3-235B-A22B (MoE, 235B total, 22B active)",
        M::Qwen3_30b => "Qwen3-30B-A3B (MoE, 30B total, 3B active)",
        M::GptOss120b => "GPT-OSS-120B (MoE, 117B total, 5.1B active)",
        M::GptOss20b => "GPT-OSS-20B (MoE, 21B total, 3.6B active)",
        M::Llama4Maverick => "Llama-4-Maverick (MoE, 400B total, 17B active)",
        _ => "",
    }
}

/// A MoE preset's published config and its source (tests/data/moe-configs.json
/// holds each field with its source and whether a vendor's own file gave it).
pub fn preset(m: super::LlmModel) -> Option<(LlmConfig, &'static str)> {
    use super::LlmModel as M;
    let base = |layers, hidden, heads, kv_heads, ffn, vocab, experts, top_k| LlmConfig {
        layers,
        hidden,
        heads,
        kv_heads,
        ffn,
        vocab,
        experts,
        top_k,
        arch: Arch::PLAIN,
    };
    // GPT-OSS: head dim 64, a 128-token window on the even layers, MXFP4 experts
    let gpt_oss = Arch {
        head_dim: 64,
        window: 128,
        window_alternates: true,
        mxfp4: true,
        ..Arch::PLAIN
    };
    Some(match m {
        M::DeepseekV3 => (
            LlmConfig {
                arch: Arch {
                    expert_ffn: 2048,
                    shared: 1,
                    dense_first: 3,
                    mla: Mla {
                        q_lora: 1536,
                        kv_lora: 512,
                        rope: 64,
                        nope: 128,
                        v_head: 128,
                    },
                    ..Arch::PLAIN
                },
                ..base(61, 7168, 128, 128, 18432, 129280, 256, 8)
            },
            "https://github.com/deepseek-ai/DeepSeek-V3/blob/9b4e9788e4a3a731f7567338ed15d3ec549ce03b/inference/configs/config_671B.json: 61 layers (the first 3 dense, FFN 18432), hidden 7168, 128 heads, MLA q_lora 1536, kv_lora 512, rope 64, nope 128, v 128; 256 routed experts (FFN 2048), 8 per token, 1 shared; vocab 129280; README: 671B total, 37B active",
        ),
        M::Qwen3_235b => (
            LlmConfig {
                arch: Arch {
                    head_dim: 128,
                    ..Arch::PLAIN
                },
                ..base(94, 4096, 64, 4, 1536, 151936, 128, 8)
            },
            "https://github.com/QwenLM/Qwen3/blob/7a2f61ffc7a20d47efcd2bf97f6f2bf52729042e/Qwen3_Technical_Report.pdf (Table 2: 94 layers, 64/4 heads, 128 experts, 8 active, no shared expert; 235B total, 22B active); hidden 4096, expert FFN 1536, head dim 128, vocab 151936 from third-party copies of the Hugging Face config (gitcode.com/Ascend/MindSpeed-RL configs/model/qwen3_235b_a22b.yaml)",
        ),
        M::Qwen3_30b => (
            LlmConfig {
                arch: Arch {
                    head_dim: 128,
                    ..Arch::PLAIN
                },
                ..base(48, 2048, 32, 4, 768, 151936, 128, 8)
            },
            "https://github.com/QwenLM/Qwen3/blob/7a2f61ffc7a20d47efcd2bf97f6f2bf52729042e/Qwen3_Technical_Report.pdf (Table 2: 48 layers, 32/4 heads, 128 experts, 8 active, no shared expert); hidden 2048, expert FFN 768, head dim 128, vocab 151936 from a third-party copy of the qwen3_moe config (huggingface.co RTP-LLM/Qwen3-Coder-30B-A3B-Instruct-RTPurbo)",
        ),
        M::GptOss120b => (
            LlmConfig {
                arch: gpt_oss,
                ..base(36, 2880, 64, 8, 2880, 201088, 128, 4)
            },
            "https://github.com/openai/gpt-oss/blob/0568dfc94f09469e2968c2b90e50561d1b3fc424/gpt_oss/torch/model.py (ModelConfig: 36 layers, hidden 2880, 64 heads of 64, 8 KV heads, 128 experts of FFN 2880, 4 per token, vocab 201088, a 128-token window on every other layer); README: 117B total, 5.1B active, MXFP4 experts (4.25 bits a weight)",
        ),
        M::GptOss20b => (
            LlmConfig {
                arch: gpt_oss,
                ..base(24, 2880, 64, 8, 2880, 201088, 32, 4)
            },
            "https://github.com/openai/gpt-oss (README: 21B total, 3.6B active; the architecture of gpt_oss/torch/model.py); 24 layers and 32 experts from third-party copies of the Hugging Face config (huggingface.co/descript/mouse-20b)",
        ),
        M::Llama4Maverick => (
            LlmConfig {
                arch: Arch {
                    expert_ffn: 8192,
                    shared: 1,
                    moe_every: 2,
                    ..Arch::PLAIN
                },
                ..base(48, 5120, 40, 8, 16384, 202048, 128, 1)
            },
            "https://github.com/meta-llama/llama-models/blob/038acb9fe1e1ddc5cf1b3989fb07b311a0ffcae4/models/llama4/MODEL_CARD.md (17B active, 400B total, 128 experts, top-1); 48 layers, hidden 5120, 40/8 heads, dense FFN 16384, expert FFN 8192, MoE every second layer with one shared expert, vocab 202048 from the GGUF metadata of a conversion of Meta's checkpoint (ollama.com aravhawk/llama4:maverick-q4_K_M)",
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::llm::step::{self, KvRead};
    use crate::model::llm::{KvDtype, WeightDtype};
    use crate::model::llm::{LlmModel, Parallel, Phase};
    use crate::state::State;

    /// The presets this module builds (`preset` answers for them alone).
    fn moe() -> Vec<LlmModel> {
        let m: Vec<LlmModel> = LlmModel::ALL
            .into_iter()
            .filter(|&m| preset(m).is_some())
            .collect();
        assert_eq!(m.len(), 6, "the six presets of moe-configs.json");
        m
    }

    fn run(c: LlmConfig, batch: u32, graphs: bool) -> LlmRun {
        LlmRun {
            config: c,
            phase: Phase::Decode,
            batch,
            context: 1024,
            wdtype: WeightDtype::Fp8,
            kvdtype: KvDtype::Bf16,
            graphs,
            flash: true,
            par: Parallel::ONE,
        }
    }

    /// tests/data/moe-configs.json's published totals and active counts.
    fn published(m: LlmModel) -> (f64, f64) {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/moe-configs.json"
        ))
        .expect("moe-configs.json");
        let j = crate::json::parse(&text).expect("json");
        let models = j.get("models").and_then(|m| m.as_arr()).expect("models");
        let row = models
            .iter()
            .find(|x| x.get("id").and_then(|i| i.as_str()) == Some(m.id()))
            .expect("row");
        let num = |k| row.get(k).and_then(|v| v.as_f64()).expect(k);
        (num("params_total_b") * 1e9, num("params_active_b") * 1e9)
    }

    /// Every preset's total and active parameters against the vendor's, the
    /// config's numbers counted layer by layer. Two counts differ in what
    /// they count, and the test counts as the vendor does: OpenAI's active
    /// count leaves out the embedding table (a token reads one row of it), the
    /// others count it whole; and "A3B" is a name rounded down (3.3 B).
    #[test]
    fn parameters_are_the_vendors() {
        for m in moe() {
            let c = m.config().expect("preset").0;
            let (total, mut active) = params(&c);
            let (want_t, want_a) = published(m);
            if matches!(m, LlmModel::GptOss120b | LlmModel::GptOss20b) {
                active -= c.embedding_params();
            }
            assert!(
                (total / want_t - 1.0).abs() < 0.03,
                "{m:?} total {total:e} vs {want_t:e}"
            );
            let tol = if m == LlmModel::Qwen3_30b { 0.12 } else { 0.03 };
            assert!(
                (active / want_a - 1.0).abs() < tol,
                "{m:?} active {active:e} vs {want_a:e}"
            );
            assert_eq!((c.total_params(), c.active_params()), params(&c));
        }
    }

    /// DeepSeek-V3: 3 dense layers then 58 MoE layers; Llama-4: dense and MoE
    /// alternating from a dense one; GPT-OSS: windowed and full alternating from
    /// a windowed one; a dense model and Mixtral: one layer, themselves.
    #[test]
    fn layers_follow_the_configs() {
        let ds = layers(&LlmModel::DeepseekV3.config().expect("ds").0);
        assert_eq!((ds.lead.len(), ds.period.len(), ds.repeats), (3, 1, 58));
        assert!(ds
            .lead
            .iter()
            .all(|l| l.experts == 1 && l.ffn == 18432 && l.arch.shared == 0));
        assert_eq!(
            (
                ds.period[0].experts,
                ds.period[0].ffn,
                ds.period[0].arch.shared
            ),
            (256, 2048, 1)
        );
        let l4 = layers(&LlmModel::Llama4Maverick.config().expect("l4").0);
        assert_eq!((l4.lead.len(), l4.period.len(), l4.repeats), (0, 2, 24));
        assert_eq!((l4.period[0].experts, l4.period[0].ffn), (1, 16384));
        assert_eq!((l4.period[1].experts, l4.period[1].ffn), (128, 8192));
        let go = layers(&LlmModel::GptOss120b.config().expect("go").0);
        assert_eq!((go.period.len(), go.repeats), (2, 18));
        assert_eq!(
            (go.period[0].arch.window, go.period[1].arch.window),
            (128, 0)
        );
        assert!(go.period.iter().all(|l| l.arch.mxfp4 && l.experts == 128));
        for m in [LlmModel::Llama3_8b, LlmModel::Mixtral8x7b] {
            let c = m.config().expect("m").0;
            let ls = layers(&c);
            assert_eq!(
                (ls.lead.len(), ls.period.clone(), ls.repeats),
                (0, vec![c], c.layers)
            );
        }
        assert_eq!(ds.each().count() as u32, 61);
        assert_eq!(l4.each().count() as u32, 48);
    }

    /// MLA caches the latent and the rotary key, 576 values a token a layer,
    /// read once for all heads; GPT-OSS's windowed layers hold 128 tokens.
    #[test]
    fn mla_and_window_caches() {
        let ds = LlmModel::DeepseekV3.config().expect("ds").0;
        assert_eq!(ds.kv_bytes_per_token(KvDtype::Bf16), 61.0 * 576.0 * 2.0);
        assert_eq!(
            kv_bytes_per_seq(&ds, 1000.0, KvDtype::Bf16),
            1000.0 * 61.0 * 576.0 * 2.0
        );
        let go = LlmModel::GptOss120b.config().expect("go").0;
        let per = 2.0 * 8.0 * 64.0 * 2.0;
        assert_eq!(
            kv_bytes_per_seq(&go, 10000.0, KvDtype::Bf16),
            18.0 * per * (10000.0 + 128.0)
        );
        // the decode attention of a windowed layer reads at most the window
        let s = State::default().setting;
        let r = LlmRun {
            context: 8192,
            ..run(go, 8, true)
        };
        let ks = crate::model::llm::launch::layer_kernels(&r);
        let att: Vec<_> = ks
            .iter()
            .filter(|k| k.group.name == "attention (flash decode)")
            .collect();
        assert_eq!(att.len(), 2);
        assert_eq!(att[0].kv_bytes, 8.0 * 128.0 * 2.0 * 512.0 * 2.0);
        assert_eq!(att[1].kv_bytes, 8.0 * 8192.0 * 2.0 * 512.0 * 2.0);
        // MLA's decode reads the latent once: far less than per-head K and V
        let r = run(ds, 8, true);
        let mla: f64 = crate::model::llm::launch::layer_kernels(&r)
            .iter()
            .map(|k| k.kv_bytes)
            .sum();
        assert_eq!(mla, 8.0 * 1024.0 * 576.0 * 2.0 + 8.0 * 576.0 * 2.0);
        assert!(step::full(&r, &s).wall > 0.0);
    }

    /// A model of one expert, one active, shaped as a dense model's FFN, is the
    /// dense model, bit for bit; an expert wider or narrower than the FFN width
    /// is not (the key is read).
    #[test]
    fn one_expert_is_the_dense_step() {
        let s = State::default().setting;
        let dense = LlmModel::Llama3_8b.config().expect("8b").0;
        let one = LlmConfig {
            experts: 1,
            top_k: 1,
            arch: Arch {
                expert_ffn: dense.ffn,
                ..Arch::PLAIN
            },
            ..dense
        };
        for graphs in [false, true] {
            for b in [1, 64] {
                let (x, y) = (run(dense, b, graphs), run(one, b, graphs));
                assert_eq!(
                    step::wall(&x, &s, KvRead::AsWritten),
                    step::wall(&y, &s, KvRead::AsWritten)
                );
                assert_eq!(step::full(&x, &s).wall, step::full(&y, &s).wall);
                assert_eq!(
                    crate::model::llm::fit::weight_bytes(&x),
                    crate::model::llm::fit::weight_bytes(&y)
                );
            }
        }
        assert_eq!(one.total_params(), dense.total_params());
        // an MoE of E experts, k active, E·k... its experts' FFN width is read
        let moe = |ef| LlmConfig {
            experts: 8,
            top_k: 2,
            arch: Arch {
                expert_ffn: ef,
                ..Arch::PLAIN
            },
            ..dense
        };
        assert!(moe(4096).total_params() < moe(0).total_params());
    }

    /// Experts touched grow with the batch as uniform routing says,
    /// `E·(1 − (1 − k/E)^T)`, reach every expert, and the grouped GEMMs run at
    /// `T·k / touched` rows per expert; the shared expert is read at every batch.
    #[test]
    fn experts_touched_grow_to_all_and_price_the_gemms() {
        let s = State::default().setting;
        let c = LlmModel::DeepseekV3.config().expect("ds").0;
        let mut last = 0.0;
        for b in [1u32, 2, 4, 16, 64, 256, 1024, 4096] {
            let t = f64::from(b);
            let want = 256.0 * (1.0 - (1.0 - 8.0 / 256.0f64).powf(t));
            let got = c.experts_touched(t);
            assert!((got - want.max(8.0)).abs() < 1e-9, "{b}: {got} vs {want}");
            assert!(got >= last);
            last = got;
            let r = run(c, b, true);
            let st = step::full(&r, &s);
            assert_eq!(st.experts_touched, got);
            let ks = crate::model::llm::launch::layer_kernels(&r);
            let up = ks
                .iter()
                .find(|k| k.group.name == "experts gate+up")
                .expect("experts");
            let g = up.group.gemm.expect("gemm");
            assert_eq!(g.m, crate::model::gemm::dim(t * 8.0 / got));
            assert_eq!(g.batch, crate::model::gemm::dim(got));
            assert!(ks.iter().any(|k| k.group.name == "shared expert gate+up"));
        }
        assert!(last > 255.99);
        assert_eq!(c.experts_touched(1.0), 8.0);
        // more experts touched per token of batch than a dense model's one FFN:
        // the weight bytes a MoE decode step reads grow with the batch
        let w = |b| step::full(&run(c, b, true), &s).bytes;
        assert!(w(64) > 4.0 * w(1));
    }

    /// Every preset fits where its vendor says it does: GPT-OSS-120B on one
    /// 80 GB GPU (MXFP4 experts), GPT-OSS-20B within 16 GB of weights,
    /// DeepSeek-V3 in fp8 not on one H200; and every preset steps.
    #[test]
    fn presets_fit_as_their_vendors_say_and_step() {
        let mut s = State::default();
        s.select_preset(crate::model::hardware::preset("h200").expect("h200"));
        for m in moe() {
            let c = m.config().expect("m").0;
            let r = run(c, 64, true);
            let st = step::full(&r, &s.setting);
            assert!(st.wall > 0.0 && st.wall.is_finite(), "{m:?}");
            let pf = LlmRun {
                phase: Phase::Prefill,
                batch: 1,
                context: 2048,
                ..r
            };
            assert!(step::full(&pf, &s.setting).wall > 0.0, "{m:?}");
        }
        let go = run(LlmModel::GptOss120b.config().expect("go").0, 1, true);
        assert!(crate::model::llm::fit::weight_bytes(&go) < 80e9 * 0.9);
        assert!(crate::model::llm::fit::weight_bytes(&go) > 60e9);
        let small = run(LlmModel::GptOss20b.config().expect("go").0, 1, true);
        assert!(crate::model::llm::fit::weight_bytes(&small) < 16e9);
        let ds = run(LlmModel::DeepseekV3.config().expect("ds").0, 1, true);
        assert!(crate::model::llm::fit::weight_bytes(&ds) > 141e9);
    }

    /// The query the browser test opens, and what the widget must publish for
    /// it: tests/e2e/data/llm-moe.json is this model's answer
    /// (`BRRR_BLESS=1` rewrites it).
    pub const E2E_QUERY: &str =
        "?hw=h200&llm_model=deepseek-v3&llm_wdtype=fp8&llm_graphs=1&llm_batch=64";

    #[test]
    fn the_browser_tests_values_are_the_models() {
        let (s, notices) = crate::state::url::decode(E2E_QUERY.trim_start_matches('?'));
        assert!(notices.is_empty(), "{notices:?}");
        let v = crate::state::widgets::llm::view(&s, false);
        let st = &v.step;
        let c = &st.run.config;
        let mut out = String::from("{\n");
        out.push_str(&format!("  \"query\": \"{E2E_QUERY}\",\n"));
        for (k, x) in [
            ("llm_params_total", c.total_params()),
            ("llm_params_active", c.active_params()),
            ("llm_experts_touched", st.experts_touched),
            ("llm_step_s", st.wall),
            ("llm_weight_bytes", st.weight_bytes),
            ("llm_kv_bytes", st.kv_bytes),
        ] {
            out.push_str(&format!("  \"{k}\": {x},\n"));
        }
        out.push_str(&format!("  \"llm_fits\": {}\n}}\n", u8::from(st.fits)));
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/data/llm-moe.json");
        if std::env::var_os("BRRR_BLESS").is_some() {
            std::fs::write(path, &out).expect("write");
        }
        assert_eq!(
            std::fs::read_to_string(path).unwrap_or_default(),
            out,
            "BRRR_BLESS=1 rewrites {path}"
        );
    }
}
