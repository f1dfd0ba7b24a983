//! Does a state fit in the GPU's memory, and if not, what would make it fit.
//!
//! Memory is the weights (every expert) plus the batch's KV cache after the step,
//! and a reserve: the KV cache may use [`KV_FRACTION`] of what the weights leave,
//! the rest is kept for activations, the CUDA graphs' memory pools and the
//! framework's workspace (TensorRT-LLM's default rule, [`KV_FRACTION`]). The `serve`
//! widget's KV-cache capacity is this same rule. Every figure here comes from
//! [`weight_bytes`] and [`kv_bytes`], the same two functions the step reports, and
//! every bound is found by a search over the same test ([`fits`]), so a batch or
//! context said to fit does fit, and one more does not.

use super::{limits, KvDtype, LlmRun, Phase, WeightDtype};
use crate::model::units::count;

/// Bytes of the weights one GPU holds (all experts, the embedding and the LM
/// head on one GPU). Tensor parallelism splits each layer's attention and MLP
/// weights over `tp` GPUs and keeps the norms, the router, the embedding and the
/// LM head whole on each ([`super::kernels::split_by_tp`]); a pipeline gives each
/// stage its layers, the embedding to the first stage and the LM head to the
/// last (the same size: the larger stage counts).
///
/// With DEP `n` ([`super::dep`]) a rank holds everything but the routed
/// experts whole, and `1/n` of those.
pub fn weight_bytes(r: &LlmRun) -> f64 {
    let c = &r.config;
    let (tp, pp) = (f64::from(r.par.tp.max(1)), r.par.pp.max(1));
    let h = f64::from(c.hidden);
    let ep = if c.experts > 1 {
        f64::from(super::dep::ranks(r))
    } else {
        1.0
    };
    let layer = (c.attn_params() + f64::from(c.experts) * c.expert_params() / ep) / tp
        + c.router_params()
        + 2.0 * h;
    let layers = f64::from(super::kernels::stage_layers(r).min(c.layers.max(1)));
    let outer = if pp == 1 {
        2.0 * c.embedding_params() + h
    } else {
        c.embedding_params() + h
    };
    if c.arch != super::moe::Arch::PLAIN {
        // layer by layer (dense and MoE layers, MLA, MXFP4 experts), the stage's
        // share of them
        let all: f64 = super::moe::layers(c)
            .each()
            .map(|l| super::moe::layer_weight_bytes(l, r.wdtype, tp, ep))
            .sum();
        return all * layers / f64::from(c.layers.max(1)) + outer * r.wdtype.bytes();
    }
    (layers * layer + outer) * r.wdtype.bytes()
}

/// Bytes of the batch's KV cache one GPU holds after the step: `context` tokens
/// per sequence, plus the one a decode step adds; split over the KV heads (`tp`)
/// and the stages' layers.
///
/// With DEP a rank holds its own sequences' cache (`⌈B/n⌉` of them).
pub fn kv_bytes(r: &LlmRun) -> f64 {
    let b = f64::from(super::dep::rank_batch(r));
    let ctx_after = f64::from(r.context.max(1)) + if r.phase == Phase::Decode { 1.0 } else { 0.0 };
    let c = &r.config;
    let share = f64::from(super::kernels::stage_layers(r).min(c.layers.max(1)))
        / f64::from(c.layers.max(1))
        / f64::from(r.par.tp.max(1))
        * c.kv_replicas(r.par.tp);
    if c.arch != super::moe::Arch::PLAIN {
        // windowed layers hold their window; MLA's latent is every head's, so
        // each GPU of a tensor-parallel stage holds all of it
        let tp = if c.arch.mla.on() {
            f64::from(r.par.tp.max(1))
        } else {
            1.0
        };
        return b * super::moe::kv_bytes_per_seq(c, ctx_after, r.kvdtype) * share * tp;
    }
    b * ctx_after * c.kv_bytes_per_token(r.kvdtype) * share
}

/// The smallest tensor-parallel degree (of [`crate::model::parallel::DEGREES`],
/// dividing the heads and KV heads, the pipeline kept) at which the state fits;
/// `None` when none up to 8 does or the memory is not known.
pub fn min_tp(r: &LlmRun, capacity: f64) -> Option<u32> {
    if capacity <= 0.0 {
        return None;
    }
    crate::model::parallel::DEGREES.into_iter().find(|&tp| {
        r.config.splits_over(tp)
            && fits(
                &LlmRun {
                    par: super::Parallel {
                        tp,
                        dep: 1,
                        ..r.par
                    },
                    ..*r
                },
                capacity,
            )
    })
}

