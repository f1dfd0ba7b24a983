//! Hardware presets: the datasheet numbers behind every chart.
//!
//! Conventions (apply to every preset):
//! - All peaks are **dense** (no 2:4 structured sparsity), in FLOP/s, counting a
//!   fused multiply-add as 2 FLOPs, as vendors do.
//! - `fp32_vector` is the peak of the general-purpose (non tensor-core / non
//!   matrix-core) fp32 units. A pointwise op such as `x * 2` is one multiply, not an
//!   FMA, so it runs at half that rate: [`Preset::pointwise_peak`]. That is the
//!   essay's FMA footnote (A100: 19.5 TFLOP/s FMA, 9.75 TFLOP/s otherwise).
//! - Pointwise kernels compute in fp32 registers whatever the storage dtype, so the
//!   dtype changes their bytes per element, not their FLOP ceiling.
//! - `matmul` peaks are what a matmul in that dtype can reach: tensor/matrix cores
//!   where the part has them for the dtype, else the fp32 vector rate.
//! - Memory bandwidth is the datasheet's DRAM (HBM/GDDR) figure in bytes/s
//!   (1 GB/s = 1e9 B/s), and capacity is the datasheet's figure in the same GB
//!   (1 GB = 1e9 bytes): one memory unit throughout. (Vendors' capacity "GB" is
//!   sometimes physically GiB; the page shows and uses the datasheet number.)

use serde::{Deserialize, Serialize};

/// Storage / matmul precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dtype {
    /// IEEE fp32 everywhere; matmuls on the fp32 vector units (no TF32).
    Fp32,
    /// fp32 storage, matmuls on tensor cores in TF32.
    Tf32,
    /// bf16 / fp16 storage and tensor-core matmuls (same peak on every preset here).
    Bf16,
    /// fp8 storage and fp8 tensor-core matmuls.
    Fp8,
}

impl Dtype {
    pub const ALL: [Dtype; 4] = [Dtype::Fp32, Dtype::Tf32, Dtype::Bf16, Dtype::Fp8];

    /// Stable id used in URLs.
    pub const fn id(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Tf32 => "tf32",
            Dtype::Bf16 => "bf16",
            Dtype::Fp8 => "fp8",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Tf32 => "tf32 (fp32 storage)",
            Dtype::Bf16 => "bf16 / fp16",
            Dtype::Fp8 => "fp8",
        }
    }

    pub fn from_id(s: &str) -> Option<Dtype> {
        Dtype::ALL.into_iter().find(|d| d.id() == s)
    }

    /// Bytes per stored element.
    pub fn bytes(self) -> f64 {
        match self {
            Dtype::Fp32 | Dtype::Tf32 => 4.0,
            Dtype::Bf16 => 2.0,
            Dtype::Fp8 => 1.0,
        }
    }
}

/// One GPU (or accelerator) as its vendor specifies it.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// Stable id used in URLs (`hw=`).
    pub id: &'static str,
    pub name: &'static str,
    pub vendor: &'static str,
    /// Year the part shipped.
    pub year: u16,
    /// DRAM bandwidth, bytes/s.
    pub mem_bw: f64,
    /// DRAM capacity as the datasheet states it, bytes (GB = 1e9 bytes).
    pub mem_bytes: f64,
    /// fp32 peak of the general-purpose units, FMA = 2 FLOPs.
    pub fp32_vector: f64,
    /// fp32 matmul peak without TF32 (matrix cores on CDNA3, else = fp32_vector).
    pub fp32_matmul: f64,
    /// Dense tensor-core peaks, `None` where the part has no such mode.
    pub tf32: Option<f64>,
    pub bf16: Option<f64>,
    pub fp8: Option<f64>,
    /// Where the numbers come from.
    pub source: &'static str,
    /// Streaming multiprocessors (NVIDIA), compute units (AMD) or GPU cores
    /// (Apple): how many output tiles of a matmul run at once (`model::gemm`);
    /// 0 where unknown (the lab's measured GPU).
    pub sms: u32,
    /// Where [`Preset::sms`] comes from.
    pub sms_source: &'static str,
}

