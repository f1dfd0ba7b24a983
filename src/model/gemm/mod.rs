//! One GEMM, priced as the GPU runs it: the one rule for the time of every matmul
//! brrr prices under achievable roofs (`roof=achievable`) and in every
//! model-vs-measured comparison. Datasheet roofs keep the essay's idealisation
//! (`FLOPs ÷ peak` or `bytes ÷ bandwidth`, whichever is longer) and never come here.
//!
//! For `C[M, N] = A[M, K] · B[K, N]` (`batch` such problems at once), the library
//! cuts C into output tiles of `tm × tn` and hands one tile to each SM; a wave is
//! one tile on every SM (NVIDIA's "Matrix Multiplication Background" user guide;
//! Horace He, "What Shapes Do Matrix Multiplications Like?"):
//!
//! ```text
//! tiles      = ⌈M/tm⌉ · ⌈N/tn⌉ · split · batch       waves = ⌈tiles ÷ SMs⌉
//! wave eff.  = tiles ÷ (waves · SMs)                  tile eff. = M·N ÷ (⌈M/tm⌉tm · ⌈N/tn⌉tn)
//! one tile   = (2·tm·tn·⌈K/split⌉·(1 + β·(1/tm + 1/tn)) ÷ r_SM
//!               + e·tm·tn·c ÷ (bandwidth ÷ SMs)) ÷ path
//! compute    = launch + fill + waves · one tile
//!               (+ split-K's reduce kernel: a launch and split·M·N·4 + M·N·c bytes)
//! memory     = launch + bytes ÷ (bandwidth · stream)
//! time       = max(compute, memory)        at the fastest tile and split of the set
//! ```
//!
//! - **Tiles** ([`TILES`]; on Hopper [`HOPPER_TILES`], the tiles its cuBLAS ran
//!   on the lent H100): the guide's cuBLAS tiles, 256×128 down to 64×64, each
//!   with split-K 1, 2, 4 or 8 ([`SPLITS`], for long K and few tiles); the library's
//!   choice is modelled as the fastest of them.
//! - **r_SM**, one SM's rate on a full tile, is calibrated so that an 8192³ matmul
//!   takes what the achievable roof says it does (the roof IS that measurement on
//!   the H100: 787 TFLOP/s): the shape model moves every other shape, not that one.
//! - **Operands** (β, [`OPERANDS`]): a small tile loads more per FLOP, and not
//!   all of it hides behind the arithmetic; **epilogue** (e, [`EPILOGUE`]): the
//!   share of each tile's output write the next tile does not hide. Both fit to
//!   the lent H100's and H200's sweeps.
//! - **fill**: once per kernel, the tiles wait for their first operands (the
//!   kernels stay on the SMs and prefetch each next tile).
//!   It is what the smallest GEMM measured takes beyond an empty kernel and its own
//!   work ([`MIN_GEMM_S`]: a 256³ bf16 GEMM replayed in a CUDA graph, 2.7 µs on an
//!   H100; `launch` is the kernel floor, `hardware::kernel_floor`).
//! - **Epilogue**: each SM writes its output tile (c bytes per element) at its
//!   share of the bandwidth; with split-K the partial sums are fp32 and a
//!   reduction reads them back.
//! - **Alignment** ([`alignment`]): a K or N (the leading dimensions of row-major
//!   A, B and C) that is not a multiple of 16 bytes' worth of elements (8 in bf16)
//!   runs the library's slow path, at a measured share of the fast one's rate
//!   ([`slow_path`]). `mm_aligned` reports all of M, N and K.
//! - **Small M** (`M` below the smallest tile, 64 rows): the library's
//!   matrix-vector kernels stream B at a measured share of the bandwidth with a
//!   fixed cost of their own ([`GEMV_LATENCY`]):
//!   `time = GEMV_LATENCY + max(FLOPs ÷ peak, bytes ÷ (bandwidth · stream))`, the
//!   decode model's rule (torchao's and calm's streaming fractions, [`streamed`]),
//!   here as this model's small-M end. From 64 rows on the tiled kernels take
//!   over, with their own least time, so the step from 63 to 64 rows is a cliff
//!   of the model's (a real library switches kernels somewhere there too).
//!
//! **Where it misses** (tests/data/README.md, docs/accuracy.md):
//! a partial last wave costs a whole one (Hopper's kernels split some last waves
//! finer, and some coarser: the N sweep's sawtooth is off by up to 18 %); the
//! slow path's speed is one share per architecture (two H100s measured it 30 %
//! apart); power and clock limits at very large sizes are not modelled (10240³
//! runs 10 % below the model on an H100).

use super::achievable;
use super::hardware::{kernel_floor, preset_flops, Dtype, Preset};
use super::roofline::{floored, Bound};

/// What the GEMM model reads of a machine (`workload::Machine::roofs` gives a
/// step's): its roofs, its stored element size and its kernel floor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Roofs {
    /// Matmul ceiling, FLOP/s.
    pub matmul_flops: f64,
    /// DRAM bandwidth, bytes/s.
    pub bw: f64,
    /// Bytes per stored element.
    pub elem_bytes: f64,
    /// The least GPU time any kernel takes, seconds (`hardware::kernel_floor`).
    pub floor: f64,
}

/// The output tiles cuBLAS uses, most efficient first (NVIDIA, "Matrix
/// Multiplication Background" user guide, "Typical tile dimensions in cuBLAS and
/// performance": 256×128 and 128×256 the most efficient, 64×64 the least).
pub const TILES: [(u32, u32); 8] = [
    (256, 128),
    (128, 256),
    (128, 128),
    (256, 64),
    (64, 256),
    (128, 64),
    (64, 128),
    (64, 64),
];

/// The output tiles Hopper's cuBLAS kernels (`nvjet_sm90_*`) ran on the lent
/// H100 for the sweep's shapes (tests/data/gemm-kernels-h100.json, each name's
/// `NxM` read as columns × rows of C), as `(rows, columns)`: besides the guide's
/// powers of two, widths like 112, 144, 168, 176 and 320 that cut a DiT or
/// Llama width into whole tiles and one wave. The H100s, the H200 and the B200
/// (an estimate there) choose among these.
pub const HOPPER_TILES: [(u32, u32); 15] = [
    (64, 64),
    (64, 112),
    (64, 128),
    (64, 144),
    (128, 64),
    (128, 112),
    (128, 128),
    (128, 144),
    (128, 168),
    (128, 176),
    (128, 192),
    (128, 256),
    (128, 320),
    (192, 192),
    (256, 128),
];

/// Operand loads a tile does not hide, in elements: a `tm × tn` tile computes
/// `2·tm·tn` FLOP per element of K and loads `tm + tn` elements for it, so its
/// rate is the SM's full-tile rate ÷ `(1 + OPERANDS·(1/tm + 1/tn))`: a 64×64
/// tile runs at 40 % of the rate a tile of no size would, 320×128 at 68 %
/// (r_SM is calibrated on the latter, so only the ratios matter). Fit to the
/// lent H100's and H200's sweeps (tests/data/gemm-{h100,h200}.json): the value
/// that puts the most rows within their targets (15 % from 1 GFLOP, 25 % below).
pub const OPERANDS: f64 = 48.0;