/// The share of the memory the weights leave that the KV cache may fill:
/// TensorRT-LLM's `kv_cache_free_gpu_mem_fraction`, 0.9 by default
/// (`KvCacheConfig`; docs/source/performance/perf-overview.md: "the default
/// setting of 0.90"). The other 10 % is the reserve for activations, the CUDA
/// graphs and the workspace. (vLLM's rule differs: `gpu_memory_utilization` 0.9
/// of the whole memory for weights, activations and KV cache together.)
pub const KV_FRACTION: f64 = 0.9;

/// Bytes the KV cache may hold on one GPU of `capacity` bytes once the weights of
/// `r` are loaded: [`KV_FRACTION`] of what they leave (0 when they do not fit).
pub fn kv_room(r: &LlmRun, capacity: f64) -> f64 {
    KV_FRACTION * (capacity - weight_bytes(r)).max(0.0)
}

/// Bytes kept back for activations, CUDA graphs and workspace: what the weights
/// leave less [`kv_room`].
pub fn reserve(r: &LlmRun, capacity: f64) -> f64 {
    (1.0 - KV_FRACTION) * (capacity - weight_bytes(r)).max(0.0)
}

/// Weights within `capacity` bytes and the KV cache within [`kv_room`] (a
/// capacity of 0 is unknown, and counts as fitting).
pub fn fits(r: &LlmRun, capacity: f64) -> bool {
    capacity <= 0.0 || (weight_bytes(r) <= capacity && kv_bytes(r) <= kv_room(r, capacity))
}

/// The largest `x` in `lo..=hi` for which `ok(x)` holds, `ok` monotone (true up to
/// some point, false after); `None` when even `lo` fails.
fn largest(lo: u32, hi: u32, ok: impl Fn(u32) -> bool) -> Option<u32> {
    if !ok(lo) {
        return None;
    }
    let (mut good, mut bad) = (lo, hi);
    if ok(hi) {
        return Some(hi);
    }
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// One change that makes a state that does not fit fit, everything else kept.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fix {
    /// Weights stored in this smaller dtype.
    Weights(WeightDtype),
    /// The KV cache in this smaller dtype.
    Kv(KvDtype),
    /// A context of at most this many tokens.
    Context(u32),
    /// A batch of at most this many sequences.
    Batch(u32),
    /// Tensor parallelism over this many GPUs.
    Tp(u32),
}

impl Fix {
    /// The change in words: "fp8 weights", "a context of at most 1024 tokens".
    pub fn words(self) -> String {
        match self {
            Fix::Weights(d) => format!("{} weights", d.id()),
            Fix::Kv(d) => format!("an {} KV cache", d.id()),
            Fix::Context(c) => format!("a context of at most {}", count(c, "token", "tokens")),
            Fix::Batch(b) => format!("a batch of at most {}", count(b, "sequence", "sequences")),
            Fix::Tp(n) => format!("tensor parallelism over {}", count(n, "GPU", "GPUs")),
        }
    }
}

/// The state against the GPU's memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The GPU's memory in bytes; 0 when it is not known (then everything fits
    /// and nothing below is known).
    pub capacity: f64,
    pub weights: f64,
    pub kv: f64,
    /// Bytes kept back for activations and CUDA graphs ([`reserve`]).
    pub reserve: f64,
    pub fits: bool,
    /// The largest batch whose weights + KV cache fit at this context (0: the
    /// weights alone do not); `None` when the memory is not known.
    pub max_batch: Option<u32>,
    /// Whether a batch that fits reaches `critical` tokens per step; `None` when
    /// the memory is not known.
    pub critical_reachable: Option<bool>,
    /// Each single change that makes a state that does not fit fit (empty when it
    /// fits, or when no single change does).
    pub fixes: Vec<Fix>,
    /// The smallest tensor-parallel degree that fits ([`min_tp`]).
    pub min_tp: Option<u32>,
}

impl Fit {
    /// Bytes over the memory, the reserve counted (0 when it fits).
    pub fn over(&self) -> f64 {
        if self.capacity > 0.0 {
            (self.weights + self.kv + self.reserve - self.capacity).max(0.0)
        } else {
            0.0
        }
    }
}

