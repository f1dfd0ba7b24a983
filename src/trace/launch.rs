//! Kernels the trace links to no op, classed by what their names and launch
//! grids say. A CUDA-graph replay records no aten op (so no shapes): the
//! kernels of a `torch.compile(mode="reduce-overhead")` decode step reach brrr
//! as bare names with a launch grid. Where the name and the grid bound the
//! kernel's arithmetic intensity below the preset's ridge, it is memory-bound
//! without knowing its shapes ([`Basis::Launch`]); else it keeps its name's class.
//!
//! **A GEMM** `C[M,N] = A[M,K]·B[K,N]` in `e`-byte elements does `2MNK` FLOPs
//! and moves at least `e(MK + KN + MN)` bytes (each operand read once, the
//! output written once; split-K partials only add bytes), so its intensity is
//! `2MNK / (e(MK + KN + MN)) < 2MNK / (eK(M + N)) = 2MN / (e(M + N)) ≤ 2·min(M, N) / e`:
//! a bound on the narrow output side bounds it, whatever `K` is.
//!
//! cuBLAS's Hopper kernels name their tile and cluster:
//! `nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT` computes 128×8 output tiles (then
//! 64-deep K slices, 12 stages) in clusters of 4×1 tiles. The grid does not count
//! the tiles along a side: in every nvjet launch of the stored traces `grid.x`
//! is the cluster's size (4 for 4×1, 2 for 1×2) and `grid.y` the clusters, and a
//! persistent kernel loops over more tiles than it launches CTAs (the H100's
//! batch-1 QKV GEMM: 192 tiles of 64 rows on 120 CTAs). So the narrow side is
//! inferred from the tile: **cuBLAS picks the tile to fit the problem, and a tile
//! whose narrow side times its cluster's extent there is at most
//! [`NARROW_TILE_MAX`] spans the GEMM's narrow side in one cluster**:
//! `min(M, N) ≤ min(tile_m·cluster_m, tile_n·cluster_n)`. That is an inference,
//! not a law (a persistent kernel could loop along that side too); it holds for
//! every nvjet kernel placed by shape in the stored eager traces whose tile is
//! that narrow (`tests/trace_fixtures.rs` checks each against its aten::mm), and
//! fails for wide tiles (the 8192³ GEMM's 320×128 tiles in 1×2 clusters: 256
//! against 8192), which the rule therefore leaves alone.
//!
//! **Decode attention.** Flash-style attention over `Sq` query rows and `Skv`
//! keys with head size `d` does `4·Sq·Skv·d` FLOPs per query head and reads K
//! and V (`2·e·Skv·d` bytes) once per K/V head, so with `g` query heads sharing
//! a K/V head its intensity is below `2·Sq·g / e`. cuDNN's SDPA kernels name their
//! tile and warps (`…_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_…`:
//! 16 query rows × 128 keys × head size 128, warps 1×4×1) and launch one CTA per
//! (query tile, head, batch) — `grid.x` is the query tiles (1 for the stored
//! decode traces, whose placed SDPA ops have one query row). So `Sq ≤ 16·1·grid.x`.
//! The grouping `g` is not in the trace: the bound is taken with the largest
//! grouping among brrr's LLM presets ([`max_heads_per_kv`]: Llama-3-70B's 64
//! query heads on 8 K/V heads), and the sentence says up to which grouping it
//! holds.
//!
//! **The dtype** is not in an nvjet name: on every preset the tensor-core peak
//! doubles as the element halves (fp8 2×, bf16 1×, TF32 ½×), so `2·rows/e`
//! against the ridge is the same ratio in each; brrr requires it below the
//! ridge in every tensor-core dtype the preset has.

use super::classify::KernelClass;
use super::parse::{GpuEvent, Trace};
use crate::model::hardware::{Dtype, Preset};

/// How a kernel's cost class was decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Basis {
    /// Its name class (nothing else known), or a name that says it (a GEMV).
    #[default]
    Name,
    /// Placed by shape, by where it sits against the ridge ([`super::bound`]).
    Roof,
    /// Its name's tile and its launch grid bound its intensity below the ridge.
    Launch,
}

impl Basis {
    pub fn id(self) -> &'static str {
        match self {
            Basis::Name => "name",
            Basis::Roof => "roof",
            Basis::Launch => "launch",
        }
    }
}

/// The widest narrow side (rows) the GEMM rule infers from a tile: the decode
/// GEMMs' tiles in the stored traces span 8 to 64 rows (tile × cluster); 64
/// rows bound a bf16 GEMM to under 64 FLOP/B, a third of the H200's achievable
/// ridge (183).
pub const NARROW_TILE_MAX: u32 = 64;