/// The share of each output tile's write (at the SM's share of the bandwidth)
/// that the next tile's main loop does not hide. Fit to the same sweeps: short-K
/// matmuls (K = 768, 1152) are the ones it moves.
pub const EPILOGUE: f64 = 0.75;

/// Split-K factors the library may use: the K loop cut into this many slices,
/// each its own tile, their fp32 partial sums added by a reduction.
pub const SPLITS: [u32; 4] = [1, 2, 4, 8];

/// Rows below which the library's small-M (matrix-vector) kernels run: the
/// height of the smallest tile.
pub const SMALL_M: u32 = 64;

/// The time of the smallest GEMM replayed in a CUDA graph: a 256³ bf16 GEMM on an
/// H100 SXM, ~2.7 µs (a reader's run, PyTorch 2.11; an empty kernel is ~1 µs).
pub const MIN_GEMM_S: f64 = 2.7e-6;

/// The calibration shape: the achievable matmul roof is an 8192³ matmul.
pub const REFERENCE: u32 = 8192;
/// The smallest GEMM, whose time is [`MIN_GEMM_S`].
pub const SMALLEST: u32 = 256;

/// The fixed GPU time of a small matrix-vector product beyond its bytes at the
/// streaming rate, fit to the lent H100's and H200's matrix-vector rows
/// (tests/data/gemm-{h100,h200}.json: M = 1 to 16 at 4096 × 4096 and DiT's
/// adaLN, 1 or 8 × 1152 × 6912), torchao's streaming fraction recomputed with
/// it ([`streamed`]): 3.5 µs puts every one of the 14 within 21 % (within 6 %
/// at 4096 × 4096, the adaLN GEMVs 16 to 20 % slow). 4.4 µs, read off
/// https://github.com/pytorch/pytorch/issues/161134's 6.9 µs GEMV on an H200, priced the adaLN GEMVs 28 to
/// 31 % slow; 3.0 µs fits these rows a little better but prices gpt-fast's
/// int8 Llama-3.1-70B decode on 8 GPUs 12.5 % fast. Big matrices hide it,
/// small ones do not: this is why a 70B model's GEMVs stream closer to the roof
/// than an 8B model's.
pub const GEMV_LATENCY: f64 = 3.5e-6;

/// How B (a layer's weights) is stored: the matmul's own dtype, or a weight-only
/// quantised format the kernel unpacks (W8A16, W4A16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stored {
    Bf16,
    Fp8,
    Int8,
    Int4,
}

impl Stored {
    /// The storage of a matmul's operands in `dtype` (fp32 and TF32 stream like
    /// bf16: a stated estimate, nothing measured).
    pub fn of(dtype: Dtype) -> Stored {
        match dtype {
            Dtype::Fp8 => Stored::Fp8,
            _ => Stored::Bf16,
        }
    }
    /// The storage of operands of `bytes` per element (1: fp8, else as bf16).
    pub fn of_bytes(bytes: f64) -> Stored {
        if bytes <= 1.0 {
            Stored::Fp8
        } else {
            Stored::Bf16
        }
    }
}

/// A measured share of the datasheet bandwidth, with its source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Streamed {
    /// Bytes per second reached, as a fraction of the GPU's datasheet bandwidth.
    pub of_datasheet: f64,
    pub source: &'static str,
}

/// torchao's benchmark of Llama-3-8B decode at batch 1 on an A100-80GB
/// (`torch.compile`), pytorch/ao `torchao/sparsity/README.md` @ 8b03a80: the bytes
/// the step reads (weights and scales, not the embedding table) per second,
/// 1,436 / 1,151 / 763 GB/s in bf16 / int8 / int4 (groups of 64).
/// The A100-80GB's datasheet bandwidth, bytes/s.
pub const A100_80GB_BW: f64 = 2039e9;
/// calm (github.com/zeux/calm, README @ cab0b7b): Mixtral-8x7B with fp8 weights on
/// an H100 SXM streams ~2,550 GB/s of its 3,350 GB/s.
pub const CALM_H100_FP8: (f64, f64) = (2550e9, 3350e9);

/// torchao's rows as tokens/s and the bytes each token reads (the same README:
/// Llama-3-8B, 15.01 / 7.52 / 4.22 GB).
pub const TORCHAO_TOKENS_PER_S: [(Stored, f64, f64); 3] = [
    (Stored::Bf16, 95.64, 15.01e9),
    (Stored::Int8, 153.03, 7.52e9),
    (Stored::Int4, 180.80, 4.22e9),
];
/// Weight matmuls per token in torchao's Llama (`wqkv`, `wo`, `w1`, `w3`, `w2` in
/// each of 32 layers, and the output head).
pub const TORCHAO_MATMULS: f64 = 161.0;

/// The streaming fraction for B stored as `w`: torchao's measured time per
/// token, less [`GEMV_LATENCY`] per weight matmul, is the bytes at this fraction
/// of the A100's datasheet bandwidth.
pub fn streamed(w: Stored) -> Streamed {
    let torchao = |d: Stored| {
        TORCHAO_TOKENS_PER_S
            .iter()
            .find(|x| x.0 == d)
            .map_or(1.0, |&(_, tps, bytes)| {
                bytes / (1.0 / tps - TORCHAO_MATMULS * GEMV_LATENCY) / A100_80GB_BW
            })
    };
    match w {
        Stored::Bf16 => Streamed {
            of_datasheet: torchao(w),
            source: "torchao, Llama-3-8B bf16 decode on an A100-80GB (1,436 GB/s of 2,039 over the whole step)",
        },
        Stored::Fp8 => Streamed {
            of_datasheet: CALM_H100_FP8.0 / CALM_H100_FP8.1,
            source: "calm, Mixtral-8x7B fp8 decode on an H100 SXM: 2,550 of 3,350 GB/s",
        },
        Stored::Int8 => Streamed {
            of_datasheet: torchao(w),
            source: "torchao, Llama-3-8B int8 weight-only decode on an A100-80GB (1,151 GB/s of 2,039 over the whole step)",
        },
        Stored::Int4 => Streamed {
            of_datasheet: torchao(w),
            source: "torchao, Llama-3-8B int4 weight-only (groups of 64) decode on an A100-80GB (763 GB/s of 2,039 over the whole step)",
        },
    }
}

/// What a GEMM's slow path reaches, as a share of the fast path's rate, with
/// its source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlowPath {
    pub share: f64,
    pub measured: bool,
    pub source: &'static str,
}

/// A 4-bit weight-only (W4A16) MoE GEMM in prefill on an H100, from an `nsys`
/// capture of a serving run (sgl-project/sglang pull request 38884's description,
/// https://github.com/sgl-project/sglang/pull/38884): the Marlin W4A16 expert
/// GEMMs of one layer, 1.237 TFLOP in 4.863 ms, 254 TFLOP/s, 25.7 % of the
/// H100's bf16 peak, issue-bound (64 of the inner loop's 220 instructions are
/// tensor-core ones, the rest unpack, scale and pack the weights). FLOPs and
/// seconds, and the H100 SXM's datasheet bf16 dense peak.
pub const HOPPER_W4A16: (f64, f64, f64) = (1.237e12, 4.863e-3, 989.4e12);

