//! The reference measurements: the essay's experiments measured on a real GPU, as
//! plain figures every other module may read (a leaf: it imports nothing of the
//! model). One machine so far, an NVIDIA H100 80GB HBM3 (SXM); figures from
//! `tests/data/h100.json` (a copy of the project's shared reference file), checked
//! against it by a native test. [`super::measured`] turns them into the sweeps the
//! microbenchmark draws.

/// Where a measured figure comes from, for the page to name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    pub machine: &'static str,
    pub date: &'static str,
    pub software: &'static str,
}

pub mod h100 {
    use super::Source;

    pub const SOURCE: Source = Source {
        machine: "NVIDIA H100 80GB HBM3 (SXM), driver 580.159.04",
        date: "2026-11-22/23",
        software: "PyTorch 2.11.0+cu130, Triton 3.6.0; WGSL via wgpu-native 0.32 on Vulkan 1.4",
    };

    pub const DATASHEET_BW: f64 = 3.35e12;
    pub const DATASHEET_FP32_FMA: f64 = 67e12;
    /// fp32 multiplies per second: half the FMA rate in FLOP/s.
    pub const DATASHEET_FP32_MUL: f64 = 33.5e12;
    pub const DATASHEET_BF16: f64 = 989.4e12;

    /// PyTorch's device-to-device copy, bytes read + written per second.
    pub const PYTORCH_COPY_BW: f64 = 2_922_350_720_640.545;
    /// brrr's WGSL copy kernel on Vulkan.
    pub const WGSL_COPY_BW: f64 = 2_983_305_652_861.994_6;
    /// 8192³ matmuls, FLOP/s.
    pub const MATMUL_BF16: f64 = 787_146_654_864_475.5;
    pub const MATMUL_FP32: f64 = 51_436_886_863_661.51;

    /// Elements of the PyTorch / Triton chains (1 GiB of fp32).
    pub const TORCH_ELEMENTS: f64 = 268_435_456.0;
    /// Elements per buffer of the WGSL chains (256 MiB of f32).
    pub const WGSL_ELEMENTS: f64 = 67_108_864.0;

    /// `(repeat, seconds)`: Triton's fused `x * m` chain (one kernel).
    pub const TRITON_FUSED_MUL: [(u32, f64); 11] = [
        (1, 0.000_731_967_985_630_035_4),
        (2, 0.000_730_560_004_711_151_2),
        (4, 0.000_727_295_994_758_606),
        (8, 0.000_732_735_991_477_966_3),
        (16, 0.000_746_176_004_409_79),
        (32, 0.000_752_864_003_181_457_5),
        (64, 0.000_731_872_022_151_947),
        (128, 0.001_149_216_055_870_056_2),
        (256, 0.002_140_320_062_637_329),
        (512, 0.004_723_455_905_914_307),
        (1024, 0.010_274_432_182_312_011),
    ];

    /// `(repeat, seconds)`: PyTorch eager, one kernel per multiply.
    pub const PYTORCH_EAGER_MUL: [(u32, f64); 11] = [
        (1, 0.000_730_336_010_456_085_2),
        (2, 0.001_439_712_047_576_904_3),
        (4, 0.002_868_128_061_294_555_7),
        (8, 0.005_773_280_143_737_793),
        (16, 0.011_445_952_415_466_308),
        (32, 0.022_903_200_149_536_132),
        (64, 0.045_729_759_216_308_59),
        (128, 0.091_413_345_336_914_06),
        (256, 0.182_594_268_798_828_12),
        (512, 0.365_289_306_640_625),
        (1024, 0.730_008_361_816_406_3),
    ];

    /// `(repeat, seconds)`: brrr's WGSL fused `x · m` chain on Vulkan, on
    /// [`WGSL_ELEMENTS`]. From repeat 128 its rate exceeds the chip's multiply rate:
    /// the driver's compiler shortened the chain (see the reference's observations).
    pub const WGSL_FUSED_MUL: [(u32, f64); 11] = [
        (1, 0.000_180_552),
        (2, 0.000_180_52),
        (4, 0.000_180_32),
        (8, 0.000_180_392),
        (16, 0.000_180_344),
        (32, 0.000_180_632_000_000_000_01),
        (64, 0.000_180_616),
        (128, 0.000_191_336),
        (256, 0.000_306_024),
        (512, 0.000_559_408_000_000_000_1),
        (1024, 0.001_070_816),
    ];

    /// Seconds of CPU per tiny eager PyTorch op (`a + b` on a few elements).
    pub const EAGER_TINY_OP_S: f64 = 9.685236199999992e-06;
    /// Seconds per tiny kernel inside a replayed CUDA graph.
    pub const CUDA_GRAPH_TINY_KERNEL_S: f64 = 1.0253676499999641e-06;
    /// GPU seconds per empty WebGPU dispatch inside one compute pass.
    pub const WEBGPU_EMPTY_DISPATCH_S: f64 = 1.6374400000000001e-07;

    /// BERT-base training step, fp16 autocast, eager attention: kernel-time shares
    /// (matmul, normalisation, pointwise), and the GPU's busy share of the wall time.
    pub const BERT_TRAIN_SHARES: (f64, f64, f64) = (
        0.254_992_496_121_384_7,
        0.163_013_976_410_531_53,
        0.581_993_527_468_083_7,
    );
    pub const BERT_TRAIN_GPU_BUSY: f64 = 0.020_708_846_000_000_263 / 0.038_997_379_199_997_795;