const T: f64 = 1e12;
const GB: f64 = 1e9;

impl Preset {
    /// Matmul ceiling for `dtype`, or `None` if the preset does not support it.
    pub fn matmul_peak(&self, dtype: Dtype) -> Option<f64> {
        match dtype {
            Dtype::Fp32 => Some(self.fp32_matmul),
            Dtype::Tf32 => self.tf32,
            Dtype::Bf16 => self.bf16,
            Dtype::Fp8 => self.fp8,
        }
    }

    /// Ceiling for a pointwise op that is a plain multiply/add (not an FMA).
    pub fn pointwise_peak(&self) -> f64 {
        self.fp32_vector / 2.0
    }

    /// THE dtype-support rule, which every widget follows (the explorer's
    /// `dtype`, the llm widget's weights and KV cache and its Compare GPUs rows,
    /// the remedies, the microbenchmark): a preset runs a dtype where it has a
    /// matmul peak for it. [`Preset::check`] is the same rule with its reason.
    pub fn supports(&self, dtype: Dtype) -> bool {
        self.matmul_peak(dtype).is_some()
    }

    /// [`Preset::supports`] with the reason the page shows where it does not:
    /// "Apple M2 Max has no fp8 mode".
    pub fn check(&self, dtype: Dtype) -> Result<(), String> {
        if self.supports(dtype) {
            Ok(())
        } else {
            Err(format!("{} has no {} mode", self.name, dtype.id()))
        }
    }

    pub fn dtypes(&self) -> impl Iterator<Item = Dtype> + '_ {
        Dtype::ALL.into_iter().filter(|d| self.supports(*d))
    }

    /// The ridge point of the preset's default dtype ([`Preset::default_dtype`]):
    /// that dtype's matmul peak over the bandwidth, FLOP/byte.
    pub fn ridge(&self) -> (Dtype, f64) {
        let d = self.default_dtype();
        let peak = self.matmul_peak(d).unwrap_or(self.fp32_matmul);
        (d, super::roofline::ridge(peak, self.mem_bw))
    }

    /// The dtype a preset opens with: bf16 where tensor cores take it, else fp32.
    pub fn default_dtype(&self) -> Dtype {
        if self.supports(Dtype::Bf16) {
            Dtype::Bf16
        } else {
            Dtype::Fp32
        }
    }
}

pub const DEFAULT_PRESET: &str = "a100-40gb";