/// A W4A16 kernel's compute-bound rate as a share of the GPU's bf16 datasheet
/// peak, with its source: Hopper's tensor cores outrun the unpacking that feeds
/// them, so a kernel that unpacks 4-bit weights to bf16 is bound by the
/// instructions that unpack, far below the bf16 peak, once M is large. `None`
/// where nothing is measured or carried over (then the bf16 rate stands: on
/// Ampere and Ada the unpacking hides behind slower tensor cores).
pub fn w4a16(hw: &Preset) -> Option<SlowPath> {
    let share = HOPPER_W4A16.0 / HOPPER_W4A16.1 / HOPPER_W4A16.2;
    match hw.datasheet().id {
        "h100-sxm" => Some(SlowPath {
            share,
            measured: true,
            source: "measured on an H100 (nsys, SGLang pull request 38884): Marlin's W4A16 MoE GEMMs at 254 TFLOP/s, 25.7 % of the bf16 peak, bound by the instructions that unpack the weights",
        }),
        "h100-pcie" | "h200" => Some(SlowPath {
            share,
            measured: false,
            source: "estimate: the H100's measured share (the same SM: its tensor cores outrun the unpacking the same way)",
        }),
        _ => None,
    }
}

/// A reader's vocabulary pair on an H100 SXM (PyTorch 2.11, bf16, CUDA graph):
/// 8192 × 768 × 50257 at 127 TFLOP/s against × 50304 at 592. Hopper's fast
/// kernels load tiles with TMA, which needs 16-byte aligned rows; an unaligned
/// row falls back to the older align-1 kernels.
pub const HOPPER_UNALIGNED: (f64, f64) = (127e12, 592e12);
/// https://github.com/pytorch/pytorch/issues/181718 (RTX 4090, bf16, square): N = 2055 runs a
/// `cutlass_75 … align1` kernel at 115.6 TFLOP/s against 155.9 for N = 2040.
pub const ADA_UNALIGNED: (f64, f64) = (115.6e12, 155.9e12);
/// The same vocabulary pair on the lent H100 (tests/data/gemm-h100.json, the
/// weight read from HBM): 98.1 TFLOP/s against 711.7. The reader's H100 ran both
/// slower and the pair less apart (127 of 592); the two GPUs differ, so the
/// Hopper share is their geometric mean, 17.2 % (each within 15 % of it in time).
pub const HOPPER_UNALIGNED_LENT: (f64, f64) = (98.1e12, 711.7e12);

/// The slow path's share for `hw`: Hopper's (H100, H200; the B200, TMA too, an
/// estimate from it) or Ada's (RTX 4090; the pre-Hopper NVIDIA parts, AMD and
/// Apple an estimate from it).
pub fn slow_path(hw: &Preset) -> SlowPath {
    let hopper = (HOPPER_UNALIGNED.0 / HOPPER_UNALIGNED.1
        * (HOPPER_UNALIGNED_LENT.0 / HOPPER_UNALIGNED_LENT.1))
        .sqrt();
    let ada = ADA_UNALIGNED.0 / ADA_UNALIGNED.1;
    match hw.datasheet().id {
        "h100-sxm" => SlowPath {
            share: hopper,
            measured: true,
            source: "measured on two H100 SXMs: 8192×768×50257 at 127 TFLOP/s against ×50304 at 592 (a reader's run), 98.1 against 711.7 (the lent H100); their geometric mean",
        },
        "h100-pcie" | "h200" | "b200" => SlowPath {
            share: hopper,
            measured: false,
            source: "estimate: the H100 SXMs' measured share (127 of 592 and 98.1 of 711.7 TFLOP/s; TMA kernels need aligned rows on this GPU too)",
        },
        "rtx-4090" => SlowPath {
            share: ada,
            measured: true,
            source: "measured on an RTX 4090 (https://github.com/pytorch/pytorch/issues/181718): N = 2055 at 115.6 TFLOP/s, N = 2040 at 155.9",
        },
        _ => SlowPath {
            share: ada,
            measured: false,
            source: "estimate: the RTX 4090's measured 115.6 of 155.9 TFLOP/s (https://github.com/pytorch/pytorch/issues/181718)",
        },
    }
}

/// The least time of a GEMM on `hw` ([`MIN_GEMM_S`]): measured on the H100 SXM,
/// a stated estimate elsewhere. `(seconds, measured, source)`.
pub fn min_gemm(hw: &Preset) -> (f64, bool, &'static str) {
    if hw.datasheet().id == "h100-sxm" {
        (
            MIN_GEMM_S,
            true,
            "measured on an H100 SXM (a reader's run): a 256³ bf16 GEMM in a CUDA graph, ~2.7 µs",
        )
    } else {
        (
            MIN_GEMM_S,
            false,
            "estimate, not measured on this GPU: the H100 SXM's 2.7 µs for a 256³ bf16 GEMM in a CUDA graph",
        )
    }
}

/// Elements per 16 bytes in `dtype`: the alignment the fast kernels need (8 for
/// 16-bit types on NVIDIA, as the guide says).
pub fn alignment(dtype: Dtype) -> u32 {
    (16.0 / dtype.bytes()) as u32
}

/// A dimension counted as a float (tokens, widths) as a GEMM's whole number of
/// rows or columns, at least 1.
pub fn dim(x: f64) -> u32 {
    x.round().clamp(1.0, f64::from(u32::MAX)) as u32
}

/// The mean of `⌈X / tm⌉` for `X` Poisson conditioned on `X ≥ 1` with mean
/// `m` (a touched expert's tokens under uniform routing):
/// `1 + Σ_{j≥1} P(X > j·tm) / P(X ≥ 1)`.
pub fn routed_tiles(m: f64, tm: f64) -> f64 {
    if m <= 1.0 {
        return 1.0;
    }
    // λ of the Poisson whose zero-truncated mean is m: λ / (1 − e^−λ) = m
    let mut lambda = m;
    for _ in 0..50 {
        let e = (-lambda).exp();
        let f = lambda - m * (1.0 - e);
        let d = 1.0 - m * e;
        let next = (lambda - f / d).max(1e-9);
        if (next - lambda).abs() < 1e-12 * lambda {
            break;
        }
        lambda = next;
    }
    let touched = 1.0 - (-lambda).exp();
    // edges more than 12 standard deviations below the mean are crossed by
    // every expert (each adds a whole tile); the sum runs over the edges
    // near the mean only, so a huge M costs as little as a small one
    let sure = ((lambda - 12.0 * lambda.sqrt()) / tm).floor().max(0.0);
    let mut tiles = 1.0 + sure / touched;
    let mut j = sure + 1.0;
    loop {
        let over = poisson_over(lambda, j * tm);
        tiles += over / touched;
        if over < 1e-12 {
            break;
        }
        j += 1.0;
    }
    tiles
}

/// `P(X > x)` for `X` Poisson with mean `lambda`: summed exactly below
/// λ = 30, from the normal approximation with continuity correction above.
fn poisson_over(lambda: f64, x: f64) -> f64 {
    let x = x.floor();
    if lambda < 30.0 {
        let (mut p, mut cdf) = ((-lambda).exp(), 0.0);
        let mut i = 0.0;
        while i <= x {
            cdf += p;
            i += 1.0;
            p *= lambda / i;
        }
        return (1.0 - cdf).max(0.0);
    }
    0.5 * erfc((x + 0.5 - lambda) / (2.0 * lambda).sqrt())
}

