//! The kernels of one DiT forward, eager or fused (the FLOP and byte counts are
//! derived in the parent module's docs).

use super::{Class, DitRun};
use crate::model::workload::{KernelGroup, Unit};

const A: f64 = 2.0;
/// FLOPs per element of a LayerNorm (see `ops::LAYERNORM_FLOPS_PER_ELEM`).
const LN: f64 = crate::model::ops::LAYERNORM_FLOPS_PER_ELEM;
const GELU: f64 = crate::model::ops::GELU_FLOPS_PER_ELEM;

/// `n` ops an eager PyTorch block dispatches before this kernel that launch none
/// (facebookresearch/DiT `models.py` with timm's `Attention`: `t` and `chunk`
/// (a `split`) around the modulation linear, two `unsqueeze`s per modulate,
/// [`LINEAR_VIEWS`] per linear on the tokens, `reshape`/`permute`/`unbind`
/// before the attention, `transpose` and `reshape` after it, an `unsqueeze` per
/// gate: 25 per block, beside its 20 kernels. Counted on a real eager step: 45 ops
/// per block reach the dispatcher (a TorchDispatchMode count,
/// tests/data/eager-ops-h100.json, 1,297 per DiT-XL/2 step). A fused (compiled)
/// step traces them away.
fn views(r: &DitRun, mut k: KernelGroup, n: u32) -> KernelGroup {
    if !r.fused && !r.graphs {
        k.cpu_ops = n;
    }
    k
}

/// Ops `nn.Linear` dispatches on a `[batch, tokens, features]` input beside its
/// `addmm`: a `view` to two dimensions, the weight's `t`, a `view` back.
const LINEAR_VIEWS: u32 = 3;

/// A linear on the tokens: `k` with its matmul's shape ([`shaped`]) and, eager,
/// the [`LINEAR_VIEWS`] it dispatches plus `more` ops before it.
fn linear(r: &DitRun, k: KernelGroup, m: f64, k_in: f64, n: f64, more: u32) -> KernelGroup {
    views(r, shaped(k, m, k_in, n), LINEAR_VIEWS + more)
}

/// A kernel's work and traffic, named so no call site can swap them.
#[derive(Clone, Copy)]
struct Cost {
    flops: f64,
    bytes: f64,
}

/// One kernel of a block, launched once, with its [`Cost`].
fn g(name: &'static str, unit: Unit, Cost { flops, bytes }: Cost) -> KernelGroup {
    KernelGroup {
        gemm: None,
        cpu_ops: 0,
        latency: 0.0,
        name,
        unit,
        count: 1,
        flops,
        bytes,
    }
}

/// A pointwise kernel of one FLOP per element over `n` elements, each read
/// and written once.
fn elementwise(name: &'static str, n: f64) -> KernelGroup {
    g(
        name,
        PW,
        Cost {
            flops: n,
            bytes: 2.0 * A * n,
        },
    )
}

/// `k` with the shape of its matmul: `m` rows, `k_in` shared, `n` columns out,
/// bf16 (the GEMM model prices it under achievable roofs).
fn shaped(mut k: KernelGroup, m: f64, k_in: f64, n: f64) -> KernelGroup {
    use crate::model::gemm::dim;
    k.gemm = Some(crate::model::gemm::Gemm {
        m: dim(m),
        n: dim(n),
        k: dim(k_in),
        batch: 1,
        b: crate::model::gemm::Stored::Bf16,
        routed: false,
    });
    k
}

/// One collective of the sequence-parallel step over `r.link` (its whole time is
/// the kernel's latency, `model::parallel::collective`); counted with attention.
fn collective(
    r: &DitRun,
    name: &'static str,
    c: crate::model::parallel::Collective,
    bytes: f64,
) -> (KernelGroup, Class) {
    (
        crate::model::parallel::kernel(name, c, r.sp.max(1), bytes, &r.link, false),
        Class::Attention,
    )
}

/// The kernels of one block with their classes, in launch order, as one of
/// `r.sp` sequence-parallel GPUs runs them (the module's docs).
pub fn block(r: &DitRun) -> Vec<(KernelGroup, Class)> {
    let s = Sizes::of(r);
    let mut out = modulation(r, &s);
    ln_mod(r, &s, &mut out);
    attention(r, &s, &mut out);
    gate_res(r, &s, &mut out);
    ln_mod(r, &s, &mut out);
    mlp(r, &s, &mut out);
    gate_res(r, &s, &mut out);
    out
}

/// One block's sizes on one of the `r.sp` GPUs.
struct Sizes {
    h: f64,
    b: f64,
    /// Tokens of one sample, and the sequence-parallel degree.
    n: f64,
    sp: f64,
    /// This GPU's tokens.
    t: f64,
    cd: f64,
    heads: f64,
    /// Activation elements: `t·h`.
    act: f64,
    /// Epilogue traffic saved by fusion: reading the residual in the matmul epilogue.
    epi: f64,
}

