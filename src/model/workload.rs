//! Workloads: the kernels a step launches, with their FLOPs and DRAM bytes.
//!
//! Two workloads (URL `workload=`):
//! - `mlp`: `x[B, D] @ W[D, D]` then a chain of `ops` pointwise ops on `[B, D]`.
//!   The matmul does `2·B·D²` FLOPs and moves `b·(B·D + D·D + B·D)` bytes (read x,
//!   read W, write y; `b` = bytes per element) at the dtype's matmul ceiling.
//! - `chain`: only the pointwise chain, on a tensor of `N = B·D` elements (the
//!   essay's `for _ in range(repeat): x = x * 2` microbenchmark).
//!
//! The chain, on `N` elements, each op one multiply (1 FLOP, non-FMA ceiling):
//! - fused: one kernel, `N·ops` FLOPs, `2·N·b` bytes (read once, write once);
//! - eager: `ops` kernels, each `N` FLOPs and `2·N·b` bytes.

use super::gemm::Roofs;
use super::roofline::{floored, kernel_time, Bound};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Workload {
    Mlp,
    Chain,
}

impl Workload {
    pub const ALL: [Workload; 2] = [Workload::Mlp, Workload::Chain];
    pub fn id(self) -> &'static str {
        match self {
            Workload::Mlp => "mlp",
            Workload::Chain => "chain",
        }
    }
    pub fn from_id(s: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.id() == s)
    }
    pub fn label(self) -> &'static str {
        match self {
            Workload::Mlp => "MLP step: matmul + pointwise chain",
            Workload::Chain => "Pointwise chain only (the essay's microbenchmark)",
        }
    }
}

/// Which ceiling a kernel runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Unit {
    /// Tensor / matrix cores at the dtype's matmul peak.
    Matmul,
    /// General-purpose units at the non-FMA rate.
    Pointwise,
    /// A collective between GPUs: no FLOPs, no memory-roof time; its
    /// whole time, latency and bytes over the link, is the group's `latency`
    /// (`model::parallel`). `overlapped`: it runs on the link's own lane beside
    /// the kernels after it instead of in line.
    Collective { overlapped: bool },
}

/// A kernel as a point on the roofline: where it sits (its intensity and the
/// FLOP/s it achieved), its time and count, and the roof that binds it. The
/// explorer's, the llm's and the calculator's groups, and a trace's placed
/// kernels (`trace::roof`), are drawn as these.
#[derive(Clone, Debug, PartialEq)]
pub struct RoofPoint {
    /// Its name (a model's group names are static; a trace kernel's is
    /// written for it).
    pub name: std::borrow::Cow<'static, str>,
    /// FLOPs per byte.
    pub intensity: f64,
    /// FLOP/s achieved.
    pub flops: f64,
    /// Seconds per kernel.
    pub time: f64,
    /// Kernels of this kind in the step, or a trace kernel's calls.
    pub count: u32,
    pub unit: Unit,
    /// The roof that binds at its intensity.
    pub bound: Bound,
}

impl RoofPoint {
    /// `g` priced on `m`, where the roofline draws it.
    pub fn of(g: &KernelGroup, m: &Machine) -> RoofPoint {
        let (t, bound) = g.time(m);
        RoofPoint {
            name: g.name.into(),
            intensity: g.intensity(),
            flops: g.flops / t,
            time: t,
            count: g.count,
            unit: g.unit,
            bound,
        }
    }
}