/// What a kernel's name and grid bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LaunchBound {
    /// A GEMM whose narrow output side is at most `rows` (tile × cluster).
    Gemm {
        tile: [u32; 2],
        cluster: [u32; 2],
        rows: u32,
    },
    /// Attention over at most `rows` query rows per head (query tile × warps
    /// along it × `grid.x`).
    Attention { tile: u32, grid_x: u32, rows: u32 },
}

impl LaunchBound {
    /// The rows the bound rests on.
    pub fn rows(&self) -> u32 {
        match *self {
            LaunchBound::Gemm { rows, .. } | LaunchBound::Attention { rows, .. } => rows,
        }
    }

    /// Its most FLOPs per byte in `e`-byte elements, `g` query heads per K/V
    /// head for attention (see the module doc; a strict upper bound).
    pub fn max_intensity(&self, e: f64, g: f64) -> f64 {
        match self {
            LaunchBound::Gemm { .. } => 2.0 * f64::from(self.rows()) / e,
            LaunchBound::Attention { .. } => 2.0 * f64::from(self.rows()) * g / e,
        }
    }
}

/// The `AxB` (or `AxBxC`) tokens of a name split at `_`, in order.
fn dims(name: &str) -> Vec<Vec<u32>> {
    name.split('_')
        .filter_map(|tok| {
            let v: Option<Vec<u32>> = tok.split('x').map(|p| p.parse::<u32>().ok()).collect();
            v.filter(|v| v.len() >= 2 && v.iter().all(|x| *x > 0))
        })
        .collect()
}

/// What `name` and `grid` bound, for the kernels brrr knows the naming of
/// (cuBLAS's `nvjet_…` GEMMs, cuDNN's forward SDPA); `None` otherwise, or where
/// the tile is wider than [`NARROW_TILE_MAX`].
pub fn launch_bound(name: &str, class: KernelClass, grid: [u32; 3]) -> Option<LaunchBound> {
    let n = name.to_ascii_lowercase();
    match class {
        KernelClass::Matmul if n.starts_with("nvjet_") => {
            let d = dims(&n);
            // tile, K slice × stages, cluster
            let (tile, cluster) = match (d.first(), d.get(2)) {
                (Some(t), Some(c)) if t.len() == 2 && c.len() == 2 => ([t[0], t[1]], [c[0], c[1]]),
                _ => return None,
            };
            let rows = (tile[0].saturating_mul(cluster[0])).min(tile[1].saturating_mul(cluster[1]));
            (rows <= NARROW_TILE_MAX).then_some(LaunchBound::Gemm {
                tile,
                cluster,
                rows,
            })
        }
        KernelClass::Attention if n.contains("sdpa") && n.contains("fprop") && grid[0] > 0 => {
            // the query × keys × head tile, then the warps along each
            let d: Vec<Vec<u32>> = dims(&n).into_iter().filter(|v| v.len() == 3).collect();
            let (tile, warps) = (d.first()?, d.get(1)?);
            let q = tile[0].saturating_mul(warps[0]);
            Some(LaunchBound::Attention {
                tile: q,
                grid_x: grid[0],
                rows: q.saturating_mul(grid[0]),
            })
        }
        _ => None,
    }
}

/// The most query heads per K/V head among brrr's plain LLM presets (the
/// dense models and Mixtral, whose decode the lent traces recorded; the
/// mixtures of experts of `model::llm::moe` are not among them).
pub fn max_heads_per_kv() -> u32 {
    crate::model::llm::LlmModel::ALL
        .iter()
        .filter_map(|m| m.config())
        .filter(|(c, _)| c.arch == crate::model::llm::moe::Arch::PLAIN)
        .map(|(c, _)| c.heads / c.kv_heads.max(1))
        .max()
        .unwrap_or(1)
}

/// The tensor-core dtypes of `hw` with their element sizes (bytes).
fn tensor_dtypes(hw: &Preset) -> impl Iterator<Item = (Dtype, f64)> + '_ {
    [(Dtype::Fp8, 1.0), (Dtype::Bf16, 2.0), (Dtype::Tf32, 4.0)]
        .into_iter()
        .filter(|(d, _)| hw.matmul_peak(*d).is_some())
}

/// The achievable ridge of `hw` in `dtype`, FLOP/B.
pub fn ridge(hw: &Preset, dtype: Dtype) -> Option<f64> {
    let f = crate::model::achievable::fractions(hw);
    let peak = hw.matmul_peak(dtype)? * f.matmul(dtype);
    let bw = hw.mem_bw * f.bw;
    (bw > 0.0 && peak > 0.0).then(|| peak / bw)
}

