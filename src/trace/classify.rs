//! Kernels by name: HTA 0.5.0's kernel types (for its temporal breakdown, exactly),
//! brrr's finer kernel classes (matmul, attention, …) and the cost class each one
//! belongs to; the `deviceProperties` name → a brrr hardware preset.

/// HTA 0.5.0's `KernelType` (`hta/utils/utils.py`, `get_kernel_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HtaKernelType {
    Communication,
    Memory,
    Computation,
    Other,
}

/// The first line of `s`: Python's `.` does not match a newline, so HTA's
/// `re.match(".*X")` only looks there.
fn first_line(s: &str) -> &str {
    s.split('\n').next().unwrap_or("")
}

/// `re.match(r"^nccl.*Kernel", name)`.
fn is_nccl_kernel(name: &str) -> bool {
    name.strip_prefix("nccl")
        .is_some_and(|rest| first_line(rest).contains("Kernel"))
}

/// HTA's `get_kernel_type`:
/// - communication: `^nccl.*Kernel` (RCCL's kernels are named `nccl…` too);
/// - memory: `^Memcpy`, `^Memset` or `^dma`;
/// - computation: everything `(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)` does
///   not match, i.e. not containing `Memcpy` or `Sync` and not starting `Memset`;
/// - other: the rest (e.g. a name containing `Sync`).
pub fn hta_kernel_type(name: &str) -> HtaKernelType {
    if is_nccl_kernel(name) {
        return HtaKernelType::Communication;
    }
    if name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("dma") {
        return HtaKernelType::Memory;
    }
    let line = first_line(name);
    let non_compute =
        line.contains("Memcpy") || name.starts_with("Memset") || line.contains("Sync");
    if non_compute {
        HtaKernelType::Other
    } else {
        HtaKernelType::Computation
    }
}

/// brrr's kernel classes, from the name (and the category for copies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KernelClass {
    /// GEMMs and convolutions (cuBLAS, CUTLASS, cuDNN, rocBLAS/Tensile, hipBLASLt).
    Matmul,
    /// Fused attention (flash, fmha, SDPA).
    Attention,
    /// Collectives (NCCL, RCCL).
    Communication,
    /// Memcpy / memset / DMA.
    Copy,
    /// Normalisation (layer/batch/group/RMS norm).
    Normalisation,
    /// Reductions (sum, mean, softmax, max, …).
    Reduction,
    /// Everything else: elementwise kernels.
    Pointwise,
}

impl KernelClass {
    pub const ALL: [KernelClass; 7] = [
        KernelClass::Matmul,
        KernelClass::Attention,
        KernelClass::Communication,
        KernelClass::Copy,
        KernelClass::Normalisation,
        KernelClass::Reduction,
        KernelClass::Pointwise,
    ];

    pub fn id(self) -> &'static str {
        match self {
            KernelClass::Matmul => "matmul",
            KernelClass::Attention => "attention",
            KernelClass::Communication => "communication",
            KernelClass::Copy => "copy",
            KernelClass::Normalisation => "normalisation",
            KernelClass::Reduction => "reduction",
            KernelClass::Pointwise => "pointwise",
        }
    }

    /// The cost class a halving of this kernel's time stands for.
    pub fn cost(self) -> CostClass {
        match self {
            KernelClass::Matmul | KernelClass::Attention => CostClass::Compute,
            KernelClass::Communication => CostClass::Communication,
            KernelClass::Copy
            | KernelClass::Normalisation
            | KernelClass::Reduction
            | KernelClass::Pointwise => CostClass::Memory,
        }
    }
}

/// The classes whose halving the regime verdict compares (plus idle time, which
/// is not a kernel: [`CostClass::Overhead`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CostClass {
    /// Idle GPU time: the GPU waits for the CPU (launches, syncs, data loading).
    Overhead,
    /// Matmul / conv / attention kernels: FLOP-bound work.
    Compute,
    /// Pointwise, normalisation, reduction kernels and copies: bandwidth-bound work.
    Memory,
    /// Collectives.
    Communication,
}