    /// The highest multiply rate of Triton's fused chain over the sweep, multiplies/s.
    pub fn triton_mul_peak() -> f64 {
        TRITON_FUSED_MUL
            .iter()
            .map(|&(r, t)| f64::from(r) * TORCH_ELEMENTS / t)
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::h100;
    use crate::json::{self, Json};

    fn reference() -> Json {
        let text = include_str!("../../tests/data/h100.json");
        json::parse(text).unwrap()
    }

    fn num(j: &Json, path: &[&str]) -> f64 {
        let mut v = j;
        for k in path {
            v = v.get(k).unwrap_or_else(|| panic!("{path:?}"));
        }
        v.as_f64().unwrap()
    }

    fn rows(j: &Json, path: &[&str], field: &str, op: Option<&str>) -> Vec<(u32, f64)> {
        let mut v = j;
        for k in path {
            v = v.get(k).unwrap();
        }
        v.as_arr()
            .unwrap()
            .iter()
            .filter(|r| op.is_none_or(|o| r.get("op").and_then(Json::as_str) == Some(o)))
            .filter_map(|r| Some((r.get("repeat")?.as_f64()? as u32, r.get(field)?.as_f64()?)))
            .collect()
    }

    #[test]
    fn the_figures_are_the_reference_files() {
        let j = reference();
        assert_eq!(num(&j, &["datasheet", "bw"]), h100::DATASHEET_BW);
        assert_eq!(
            num(&j, &["datasheet", "fp32_fma_flops"]),
            h100::DATASHEET_FP32_FMA
        );
        assert_eq!(
            num(&j, &["datasheet", "fp32_mul_per_s"]),
            h100::DATASHEET_FP32_MUL
        );
        assert_eq!(num(&j, &["datasheet", "bf16_dense"]), h100::DATASHEET_BF16);
        assert_eq!(num(&j, &["pytorch", "copy_bw"]), h100::PYTORCH_COPY_BW);
        assert_eq!(num(&j, &["webgpu_wgsl", "copy_bw"]), h100::WGSL_COPY_BW);
        assert_eq!(
            num(&j, &["pytorch", "matmul_8192_flops", "bf16"]),
            h100::MATMUL_BF16
        );
        assert_eq!(
            num(&j, &["pytorch", "matmul_8192_flops", "fp32"]),
            h100::MATMUL_FP32
        );
        assert_eq!(
            num(&j, &["webgpu_wgsl", "elements_per_buffer"]),
            h100::WGSL_ELEMENTS
        );
        assert_eq!(
            rows(&j, &["pytorch", "chain_mul"], "fused_s", None),
            h100::TRITON_FUSED_MUL
        );
        assert_eq!(
            rows(&j, &["pytorch", "chain_mul"], "eager_s", None),
            h100::PYTORCH_EAGER_MUL
        );
        assert_eq!(
            rows(&j, &["webgpu_wgsl", "chains"], "fused_s", Some("mul")),
            h100::WGSL_FUSED_MUL
        );
        let o = ["pytorch", "overhead"];
        assert_eq!(
            num(&j, &[o[0], o[1], "eager_tiny_add_s"]),
            h100::EAGER_TINY_OP_S
        );
        assert_eq!(
            num(&j, &[o[0], o[1], "cuda_graph_tiny_kernel_s"]),
            h100::CUDA_GRAPH_TINY_KERNEL_S
        );
        assert_eq!(
            num(&j, &["webgpu_wgsl", "empty_dispatch_gpu_s"]),
            h100::WEBGPU_EMPTY_DISPATCH_S
        );
        let b = ["pytorch", "bert", "train_eager_attn"];
        let share = |k: &str| num(&j, &[b[0], b[1], b[2], "kernel_time_share", k]);
        assert_eq!(
            (share("matmul"), share("norm"), share("pointwise")),
            h100::BERT_TRAIN_SHARES
        );
        let busy = num(&j, &[b[0], b[1], b[2], "gpu_kernel_s_per_step"])
            / num(&j, &[b[0], b[1], b[2], "wall_s_per_step"]);
        assert_eq!(busy, h100::BERT_TRAIN_GPU_BUSY);
        // the 1 GiB of fp32 the method names
        assert!(j
            .get("method")
            .unwrap()
            .get("tensor")
            .unwrap()
            .as_str()
            .unwrap()
            .starts_with("268435456 fp32"));
    }

    #[test]
    fn the_observations_numbers_follow() {
        // "the highest rate was 32.1 T multiplies/s at repeat 256 (96 % of 33.5)"
        let peak = h100::triton_mul_peak();
        assert!((peak / 1e12 - 32.1).abs() < 0.05, "{peak}");
        // the WGSL chain at 1024 is twice the chip's multiply rate: shortened
        let wgsl = 1024.0 * h100::WGSL_ELEMENTS / h100::WGSL_FUSED_MUL[10].1;
        assert!(wgsl > 1.9 * h100::DATASHEET_FP32_MUL, "{wgsl}");
    }
}