/// The ridge of `hw` ÷ the bound of `b` (one query head per K/V head), the
/// smallest over the tensor-core dtypes `hw` has; `None` without any.
pub fn headroom(b: &LaunchBound, hw: &Preset) -> Option<f64> {
    tensor_dtypes(hw)
        .map(|(d, e)| ridge(hw, d).map(|r| r / b.max_intensity(e, 1.0)))
        .try_fold(f64::INFINITY, |m, h| h.map(|h| m.min(h)))
        .filter(|h| h.is_finite())
}

/// Whether `b` is below the ridge of `hw` in every tensor-core dtype it has
/// (attention with [`max_heads_per_kv`] query heads per K/V head).
pub fn memory_bound(b: &LaunchBound, hw: &Preset) -> bool {
    let needed = match b {
        LaunchBound::Gemm { .. } => 1.0,
        LaunchBound::Attention { .. } => f64::from(max_heads_per_kv()),
    };
    headroom(b, hw).is_some_and(|h| h > needed)
}

/// Whether `e` was launched by a graph launch (replayed from a CUDA graph).
pub fn replayed(t: &Trace, e: &GpuEvent) -> bool {
    t.cpu
        .get(&e.correlation)
        .is_some_and(|c| c.launch.is_some() && t.name(c.launch_name).contains("GraphLaunch"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hardware::preset;

    const SDPA: &str =
        "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1x1_kernel0_0";

    #[test]
    fn tiles_and_grids() {
        let mm = KernelClass::Matmul;
        // batch 1: 128×8 tiles in 4×1 clusters: 8 rows on the narrow side
        assert_eq!(
            launch_bound("nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT", mm, [4, 24, 1]),
            Some(LaunchBound::Gemm {
                tile: [128, 8],
                cluster: [4, 1],
                rows: 8
            })
        );
        // batch 64: 64×32 tiles in 1×2 clusters: 64 rows
        let b = launch_bound("nvjet_sm90_tst_64x32_64x16_1x2_h_bz_TNT", mm, [2, 64, 1]);
        assert_eq!(b.map(|b| b.rows()), Some(64));
        // a wide tile infers nothing (8192³ on 320×128, 1×2: 256 rows)
        let wide = "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT";
        assert_eq!(launch_bound(wide, mm, [2, 66, 1]), None);
        // not an nvjet name, or not a matmul: nothing
        assert_eq!(
            launch_bound("ampere_sgemm_128x64_nn", mm, [22, 64, 1]),
            None
        );
        assert_eq!(
            launch_bound(
                "nvjet_sm90_tst_128x8_64x12_4x1_v_bz_TNT",
                KernelClass::Pointwise,
                [4, 24, 1]
            ),
            None
        );
        // cuDNN's decode SDPA: 16 query rows × 1 warp × grid.x 1
        let a = launch_bound(SDPA, KernelClass::Attention, [1, 32, 64]);
        assert_eq!(
            a,
            Some(LaunchBound::Attention {
                tile: 16,
                grid_x: 1,
                rows: 16
            })
        );
        // no grid recorded: no bound
        assert_eq!(launch_bound(SDPA, KernelClass::Attention, [0, 0, 0]), None);
        // a prefill of 2048 query rows: 128 query tiles
        let p = launch_bound(SDPA, KernelClass::Attention, [128, 32, 1]);
        assert_eq!(p.map(|b| b.rows()), Some(2048));
    }

    #[test]
    fn below_the_ridge_in_every_dtype() {
        let h200 = preset("h200").unwrap();
        let r = ridge(h200, Dtype::Bf16).unwrap();
        assert!((r - 989.4 * 0.8 / (4800.0 * 0.9) * 1e3).abs() < 1.0, "{r}");
        // the same ratio in fp8, bf16, tf32: the peaks scale with the element
        let b = launch_bound(
            "nvjet_sm90_tst_128x64_64x8_4x1_v_bz_TNT",
            KernelClass::Matmul,
            [4, 24, 1],
        )
        .unwrap();
        let h = headroom(&b, h200).unwrap();
        assert!((h - r / 64.0).abs() < 1e-9, "{h}");
        assert!(memory_bound(&b, h200));
        // decode attention: 16 rows, up to 8 query heads per K/V head (Llama-3-70B)
        assert_eq!(max_heads_per_kv(), 8);
        let a = launch_bound(SDPA, KernelClass::Attention, [1, 32, 64]).unwrap();
        assert!(memory_bound(&a, h200));
        // 32 query rows: 2·32·8/2 = 256 FLOP/B with 8 heads per K/V head, above
        let a32 = launch_bound(SDPA, KernelClass::Attention, [2, 32, 64]).unwrap();
        assert!(!memory_bound(&a32, h200));
    }
}