impl Sizes {
    fn of(r: &DitRun) -> Sizes {
        let c = r.model.config();
        let (h, b) = (f64::from(c.hidden), f64::from(r.batch.max(1)));
        let n = c.tokens(r.res);
        let sp = f64::from(r.sp.max(1));
        // this GPU's tokens
        let t = b * n / sp;
        let act = t * h;
        Sizes {
            h,
            b,
            n,
            sp,
            t,
            cd: f64::from(c.cond),
            heads: f64::from(c.heads),
            act,
            epi: if r.fused { A * act } else { 0.0 },
        }
    }
}

const PW: Unit = Unit::Pointwise;

/// The block's conditioning: SiLU(c) and the adaLN modulation linear.
fn modulation(r: &DitRun, s: &Sizes) -> Vec<(KernelGroup, Class)> {
    let Sizes { h, b, cd, .. } = *s;
    vec![
        (
            g(
                "SiLU(c)",
                PW,
                Cost {
                    flops: 4.0 * b * cd,
                    bytes: 2.0 * A * b * cd,
                },
            ),
            Class::Pointwise,
        ),
        (
            views(
                r,
                shaped(
                    g(
                        "adaLN modulation linear",
                        Unit::Matmul,
                        Cost {
                            flops: 2.0 * b * cd * 6.0 * h,
                            bytes: A * (cd * 6.0 * h + b * (cd + 6.0 * h)),
                        },
                    ),
                    b,
                    cd,
                    6.0 * h,
                ),
                2,
            ),
            Class::Pointwise,
        ),
    ]
}

/// LayerNorm and modulate: one kernel fused, three eager.
fn ln_mod(r: &DitRun, s: &Sizes, out: &mut Vec<(KernelGroup, Class)>) {
    let act = s.act;
    if r.fused {
        out.push((
            g(
                "LayerNorm + modulate",
                PW,
                Cost {
                    flops: (LN + 2.0) * act,
                    bytes: 2.0 * A * act,
                },
            ),
            Class::Pointwise,
        ));
    } else {
        out.push((
            g(
                "LayerNorm",
                PW,
                Cost {
                    flops: LN * act,
                    bytes: 2.0 * A * act,
                },
            ),
            Class::Pointwise,
        ));
        let bh = s.b * s.h;
        out.push((elementwise("modulate: 1 + scale", bh), Class::Pointwise));
        out.push((
            views(r, elementwise("modulate: × (1 + scale)", act), 2),
            Class::Pointwise,
        ));
        out.push((elementwise("modulate: + shift", act), Class::Pointwise));
    }
}

/// The gate and the residual add: eager only (fused, the matmul's epilogue does them).
fn gate_res(r: &DitRun, s: &Sizes, out: &mut Vec<(KernelGroup, Class)>) {
    let act = s.act;
    if !r.fused {
        out.push((views(r, elementwise("gate ×", act), 1), Class::Pointwise));
        out.push((
            g(
                "residual +",
                PW,
                Cost {
                    flops: act,
                    bytes: 3.0 * A * act,
                },
            ),
            Class::Pointwise,
        ));
    }
}

/// The attention half: QKV projection, the sequence-parallel exchanges, the
/// attention itself and the output projection.
fn attention(r: &DitRun, s: &Sizes, out: &mut Vec<(KernelGroup, Class)>) {
    use crate::model::parallel::Collective;
    use Class::Attention;
    use Unit::Matmul;
    let Sizes {
        h,
        b,
        n,
        sp,
        t,
        heads,
        act,
        epi,
        ..
    } = *s;
    out.push((
        linear(
            r,
            g(
                "QKV projection",
                Matmul,
                Cost {
                    flops: 2.0 * t * h * 3.0 * h,
                    bytes: A * (3.0 * h * h + act + 3.0 * act),
                },
            ),
            t,
            h,
            3.0 * h,
            0,
        ),
        Attention,
    ));
    // each GPU computes 1/sp of the attention: its heads over every token
    // (Ulysses) or its queries against every key (ring)
    let mm = 2.0 * b * heads * n * n * (h / heads) / sp;
    let sm = 5.0 * b * heads * n * n / sp;
    let scores = b * heads * n * n / sp;
    match super::SpKind::of(r) {
        super::SpKind::None => {}
        super::SpKind::Ulysses => out.push(collective(
            r,
            "all-to-all Q, K, V (Ulysses)",
            Collective::AllToAll,
            3.0 * A * act,
        )),
        super::SpKind::Ring => out.push(collective(
            r,
            "K, V round the ring",
            Collective::AllGather,
            2.0 * A * act * sp,
        )),
    }
    if r.flash {
        out.push((
            views(
                r,
                g(
                    "flash attention",
                    Matmul,
                    Cost {
                        flops: 2.0 * mm + sm,
                        bytes: A * 4.0 * act,
                    },
                ),
                3,
            ),
            Attention,
        ));
    } else {
        out.push((
            views(
                r,
                g(
                    "QKᵀ",
                    Matmul,
                    Cost {
                        flops: mm,
                        bytes: A * (2.0 * act + scores),
                    },
                ),
                3,
            ),
            Attention,
        ));
        out.push((
            g(
                "softmax",
                PW,
                Cost {
                    flops: sm,
                    bytes: A * 2.0 * scores,
                },
            ),
            Attention,
        ));
        out.push((
            g(
                "P·V",
                Matmul,
                Cost {
                    flops: mm,
                    bytes: A * (scores + 2.0 * act),
                },
            ),
            Attention,
        ));
    }
    if super::SpKind::of(r) == super::SpKind::Ulysses {
        out.push(collective(
            r,
            "all-to-all output (Ulysses)",
            Collective::AllToAll,
            A * act,
        ));
    }
    out.push((
        // `transpose` and `reshape` of the attention's output before it
        linear(
            r,
            g(
                "output projection",
                Matmul,
                Cost {
                    flops: 2.0 * t * h * h,
                    bytes: A * (h * h + 2.0 * act) + epi,
                },
            ),
            t,
            h,
            h,
            2,
        ),
        Attention,
    ));
}