/// The complementary error function to a relative error under 1.2e-7
/// (Press et al., Numerical Recipes, `erfcc`: a Chebyshev fit).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// One GEMM: `C[m, n] = A[m, k] · B[k, n]`, `batch` of them at once (a batched or
/// grouped kernel), B stored as `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Gemm {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub batch: u32,
    pub b: Stored,
    /// A grouped kernel whose problems are experts and whose rows are the
    /// tokens routed to each: `m` is their mean, and each expert's own count
    /// varies about it as uniform routing spreads them (Poisson), so its
    /// tiles are counted one expert at a time ([`Gemm::row_tiles`]).
    pub routed: bool,
}

impl Gemm {
    /// One `[m, k] × [k, n]` product with B in the matmul's own dtype.
    pub fn new(m: u32, n: u32, k: u32, dtype: Dtype) -> Gemm {
        Gemm {
            m,
            n,
            k,
            batch: 1,
            b: Stored::of(dtype),
            routed: false,
        }
    }
    /// Tiles of `tm` rows a problem takes, on average: `⌈m / tm⌉`, or for a
    /// routed grouped kernel ([`Gemm::routed`]) the mean of `⌈X / tm⌉` over
    /// its experts, `X` each one's tokens (at least one: the expert is
    /// touched), Poisson about the mean. An expert a few rows past a tile's
    /// edge pays the whole tile, one a few rows short does not: the mean's
    /// own count is a cliff the spread smooths.
    pub fn row_tiles(&self, tm: u32) -> f64 {
        let tm = tm.max(1);
        let m = self.m.max(1);
        if !self.routed || self.batch <= 1 {
            return f64::from(m.div_ceil(tm));
        }
        routed_tiles(f64::from(m), f64::from(tm))
    }
    /// 2·M·N·K per problem.
    pub fn flops(&self) -> f64 {
        2.0 * f64::from(self.m) * f64::from(self.n) * f64::from(self.k) * f64::from(self.batch)
    }
    /// A, B and C read or written once, `elem` bytes per element.
    pub fn bytes(&self, elem: f64) -> f64 {
        let (m, n, k) = (f64::from(self.m), f64::from(self.n), f64::from(self.k));
        elem * (m * k + k * n + m * n) * f64::from(self.batch)
    }
    /// Every dimension a multiple of `align` (the readout `mm_aligned`).
    pub fn aligned(&self, align: u32) -> bool {
        let a = align.max(1);
        self.m.is_multiple_of(a) && self.n.is_multiple_of(a) && self.k.is_multiple_of(a)
    }
    /// The leading dimensions of row-major A, B and C (K and N) aligned: the
    /// fast path.
    pub fn fast_path(&self, align: u32) -> bool {
        let a = align.max(1);
        self.n.is_multiple_of(a) && self.k.is_multiple_of(a)
    }
    /// The same product on one of `tp` GPUs that split its output columns
    /// (`along_k = false`) or its shared dimension (`along_k = true`).
    pub fn split(self, tp: u32, along_k: bool) -> Gemm {
        let tp = tp.max(1);
        if along_k {
            Gemm {
                k: self.k.div_ceil(tp).max(1),
                ..self
            }
        } else {
            Gemm {
                n: self.n.div_ceil(tp).max(1),
                ..self
            }
        }
    }
}

/// The shape model's numbers for one GPU in one dtype, calibrated ([`Hw::of`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hw {
    pub sms: u32,
    /// One SM's rate on a full tile, as a share of the machine's matmul ceiling
    /// (so 2× FLOP/s doubles it).
    pub sm_share: f64,
    /// Seconds each wave waits for its first operands.
    pub fill: f64,
    /// The slow path's share of the fast rate.
    pub slow: f64,
    /// Elements per 16 bytes in the matmul's dtype.
    pub align: u32,
    /// The small-M path's fixed seconds ([`GEMV_LATENCY`]).
    pub gemv: f64,
    /// The preset's achievable copy bandwidth as a share of its datasheet: the
    /// machine's bandwidth already holds it, so a GEMM's streaming fraction of the
    /// datasheet is divided by it.
    pub copy: f64,
    /// The library's tiles: Hopper's set ([`HOPPER_TILES`]) or the guide's ([`TILES`]).
    pub hopper: bool,
    /// A W4A16 GEMM's compute rate ([`Stored::Int4`] weights) as a share of the
    /// machine's matmul ceiling ([`w4a16`]; 1: no slower than the matmul's dtype).
    pub w4a16: f64,
}

impl Hw {
    /// The output tiles the library chooses among on this GPU.
    pub fn tiles(&self) -> &'static [(u32, u32)] {
        if self.hopper {
            &HOPPER_TILES
        } else {
            &TILES
        }
    }
}

impl Hw {
    /// The shape model for `hw` in `dtype` under achievable roofs, calibrated on
    /// the preset's own achievable numbers; `None` where the GPU's layout is not
    /// known (the lab's measured GPU).
    pub fn of(hw: &'static Preset, dtype: Dtype) -> Option<Hw> {
        // a measured GPU that matched a datasheet preset has that preset's layout
        let hw = hw.base().unwrap_or(hw);
        if hw.sms == 0 || hw.is_measured() {
            return None;
        }
        // the calibration depends on the preset and dtype alone: kept once made,
        // keyed on the preset's address (a `&'static Preset` never changes, so
        // one address is one set of numbers; two presets that share an id do not
        // share a calibration: `tests::a_calibration_is_kept_per_preset`)
        thread_local! {
            static MADE: std::cell::RefCell<Vec<(usize, Dtype, Hw)>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        let at = std::ptr::from_ref::<Preset>(hw) as usize;
        if let Some(h) = MADE.with(|c| {
            c.borrow()
                .iter()
                .find(|(a, d, _)| *a == at && *d == dtype)
                .map(|x| x.2)
        }) {
            return Some(h);
        }
        let h = Hw::calibrate(hw, dtype);
        MADE.with(|c| c.borrow_mut().push((at, dtype, h)));
        Some(h)
    }

    /// Calibrated on the preset's own datasheet peaks scaled by its achievable
    /// fractions ([`achievable::fractions`]): the roofs `Setting::machine` gives
    /// the preset at its datasheet numbers on achievable roofs.
    fn calibrate(hw: &'static Preset, dtype: Dtype) -> Hw {
        let f = achievable::fractions(hw);
        let m = Roofs {
            matmul_flops: preset_flops(hw, dtype) * f.matmul(dtype),
            bw: hw.mem_bw * f.bw,
            elem_bytes: dtype.bytes(),
            floor: kernel_floor(hw).seconds,
        };
        let mut h = Hw {
            sms: hw.sms,
            sm_share: 1.0 / f64::from(hw.sms),
            fill: 0.0,
            slow: slow_path(hw).share,
            align: alignment(dtype),
            gemv: GEMV_LATENCY,
            copy: f.bw,
            hopper: matches!(hw.id, "h100-sxm" | "h100-pcie" | "h200" | "b200"),
            w4a16: w4a16(hw).map_or(1.0, |w| {
                (w.share * preset_flops(hw, Dtype::Bf16) / m.matmul_flops).min(1.0)
            }),
        };
        let (min_s, _, _) = min_gemm(hw);
        let big = Gemm::new(REFERENCE, REFERENCE, REFERENCE, dtype);
        let small = Gemm::new(SMALLEST, SMALLEST, SMALLEST, dtype);
        let target = big.flops() / m.matmul_flops;
        // a fixed point: the rate that makes 8192³ take its roof time, the fill
        // that makes 256³ take the least time; each moves the other a little
        for _ in 0..12 {
            let t = tiled(&big, &m, &h).seconds;
            if t > 0.0 && t.is_finite() {
                h.sm_share *= t / target;
            }
            let work = tiled(&small, &m, &Hw { fill: 0.0, ..h }).seconds - m.floor;
            h.fill = (min_s - m.floor - work).max(0.0);
        }
        h
    }
}

/// Which kernels the library runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Small M: matrix-vector kernels streaming B.
    Gemv,
    /// Output tiles over the SMs.
    Tiled,
}