/// The effective machine: preset numbers after the user's sliders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    /// Matmul ceiling, FLOP/s (the "peak FLOP/s" slider).
    pub matmul_flops: f64,
    /// Pointwise (non-FMA) ceiling, FLOP/s; scales with the peak slider.
    pub pointwise_flops: f64,
    /// DRAM bandwidth, bytes/s.
    pub bw: f64,
    /// CPU-side cost to issue one kernel, seconds.
    pub overhead: f64,
    /// Bytes per stored element.
    pub elem_bytes: f64,
    /// The least GPU time any kernel takes, seconds, however little it does
    /// (`hardware::kernel_floor`: 1.0 µs measured per kernel inside a CUDA graph on
    /// an H100). A kernel's time is `max(roofline time, floor)`.
    pub floor: f64,
    /// The GEMM model's numbers for this GPU and dtype (achievable roofs); `None`
    /// on datasheet roofs, where matmuls keep the roofline.
    pub gemm: Option<super::gemm::Hw>,
    /// The L2 roof, where the machine prices kernels whose working set fits in
    /// L2 on it ([`Machine::level`]); `None` prices every byte on [`Machine::bw`].
    pub l2: Option<L2Roof>,
}

/// A cache level's roof: its bandwidth, bytes/s, and the largest working set
/// (bytes a kernel reads and writes) it serves at that bandwidth.
///
/// The model's idealisation: a kernel whose working set fits is priced as if all
/// of it were already in L2, which holds in a loop that re-runs the same small
/// step (the essay's microbenchmark, the explorer's step) or where the kernel
/// before it just wrote its input; a first touch, or data evicted by a larger
/// kernel in between, comes from HBM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct L2Roof {
    pub bw: f64,
    pub fits: f64,
}

/// The roof the model prices on for `hw`: its measured L2 bandwidth and the
/// working set it holds to, where both are known ([`super::hardware::l2`]).
pub fn l2_roof(hw: &super::hardware::Preset) -> Option<L2Roof> {
    let l = super::hardware::l2(hw);
    match (l.bw, l.fits) {
        (Some(bw), Some(fits)) => Some(L2Roof { bw, fits }),
        _ => None,
    }
}

/// The memory level a kernel's traffic is priced on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    Hbm,
    L2,
}

impl Level {
    /// `hbm` or `l2` (`data-value`s).
    pub fn id(self) -> &'static str {
        match self {
            Level::Hbm => "hbm",
            Level::L2 => "l2",
        }
    }
    /// `HBM` or `L2`, as the page names them.
    pub fn label(self) -> &'static str {
        match self {
            Level::Hbm => "HBM",
            Level::L2 => "L2",
        }
    }
}

impl Machine {
    pub fn ceiling(&self, unit: Unit) -> f64 {
        match unit {
            Unit::Matmul => self.matmul_flops,
            Unit::Pointwise | Unit::Collective { .. } => self.pointwise_flops,
        }
    }
    /// The intensity, FLOP per byte, at which `unit`'s ceiling meets the
    /// memory roof: below it a kernel of that unit is memory-bound.
    pub fn ridge(&self, unit: Unit) -> f64 {
        self.ceiling(unit) / self.bw
    }
    /// `flops` FLOP/s as a share of the matmul roof.
    pub fn of_matmul_roof(&self, flops: f64) -> f64 {
        flops / self.matmul_flops
    }
    /// `bytes_per_s` as a share of the memory roof.
    pub fn of_memory_roof(&self, bytes_per_s: f64) -> f64 {
        bytes_per_s / self.bw
    }
    /// The level a kernel moving `bytes` (its working set) is priced on: L2
    /// where the machine has an L2 roof that holds it, else HBM.
    pub fn level(&self, bytes: f64) -> Level {
        match self.l2 {
            Some(l2) if bytes <= l2.fits => Level::L2,
            _ => Level::Hbm,
        }
    }
    /// The bandwidth of `level`: the L2's, never below HBM's (a bandwidth
    /// slider raised past it lifts both).
    pub fn level_bw(&self, level: Level) -> f64 {
        match (level, self.l2) {
            (Level::L2, Some(l2)) => l2.bw.max(self.bw),
            _ => self.bw,
        }
    }
    /// The fastest memory roof: L2's where the machine has one, else HBM's
    /// (the chart's ceilings start where it meets them).
    pub fn fastest_bw(&self) -> f64 {
        self.level_bw(Level::L2)
    }
    /// The bandwidth a kernel moving `bytes` is priced at.
    pub fn bw_for(&self, bytes: f64) -> f64 {
        self.level_bw(self.level(bytes))
    }
    /// What the GEMM model reads of this machine.
    pub fn roofs(&self) -> Roofs {
        Roofs {
            matmul_flops: self.matmul_flops,
            bw: self.bw,
            elem_bytes: self.elem_bytes,
            floor: self.floor,
        }
    }
}