/// Every preset, oldest first within a vendor line.
pub static PRESETS: &[Preset] = &[
    Preset {
        id: "v100",
        name: "NVIDIA V100 SXM2 32GB",
        vendor: "NVIDIA",
        year: 2017,
        mem_bw: 900.0 * GB,
        mem_bytes: 32.0 * GB,
        fp32_vector: 15.7 * T,
        fp32_matmul: 15.7 * T,
        tf32: None,
        bf16: Some(125.0 * T), // fp16 tensor cores (V100 has no bf16; fp16 peak used)
        fp8: None,
        source: "NVIDIA Tesla V100 datasheet (2017): FP32 15.7 TFLOPS, Tensor 125 TFLOPS, HBM2 900 GB/s",
        sms: 80,
        sms_source: "NVIDIA Tesla V100 GPU Architecture whitepaper (2017): 80 SMs on the V100 SXM2",
    },
    Preset {
        id: "a100-40gb",
        name: "NVIDIA A100 40GB SXM",
        vendor: "NVIDIA",
        year: 2020,
        mem_bw: 1555.0 * GB,
        mem_bytes: 40.0 * GB,
        fp32_vector: 19.5 * T,
        fp32_matmul: 19.5 * T,
        tf32: Some(156.0 * T),
        bf16: Some(312.0 * T),
        fp8: None,
        source: "NVIDIA A100 datasheet (2020) and Ampere whitepaper: FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS dense; HBM2 1,555 GB/s",
        sms: 108,
        sms_source: "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs",
    },
    Preset {
        id: "a100-80gb",
        name: "NVIDIA A100 80GB SXM",
        vendor: "NVIDIA",
        year: 2020,
        mem_bw: 2039.0 * GB,
        mem_bytes: 80.0 * GB,
        fp32_vector: 19.5 * T,
        fp32_matmul: 19.5 * T,
        tf32: Some(156.0 * T),
        bf16: Some(312.0 * T),
        fp8: None,
        source: "NVIDIA A100 datasheet (80GB SXM column): FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS dense; HBM2e 2,039 GB/s",
        sms: 108,
        sms_source: "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 108 SMs (both memory sizes)",
    },
    Preset {
        id: "h100-sxm",
        name: "NVIDIA H100 SXM",
        vendor: "NVIDIA",
        year: 2022,
        mem_bw: 3350.0 * GB,
        mem_bytes: 80.0 * GB,
        fp32_vector: 67.0 * T,
        fp32_matmul: 67.0 * T,
        tf32: Some(494.7 * T),
        bf16: Some(989.4 * T),
        fp8: Some(1978.9 * T),
        source: "NVIDIA H100 datasheet (SXM column; sparse figures halved): FP32 67, TF32 494.7, BF16 989.4, FP8 1,978.9 TFLOPS; HBM3 3.35 TB/s",
        sms: 132,
        sms_source: "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 132 SMs on the SXM5 part (989.4 TFLOP/s = 132 SMs x 1.83 GHz x 4,096 bf16 FLOP per clock)",
    },
    Preset {
        id: "h100-pcie",
        name: "NVIDIA H100 PCIe",
        vendor: "NVIDIA",
        year: 2022,
        mem_bw: 2000.0 * GB,
        mem_bytes: 80.0 * GB,
        fp32_vector: 51.2 * T,
        fp32_matmul: 51.2 * T,
        tf32: Some(378.0 * T),
        bf16: Some(756.0 * T),
        fp8: Some(1513.0 * T),
        source: "NVIDIA H100 datasheet (PCIe column; sparse figures halved): FP32 51.2, TF32 378, BF16 756, FP8 1,513 TFLOPS; HBM2e 2.0 TB/s",
        sms: 114,
        sms_source: "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): 114 SMs on the PCIe part (Chips and Cheese, 2023-07, tested one with 114)",
    },
    Preset {
        id: "h200",
        name: "NVIDIA H200 SXM",
        vendor: "NVIDIA",
        year: 2024,
        mem_bw: 4800.0 * GB,
        mem_bytes: 141.0 * GB,
        fp32_vector: 67.0 * T,
        fp32_matmul: 67.0 * T,
        tf32: Some(494.7 * T),
        bf16: Some(989.4 * T),
        fp8: Some(1978.9 * T),
        source: "NVIDIA H200 datasheet (SXM column; sparse figures halved): FP32 67, TF32 494.7, BF16 989.4, FP8 1,978.9 TFLOPS; HBM3e 4.8 TB/s, 141 GB",
        sms: 132,
        sms_source: "the H100 SXM's GH100 configuration, 132 SMs: its bf16 peak, 989.4 TFLOP/s, is 132 SMs x 1.83 GHz x 4,096 FLOP per clock",
    },
    Preset {
        id: "b200",
        name: "NVIDIA B200",
        vendor: "NVIDIA",
        year: 2024,
        mem_bw: 8000.0 * GB,
        mem_bytes: 180.0 * GB,
        fp32_vector: 80.0 * T,
        fp32_matmul: 80.0 * T,
        tf32: Some(1100.0 * T),
        bf16: Some(2250.0 * T),
        fp8: Some(4500.0 * T),
        source: "NVIDIA DGX/HGX B200 datasheet, per GPU (8-GPU totals divided by 8, sparse halved): TF32 1.1, BF16 2.25, FP8 4.5 PFLOPS dense, FP32 80 TFLOPS; HBM3e 8 TB/s",
        sms: 148,
        sms_source: "NVIDIA Blackwell architecture: two dies of 74 SMs, 148 SMs per B200 GPU",
    },
    Preset {
        id: "mi300x",
        name: "AMD Instinct MI300X",
        vendor: "AMD",
        year: 2023,
        mem_bw: 5300.0 * GB,
        mem_bytes: 192.0 * GB,
        fp32_vector: 81.7 * T,
        fp32_matmul: 163.4 * T,
        tf32: Some(653.7 * T),
        bf16: Some(1307.4 * T),
        fp8: Some(2614.9 * T),
        source: "AMD Instinct MI300X datasheet: FP32 vector 81.7, FP32 matrix 163.4, TF32 653.7, BF16 1,307.4, FP8 2,614.9 TFLOPS dense; HBM3 5.3 TB/s",
        sms: 304,
        sms_source: "AMD Instinct MI300X datasheet and CDNA 3 whitepaper: 304 compute units",
    },
    Preset {
        id: "rtx-3090",
        name: "NVIDIA GeForce RTX 3090",
        vendor: "NVIDIA",
        year: 2020,
        mem_bw: 936.0 * GB,
        mem_bytes: 24.0 * GB,
        fp32_vector: 35.6 * T,
        fp32_matmul: 35.6 * T,
        tf32: Some(35.6 * T),
        bf16: Some(71.0 * T),
        fp8: None,
        source: "NVIDIA Ampere GA102 whitepaper (RTX 3090): FP32 35.6, TF32 35.6, FP16 tensor with FP32 accumulate 71 TFLOPS dense; GDDR6X 936 GB/s",
        sms: 82,
        sms_source: "NVIDIA Ampere GA102 whitepaper: 82 SMs on the RTX 3090",
    },
    Preset {
        id: "rtx-4090",
        name: "NVIDIA GeForce RTX 4090",
        vendor: "NVIDIA",
        year: 2022,
        mem_bw: 1008.0 * GB,
        mem_bytes: 24.0 * GB,
        fp32_vector: 82.6 * T,
        fp32_matmul: 82.6 * T,
        tf32: Some(82.6 * T),
        bf16: Some(165.2 * T),
        fp8: Some(330.3 * T),
        source: "NVIDIA Ada Lovelace whitepaper (RTX 4090): FP32 82.6, TF32 82.6, FP16/BF16 tensor with FP32 accumulate 165.2, FP8 330.3 TFLOPS dense; GDDR6X 1,008 GB/s",
        sms: 128,
        sms_source: "NVIDIA Ada Lovelace architecture whitepaper: 128 SMs on the RTX 4090",
    },
    Preset {
        id: "l4",
        name: "NVIDIA L4",
        vendor: "NVIDIA",
        year: 2023,
        mem_bw: 300.0 * GB,
        mem_bytes: 24.0 * GB,
        fp32_vector: 30.3 * T,
        fp32_matmul: 30.3 * T,
        tf32: Some(60.0 * T),
        bf16: Some(121.0 * T),
        fp8: Some(242.5 * T),
        source: "NVIDIA L4 datasheet (sparse figures halved): FP32 30.3, TF32 60, BF16 121, FP8 242.5 TFLOPS; GDDR6 300 GB/s",
        sms: 58,
        sms_source: "NVIDIA L4 datasheet and Ada whitepaper: 7,424 CUDA cores at 128 per SM, 58 SMs",
    },
    Preset {
        id: "t4",
        name: "NVIDIA T4",
        vendor: "NVIDIA",
        year: 2018,
        mem_bw: 320.0 * GB,
        mem_bytes: 16.0 * GB,
        fp32_vector: 8.1 * T,
        fp32_matmul: 8.1 * T,
        tf32: None,
        bf16: Some(65.0 * T), // fp16 tensor cores (Turing has no bf16; fp16 peak used)
        fp8: None,
        source: "NVIDIA T4 datasheet: FP32 8.1, mixed-precision FP16 tensor 65 TFLOPS; GDDR6 320 GB/s",
        sms: 40,
        sms_source: "NVIDIA Turing architecture whitepaper: T4 has 40 SMs (2,560 CUDA cores at 64 per SM)",
    },
    Preset {
        id: "m2-max",
        name: "Apple M2 Max (38-core GPU)",
        vendor: "Apple",
        year: 2023,
        mem_bw: 400.0 * GB,
        mem_bytes: 96.0 * GB,
        fp32_vector: 13.6 * T,
        fp32_matmul: 13.6 * T,
        tf32: None,
        bf16: None,
        fp8: None,
        source: "Apple M2 Pro/M2 Max press release (Jan 2023): 13.6 TFLOPS GPU, 400 GB/s unified memory; no matrix units exposed to the GPU",
        sms: 38,
        sms_source: "Apple M2 Pro/M2 Max press release (Jan 2023): a 38-core GPU",
    },
];