/// The tile the model picks, and how it fills the GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tiling {
    pub tm: u32,
    pub tn: u32,
    pub split: u32,
    pub tiles: f64,
    pub waves: f64,
    /// tiles ÷ (waves × SMs).
    pub wave_efficiency: f64,
    /// Useful ÷ padded output elements.
    pub tile_efficiency: f64,
    /// Tiles in the last wave (SMs busy then).
    pub last_wave: f64,
}

/// One GEMM priced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Priced {
    pub seconds: f64,
    /// The part of [`Priced::seconds`] that is compute (tile work, waste
    /// included) or memory (bytes at the streaming rate), per [`Priced::bound`].
    pub roof: f64,
    /// Fixed costs: the launch, each wave's fill, or the GEMV's latency.
    pub fixed: f64,
    pub bound: Bound,
    pub path: Path,
    /// The tiled path's choice (`None` on the small-M path: [`tiling`] gives
    /// what the tiled kernels would do).
    pub tiling: Option<Tiling>,
    /// K and N aligned: the fast path ran.
    pub fast: bool,
}

/// The tiled path's compute time for one tile and split choice, and its
/// tiling; `mm` is [`Gemm::row_tiles`] at `tm`, worked out once per tile by
/// the caller.
fn tile_choice(
    g: &Gemm,
    m: &Roofs,
    h: &Hw,
    (tm, mm): (u32, f64),
    tn: u32,
    split: u32,
) -> (f64, f64, Tiling) {
    let sms = f64::from(h.sms.max(1));
    let nn = g.n.max(1).div_ceil(tn);
    let tiles = mm * f64::from(nn) * f64::from(split) * f64::from(g.batch.max(1));
    let waves = (tiles / sms).ceil();
    let ks = f64::from(g.k.max(1).div_ceil(split));
    let rate = m.matmul_flops * h.sm_share;
    // the slow path's kernels run their whole tile (loads, products, stores) at
    // the measured share of the fast path's speed
    let slow = if g.fast_path(h.align) { 1.0 } else { h.slow };
    let (t, c) = (f64::from(tm) * f64::from(tn), m.elem_bytes);
    let out = if split > 1 { 4.0 } else { c };
    let operands = 1.0 + OPERANDS * (1.0 / f64::from(tm) + 1.0 / f64::from(tn));
    let work = (2.0 * t * ks * operands / rate + EPILOGUE * t * out / (m.bw / sms)) / slow;
    // split-K's partial sums are added by a second kernel: its launch and its bytes
    let reduce = if split > 1 {
        let (m_, n_) = (f64::from(g.m), f64::from(g.n));
        m.floor
            + (f64::from(split) * m_ * n_ * 4.0 + m_ * n_ * c) * f64::from(g.batch.max(1)) / m.bw
    } else {
        0.0
    };
    let useful = f64::from(g.m) * f64::from(g.n);
    let padded = mm * f64::from(tm) * f64::from(nn) * f64::from(tn);
    let last = tiles - (waves - 1.0) * sms;
    // the fill is paid once: the library's kernels stay resident on the SMs and
    // load each next tile's operands while the current one computes
    (
        waves * work + reduce,
        h.fill,
        Tiling {
            tm,
            tn,
            split,
            tiles,
            waves,
            wave_efficiency: tiles / (waves * sms),
            tile_efficiency: useful / padded,
            last_wave: last,
        },
    )
}

/// The tiled path at its fastest tile and split: compute branch only.
struct Tiled {
    seconds: f64,
    work: f64,
    tiling: Tiling,
}

fn tiled(g: &Gemm, m: &Roofs, h: &Hw) -> Tiled {
    let mut best: Option<Tiled> = None;
    for &(tm, tn) in h.tiles() {
        let mm = g.row_tiles(tm);
        let whole = mm * f64::from(g.n.max(1).div_ceil(tn)) * f64::from(g.batch.max(1));
        for &split in &SPLITS {
            // split-K is for a grid that leaves SMs idle, and a K long enough
            if split > 1 && (g.k.div_ceil(split) < 64 || whole >= f64::from(h.sms)) {
                continue;
            }
            let (work, fill, tiling) = tile_choice(g, m, h, (tm, mm), tn, split);
            let seconds = m.floor + fill + work;
            if best.as_ref().is_none_or(|b| seconds < b.seconds) {
                best = Some(Tiled {
                    seconds,
                    work,
                    tiling,
                });
            }
        }
    }
    best.unwrap_or_else(|| {
        let (work, fill, tiling) = tile_choice(g, m, h, (128, g.row_tiles(128)), 128, 1);
        Tiled {
            seconds: m.floor + fill + work,
            work,
            tiling,
        }
    })
}

/// THE price of one GEMM under the shape model: `bytes` is what the kernel moves
/// (A, B and C, and whatever its epilogue reads), on machine `m` with the shape
/// model `h`. A step prices the same layer's matmuls many times over, so the
/// last prices are kept (a small table keyed by every input, bit for bit).
pub fn price(g: &Gemm, bytes: f64, m: &Roofs, h: &Hw) -> Priced {
    const SLOTS: usize = 64;
    thread_local! {
        static KEPT: std::cell::RefCell<Vec<Option<(PriceKey, Priced)>>> =
            std::cell::RefCell::new(vec![None; SLOTS]);
    }
    let key = PriceKey::of(g, bytes, m, h);
    let slot = key.slot(SLOTS);
    if let Some(p) = KEPT.with(|k| {
        k.borrow()
            .get(slot)
            .and_then(|e| e.as_ref().filter(|(kk, _)| *kk == key).map(|(_, p)| *p))
    }) {
        return p;
    }
    let p = price_afresh(g, bytes, m, h);
    KEPT.with(|k| {
        if let Some(e) = k.borrow_mut().get_mut(slot) {
            *e = Some((key, p));
        }
    });
    p
}