/// The MLP half: fc1, GELU (eager only) and fc2.
fn mlp(r: &DitRun, s: &Sizes, out: &mut Vec<(KernelGroup, Class)>) {
    use Class::Mlp;
    use Unit::Matmul;
    let Sizes { h, t, act, epi, .. } = *s;
    out.push((
        linear(
            r,
            g(
                "fc1",
                Matmul,
                Cost {
                    flops: 2.0 * t * h * 4.0 * h,
                    bytes: A * (4.0 * h * h + act + 4.0 * act),
                },
            ),
            t,
            h,
            4.0 * h,
            0,
        ),
        Mlp,
    ));
    if !r.fused {
        out.push((
            g(
                "GELU",
                PW,
                Cost {
                    flops: GELU * 4.0 * act,
                    bytes: 2.0 * A * 4.0 * act,
                },
            ),
            Class::Pointwise,
        ));
    }
    out.push((
        linear(
            r,
            g(
                "fc2",
                Matmul,
                Cost {
                    flops: 2.0 * t * 4.0 * h * h,
                    bytes: A * (4.0 * h * h + 4.0 * act + act) + epi,
                },
            ),
            t,
            4.0 * h,
            h,
            0,
        ),
        Mlp,
    ));
}

/// Every kernel of one forward: patch embedding and timestep embedding, the
/// blocks, the final adaLN + linear.
pub fn kernels(r: &DitRun) -> Vec<(KernelGroup, Class)> {
    let c = r.model.config();
    let (h, b) = (f64::from(c.hidden), f64::from(r.batch.max(1)));
    let t = b * c.tokens(r.res) / f64::from(r.sp.max(1));
    let patch_in = 4.0 * f64::from(c.in_channels);
    let patch_out = 4.0 * f64::from(c.out_channels);
    let p = Class::Pointwise;
    let cd = f64::from(c.cond);
    let mut out = vec![
        (
            shaped(
                g(
                    "patch embedding",
                    Unit::Matmul,
                    Cost {
                        flops: 2.0 * t * patch_in * h,
                        bytes: A * (patch_in * h + t * (patch_in + h)),
                    },
                ),
                t,
                patch_in,
                h,
            ),
            p,
        ),
        (
            shaped(
                g(
                    "timestep embedding",
                    Unit::Matmul,
                    Cost {
                        flops: 2.0 * b * 2.0 * cd * cd,
                        bytes: A * 2.0 * cd * cd,
                    },
                ),
                b,
                2.0 * cd,
                cd,
            ),
            p,
        ),
    ];
    let blk = block(r);
    for _ in 0..c.layers {
        out.extend(blk.iter().cloned());
    }
    out.push((
        g(
            "final adaLN + LayerNorm",
            Unit::Pointwise,
            Cost {
                flops: (LN + 2.0) * t * h,
                bytes: 2.0 * A * t * h,
            },
        ),
        p,
    ));
    out.push((
        shaped(
            g(
                "final linear",
                Unit::Matmul,
                Cost {
                    flops: 2.0 * t * h * patch_out,
                    bytes: A * (h * patch_out + t * (h + patch_out)),
                },
            ),
            t,
            h,
            patch_out,
        ),
        p,
    ));
    out
}

/// FLOPs of one forward (2 per multiply-add), every kernel.
pub fn flops(r: &DitRun) -> f64 {
    kernels(r).iter().map(|(k, _)| k.flops).sum()
}

/// Multiply-adds of the matmuls (what the DiT paper reports as "Gflops").
pub fn matmul_macs(r: &DitRun) -> f64 {
    kernels(r)
        .iter()
        .filter(|(k, _)| k.unit == Unit::Matmul)
        .map(|(k, _)| k.flops / 2.0)
        .sum()
}
