//! How close decode's weight-streaming matmuls come to the bandwidth roof.
//!
//! At small batch a decode matmul is a matrix-vector product: it reads each weight
//! once and does two FLOPs per weight read, so its time is the weight bytes over
//! the bandwidth it reaches. A large device copy (the achievable roof,
//! [`crate::model::achievable`]) is the best any kernel streams; a GEMV reaches
//! less, and a weight-only quantised kernel, which must also unpack and rescale
//! every weight, less again. Under `roof=achievable` these kernels run at the
//! measured fraction of the datasheet bandwidth below, on every preset (measured
//! on one GPU each: an estimate elsewhere); under `roof=datasheet` every kernel
//! keeps the pure idealisation (fraction 1).

use super::WeightDtype;
use crate::model::achievable::{self, Roof};
use crate::model::setting::Setting;

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
pub const TORCHAO_TOKENS_PER_S: [(WeightDtype, f64, f64); 3] = [
    (WeightDtype::Bf16, 95.64, 15.01e9),
    (WeightDtype::Int8, 153.03, 7.52e9),
    (WeightDtype::Int4, 180.80, 4.22e9),
];
/// Weight matmuls per token in torchao's Llama (`wqkv`, `wo`, `w1`, `w3`, `w2` in
/// each of 32 layers, and the output head).
pub const TORCHAO_MATMULS: f64 = 161.0;

/// The fixed GPU time of a small matrix-vector product beyond its bytes at the
/// streaming rate: a 2048 × 2048 bf16 GEMV takes ~6.9 µs on an H200
/// (pytorch/pytorch issue #161134), where 8.4 MB at 70 % of 4.8 TB/s is 2.5 µs.
/// Big matrices hide it, small ones do not: this is why a 70B model's GEMVs
/// stream closer to the roof than an 8B model's.
pub const GEMV_LATENCY: f64 = 4.4e-6;

/// The streaming fraction for weights stored as `w`: torchao's measured time per
/// token, less [`GEMV_LATENCY`] per weight matmul, is the bytes at this fraction
/// of the A100's datasheet bandwidth.
pub fn streamed(w: WeightDtype) -> Streamed {
    let torchao = |d: WeightDtype| {
        TORCHAO_TOKENS_PER_S
            .iter()
            .find(|x| x.0 == d)
            .map_or(1.0, |&(_, tps, bytes)| {
                bytes / (1.0 / tps - TORCHAO_MATMULS * GEMV_LATENCY) / A100_80GB_BW
            })
    };
    match w {
        WeightDtype::Bf16 => Streamed {
            of_datasheet: torchao(w),
            source: "torchao, Llama-3-8B bf16 decode on an A100-80GB (1,436 GB/s of 2,039 over the whole step)",
        },
        WeightDtype::Fp8 => Streamed {
            of_datasheet: CALM_H100_FP8.0 / CALM_H100_FP8.1,
            source: "calm, Mixtral-8x7B fp8 decode on an H100 SXM: 2,550 of 3,350 GB/s",
        },
        WeightDtype::Int8 => Streamed {
            of_datasheet: torchao(w),
            source: "torchao, Llama-3-8B int8 weight-only decode on an A100-80GB (1,151 GB/s of 2,039 over the whole step)",
        },
        WeightDtype::Int4 => Streamed {
            of_datasheet: torchao(w),
            source: "torchao, Llama-3-8B int4 weight-only (groups of 64) decode on an A100-80GB (763 GB/s of 2,039 over the whole step)",
        },
    }
}

/// The fixed GPU time of a weight matmul beyond its bytes: [`GEMV_LATENCY`] under
/// achievable roofs, 0 on datasheet roofs.
pub fn latency(setting: &Setting) -> f64 {
    match setting.roof {
        Roof::Datasheet => 0.0,
        Roof::Achievable => GEMV_LATENCY,
    }
}

/// The weight-streaming kernels' share of the machine's bandwidth
/// ([`crate::model::workload::KernelGroup::bw_eff`]): 1 on datasheet roofs; under
/// achievable roofs the measured fraction of the datasheet over the preset's
/// achievable copy fraction (the machine's bandwidth is already scaled by it),
/// at most 1.
pub fn efficiency(w: WeightDtype, setting: &Setting) -> f64 {
    match setting.roof {
        Roof::Datasheet => 1.0,
        Roof::Achievable => {
            let copy = achievable::fractions(setting.hw).bw;
            (streamed(w).of_datasheet / copy).clamp(f64::MIN_POSITIVE, 1.0)
        }
    }
}