/// Id of the [`MEASURED`] entry (`hw=measured`).
pub const MEASURED_ID: &str = "measured";

/// "Use my GPU": a GPU brrr's lab measured in this browser. Only fp32 is known
/// (the lab measures f32 kernels), so it has no tensor-core dtypes. Its numbers here
/// are placeholders: the state carries the measured peak, bandwidth and overhead
/// (URL `flops`, `bw`, `overhead`), and the adapter's name (`gpu`). The fp32 matmul
/// rate equals the FMA rate (no matrix units known), so a pointwise multiply runs at
/// half the peak, as on every preset.
pub static MEASURED: Preset = Preset {
    id: MEASURED_ID,
    name: "Measured GPU",
    vendor: "",
    year: 0,
    mem_bw: 500.0 * GB,
    mem_bytes: 0.0,
    fp32_vector: 10.0 * T,
    fp32_matmul: 10.0 * T,
    tf32: None,
    bf16: None,
    fp8: None,
    source:
        "Measured by brrr's lab in this browser: fp32 peak (FMA = 2 FLOPs), copy bandwidth and \
             launch overhead. Its tensor cores, if any, are not measured.",
    sms: 0,
    sms_source: "not known: the lab measures rates, not the GPU's layout",
};

impl Preset {
    /// The lab's measured GPU rather than a datasheet preset.
    pub fn is_measured(&self) -> bool {
        self.id == MEASURED_ID
    }