/// What the user chose to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub workload: Workload,
    pub batch: u32,
    pub hidden: u32,
    pub ops: u32,
    pub fused: bool,
}

/// A group of `count` identical kernels launched back to back.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelGroup {
    pub name: &'static str,
    pub unit: Unit,
    pub count: u32,
    /// Per kernel.
    pub flops: f64,
    /// Per kernel.
    pub bytes: f64,
    /// Ops the framework dispatches along with each kernel that launch no kernel
    /// themselves (views, reshapes, metadata): each costs the CPU one
    /// [`Machine::overhead`] and the GPU nothing.
    pub cpu_ops: u32,
    /// GPU seconds the kernel takes beyond its roofline time, 0 but for a
    /// collective, whose whole time it is (`model::parallel::kernel`).
    pub latency: f64,
    /// The matmul's shape, where it is one: priced by the GEMM model
    /// ([`super::gemm::price`]) whenever the machine carries one (achievable
    /// roofs), by the roofline otherwise.
    pub gemm: Option<super::gemm::Gemm>,
}

/// One kernel's time on a machine: its roof part (what compute or memory takes),
/// what bounds it, and its whole time (the roof part and its fixed costs: the
/// kernel floor, a GEMM's launch and fills, a collective's time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parts {
    pub roof: f64,
    pub bound: Bound,
    pub total: f64,
}

impl KernelGroup {
    /// A matmul kernel `g` moving `bytes`, at the matmul ceiling.
    pub fn gemm(name: &'static str, g: super::gemm::Gemm, bytes: f64) -> KernelGroup {
        KernelGroup {
            name,
            unit: Unit::Matmul,
            count: 1,
            flops: g.flops(),
            bytes,
            cpu_ops: 0,
            latency: 0.0,
            gemm: Some(g),
        }
    }
    pub fn intensity(&self) -> f64 {
        self.flops / self.bytes
    }
    /// THE time of one kernel of this group on `m`: a matmul with a shape on a
    /// machine with the GEMM model is priced by it ([`super::gemm::price`]);
    /// every other kernel by the roofline, at least the machine's kernel floor
    /// ([`Machine::floor`]), a collective by its own time.
    pub fn parts(&self, m: &Machine) -> Parts {
        if let Unit::Collective { .. } = self.unit {
            let t = if self.latency > 0.0 {
                self.latency
            } else {
                0.0
            };
            return Parts {
                roof: 0.0,
                bound: Bound::Memory,
                total: floored(t, m.floor),
            };
        }
        let bw = m.bw_for(self.bytes);
        if let (Unit::Matmul, Some(g), Some(h)) = (self.unit, self.gemm, m.gemm) {
            let roofs = Roofs { bw, ..m.roofs() };
            let p = super::gemm::price(&g, self.bytes, &roofs, &h);
            return Parts {
                roof: p.roof,
                bound: p.bound,
                total: p.seconds,
            };
        }
        let (roof, bound) = kernel_time(self.flops, self.bytes, m.ceiling(self.unit), bw);
        Parts {
            roof,
            bound,
            total: floored(roof, m.floor),
        }
    }
    /// Time of one kernel of this group and what bounds its roof part.
    pub fn time(&self, m: &Machine) -> (f64, Bound) {
        let p = self.parts(m);
        (p.total, p.bound)
    }
    /// The roof part alone: compute or memory time, without the fixed costs.
    pub fn roof_time(&self, m: &Machine) -> (f64, Bound) {
        let p = self.parts(m);
        (p.roof, p.bound)
    }
    /// Ops dispatched for each kernel of the group: the kernel's own and its
    /// [`KernelGroup::cpu_ops`].
    pub fn dispatches(&self) -> f64 {
        1.0 + f64::from(self.cpu_ops)
    }
}