/// The state `r` against `capacity` bytes. `critical` is the batch (tokens per
/// step) from which the weight matmuls turn compute-bound; `fp8_native` whether
/// the GPU has fp8 tensor cores (then fp8 is the 1-byte weight dtype named, else
/// int8).
pub fn fit(r: &LlmRun, capacity: f64, critical: f64, fp8_native: bool) -> Fit {
    let (weights, kv) = (weight_bytes(r), kv_bytes(r));
    let reserve = reserve(r, capacity);
    let fits_now = fits(r, capacity);
    if capacity <= 0.0 {
        return Fit {
            capacity,
            weights,
            kv,
            reserve,
            fits: fits_now,
            max_batch: None,
            critical_reachable: None,
            fixes: Vec::new(),
            min_tp: None,
        };
    }
    let max_batch =
        largest(1, u32::MAX, |batch| fits(&LlmRun { batch, ..*r }, capacity)).unwrap_or(0);
    let per_step = |batch: u32| {
        let b = f64::from(batch);
        match r.phase {
            Phase::Decode => b,
            Phase::Prefill => b * f64::from(r.context.max(1)),
        }
    };
    let critical_reachable = max_batch > 0 && per_step(max_batch) >= critical;
    let mut fixes = Vec::new();
    if !fits_now {
        // the least aggressive smaller weight dtype that fits
        let one_byte = if fp8_native {
            WeightDtype::Fp8
        } else {
            WeightDtype::Int8
        };
        if let Some(d) = [one_byte, WeightDtype::Int4]
            .into_iter()
            .filter(|d| d.bytes() < r.wdtype.bytes())
            .find(|&wdtype| fits(&LlmRun { wdtype, ..*r }, capacity))
        {
            fixes.push(Fix::Weights(d));
        }
        if r.kvdtype != KvDtype::Fp8
            && fits(
                &LlmRun {
                    kvdtype: KvDtype::Fp8,
                    ..*r
                },
                capacity,
            )
        {
            fixes.push(Fix::Kv(KvDtype::Fp8));
        }
        let context = largest(limits::CONTEXT.0, r.context, |context| {
            fits(&LlmRun { context, ..*r }, capacity)
        });
        if let Some(c) = context.filter(|&c| c < r.context) {
            fixes.push(Fix::Context(c));
        }
        if max_batch >= 1 && max_batch < r.batch {
            fixes.push(Fix::Batch(max_batch));
        }
        if let Some(tp) = min_tp(r, capacity).filter(|&t| t > r.par.tp) {
            fixes.push(Fix::Tp(tp));
        }
    }
    Fit {
        capacity,
        weights,
        kv,
        reserve,
        fits: fits_now,
        max_batch: Some(max_batch),
        critical_reachable: Some(critical_reachable),
        fixes,
        min_tp: min_tp(r, capacity),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::llm::LlmModel;

    fn run(model: LlmModel, batch: u32, context: u32) -> LlmRun {
        LlmRun {
            config: model.config_or_toy(),
            phase: Phase::Decode,
            batch,
            context,
            wdtype: WeightDtype::Bf16,
            kvdtype: KvDtype::Bf16,
            graphs: true,
            flash: true,
            par: crate::model::parallel::Parallel::ONE,
        }
    }

    const H100: f64 = 80e9;

    /// A tensor-parallel group wider than the KV heads gives each GPU one whole
    /// head: Qwen3-235B-A22B (4 KV heads) holds as much KV cache per GPU at TP 8
    /// as at TP 4, and its decode attention reads as much; Llama-3-70B (8 KV
    /// heads) halves both from TP 4 to TP 8.
    #[test]
    fn a_group_wider_than_the_kv_heads_holds_a_whole_head_each() {
        use crate::model::llm::kernels;
        let at = |m, tp| {
            let r = LlmRun {
                par: crate::model::parallel::Parallel {
                    tp,
                    ..crate::model::parallel::Parallel::ONE
                },
                ..run(m, 64, 4096)
            };
            let read: f64 =
                kernels::per_gpu_layer(crate::model::llm::layer::compiled_layer(&r), &r)
                    .iter()
                    .map(|k| k.kv_bytes)
                    .sum();
            (kv_bytes(&r), read)
        };
        let (q4, q8) = (at(LlmModel::Qwen3_235b, 4), at(LlmModel::Qwen3_235b, 8));
        assert!((q8.0 / q4.0 - 1.0).abs() < 1e-12, "{q4:?} {q8:?}");
        assert!((q8.1 / q4.1 - 1.0).abs() < 1e-12, "{q4:?} {q8:?}");
        let (l4, l8) = (at(LlmModel::Llama3_70b, 4), at(LlmModel::Llama3_70b, 8));
        assert!((l8.0 / l4.0 - 0.5).abs() < 1e-12, "{l4:?} {l8:?}");
        assert!((l8.1 / l4.1 - 0.5).abs() < 1e-12, "{l4:?} {l8:?}");
    }

    #[test]
    fn max_batch_is_the_last_that_fits() {
        // Llama-3-8B at 4 k on an H100: ~107 sequences (90 % of the 64 GB the 16 GB
        // of weights leave), below the bf16 critical 295
        let r = run(LlmModel::Llama3_8b, 1, 4096);
        let f = fit(&r, H100, 295.0, true);
        assert!(f.fits && f.fixes.is_empty());
        let m = f.max_batch.unwrap_or(0);
        assert!((100..115).contains(&m), "{m}");
        // the KV cache fills 90 % of what the weights leave, no more
        let kv = kv_bytes(&LlmRun { batch: m, ..r });
        let room = kv_room(&r, H100);
        assert!(kv <= room && kv_bytes(&LlmRun { batch: m + 1, ..r }) > room);
        assert!((room / (H100 - weight_bytes(&r)) - 0.9).abs() < 1e-12);
        assert!((room + reserve(&r, H100) + weight_bytes(&r) - H100).abs() < 1.0);
        assert!(fits(&LlmRun { batch: m, ..r }, H100));
        assert!(!fits(&LlmRun { batch: m + 1, ..r }, H100));
        assert_eq!(f.critical_reachable, Some(false));
        // a short context reaches it
        let short = fit(&run(LlmModel::Llama3_8b, 1, 256), H100, 295.0, true);
        assert_eq!(short.critical_reachable, Some(true));
        // unknown memory: nothing is claimed
        let u = fit(&r, 0.0, 295.0, true);
        assert!(u.fits && u.max_batch.is_none() && u.critical_reachable.is_none());
    }

    #[test]
    fn each_fix_fits_and_is_the_largest() {
        // Llama-3-70B in bf16 on an H100: only smaller weights help (the weights
        // alone exceed the memory), fp8 where the GPU has it, else int8
        let r = run(LlmModel::Llama3_70b, 1, 4096);
        let f = fit(&r, H100, 295.0, true);
        assert!(!f.fits && f.over() > 60e9, "{}", f.over());
        assert_eq!(f.max_batch, Some(0));
        assert_eq!(f.critical_reachable, Some(false));
        // or two GPUs: 70 GB of weights each, half the layers' and all the LM head's
        assert_eq!(f.fixes, vec![Fix::Weights(WeightDtype::Fp8), Fix::Tp(2)]);
        assert_eq!(f.min_tp, Some(2));
        assert_eq!(
            fit(&r, H100, 295.0, false).fixes,
            vec![Fix::Weights(WeightDtype::Int8), Fix::Tp(2)]
        );
        // Llama-3-8B at batch 512: the KV cache; a smaller batch, a shorter context
        // or an fp8 KV cache each make it fit, and each bound is the last that does
        let r = run(LlmModel::Llama3_8b, 512, 4096);
        let f = fit(&r, H100, 295.0, true);
        assert!(!f.fits);
        for fix in &f.fixes {
            let (ok, one_more) = match *fix {
                Fix::Weights(wdtype) => (LlmRun { wdtype, ..r }, None),
                Fix::Kv(kvdtype) => (LlmRun { kvdtype, ..r }, None),
                Fix::Context(c) => (
                    LlmRun { context: c, ..r },
                    Some(LlmRun {
                        context: c + 1,
                        ..r
                    }),
                ),
                Fix::Batch(b) => (LlmRun { batch: b, ..r }, Some(LlmRun { batch: b + 1, ..r })),
                Fix::Tp(tp) => (
                    LlmRun {
                        par: crate::model::parallel::Parallel { tp, ..r.par },
                        ..r
                    },
                    Some(LlmRun {
                        par: crate::model::parallel::Parallel {
                            tp: tp / 2,
                            ..r.par
                        },
                        ..r
                    }),
                ),
            };
            assert!(fits(&ok, H100), "{fix:?}");
            if let Some(m) = one_more {
                assert!(!fits(&m, H100), "{fix:?} is not the largest");
            }
        }
        assert!(f.fixes.iter().any(|x| matches!(x, Fix::Batch(_))));
        assert!(f.fixes.iter().any(|x| matches!(x, Fix::Context(_))));
        // fp8 weights free 16 GB, not enough for 512 × 4 k of bf16 KV cache
        assert!(
            !f.fixes.iter().any(|x| matches!(x, Fix::Weights(_))),
            "{:?}",
            f.fixes
        );
        assert_eq!(Fix::Context(1).words(), "a context of at most 1 token");
        assert_eq!(Fix::Batch(119).words(), "a batch of at most 119 sequences");
        assert_eq!(Fix::Kv(KvDtype::Fp8).words(), "an fp8 KV cache");
    }
}