    /// The datasheet preset a measured GPU takes what the lab cannot measure
    /// from ([`measured_on`]); `None` for a datasheet preset and for a measured
    /// GPU that matched none ([`MEASURED`], fp32 only).
    pub fn base(&self) -> Option<&'static Preset> {
        MEASURED_ON
            .iter()
            .position(|m| std::ptr::eq(m, self))
            .and_then(|i| PRESETS.get(i))
    }

    /// The preset whose sourced figures (kernel floor, GEMM fits, host, price,
    /// link) stand for this GPU: its [`Preset::base`] on a measured GPU that
    /// matched one, else itself.
    pub fn datasheet(&self) -> &Preset {
        self.base().map_or(self, |b| b)
    }
}

/// A measured GPU's entry that copies `p`'s datasheet: its tensor-core rates,
/// memory size and SM count stand for what WebGPU cannot measure; the state
/// carries the measured rates (`flops`, `bw`, `overhead`), and the machine
/// scales `p`'s peaks by the measured fp32 rate over `p`'s (`Setting::machine`).
const fn measured_like(p: &Preset) -> Preset {
    Preset {
        id: MEASURED_ID,
        name: "Measured GPU",
        vendor: p.vendor,
        year: p.year,
        mem_bw: p.mem_bw,
        mem_bytes: p.mem_bytes,
        fp32_vector: p.fp32_vector,
        fp32_matmul: p.fp32_matmul,
        tf32: p.tf32,
        bf16: p.bf16,
        fp8: p.fp8,
        source: p.source,
        sms: p.sms,
        sms_source: p.sms_source,
    }
}

const N_PRESETS: usize = PRESETS.len();

