//! The kernels of a trace that were not placed by shape: grouped by name, how
//! each was classed (its name, or its tile and launch grid, [`super::launch`])
//! and why it could not be placed.

use super::bound::Limits;
use super::breakdown::Activity;
use super::classify::{is_gemv, is_split_k_reduce, CostClass, KernelClass};
use super::launch::{headroom, launch_bound, replayed, ridge, Basis, LaunchBound};
use super::parse::{GpuEvent, Trace};
use crate::model::hardware::{Dtype, Preset};
use crate::model::units::sig3;
use rustc_hash::FxHashMap as HashMap;

/// At most this many names in [`unplaced`].
pub const MAX_UNPLACED: usize = 8;

/// Kernels of one name that were not placed by shape: how they were classed and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Unplaced {
    pub name: String,
    pub class: KernelClass,
    pub cost: CostClass,
    pub basis: Basis,
    pub count: usize,
    /// Σ durations, µs.
    pub time: f64,
    /// Why it is not placed and what classed it, a sentence.
    pub why: String,
}

/// The kernels among `acts` (HTA's activities) that were not placed by shape,
/// grouped by name, most time first (at most [`MAX_UNPLACED`]).
pub fn unplaced(
    t: &Trace,
    acts: &[Activity],
    limits: &Limits,
    hw: Option<&Preset>,
) -> Vec<Unplaced> {
    let mut by_name: HashMap<u32, (usize, usize, f64, bool)> = HashMap::default();
    for a in acts {
        let Some(e) = t.gpu.get(a.index) else {
            continue;
        };
        if !t.name(e.cat).eq_ignore_ascii_case("kernel") || limits.basis(a.index) == Basis::Roof {
            continue;
        }
        let x = by_name.entry(e.name).or_insert((a.index, 0, 0.0, false));
        x.1 += 1;
        x.2 += (a.end - a.ts).max(0.0);
        x.3 |= replayed(t, e);
    }
    let mut v: Vec<Unplaced> = by_name
        .into_iter()
        .filter_map(|(name, (i, count, time, replay))| {
            let e = t.gpu.get(i)?;
            let (class, cost, basis) = (limits.class(i), limits.of(i), limits.basis(i));
            let name = t.name(name).to_string();
            let why = why(t, e, &name, class, cost, basis, replay, hw);
            Some(Unplaced {
                name,
                class,
                cost,
                basis,
                count,
                time,
                why,
            })
        })
        .collect();
    v.sort_by(|a, b| b.time.total_cmp(&a.time).then_with(|| a.name.cmp(&b.name)));
    v.truncate(MAX_UNPLACED);
    v
}

/// Why a kernel is not placed, and what classed it.
#[allow(clippy::too_many_arguments)]
fn why(
    t: &Trace,
    e: &GpuEvent,
    name: &str,
    class: KernelClass,
    cost: CostClass,
    basis: Basis,
    replay: bool,
    hw: Option<&Preset>,
) -> String {
    let not_placed = if replay {
        "replayed from a CUDA graph, which records no aten op (no call of it outside the graph was placed)"
    } else if !t.shapes_recorded {
        "the trace has no recorded shapes (profile with record_shapes=True)"
    } else {
        "no aten op brrr counts FLOPs and bytes for launched it"
    };
    let bound = launch_bound(name, class, e.grid);
    let classed = match (basis, bound, hw) {
        (Basis::Launch, Some(b), Some(hw)) => launch_sentence(&b, hw),
        _ if is_gemv(name) => "a GEMV by its name: memory-bound (two FLOPs per weight read)".to_string(),
        _ if is_split_k_reduce(name) => {
            "cuBLAS's split-K sum by its name: memory-bound (no multiply-adds of its own)".to_string()
        }
        (_, Some(b), Some(hw)) => format!(
            "its tile and grid bound it to {} rows, not below the {}'s ridge, so it keeps its name's class: {} ({}-bound)",
            b.rows(),
            hw.name,
            class.id(),
            cost.id()
        ),
        _ => format!("classed by its name: {} ({}-bound)", class.id(), cost.id()),
    };
    format!("{not_placed}; {classed}")
}

/// The sentence for a kernel classed memory-bound by its launch.
fn launch_sentence(b: &LaunchBound, hw: &Preset) -> String {
    let r = ridge(hw, Dtype::Bf16).map_or("?".to_string(), sig3);
    match *b {
        LaunchBound::Gemm { tile, cluster, rows } => format!(
            "cuBLAS's tile {}×{} in clusters of {}×{} spans at most {rows} rows of the GEMM's narrow side (inferred from the tile: its shapes are not in the trace), so under {} FLOP/B in bf16, below the {}'s ridge of {r}: memory-bound",
            tile[0],
            tile[1],
            cluster[0],
            cluster[1],
            sig3(b.max_intensity(2.0, 1.0)),
            hw.name
        ),
        LaunchBound::Attention { tile, grid_x, rows } => {
            let heads = headroom(b, hw).map_or(0.0, |h| (h - 1e-9).floor());
            format!(
                "{grid_x} query tile{} of {tile} rows (grid.x): at most {rows} query rows, so under {} FLOP/B in bf16 per query head, below the {}'s ridge of {r} unless more than {} query heads share each K/V head: memory-bound",
                if grid_x == 1 { "" } else { "s" },
                sig3(b.max_intensity(2.0, 1.0)),
                hw.name,
                sig3(heads)
            )
        }
    }
}