/// Every input of [`price`], exactly: the GEMM as it is, each float by its bits.
/// Two keys are equal only when the inputs are, so a kept price is returned only
/// for the very inputs it was made from (the hash only picks the slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct PriceKey {
    gemm: Gemm,
    bytes: u64,
    /// `Roofs`: matmul FLOP/s, bandwidth, element bytes, floor.
    roofs: [u64; 4],
    sms: u32,
    align: u32,
    hopper: bool,
    /// `Hw`: SM share, fill, slow path, GEMV latency, copy share, W4A16 share.
    hw: [u64; 6],
}

impl PriceKey {
    fn of(g: &Gemm, bytes: f64, m: &Roofs, h: &Hw) -> PriceKey {
        PriceKey {
            gemm: *g,
            bytes: bytes.to_bits(),
            roofs: [
                m.matmul_flops.to_bits(),
                m.bw.to_bits(),
                m.elem_bytes.to_bits(),
                m.floor.to_bits(),
            ],
            sms: h.sms,
            align: h.align,
            hopper: h.hopper,
            hw: [
                h.sm_share.to_bits(),
                h.fill.to_bits(),
                h.slow.to_bits(),
                h.gemv.to_bits(),
                h.copy.to_bits(),
                h.w4a16.to_bits(),
            ],
        }
    }
    /// The table slot: FxHash of the whole key (a few nanoseconds).
    fn slot(&self, slots: usize) -> usize {
        use std::hash::{Hash, Hasher};
        let mut hasher = rustc_hash::FxHasher::default();
        self.hash(&mut hasher);
        (hasher.finish() >> 32) as usize % slots.max(1)
    }
}

fn price_afresh(g: &Gemm, bytes: f64, m: &Roofs, h: &Hw) -> Priced {
    let stream = (streamed(g.b).of_datasheet / h.copy).clamp(f64::MIN_POSITIVE, 1.0);
    let mem = bytes.max(0.0) / (m.bw * stream);
    let fast = g.fast_path(h.align);
    // weights unpacked from 4 bits run at the unpacking's rate ([`w4a16`])
    let rate = if g.b == Stored::Int4 {
        h.w4a16.clamp(f64::MIN_POSITIVE, 1.0)
    } else {
        1.0
    };
    if g.m < SMALL_M {
        let compute = g.flops() / (m.matmul_flops * rate);
        let (roof, bound) = if compute > mem {
            (compute, Bound::Compute)
        } else {
            (mem, Bound::Memory)
        };
        let seconds = floored(roof + h.gemv, m.floor);
        return Priced {
            seconds,
            roof,
            fixed: seconds - roof,
            bound,
            path: Path::Gemv,
            tiling: None,
            fast,
        };
    }
    let mut t = tiled(g, m, h);
    if rate < 1.0 {
        let more = t.work * (1.0 / rate - 1.0);
        t.work += more;
        t.seconds += more;
    }
    // no shape beats the roof its rate is calibrated on (a tile more square
    // than the calibration's would, by a fraction of a percent)
    let least = g.flops() / (m.matmul_flops * rate);
    if t.seconds < least {
        t.work += least - t.seconds;
        t.seconds = least;
    }
    let memory = m.floor + mem;
    if t.seconds > memory {
        Priced {
            seconds: t.seconds,
            roof: t.work,
            fixed: t.seconds - t.work,
            bound: Bound::Compute,
            path: Path::Tiled,
            tiling: Some(t.tiling),
            fast,
        }
    } else {
        Priced {
            seconds: memory,
            roof: mem,
            fixed: m.floor,
            bound: Bound::Memory,
            path: Path::Tiled,
            tiling: Some(t.tiling),
            fast,
        }
    }
}