/// One measured-GPU entry per datasheet preset, in `PRESETS`' order
/// ([`measured_on`]).
pub static MEASURED_ON: [Preset; N_PRESETS] = {
    let mut out = [const { measured_like(&MEASURED) }; N_PRESETS];
    let mut i = 0;
    while i < N_PRESETS {
        out[i] = measured_like(&PRESETS[i]);
        i += 1;
    }
    out
};

/// The measured GPU that takes `base`'s datasheet for what the lab cannot
/// measure; [`MEASURED`] (fp32 only) where `base` is no datasheet preset.
pub fn measured_on(base: &Preset) -> &'static Preset {
    PRESETS
        .iter()
        .position(|p| std::ptr::eq(p, base) || (p.id == base.id && !base.is_measured()))
        .and_then(|i| MEASURED_ON.get(i))
        .unwrap_or(&MEASURED)
}

/// A datasheet preset or the [`MEASURED`] entry by id.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS
        .iter()
        .find(|p| p.id == id)
        .or_else(|| (id == MEASURED_ID).then_some(&MEASURED))
}

/// The default preset. `PRESETS` is a non-empty static table that contains
/// `DEFAULT_PRESET` (checked by a test), so the fallback to the first row is only a
/// belt-and-braces path that cannot panic.
pub fn default_preset() -> &'static Preset {
    preset(DEFAULT_PRESET).unwrap_or(&PRESETS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_memory_unit_capacities_are_whole_datasheet_gb() {
        for p in PRESETS {
            let gb = p.mem_bytes / GB;
            assert!(gb >= 8.0 && gb.fract() == 0.0, "{}: {gb} GB", p.id);
        }
        let a100 = preset("a100-40gb").map(|p| p.mem_bytes);
        assert_eq!(a100, Some(40e9), "the A100 40GB holds 40 GB, not 42.9");
    }

    #[test]
    fn ridge_belongs_to_the_default_dtype() {
        let a100 = preset("a100-40gb").map(Preset::ridge);
        assert!(a100.is_some_and(|(d, r)| d == Dtype::Bf16 && (r - 312e12 / 1555e9).abs() < 1e-9));
        let m2 = preset("m2-max").map(Preset::ridge);
        assert!(
            m2.is_some_and(|(d, r)| d == Dtype::Fp32 && (r - 34.0).abs() < 1e-9),
            "{m2:?}"
        );
    }

    #[test]
    fn ids_unique_and_default_exists() {
        for (i, a) in PRESETS.iter().enumerate() {
            for b in &PRESETS[i + 1..] {
                assert_ne!(a.id, b.id);
            }
        }
        assert_eq!(default_preset().id, DEFAULT_PRESET);
    }

    #[test]
    fn every_number_is_positive_finite_and_sourced() {
        for p in PRESETS {
            assert!(p.mem_bw.is_finite() && p.mem_bw > 0.0, "{}", p.id);
            assert!(
                p.fp32_vector > 0.0 && p.fp32_matmul >= p.fp32_vector,
                "{}",
                p.id
            );
            for d in p.dtypes() {
                let peak = p.matmul_peak(d).unwrap_or(0.0);
                assert!(peak.is_finite() && peak > 0.0, "{} {:?}", p.id, d);
            }
            assert!(p.source.len() > 20, "{} needs a source", p.id);
            assert!(
                p.sms > 0 && p.sms_source.len() > 20,
                "{} needs its SM count",
                p.id
            );
            assert!(p.supports(p.default_dtype()));
            assert!(p.supports(Dtype::Fp32));
        }
    }

    #[test]
    fn a100_numbers_from_the_essay() {
        let a = default_preset();
        assert_eq!(a.matmul_peak(Dtype::Bf16), Some(312e12));
        assert_eq!(a.matmul_peak(Dtype::Fp32), Some(19.5e12));
        assert_eq!(a.matmul_peak(Dtype::Tf32), Some(156e12));
        assert_eq!(a.pointwise_peak(), 9.75e12);
        assert_eq!(a.mem_bw, 1.555e12);
        assert_eq!(preset("a100-80gb").map(|p| p.mem_bw), Some(2.039e12));
        assert!(!a.supports(Dtype::Fp8));
    }

    #[test]
    fn dtype_ids_round_trip() {
        for d in Dtype::ALL {
            assert_eq!(Dtype::from_id(d.id()), Some(d));
        }
        assert_eq!(Dtype::from_id("fp16"), None);
    }
}