impl CostClass {
    pub const ALL: [CostClass; 4] = [
        CostClass::Overhead,
        CostClass::Compute,
        CostClass::Memory,
        CostClass::Communication,
    ];

    /// The regime's id (the `regime` field of `brrr-trace --json`).
    pub fn id(self) -> &'static str {
        match self {
            CostClass::Overhead => "overhead",
            CostClass::Compute => "compute",
            CostClass::Memory => "memory",
            CostClass::Communication => "communication",
        }
    }
}

/// A memcpy or memset category (Kineto's, and the capitalised ones of PyTorch 1.8).
pub fn is_copy_cat(cat: &str) -> bool {
    let c = cat.to_ascii_lowercase();
    c == "gpu_memcpy" || c == "gpu_memset" || c == "memcpy" || c == "memset"
}

/// A GPU activity proper: a kernel, memcpy or memset. HTA's breakdown counts every
/// event with a stream, which can include CPU ops that record one (`triton_…`
/// launches, for one) and `cuda_sync` events (`Stream Sync`, `Context Sync`, and
/// `Stream Wait Event`, which HTA even counts as computation: no `Sync` in its
/// name); brrr's own figures (classes, short kernels, the regime) count only these.
pub fn is_gpu_cat(cat: &str) -> bool {
    cat.eq_ignore_ascii_case("kernel") || is_copy_cat(cat)
}

/// A matrix-vector product by its name (cuBLAS's `gemv…`, `gemvx`, and its
/// `gemmSN…` kernels templated on `cublasGemvTensorStrided`): memory-bound
/// whatever its dtype, since it reads each weight once for two FLOPs.
pub fn is_gemv(name: &str) -> bool {
    name.to_ascii_lowercase().contains("gemv")
}

/// cuBLASLt's split-K epilogue (`cublasLt::splitKreduce_kernel<…>`): part of a
/// GEMM by name (the matmul class: no compiler fuses it with its neighbours), but
/// it only sums the partial products the GEMM's kernels wrote, one pass over
/// memory with no multiply-adds of its own, so memory-bound wherever it runs.
pub fn is_split_k_reduce(name: &str) -> bool {
    name.to_ascii_lowercase().contains("splitkreduce")
}

fn has_any(hay: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| hay.contains(n))
}

/// The class of a GPU activity from its name and category (`kernel`,
/// `gpu_memcpy`, `gpu_memset`).
pub fn kernel_class(name: &str, cat: &str) -> KernelClass {
    if cat == "gpu_memcpy" || cat == "gpu_memset" || hta_kernel_type(name) == HtaKernelType::Memory
    {
        return KernelClass::Copy;
    }
    // FBGEMM's embedding/permute kernels say "gemm" only in the library's name
    let n = name.to_ascii_lowercase().replace("fbgemm", "");
    if has_any(&n, &["nccl", "rccl"]) {
        return KernelClass::Communication;
    }
    // Inductor's kernels say what they are: `triton_poi_…` pointwise,
    // `triton_red_…` / `triton_per_…` (persistent) reductions, `triton_tem_…`
    // templates (matmul, conv). Their names list the aten ops fused into them,
    // so these come first: `triton_poi_fused__scaled_dot_product_cudnn_attention_…`
    // is the pointwise prologue Inductor fused ahead of an attention, not one
    if n.starts_with("triton_red_") || n.starts_with("triton_per_") {
        return KernelClass::Reduction;
    }
    if n.starts_with("triton_poi_") {
        return KernelClass::Pointwise;
    }
    if n.starts_with("triton_tem_") {
        return KernelClass::Matmul;
    }
    if has_any(&n, &["flash", "fmha", "sdpa", "attention", "attn"]) {
        return KernelClass::Attention;
    }
    let gemm = has_any(
        &n,
        &[
            "gemm",
            "cutlass",
            "cublas",
            "wgmma",
            "xmma",
            "hgemm",
            "sgemm",
            "conv",
            "scudnn",
            "hcudnn",
            "implicit_convolve",
            "winograd",
            "cijk_",
            "hipblaslt",
            "matmul",
            "gemv",
            "_mma",
            "dgrad",
            "wgrad",
            "fprop",
            // cuBLAS's JIT-generated kernels on Hopper and later (CUDA 12.8+,
            // e.g. `nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT` for a bf16
            // `aten::mm` on an H200, PyTorch 2.11)
            "nvjet",
        ],
    );
    if gemm && !n.contains("bn_") && !n.contains("batch_norm") {
        return KernelClass::Matmul;
    }
    if has_any(&n, &["norm", "bn_fw", "bn_bw", "bn_"]) {
        return KernelClass::Normalisation;
    }
    if has_any(
        &n,
        &[
            "reduce",
            "reduction",
            "softmax",
            "argmax",
            "argmin",
            "topk",
            "sum_kernel",
            "mean_kernel",
            "cumsum",
            "scan",
        ],
    ) {
        return KernelClass::Reduction;
    }
    KernelClass::Pointwise
}