/// The kernels of one step, in launch order.
pub fn kernels(s: &Shape, elem_bytes: f64) -> Vec<KernelGroup> {
    let b = f64::from(s.batch);
    let d = f64::from(s.hidden);
    let n = b * d;
    let ops = f64::from(s.ops.max(1));
    let mut out = Vec::with_capacity(2);
    if s.workload == Workload::Mlp {
        let g = super::gemm::Gemm {
            m: s.batch,
            n: s.hidden,
            k: s.hidden,
            batch: 1,
            b: super::gemm::Stored::of_bytes(elem_bytes),
            routed: false,
        };
        out.push(KernelGroup::gemm(
            "matmul",
            g,
            elem_bytes * (b * d + d * d + b * d),
        ));
    }
    if s.fused {
        out.push(KernelGroup {
            cpu_ops: 0,
            latency: 0.0,
            gemm: None,
            name: "fused chain",
            unit: Unit::Pointwise,
            count: 1,
            flops: n * ops,
            bytes: 2.0 * n * elem_bytes,
        });
    } else {
        out.push(KernelGroup {
            cpu_ops: 0,
            latency: 0.0,
            gemm: None,
            name: "pointwise op",
            unit: Unit::Pointwise,
            count: s.ops.max(1),
            flops: n,
            bytes: 2.0 * n * elem_bytes,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ridge is where the memory roof meets each ceiling, and a share
    /// of a roof is 1 at the roof itself, on every preset and dtype.
    #[test]
    fn the_ridge_is_where_the_roofs_meet() {
        for hw in crate::model::hardware::PRESETS {
            for dt in crate::model::hardware::Dtype::ALL
                .into_iter()
                .filter(|d| hw.supports(*d))
            {
                let m = crate::model::setting::Setting::on(
                    hw,
                    dt,
                    crate::model::achievable::Roof::Datasheet,
                )
                .machine();
                for unit in [Unit::Matmul, Unit::Pointwise] {
                    let r = m.ridge(unit);
                    assert!(
                        ((m.bw * r) / m.ceiling(unit) - 1.0).abs() < 1e-12,
                        "{} {dt:?}",
                        hw.id
                    );
                    assert!(m.bw * r * 0.99 < m.ceiling(unit) && m.bw * r * 1.01 > m.ceiling(unit));
                }
                assert!(m.ridge(Unit::Matmul) >= m.ridge(Unit::Pointwise));
                assert_eq!(m.of_matmul_roof(m.matmul_flops), 1.0);
                assert_eq!(m.of_memory_roof(m.bw / 2.0), 0.5);
            }
        }
    }

    #[test]
    fn cos_cos_accesses() {
        // x.cos().cos(): eager 4 accesses per element, fused 2.
        let s = Shape {
            workload: Workload::Chain,
            batch: 1,
            hidden: 1000,
            ops: 2,
            fused: false,
        };
        let eager = kernels(&s, 4.0);
        let eager_bytes: f64 = eager.iter().map(|k| k.bytes * f64::from(k.count)).sum();
        let fused = kernels(&Shape { fused: true, ..s }, 4.0);
        let fused_bytes: f64 = fused.iter().map(|k| k.bytes * f64::from(k.count)).sum();
        assert_eq!(eager_bytes, 4.0 * 1000.0 * 4.0);
        assert_eq!(fused_bytes, 2.0 * 1000.0 * 4.0);
    }

    #[test]
    fn mlp_intensity_is_about_batch_for_bf16() {
        // For B << D, a bf16 [B,D]x[D,D] matmul has intensity ~ B.
        let s = Shape {
            workload: Workload::Mlp,
            batch: 64,
            hidden: 8192,
            ops: 1,
            fused: true,
        };
        let k = &kernels(&s, 2.0)[0];
        assert!(
            (k.intensity() / 64.0 - 1.0).abs() < 0.02,
            "{}",
            k.intensity()
        );
    }
}