/// The least GPU time one kernel takes, however little work it does: the GPU's
/// own fixed cost per kernel (scheduling the grid, spinning up blocks, draining),
/// paid even when the CPU's launch is out of the way (a CUDA graph). Per preset,
/// with its source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KernelFloor {
    pub seconds: f64,
    pub measured: bool,
    pub source: &'static str,
}

/// [`KernelFloor`] of a preset. Measured on the H100 SXM only; every other part
/// takes the same figure as a stated estimate (the same order as the 1–2 µs
/// vendors and profilers report for an empty kernel).
/// The preset's matmul peak for `dtype`, falling back to its fp32 rate.
pub fn preset_flops(hw: &Preset, dtype: Dtype) -> f64 {
    hw.matmul_peak(dtype).unwrap_or(hw.fp32_matmul)
}

pub fn kernel_floor(hw: &Preset) -> KernelFloor {
    let seconds = super::reference::h100::CUDA_GRAPH_TINY_KERNEL_S;
    if hw.datasheet().id == "h100-sxm" {
        KernelFloor {
            seconds,
            measured: true,
            source: "measured on an H100 SXM (tests/data/h100.json): a tiny kernel inside a \
                     replayed CUDA graph costs 1.03 µs",
        }
    } else {
        KernelFloor {
            seconds,
            measured: false,
            source: "estimate, not measured on this GPU: the H100 SXM's measured 1.03 µs per \
                     kernel inside a CUDA graph",
        }
    }
}

/// A GPU's L2 cache as far as a source states it: its size (the vendor's) and
/// the read bandwidth a kernel measured from it with the working set up to which
/// that bandwidth holds (github.com/te42kyfo/gpu-benches, `gpu-l2-cache/`;
/// tests/data/l2-cache.json). `None` where no source was found: nothing here is
/// inferred from a sister part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L2 {
    /// Capacity as the vendor states it, bytes (MB = 1e6 bytes).
    pub bytes: Option<f64>,
    pub bytes_source: &'static str,
    /// The measured read bandwidth of the L2 plateau (its median), bytes/s.
    pub bw: Option<f64>,
    /// The largest working set still within 10 % of that plateau, bytes: the
    /// model prices a kernel on the L2 roof up to here, on HBM beyond.
    pub fits: Option<f64>,
    pub bw_source: &'static str,
}

const MB: f64 = 1e6;
const GPU_BENCHES: &str = "measured by gpu-benches' gpu-l2-cache (a read kernel re-reading a \
     working set of 512 KiB chunks; the plateau's median from 4 MiB, and the last working set \
     within 10 % of it), https://github.com/te42kyfo/gpu-benches/blob/\
     1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-l2-cache/";
const NO_CURVE: &str = "not known: no measured L2 bandwidth curve of this GPU was found";
const NO_SIZE: &str = "not known: no vendor document stating it was found";
const A100_L2: &str = "NVIDIA, Ampere tuning guide 1.4.2.2 (https://docs.nvidia.com/cuda/\
     ampere-tuning-guide/index.html) and the Hopper in-depth blog ('the A100 40 MB L2'): 40 MB";
const H100_L2: &str = "NVIDIA H100 Tensor Core GPU Architecture whitepaper spec table (L2 \
     cache 50 MB on SXM5 and PCIe; https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html), \
     and https://docs.nvidia.com/launchpad/ai/h100-mig/latest/h100-mig-gpu.html (50 MB L2)";