/// The brrr preset (`src/model/hardware.rs` id) for a `deviceProperties` name,
/// with the device's memory in bytes to tell the A100s apart; `None` where no
/// preset matches (e.g. ROCm's generic "AMD Radeon Graphics").
pub fn preset_for_device(name: &str, memory: Option<f64>) -> Option<&'static str> {
    let n = name.to_ascii_uppercase();
    let words: Vec<&str> = n
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let word = |w: &str| words.contains(&w);
    let id = if n.contains("H100") {
        if n.contains("NVL") {
            return None;
        }
        if n.contains("PCIE") {
            "h100-pcie"
        } else {
            "h100-sxm"
        }
    } else if n.contains("H200") {
        "h200"
    } else if n.contains("B200") {
        "b200"
    } else if n.contains("A100") {
        let big = n.contains("80G") || memory.is_some_and(|m| m > 60e9);
        if big {
            "a100-80gb"
        } else {
            "a100-40gb"
        }
    } else if n.contains("V100") {
        "v100"
    } else if n.contains("MI300X") {
        "mi300x"
    } else if n.contains("RTX 3090") || n.contains("RTX3090") {
        "rtx-3090"
    } else if n.contains("RTX 4090") || n.contains("RTX4090") {
        "rtx-4090"
    } else if word("L4") {
        "l4"
    } else if word("T4") {
        "t4"
    } else {
        return None;
    };
    crate::model::hardware::preset(id).map(|p| p.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hta_types() {
        use HtaKernelType::*;
        assert_eq!(
            hta_kernel_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"),
            Communication
        );
        assert_eq!(
            hta_kernel_type("ncclKernel_AllGather_RING_LL_Sum_int8_t"),
            Communication
        );
        assert_eq!(hta_kernel_type("nccl:all_reduce"), Computation);
        assert_eq!(hta_kernel_type("Memcpy HtoD (Pageable -> Device)"), Memory);
        assert_eq!(hta_kernel_type("Memset (Device)"), Memory);
        assert_eq!(hta_kernel_type("dma_copy"), Memory);
        assert_eq!(
            hta_kernel_type("void at::native::vectorized_elementwise_kernel<4>"),
            Computation
        );
        assert_eq!(hta_kernel_type("ampere_sgemm_128x64_nn"), Computation);
        assert_eq!(hta_kernel_type("Event Sync"), Other);
        assert_eq!(hta_kernel_type("my_Memcpy_kernel"), Other);
        assert_eq!(hta_kernel_type("xMemset"), Computation);
        assert_eq!(hta_kernel_type("a\nSync"), Computation);
    }

    #[test]
    fn classes() {
        use KernelClass::*;
        for (name, cat, class) in [
            ("ampere_sgemm_128x64_nn", "kernel", Matmul),
            ("triton_poi_fused_mul_0", "kernel", Pointwise),
            ("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0", "kernel", Reduction),
            ("triton_per_fused_add_mean_1", "kernel", Reduction),
            ("triton_tem_fused_mm_2", "kernel", Matmul),
            ("triton_poi_fused_add_norm_3", "kernel", Pointwise),
            // Inductor names the ops it fused: this one is the pointwise
            // prologue of an attention, not an attention kernel
            (
                "triton_poi_fused__scaled_dot_product_cudnn_attention__to_copy_3",
                "kernel",
                Pointwise,
            ),
            ("triton_red_fused__unsafe_view_argmax_14", "kernel", Reduction),
            (
                "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64",
                "kernel",
                Matmul,
            ),
            (
                "void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm>",
                "kernel",
                Matmul,
            ),
            ("volta_hgemm_128x128_nt", "kernel", Matmul),
            (
                "void implicit_convolve_sgemm<float, float>",
                "kernel",
                Matmul,
            ),
            ("Cijk_Ailk_Bljk_SB_MT64x64x8", "kernel", Matmul),
            (
                "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits>",
                "kernel",
                Attention,
            ),
            (
                "fmha_cutlassF_f16_aligned_64x64_rf_sm80",
                "kernel",
                Attention,
            ),
            (
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)",
                "kernel",
                Communication,
            ),
            ("Memcpy DtoD (Device -> Device)", "gpu_memcpy", Copy),
            ("Memset (Device)", "gpu_memset", Copy),
            (
                "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>",
                "kernel",
                Normalisation,
            ),
            (
                "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>",
                "kernel",
                Normalisation,
            ),
            (
                "void at::native::reduce_kernel<512, 1>",
                "kernel",
                Reduction,
            ),
            (
                "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4>",
                "kernel",
                Reduction,
            ),
            (
                "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
                "kernel",
                Pointwise,
            ),
            (
                "void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*)",
                "kernel",
                Pointwise,
            ),
            (
                "void fbgemm_gpu::f8f8bf16_rowwise_gemm_kernel<>",
                "kernel",
                Matmul,
            ),
            ("cudnn_infer_volta_scudnn_128x64_relu_small_nn_v1", "kernel", Matmul),
            ("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int)", "kernel", Matmul),
            ("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>", "kernel", Pointwise),
            ("void cask_cudnn::computeOffsetsKernel<false, false>(cask_cudnn::ComputeOffsetsParams)", "kernel", Pointwise),
            ("void cublasLt::splitKreduce_kernel<32, 16, int, float>", "kernel", Matmul),
            ("nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT", "kernel", Matmul),
        ] {
            assert_eq!(kernel_class(name, cat), class, "{name}");
        }
        assert_eq!(Matmul.cost(), CostClass::Compute);
        assert_eq!(Pointwise.cost(), CostClass::Memory);
        assert_eq!(Copy.cost(), CostClass::Memory);
    }

    #[test]
    fn presets() {
        assert_eq!(
            preset_for_device("NVIDIA A100-SXM4-80GB", None),
            Some("a100-80gb")
        );
        assert_eq!(
            preset_for_device("NVIDIA A100-PG509-200", Some(42297524224.0)),
            Some("a100-40gb")
        );
        assert_eq!(
            preset_for_device("NVIDIA A100-SXM4-40GB", None),
            Some("a100-40gb")
        );
        assert_eq!(
            preset_for_device("NVIDIA H100 80GB HBM3", None),
            Some("h100-sxm")
        );
        assert_eq!(
            preset_for_device("NVIDIA H100 PCIe", None),
            Some("h100-pcie")
        );
        assert_eq!(preset_for_device("NVIDIA H100 NVL", None), None);
        assert_eq!(
            preset_for_device("Tesla V100-SXM2-32GB", None),
            Some("v100")
        );
        assert_eq!(
            preset_for_device("AMD Instinct MI300X", None),
            Some("mi300x")
        );
        assert_eq!(preset_for_device("NVIDIA L4", None), Some("l4"));
        assert_eq!(preset_for_device("NVIDIA L40S", None), None);
        assert_eq!(preset_for_device("Tesla T4", None), Some("t4"));
        assert_eq!(
            preset_for_device("NVIDIA GeForce RTX 4090", None),
            Some("rtx-4090")
        );
        assert_eq!(preset_for_device("AMD Radeon Graphics", None), None);
        assert_eq!(preset_for_device("", None), None);
    }
}