/// The tiling the tiled kernels would use for `g` (on the small-M path too,
/// where another kernel runs): what the shapes widget draws.
pub fn tiling(g: &Gemm, m: &Roofs, h: &Hw) -> Tiling {
    tiled(g, m, h).tiling
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::achievable::Roof;
    use crate::model::hardware::{preset, PRESETS};
    use crate::model::setting::{gpu_seconds, Setting};

    fn h100() -> &'static Preset {
        preset("h100-sxm").unwrap_or(&PRESETS[0])
    }

    fn on(hw: &'static Preset, dtype: Dtype) -> (Roofs, Hw) {
        let m = Setting::on(hw, dtype, Roof::Achievable).machine();
        (
            m.roofs(),
            m.gemm.unwrap_or_else(|| Hw::of(hw, dtype).unwrap()),
        )
    }

    fn time(g: Gemm, hw: &'static Preset) -> Priced {
        let (m, h) = on(hw, Dtype::Bf16);
        price(&g, g.bytes(2.0), &m, &h)
    }

    #[test]
    fn the_calibration_holds_its_two_anchors() {
        let (m, _) = on(h100(), Dtype::Bf16);
        let big = time(Gemm::new(8192, 8192, 8192, Dtype::Bf16), h100());
        let roof = Gemm::new(8192, 8192, 8192, Dtype::Bf16).flops() / m.matmul_flops;
        assert!((big.seconds / roof - 1.0).abs() < 1e-3, "{big:?}");
        let small = time(Gemm::new(256, 256, 256, Dtype::Bf16), h100());
        assert!((small.seconds - MIN_GEMM_S).abs() < 0.05e-6, "{small:?}");
    }

    /// `P(X > x)` for Poisson `X` summed exactly in logs (the reference the
    /// normal approximation is held to).
    fn poisson_over_exact(lambda: f64, x: f64) -> f64 {
        let ln_p = |i: f64| {
            let mut lf = 0.0;
            let mut j = 2.0;
            while j <= i {
                lf += f64::ln(j);
                j += 1.0;
            }
            i * lambda.ln() - lambda - lf
        };
        let mut cdf = 0.0;
        let mut i = 0.0;
        while i <= x.floor() {
            cdf += ln_p(i).exp();
            i += 1.0;
        }
        (1.0 - cdf).max(0.0)
    }

    /// A routed grouped GEMM's tiles per expert: the plain count where the
    /// spread stays inside one tile count, half a tile more where the mean
    /// sits on a tile's edge, no cliff as the mean crosses it, one tile for an
    /// expert with a token or two, and the spread's tails as the exact
    /// Poisson sums give them. A GEMM that is not routed keeps `⌈m / tm⌉`.
    #[test]
    fn a_routed_gemm_counts_each_experts_tiles() {
        assert_eq!(routed_tiles(1.0, 128.0), 1.0);
        assert!((routed_tiles(3.0, 128.0) - 1.0).abs() < 1e-9);
        // 192 ± 14 rows: always two tiles of 128
        assert!((routed_tiles(192.0, 128.0) - 2.0).abs() < 1e-3);
        // on the edge: about half the experts spill into a third tile
        let edge = routed_tiles(256.0, 128.0);
        assert!((edge - 2.5).abs() < 0.05, "{edge}");
        // smooth across the edge, rising with the mean
        let (below, above) = (routed_tiles(255.0, 128.0), routed_tiles(258.0, 128.0));
        assert!(below < edge && edge < above && above - below < 0.1);
        let mut last = 0.0;
        for m in (2..2000).step_by(7) {
            let t = routed_tiles(f64::from(m), 64.0);
            assert!(
                t >= last - 1e-9 && t >= f64::from(m) / 64.0 - 1e-9,
                "{m}: {t}"
            );
            last = t;
        }
        for (lambda, x) in [(40.0, 50.0), (257.7, 256.0), (600.0, 640.0), (31.0, 20.0)] {
            let (a, b) = (poisson_over(lambda, x), poisson_over_exact(lambda, x));
            assert!((a - b).abs() < 0.01, "{lambda} {x}: {a} vs {b}");
        }
        for (lambda, x) in [(5.0, 3.0), (20.0, 25.0)] {
            assert!((poisson_over(lambda, x) - poisson_over_exact(lambda, x)).abs() < 1e-9);
        }
        let plain = Gemm {
            batch: 128,
            ..Gemm::new(257, 2880, 5760, Dtype::Bf16)
        };
        assert_eq!(plain.row_tiles(128), 3.0);
        let routed = Gemm {
            routed: true,
            ..plain
        };
        assert!((routed.row_tiles(128) - routed_tiles(257.0, 128.0)).abs() < 1e-12);
        // a huge mean is summed near the mean only: whole tiles below it
        let huge = routed_tiles(1e9, 64.0);
        assert!((huge - (1e9 / 64.0 + 0.5)).abs() < 0.02, "{huge}");
        assert!((routed_tiles(1e5, 128.0) - (1e5f64 / 128.0 + 0.5)).abs() < 0.02);
        // one problem has nothing to spread over
        assert_eq!(Gemm { batch: 1, ..routed }.row_tiles(128), 3.0);
    }

    /// A large W4A16 GEMM on an H100 runs at the measured 25.7 % of the bf16
    /// peak (254 TFLOP/s), bound by the unpacking; at small M it still streams
    /// its 4-bit weights (memory-bound, as fast as before); on an A100 the bf16
    /// rate stands. The kept prices tell the two storages apart.
    #[test]
    fn a_w4a16_gemm_on_hopper_runs_at_the_unpackings_measured_rate() {
        let w4 = |m: u32, k: u32, n: u32| Gemm {
            b: Stored::Int4,
            ..Gemm::new(m, k, n, Dtype::Bf16)
        };
        let price_on = |g: Gemm, hw: &'static Preset| {
            let (m, h) = on(hw, Dtype::Bf16);
            price(&g, g.bytes(2.0), &m, &h)
        };
        let big = w4(16384, 2880, 5760);
        let p = price_on(big, h100());
        assert_eq!(p.bound, Bound::Compute);
        let rate = big.flops() / p.seconds;
        let want = HOPPER_W4A16.0 / HOPPER_W4A16.1;
        assert!(
            rate <= want * 1.001 && rate > 0.8 * want,
            "{rate:e} vs {want:e}"
        );
        let bf16 = price_on(Gemm::new(16384, 2880, 5760, Dtype::Bf16), h100());
        assert!(p.seconds > 2.0 * bf16.seconds, "{p:?} {bf16:?}");
        // decode: a handful of rows stream the weights; the unpacking hides
        let small = price_on(w4(8, 2880, 5760), h100());
        assert_eq!(small.bound, Bound::Memory);
        // Ampere: no measured slowdown, so the bf16 rate stands
        let a100 = preset("a100-80gb").unwrap();
        let on_a100 = price_on(big, a100);
        let bf16_a100 = price_on(Gemm::new(16384, 2880, 5760, Dtype::Bf16), a100);
        assert!((on_a100.seconds / bf16_a100.seconds - 1.0).abs() < 1e-9);
        assert!(w4a16(h100()).is_some_and(|w| w.measured));
        assert!(w4a16(preset("h200").unwrap()).is_some_and(|w| !w.measured));
        assert!(w4a16(a100).is_none());
    }

    #[test]
    fn one_more_partial_wave_costs_what_a_reader_measured() {
        // 4096 × 4096 × 1536 against × 1664 (M × K × N): 714 vs 615 TFLOP/s
        let a = time(Gemm::new(4096, 1536, 4096, Dtype::Bf16), h100());
        let b = time(Gemm::new(4096, 1664, 4096, Dtype::Bf16), h100());
        let fa = Gemm::new(4096, 1536, 4096, Dtype::Bf16).flops() / a.seconds;
        let fb = Gemm::new(4096, 1664, 4096, Dtype::Bf16).flops() / b.seconds;
        assert!(fb < fa, "{fa} vs {fb}");
        // Hopper's tiles cut 1536 into whole tiles and two full waves; 1664
        // leaves either a partial wave or padded tiles
        let (ta, tb) = (a.tiling.unwrap(), b.tiling.unwrap());
        let fill = |t: Tiling| t.wave_efficiency * t.tile_efficiency;
        assert!(fill(tb) < fill(ta), "{ta:?} {tb:?}");
    }

    #[test]
    fn the_vocabulary_pair_differs_by_more_than_three() {
        let a = time(Gemm::new(8192, 50257, 768, Dtype::Bf16), h100());
        let b = time(Gemm::new(8192, 50304, 768, Dtype::Bf16), h100());
        assert!(!a.fast && b.fast);
        assert!(
            a.seconds > 3.0 * b.seconds,
            "{} vs {}",
            a.seconds,
            b.seconds
        );
    }

    #[test]
    fn small_m_is_the_decode_rule() {
        // M = 1: latency + bytes at the streaming fraction, exactly
        let (m, h) = on(h100(), Dtype::Bf16);
        let g = Gemm::new(1, 4096, 4096, Dtype::Bf16);
        let p = price(&g, g.bytes(2.0), &m, &h);
        let stream = streamed(Stored::Bf16).of_datasheet / h.copy;
        let expect = g.bytes(2.0) / (m.bw * stream) + GEMV_LATENCY;
        assert_eq!(p.path, Path::Gemv);
        assert_eq!(p.bound, Bound::Memory);
        assert!((p.seconds / expect - 1.0).abs() < 1e-12, "{p:?}");
    }

    #[test]
    fn every_preset_is_calibrated_and_finite() {
        for hw in PRESETS {
            for d in hw.dtypes() {
                let (m, h) = on(hw, d);
                assert!(
                    h.sm_share > 0.0 && h.sm_share.is_finite(),
                    "{} {d:?}",
                    hw.id
                );
                assert!(h.fill >= 0.0 && h.fill < 1e-5, "{} {d:?} {}", hw.id, h.fill);
                for g in [
                    Gemm::new(1, 1, 1, d),
                    Gemm::new(65536, 65536, 65536, d),
                    Gemm::new(63, 4097, 77, d),
                ] {
                    let p = price(&g, g.bytes(d.bytes()), &m, &h);
                    assert!(p.seconds.is_finite() && p.seconds > 0.0, "{} {g:?}", hw.id);
                    assert!(p.roof >= 0.0 && p.fixed >= 0.0, "{} {g:?} {p:?}", hw.id);
                    assert!((p.roof + p.fixed - p.seconds).abs() <= 1e-12 * p.seconds.max(1.0));
                }
            }
        }
    }

    #[test]
    fn gpu_seconds_is_the_model_on_achievable_and_the_roofline_on_datasheet() {
        let g = Gemm::new(4096, 1664, 4096, Dtype::Bf16);
        let shaped = gpu_seconds(g, Dtype::Bf16, h100(), Roof::Achievable);
        assert_eq!(shaped, time(g, h100()).seconds);
        let roof = gpu_seconds(g, Dtype::Bf16, h100(), Roof::Datasheet);
        assert_eq!(roof, g.flops() / 989.4e12);
    }

    /// The kept prices answer only for their exact inputs: two machines whose
    /// fields an XOR of them would confuse (SMs 132 and 133, the copy share's
    /// lowest bit flipped) each get their own price, also after the other.
    #[test]
    fn kept_prices_are_keyed_on_the_exact_inputs() {
        let (m, h) = on(h100(), Dtype::Bf16);
        let other = Hw {
            sms: h.sms ^ 1,
            copy: f64::from_bits(h.copy.to_bits() ^ 1),
            ..h
        };
        assert_eq!(
            u64::from(h.sms) ^ h.copy.to_bits(),
            u64::from(other.sms) ^ other.copy.to_bits()
        );
        assert_ne!(
            PriceKey::of(&Gemm::new(1, 1, 1, Dtype::Bf16), 1.0, &m, &h),
            { PriceKey::of(&Gemm::new(1, 1, 1, Dtype::Bf16), 1.0, &m, &other) }
        );
        let g = Gemm::new(4096, 1664, 4096, Dtype::Bf16);
        let bytes = g.bytes(2.0);
        for _ in 0..2 {
            for hw in [h, other] {
                assert_eq!(price(&g, bytes, &m, &hw), price_afresh(&g, bytes, &m, &hw));
            }
        }
        assert_ne!(price(&g, bytes, &m, &h), price(&g, bytes, &m, &other));
        // every field is in the key: a change to any one misses the kept price
        let base = PriceKey::of(&g, bytes, &m, &h);
        let moved = [
            PriceKey::of(&Gemm { batch: 2, ..g }, bytes, &m, &h),
            PriceKey::of(
                &Gemm {
                    b: Stored::Int4,
                    ..g
                },
                bytes,
                &m,
                &h,
            ),
            PriceKey::of(&g, bytes * 2.0, &m, &h),
            PriceKey::of(
                &g,
                bytes,
                &Roofs {
                    floor: m.floor * 2.0,
                    ..m
                },
                &h,
            ),
            PriceKey::of(&g, bytes, &m, &Hw { align: 16, ..h }),
            PriceKey::of(
                &g,
                bytes,
                &m,
                &Hw {
                    gemv: h.gemv * 2.0,
                    ..h
                },
            ),
        ];
        for k in moved {
            assert_ne!(k, base);
        }
    }

    /// A preset with another's id and other numbers gets its own calibration,
    /// also after the other's was kept.
    #[test]
    fn a_calibration_is_kept_per_preset() {
        let h100 = h100();
        let kept = Hw::of(h100, Dtype::Bf16).unwrap();
        let other: &'static Preset = Box::leak(Box::new(Preset {
            sms: h100.sms / 2,
            ..h100.clone()
        }));
        assert_eq!(other.id, h100.id);
        let theirs = Hw::of(other, Dtype::Bf16).unwrap();
        assert_eq!(theirs, Hw::calibrate(other, Dtype::Bf16));
        assert_ne!(theirs, kept);
        assert_eq!(Hw::of(h100, Dtype::Bf16).unwrap(), kept);
    }

    #[test]
    fn stored_fractions_come_from_torchao() {
        // the decode model's numbers, unchanged: torchao's time per token less
        // the GEMV latency per matmul
        let bf16 = streamed(Stored::Bf16).of_datasheet;
        assert!((bf16 - 0.744).abs() < 0.002, "{bf16}");
        assert!(streamed(Stored::Int4).of_datasheet < streamed(Stored::Int8).of_datasheet);
    }
}