/// The L2 of `hw` (see [`L2`]); presets without a source and the lab's
/// measured GPU that matched none know nothing; one that matched a preset
/// takes that preset's (`Preset::base`: the browser cannot measure it).
pub fn l2(hw: &Preset) -> L2 {
    let hw = hw.base().unwrap_or(hw);
    let unknown = L2 {
        bytes: None,
        bytes_source: NO_SIZE,
        bw: None,
        fits: None,
        bw_source: NO_CURVE,
    };
    let measured = |bw_gb_s: f64, fits_mb: f64, file: &'static str| L2 {
        bw: Some(bw_gb_s * GB),
        fits: Some(fits_mb * MB),
        bw_source: file,
        ..unknown
    };
    match hw.id {
        "a100-40gb" => L2 {
            bytes: Some(40.0 * MB),
            bytes_source: A100_L2,
            ..unknown
        },
        "a100-80gb" => L2 {
            bytes: Some(40.0 * MB),
            bytes_source: A100_L2,
            ..measured(5402.9, 28.84, "a100_80.txt")
        },
        "h100-sxm" => L2 {
            bytes: Some(50.0 * MB),
            bytes_source: H100_L2,
            ..unknown
        },
        "h100-pcie" => L2 {
            bytes: Some(50.0 * MB),
            bytes_source: H100_L2,
            ..measured(6981.9, 37.75, "h100_pcie.txt")
        },
        "h200" => measured(9914.4, 41.42, "h200.txt"),
        _ => unknown,
    }
}

impl L2 {
    /// Where the bandwidth comes from, in full (the file's address).
    pub fn bw_source(&self) -> String {
        if self.bw.is_some() {
            format!("{GPU_BENCHES}{}", self.bw_source)
        } else {
            self.bw_source.to_string()
        }
    }
}

#[cfg(test)]
mod l2_tests {
    use super::*;

    /// The figures are tests/data/l2-cache.json's, and only there where a
    /// source gives them; the roof holds to no more than the vendor's size.
    #[test]
    fn l2_figures_are_the_stored_ones_and_sourced() {
        let text = std::fs::read_to_string("tests/data/l2-cache.json").unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut with_bw = 0;
        for m in v["measured"].as_array().unwrap() {
            let id = m["preset"].as_str().unwrap();
            let Some(hw) = preset(id) else { continue };
            let s = &m["summary_derived_here"];
            let l = l2(hw);
            let bw = s["l2_plateau_gb_s_median"].as_f64().unwrap() * GB;
            let fits = s["last_size_within_10pct_of_plateau_mb"].as_f64().unwrap() * MB;
            assert_eq!(l.bw, Some(bw), "{id}");
            assert_eq!(l.fits, Some(fits), "{id}");
            assert!(l.bw_source().contains(
                m["file"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("gpu-l2-cache/")
            ));
            assert!(l.bw_source().starts_with("measured") && l.bw_source().contains("https://"));
            with_bw += 1;
        }
        assert_eq!(with_bw, 3);
        for row in v["vendor_l2"].as_array().unwrap() {
            let Some(hw) = row["preset"].as_str().and_then(preset) else {
                continue;
            };
            let want = row["l2_mb"].as_f64().map(|mb| mb * MB);
            assert_eq!(l2(hw).bytes, want, "{}", hw.id);
        }
        for hw in PRESETS.iter().chain([&MEASURED]) {
            let l = l2(hw);
            assert_eq!(
                l.bytes.is_some(),
                l.bytes_source.contains("https://"),
                "{}",
                hw.id
            );
            assert_eq!(l.bw.is_some(), l.fits.is_some(), "{}", hw.id);
            if let (Some(b), Some(f)) = (l.bytes, l.fits) {
                assert!(f <= b, "{}", hw.id);
            }
            if let Some(bw) = l.bw {
                assert!(bw > hw.mem_bw, "{}: L2 above HBM", hw.id);
            }
        }
        assert_eq!(l2(&MEASURED).bw, None);
        assert_eq!(l2(default_preset()).bw, None);
    }
}
