//! Multi-head latent attention (DeepSeek-V3) as compiled kernels: the
//! projections into and out of the latent, and the attention over the cached
//! latent ([`super::moe`] says what is cached and which form each phase runs).
//!
//! Per layer, `T` tokens, `H` heads, latent `r`, rotary `ρ`, plain key dim `n`,
//! value dim `v`, query latent `q`:
//! - down projection `h → q + r + ρ` (one matmul; the latent and the rotary key
//!   written to the cache), the two latent RMSNorms, the up projection of the
//!   query `q → H·(n + ρ)`, RoPE on the rotary parts;
//! - decode (absorbed): each head's plain query turned into the latent by
//!   `W_UK` (`H` problems `n → r`), the attention over the cache
//!   (`4·B·H·C·r + 2·B·H·C·ρ` FLOPs and softmax; the cache `B·C·(r + ρ)` read once
//!   for all heads), the result turned into each head's value by `W_UV` (`H`
//!   problems `r → v`);
//! - prefill (plain): the latent of every prompt token expanded to each head's K
//!   (`r → H·n`), a causal flash attention of Q/K dim `n + ρ` and V dim `v`, and
//!   the latent expanded to V (`r → H·v`; placed after the attention so that
//!   both phases launch three attention kernels, which a mixed serving step
//!   merges one by one: the cost is the same);
//! - output projection `H·v → h`.

use super::kernels::{k, shaped, Cost, Dims, LlmKernel, Part, RMSNORM_FLOPS, ROPE_FLOPS};
use super::{LlmRun, Phase};
use crate::model::workload::Unit;

/// A matmul of `t` rows, `n_in → n_out`, `batch` problems (weights `batch·n_in·n_out`).
fn mm(
    name: &'static str,
    part: Part,
    dm: &Dims,
    (t, n_in, n_out, batch): (f64, f64, f64, f64),
    kv_bytes: f64,
    stored: crate::model::gemm::Stored,
) -> LlmKernel {
    let (a, w) = (dm.a, dm.w);
    shaped(
        k(
            name,
            Unit::Matmul,
            part,
            Cost {
                flops: 2.0 * t * batch * n_in * n_out,
                weight_bytes: w * batch * n_in * n_out,
                kv_bytes,
                act_bytes: a * t * batch * (n_in + n_out),
            },
        ),
        t,
        n_in,
        n_out,
        batch,
        stored,
    )
}

/// The MLA layer's projections and attention onto `out`.
pub(super) fn attention_block(r: &LlmRun, dm: &Dims, out: &mut Vec<LlmKernel>) {
    let m = r.config.arch.mla;
    let (q, lat, rope, nope, v) = (
        f64::from(m.q_lora),
        f64::from(m.kv_lora),
        f64::from(m.rope),
        f64::from(m.nope),
        f64::from(m.v_head),
    );
    let Dims {
        h,
        t,
        a,
        w,
        kvb,
        b,
        ctx,
        heads,
        ..
    } = *dm;
    let s = r.wdtype.stored();
    let pj = Part::Projections;
    out.push(mm(
        "Q and KV down projection",
        pj,
        dm,
        (t, h, q + lat + rope, 1.0),
        kvb * t * (lat + rope),
        s,
    ));
    out.push(k(
        "latent RMSNorms",
        Unit::Pointwise,
        Part::Pointwise,
        Cost {
            flops: RMSNORM_FLOPS * t * (q + lat),
            weight_bytes: w * (q + lat),
            act_bytes: 2.0 * a * t * (q + lat),
            ..Cost::NONE
        },
    ));
    out.push(mm(
        "Q up projection",
        pj,
        dm,
        (t, q, heads * (nope + rope), 1.0),
        0.0,
        s,
    ));
    out.push(k(
        "RoPE",
        Unit::Pointwise,
        Part::Pointwise,
        Cost {
            flops: ROPE_FLOPS * t * (heads * rope + rope),
            act_bytes: 2.0 * a * t * (heads * rope + rope),
            ..Cost::NONE
        },
    ));
    // the attention stretch: three kernels in either phase, at the roofline
    // of their FLOPs and bytes (a mixed serving step merges the phases kernel
    // by kernel there)
    let pa = Part::Attention;
    let per_head = |name, t_rows: f64, n_in: f64, n_out: f64, kv: f64| {
        k(
            name,
            Unit::Matmul,
            pa,
            Cost {
                flops: 2.0 * t_rows * heads * n_in * n_out,
                weight_bytes: w * heads * n_in * n_out,
                kv_bytes: kv,
                act_bytes: a * t_rows * heads * n_out
                    + if kv > 0.0 {
                        0.0
                    } else {
                        a * t_rows * heads * n_in
                    },
            },
        )
    };
    match r.phase {
        Phase::Decode => {
            out.push(per_head("absorb W_UK into Q", t, nope, lat, 0.0));
            out.push(k(
                "attention (MLA, over the latent)",
                Unit::Matmul,
                pa,
                Cost {
                    flops: b * heads * ctx * (4.0 * lat + 2.0 * rope) + 5.0 * b * heads * ctx,
                    kv_bytes: b * ctx * (lat + rope) * kvb,
                    act_bytes: a * t * heads * (2.0 * lat + rope),
                    ..Cost::NONE
                },
            ));
            out.push(per_head("absorb W_UV into O", t, lat, v, 0.0));
        }
        Phase::Prefill => {
            out.push(per_head(
                "expand the latent to K",
                t,
                lat,
                nope,
                kvb * t * lat,
            ));
            out.push(k(
                "attention (flash, causal)",
                Unit::Matmul,
                pa,
                Cost {
                    flops: b * heads * ctx * ctx * (nope + rope + v) + 2.5 * b * heads * ctx * ctx,
                    act_bytes: a * t * heads * (2.0 * (nope + rope) + 2.0 * v),
                    ..Cost::NONE
                },
            ));
            out.push(per_head("expand the latent to V", t, lat, v, kvb * t * lat));
        }
    }
    out.push(mm(
        "output projection",
        pj,
        dm,
        (t, heads * v, h, 1.0),
        0.0,
        s,
    ));
}