#[cfg(test)]
mod bench {
    use crate::model::achievable::Roof;
    use crate::model::hardware::preset;
    use crate::model::llm::{step, KvDtype, LlmModel, LlmRun, Phase, WeightDtype};
    use crate::model::parallel::Parallel;
    use crate::model::Setting;

    #[test]
    #[ignore]
    fn time_a_price() {
        let hw = preset("h100-sxm").unwrap();
        let m = Setting::on(hw, crate::model::Dtype::Bf16, Roof::Achievable).machine();
        let h = m.gemm.unwrap();
        let t0 = std::time::Instant::now();
        let mut s = 0.0;
        for i in 0..10000u32 {
            let g = super::Gemm::new(8 + i % 2, 4096, 4096, crate::model::Dtype::Bf16);
            s += super::price(&g, g.bytes(2.0), &m.roofs(), &h).seconds;
        }
        println!(
            "price: {:.3} us each ({s})",
            t0.elapsed().as_secs_f64() * 1e6 / 10000.0
        );
        let t0 = std::time::Instant::now();
        for i in 0..10000u32 {
            let g = super::Gemm::new(2048 + i, 4096, 4096, crate::model::Dtype::Bf16);
            s += super::tiling(&g, &m.roofs(), &h).waves;
        }
        println!(
            "tiling: {:.3} us each ({s})",
            t0.elapsed().as_secs_f64() * 1e6 / 10000.0
        );
        let t0 = std::time::Instant::now();
        for _ in 0..1000 {
            s += Setting::on(hw, crate::model::Dtype::Bf16, Roof::Achievable)
                .machine()
                .bw;
        }
        println!(
            "machine: {:.3} us each ({s})",
            t0.elapsed().as_secs_f64() * 1e6 / 1000.0
        );
    }

    #[test]
    #[ignore]
    fn time_the_shapes_view() {
        let hw = preset("h100-sxm").unwrap();
        let t0 = std::time::Instant::now();
        let mut s = 0.0;
        for i in 0..200u32 {
            let v = crate::model::shapes::view(
                4096,
                3000 + 37 * i,
                4096,
                crate::model::Dtype::Bf16,
                hw,
            );
            let w = crate::model::shapes::sweep(crate::model::shapes::SweepKey::of(
                4096,
                3000 + 37 * i,
                4096,
                crate::model::Dtype::Bf16,
                hw,
            ));
            s += w.aligned.len() as f64;
            s += v.map_or(0.0, |v| v.seconds);
        }
        println!(
            "view: {:.3} ms each ({s})",
            t0.elapsed().as_secs_f64() * 1e3 / 200.0
        );
    }

    #[test]
    #[ignore]
    fn time_an_llm_step() {
        let (config, _) = LlmModel::Llama3_8b.config().unwrap();
        for phase in [Phase::Decode, Phase::Prefill] {
            for roof in [Roof::Datasheet, Roof::Achievable] {
                let r = LlmRun {
                    config,
                    phase,
                    batch: 8,
                    context: 2048,
                    wdtype: WeightDtype::Bf16,
                    kvdtype: KvDtype::Bf16,
                    graphs: true,
                    flash: true,
                    par: Parallel::ONE,
                };
                let s = Setting::on(preset("h100-sxm").unwrap(), crate::model::Dtype::Bf16, roof);
                let t0 = std::time::Instant::now();
                let mut w = 0.0;
                for _ in 0..20 {
                    w += step::full(&r, &s).wall;
                }
                println!(
                    "{phase:?} {roof:?}: {:.3} ms per run ({w})",
                    t0.elapsed().as_secs_f64() * 1e3 / 20.0
                );
            }
        }
    }
}
