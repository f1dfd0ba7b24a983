//! The overhead widget: where the CPU's time per kernel goes, and what removes it.
//!
//! The essay gives totals only: Python manages about 32 million simple additions per
//! second, and PyTorch about 280 thousand tiny operations per second (≈ 3.57 µs per
//! op, the explorer's default [`Machine::overhead`]). It names three steps inside one
//! `a + b`: the interpreter finds `__add__`, the framework dispatches on dtype, device
//! and autograd, and the kernel is launched.
//!
//! **Illustrative assumption (not from the essay):** this module splits the
//! per-kernel CPU cost into those three parts with fixed proportions,
//! [`DEFAULT_SPLIT`] = 20 % Python interpreter, 50 % framework dispatch, 30 % kernel
//! launch. Only the total is sourced; the split exists so the widget can show which
//! remedy removes which part. Callers can pass another [`CpuSplit`].
//!
//! Remedies (flags of [`Remedies`]):
//! - `cpp`: no Python; each kernel costs dispatch + launch.
//! - `compiled`: a fusing compiler; the pointwise chain becomes one kernel (the
//!   workload's `fused` flag). Per-kernel CPU cost is otherwise unchanged.
//! - `cuda_graphs`: the step was captured once; replaying it pays Python (unless
//!   `cpp`), dispatch and launch **once per step**, after which the GPU runs every
//!   kernel back to back. (Real graph replay still has a small per-kernel GPU-side
//!   cost; it is ignored.)
//!
//! Timeline: without graphs, [`timeline::simulate`] runs with the machine's overhead
//! replaced by the per-kernel CPU cost, and each CPU span is cut into its three parts
//! in order (Python, dispatch, launch). With graphs, the CPU spends one cost `c` and
//! kernel `i` starts at `c + Σ_{j<i} t_j`.
//!
//! Diagnostics:
//! - GPU utilisation = GPU busy time / wall time: what `nvidia-smi` reports as
//!   "GPU-Util" (the share of time some kernel is running).
//! - Double-batch ratio = wall(2·batch) / wall(batch). The essay's test: if doubling
//!   the work barely moves the runtime, the step is overhead-bound. Thresholds here:
//!   ratio < [`OVERHEAD_BOUND_BELOW`] = 1.2 → overhead-bound (the essay's "about
//!   10 % slower" lies well inside); ratio ≥ [`SCALES_FROM`] = 1.8 → runtime scales
//!   with the work; in between, partly overhead-bound.

pub use super::double_batch::{verdict, BatchVerdict, OVERHEAD_BOUND_BELOW, SCALES_FROM};
use super::timeline::{self, Timeline};
use super::workload::{self, KernelGroup, Machine, Shape};

/// The essay: CPython performs about 32 million simple additions per second.
pub const PYTHON_OPS_PER_S: f64 = 32e6;
/// The essay: PyTorch manages about 280 thousand operations per second on tiny
/// tensors (the explorer's default overhead is its inverse, ≈ 3.57 µs).
pub const PYTORCH_OPS_PER_S: f64 = 280e3;

/// FLOPs a machine with `peak` FLOP/s does in the time Python does one addition:
/// `peak / PYTHON_OPS_PER_S` (A100 at 312 TFLOP/s: 9.75 million).
pub fn flops_per_python_op(peak: f64) -> f64 {
    peak / PYTHON_OPS_PER_S
}

/// Fractions of the per-kernel CPU cost; should sum to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuSplit {
    pub python: f64,
    pub dispatch: f64,
    pub launch: f64,
}

/// Illustrative split of the per-kernel CPU cost (see the module docs).
pub const DEFAULT_SPLIT: CpuSplit = CpuSplit {
    python: 0.2,
    dispatch: 0.5,
    launch: 0.3,
};

/// Per-kernel CPU cost in seconds, by part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuCost {
    pub python: f64,
    pub dispatch: f64,
    pub launch: f64,
}

impl CpuCost {
    /// Split `total` seconds with `split` (normalised so the parts sum to `total`;
    /// a degenerate split puts everything in dispatch).
    pub fn from_total(total: f64, split: CpuSplit) -> CpuCost {
        let total = if total.is_finite() {
            total.max(0.0)
        } else {
            0.0
        };
        let parts = [split.python, split.dispatch, split.launch].map(|p| {
            if p.is_finite() {
                p.max(0.0)
            } else {
                0.0
            }
        });
        let sum: f64 = parts.iter().sum();
        if sum > 0.0 {
            CpuCost {
                python: total * parts[0] / sum,
                dispatch: total * parts[1] / sum,
                launch: total * parts[2] / sum,
            }
        } else {
            CpuCost {
                python: 0.0,
                dispatch: total,
                launch: 0.0,
            }
        }
    }

    pub fn total(&self) -> f64 {
        self.python + self.dispatch + self.launch
    }

    /// The cost left after the remedies that act per kernel (`cpp` drops Python).
    pub fn with(&self, r: Remedies) -> CpuCost {
        CpuCost {
            python: if r.cpp { 0.0 } else { self.python },
            ..*self
        }
    }
}

/// Which remedies are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Remedies {
    pub cuda_graphs: bool,
    pub compiled: bool,
    pub cpp: bool,
}

impl Remedies {
    pub const NONE: Remedies = Remedies {
        cuda_graphs: false,
        compiled: false,
        cpp: false,
    };
}

/// One part of the CPU lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpuPart {
    Python,
    Dispatch,
    Launch,
}

impl CpuPart {
    pub const ALL: [CpuPart; 3] = [CpuPart::Python, CpuPart::Dispatch, CpuPart::Launch];

    pub fn label(self) -> &'static str {
        match self {
            CpuPart::Python => "Python interpreter",
            CpuPart::Dispatch => "framework dispatch",
            CpuPart::Launch => "kernel launch",
        }
    }
}

/// A stretch of CPU time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuSpan {
    pub part: CpuPart,
    pub start: f64,
    pub end: f64,
}

/// Everything the widget draws for one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct OverheadRun {
    pub remedies: Remedies,
    /// The kernels launched, in order.
    pub groups: Vec<KernelGroup>,
    /// CPU cost of one launch (per kernel, or per step with CUDA graphs).
    pub cost: CpuCost,
    /// CPU lane: Python / dispatch / launch pieces, in time order.
    pub cpu: Vec<CpuSpan>,
    /// GPU lane (one span per kernel) and wall time.
    pub timeline: Timeline,
    pub kernel_count: u32,
}

impl OverheadRun {
    pub fn wall(&self) -> f64 {
        self.timeline.wall
    }
    /// GPU busy / wall, as `nvidia-smi` reports it.
    pub fn gpu_util(&self) -> f64 {
        gpu_util(&self.timeline)
    }
    /// Total CPU time spent issuing the step.
    pub fn cpu_time(&self) -> f64 {
        self.cpu.iter().map(|s| s.end - s.start).sum()
    }
}

/// GPU busy time / wall time; 0 for an empty timeline.
pub fn gpu_util(t: &Timeline) -> f64 {
    if t.wall > 0.0 {
        (t.busy() / t.wall).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Run `shape` on `m` with `remedies`, splitting `m.overhead` with [`DEFAULT_SPLIT`].
pub fn run(shape: &Shape, m: &Machine, remedies: Remedies) -> OverheadRun {
    run_with(shape, m, remedies, DEFAULT_SPLIT)
}

/// [`run`] with an explicit split of the per-kernel CPU cost.
pub fn run_with(shape: &Shape, m: &Machine, remedies: Remedies, split: CpuSplit) -> OverheadRun {
    let shape = Shape {
        fused: shape.fused || remedies.compiled,
        ..*shape
    };
    let groups = workload::kernels(&shape, m.elem_bytes);
    let cost = CpuCost::from_total(m.overhead, split).with(remedies);
    let kernel_count = groups.iter().map(|g| g.count).sum();
    let (timeline, cpu) = if remedies.cuda_graphs {
        let tl = simulate_graph(&groups, m, cost.total());
        let cpu = cut(0.0, &cost);
        (tl, cpu)
    } else {
        let tl = timeline::simulate(
            &groups,
            &Machine {
                overhead: cost.total(),
                ..*m
            },
        );
        let cpu = tl
            .spans
            .iter()
            .flat_map(|s| cut(s.cpu_start, &cost))
            .collect();
        (tl, cpu)
    };
    OverheadRun {
        remedies,
        groups,
        cost,
        cpu,
        timeline,
        kernel_count,
    }
}

/// One CPU cost starting at `start`, cut into Python, dispatch, launch (zero-length
/// parts are dropped).
fn cut(start: f64, c: &CpuCost) -> Vec<CpuSpan> {
    let mut t = start;
    let mut out = Vec::with_capacity(3);
    for (part, d) in [
        (CpuPart::Python, c.python),
        (CpuPart::Dispatch, c.dispatch),
        (CpuPart::Launch, c.launch),
    ] {
        if d > 0.0 {
            out.push(CpuSpan {
                part,
                start: t,
                end: t + d,
            });
            t += d;
        }
    }
    out
}

/// What limits the step as issued with `remedies` ([`super::limit`]): the three
/// halvings, each run through [`run`] again.
pub fn limit(shape: &Shape, m: &Machine, remedies: Remedies) -> super::limit::Limit {
    limit_of(&run(shape, m, remedies), shape, m)
}

/// [`limit`] for `base`, `shape` already run on `m`: the three halvings only.
fn limit_of(base: &OverheadRun, shape: &Shape, m: &Machine) -> super::limit::Limit {
    let tl = &base.timeline;
    super::limit::Limit::of(m, tl.shares(), tl.wall, |h| {
        run(shape, h, base.remedies).wall()
    })
}

/// CUDA-graph replay: the CPU spends `cpu_cost` once, then the GPU runs every kernel
/// of `groups` back to back. Every span records the one CPU launch `[0, cpu_cost]`.
pub fn simulate_graph(groups: &[KernelGroup], m: &Machine, cpu_cost: f64) -> Timeline {
    timeline::simulate_issued(groups, m, |_| (0.0, cpu_cost))
}

/// [`simulate_graph`] with each group's parts given (`timeline::simulate_priced`).
pub fn simulate_graph_priced(
    groups: &[KernelGroup],
    parts: &[crate::model::workload::Parts],
    cpu_cost: f64,
) -> Timeline {
    timeline::simulate_issued_priced(groups, parts, |_| (0.0, cpu_cost))
}

/// `wall(2·batch) / wall(batch)` with the same remedies. 1 if the wall is zero.
pub fn double_batch_ratio(shape: &Shape, m: &Machine, remedies: Remedies) -> f64 {
    double_batch_ratio_of(&run(shape, m, remedies), shape, m)
}

/// [`double_batch_ratio`] for `base`, `shape` already run on `m`: one more run.
fn double_batch_ratio_of(base: &OverheadRun, shape: &Shape, m: &Machine) -> f64 {
    let doubled = Shape {
        batch: shape.batch.saturating_mul(2),
        ..*shape
    };
    doubling(base.wall(), run(&doubled, m, base.remedies).wall())
}

/// What the `overhead` widget shows for one state: its one model entry point
/// ([`widget`]), computed once per change.
#[derive(Clone, Debug, PartialEq)]
pub struct OverheadView {
    /// The simulated step: both lanes.
    pub run: OverheadRun,
    /// `wall(2·batch) / wall(batch)` (`double_batch_ratio`).
    pub double_batch: f64,
    /// The ratio in words, read against what limits the step
    /// ([`super::limit::doubling`]: where the quick test and the halvings part
    /// ways, why).
    pub doubling: String,
    /// What limits the step (`overhead_regime`).
    pub limit: super::limit::Limit,
    /// The flamegraph's tiny `a + b` on [`ONE_ADD_ELEMENTS`] elements.
    pub one_add: OneAdd,
    /// FLOPs the GPU could do in the time of one Python operation.
    pub python_flops: f64,
}

/// Elements in the flamegraph's tiny `a + b`.
pub const ONE_ADD_ELEMENTS: f64 = 1000.0;

/// Everything the `overhead` widget draws and publishes: the setting's step
/// issued with `remedies` (run once; the double-batch and halving runs beside
/// it), the flamegraph's one add, and Python's time against the peak.
pub fn widget(setting: &super::setting::Setting, remedies: Remedies) -> OverheadView {
    let (shape, m) = (&setting.shape, &setting.cached());
    let run = run(shape, m, remedies);
    let double_batch = double_batch_ratio_of(&run, shape, m);
    let limit = limit_of(&run, shape, m);
    OverheadView {
        doubling: super::limit::doubling(
            shape.batch.saturating_mul(2),
            double_batch,
            &limit,
            batch_free_cause(shape),
        ),
        double_batch,
        limit,
        one_add: one_add(ONE_ADD_ELEMENTS, m),
        python_flops: flops_per_python_op(setting.flops),
        run,
    }
}

/// What makes a bigger batch nearly free when the launches do not set the pace
/// (the quick test's misleading case): the MLP's weight matrix, read once for
/// the whole batch, where it is most of the step's bytes.
fn batch_free_cause(shape: &Shape) -> &'static str {
    let (b, d) = (f64::from(shape.batch), f64::from(shape.hidden));
    let ops = if shape.fused {
        1.0
    } else {
        f64::from(shape.ops.max(1))
    };
    // elements moved: the matmul's input, weights and output; the chain's passes
    let weights = d * d;
    let rest = 2.0 * b * d * (1.0 + ops);
    if shape.workload == workload::Workload::Mlp && weights > rest {
        "the weight matrix, most of its bytes, is read once for the whole batch"
    } else {
        "most of its work does not grow with the batch"
    }
}

/// The "double the batch" ratio from a step's wall time at the batch (`base`)
/// and at twice it (`twice`): 1 when there is no time to compare.
pub fn doubling(base: f64, twice: f64) -> f64 {
    if base > 0.0 {
        twice / base
    } else {
        1.0
    }
}

/// The essay's flamegraph of one eager `a + b` on a tiny tensor: the CPU's cost for
/// the op (the per-kernel overhead, split as [`DEFAULT_SPLIT`]) against the add
/// itself on the GPU (read `a` and `b`, write the sum: one FLOP and three elements
/// of traffic per element).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneAdd {
    pub cpu: CpuCost,
    /// Seconds of work the add does on the GPU: its roofline time (its arithmetic
    /// and memory traffic). The kernel still occupies the GPU for at least the
    /// machine's floor ([`Machine::floor`]), a fixed cost, not work.
    pub kernel: f64,
}

impl OneAdd {
    /// The add's share of the op's time: the "tiny box" of the flamegraph.
    pub fn compute_share(&self) -> f64 {
        let total = self.cpu.total() + self.kernel;
        if total > 0.0 && total.is_finite() {
            self.kernel / total
        } else {
            0.0
        }
    }
}

pub fn one_add(elements: f64, m: &Machine) -> OneAdd {
    let add = KernelGroup {
        gemm: None,
        cpu_ops: 0,
        latency: 0.0,
        name: "a + b",
        unit: workload::Unit::Pointwise,
        count: 1,
        flops: elements,
        bytes: 3.0 * elements * m.elem_bytes,
    };
    OneAdd {
        cpu: CpuCost::from_total(m.overhead, DEFAULT_SPLIT),
        kernel: add.roof_time(m).0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On an H100 at the explorer's defaults the step is
    /// overhead-bound while doubling the batch costs over 1.2×; the widget's
    /// sentence says why the quick test and the halvings part ways there,
    /// wherever that case occurs.
    #[test]
    fn the_doubling_sentence_is_the_limits_own() {
        use crate::model::timeline::Regime;
        let mut seen = 0;
        for id in ["h100-sxm", "a100-80gb", "h200", "l4", "v100"] {
            let mut s = crate::state::State::default();
            if let Some(p) = crate::model::hardware::preset(id) {
                s.select_preset(p);
            }
            for batch in [1, 8, 64, 256, 1024, 4096] {
                s.setting.shape.batch = batch;
                let v = widget(&s.setting, Remedies::default());
                let case = v.limit.regime == Regime::Overhead
                    && verdict(v.double_batch) != BatchVerdict::OverheadBound;
                let said = v
                    .doubling
                    .contains("the added work shows, yet the launches still set the pace");
                assert_eq!(case, said, "{id} batch {batch}: {}", v.doubling);
                // the quick test never names a regime other than the limit's
                for r in crate::model::limit::named_regimes(&v.doubling) {
                    assert_eq!(r, v.limit.regime, "{}", v.doubling);
                }
                seen += usize::from(case);
            }
        }
        // the state in question: hw=h100-sxm at the defaults
        let mut s = crate::state::State::default();
        if let Some(p) = crate::model::hardware::preset("h100-sxm") {
            s.select_preset(p);
        }
        let v = widget(&s.setting, Remedies::default());
        assert!(v.double_batch > OVERHEAD_BOUND_BELOW, "{}", v.double_batch);
        assert!(
            v.doubling.contains("yet the launches still set the pace"),
            "{}",
            v.doubling
        );
        assert!(seen > 0);
    }

    #[test]
    fn one_tiny_add_is_almost_all_overhead() {
        // 1000 fp32 elements on an A100 with PyTorch's ~3.57 µs per op: the add
        // itself is nanoseconds, a sliver of the op's time (the essay's fig. 11)
        let m = a100_fp32();
        let op = one_add(1000.0, &m);
        assert!((op.cpu.total() - 1.0 / PYTORCH_OPS_PER_S).abs() < 1e-12);
        assert!(op.kernel > 0.0 && op.kernel < 20e-9, "{op:?}");
        assert!(op.compute_share() < 0.01, "{}", op.compute_share());
        // a big add is the other way round
        assert!(one_add(1e9, &m).compute_share() > 0.99);
    }
    use crate::model::workload::Workload;

    use crate::model::a100_fp32;

    fn tiny() -> Shape {
        Shape {
            workload: Workload::Chain,
            batch: 1,
            hidden: 1024,
            ops: 8,
            fused: false,
        }
    }

    fn big() -> Shape {
        Shape {
            workload: Workload::Chain,
            batch: 16384,
            hidden: 4096,
            ops: 64,
            fused: true,
        }
    }

    #[test]
    fn essay_totals() {
        assert!((flops_per_python_op(312e12) - 9.75e6).abs() < 1e-6);
    }

    #[test]
    fn split_sums_to_total() {
        let c = CpuCost::from_total(1.0 / 280_000.0, DEFAULT_SPLIT);
        assert!((c.total() - 1.0 / 280_000.0).abs() < 1e-18);
        assert!((c.python / c.total() - 0.2).abs() < 1e-12);
        let d = CpuCost::from_total(
            2.0,
            CpuSplit {
                python: 0.0,
                dispatch: 0.0,
                launch: 0.0,
            },
        );
        assert_eq!(d.dispatch, 2.0);
        assert_eq!(CpuCost::from_total(f64::NAN, DEFAULT_SPLIT).total(), 0.0);
        let cpp = c.with(Remedies {
            cpp: true,
            ..Remedies::NONE
        });
        assert_eq!(cpp.python, 0.0);
        assert!((cpp.total() - 0.8 * c.total()).abs() < 1e-18);
    }

    #[test]
    fn tiny_eager_is_overhead_bound() {
        let m = a100_fp32();
        let r = run(&tiny(), &m, Remedies::NONE);
        assert_eq!(r.kernel_count, 8);
        // the GPU is busy only for each kernel's floor out of every launch
        let busy = 8.0 * m.floor / r.wall();
        assert!((r.gpu_util() - busy).abs() < 1e-9, "{}", r.gpu_util());
        assert!(r.gpu_util() < 0.30, "{}", r.gpu_util());
        let ratio = double_batch_ratio(&tiny(), &m, Remedies::NONE);
        assert!(ratio < 1.1, "{ratio}");
        assert_eq!(verdict(ratio), BatchVerdict::OverheadBound);
        // no remedy: same wall as the explorer's model
        let explorer = crate::model::analyse(&tiny(), &m).wall_time_s;
        assert!((r.wall() - explorer).abs() < 1e-15);
    }

    #[test]
    fn big_batch_scales_with_work() {
        let m = a100_fp32();
        let ratio = double_batch_ratio(&big(), &m, Remedies::NONE);
        assert!((ratio - 2.0).abs() < 0.01, "{ratio}");
        assert_eq!(verdict(ratio), BatchVerdict::ScalesWithWork);
        assert!(run(&big(), &m, Remedies::NONE).gpu_util() > 0.99);
    }

    #[test]
    fn each_remedy_helps_a_tiny_chain() {
        let m = a100_fp32();
        let eager = run(&tiny(), &m, Remedies::NONE).wall();
        for r in [
            Remedies {
                cuda_graphs: true,
                ..Remedies::NONE
            },
            Remedies {
                compiled: true,
                ..Remedies::NONE
            },
            Remedies {
                cpp: true,
                ..Remedies::NONE
            },
        ] {
            let w = run(&tiny(), &m, r).wall();
            assert!(w < eager, "{r:?}: {w} vs {eager}");
        }
        // graphs and compile each cut ~8 launches to 1; cpp trims 20 %
        let g = run(
            &tiny(),
            &m,
            Remedies {
                cuda_graphs: true,
                ..Remedies::NONE
            },
        );
        // the graph: one launch, then the 8 kernels back to back at the GPU's floor
        assert!((g.wall() - (m.overhead + 8.0 * m.floor)).abs() < 1e-15);
        assert!(g.wall() < eager / 2.4);
        assert!(g.gpu_util() > 2.5 * run(&tiny(), &m, Remedies::NONE).gpu_util());
        let cpp = run(
            &tiny(),
            &m,
            Remedies {
                cpp: true,
                ..Remedies::NONE
            },
        )
        .wall();
        assert!((cpp / eager - 0.8).abs() < 0.01, "{}", cpp / eager);
        let all = Remedies {
            cuda_graphs: true,
            compiled: true,
            cpp: true,
        };
        assert!(run(&tiny(), &m, all).wall() < g.wall());
    }

    #[test]
    fn remedies_barely_matter_when_compute_bound() {
        let m = a100_fp32();
        let eager = run(&big(), &m, Remedies::NONE).wall();
        let g = run(
            &big(),
            &m,
            Remedies {
                cuda_graphs: true,
                cpp: true,
                ..Remedies::NONE
            },
        )
        .wall();
        assert!((g / eager - 1.0).abs() < 0.005, "{}", g / eager);
    }

    #[test]
    fn cpu_lane_is_cut_into_parts() {
        let m = a100_fp32();
        let r = run(&tiny(), &m, Remedies::NONE);
        assert_eq!(r.cpu.len(), 24);
        assert_eq!(r.cpu[0].part, CpuPart::Python);
        assert_eq!(r.cpu[1].part, CpuPart::Dispatch);
        assert_eq!(r.cpu[2].part, CpuPart::Launch);
        assert!(r
            .cpu
            .windows(2)
            .all(|w| (w[1].start - w[0].end).abs() < 1e-15));
        assert!((r.cpu_time() - 8.0 * m.overhead).abs() < 1e-15);
        // each kernel starts on the GPU once its launch has ended
        for (k, s) in r.timeline.spans.iter().enumerate() {
            assert!((s.cpu_end - r.cpu[3 * k + 2].end).abs() < 1e-15);
            assert!(s.gpu_start >= s.cpu_end);
        }
        let cpp = run(
            &tiny(),
            &m,
            Remedies {
                cpp: true,
                ..Remedies::NONE
            },
        );
        assert_eq!(cpp.cpu.len(), 16);
        assert!(cpp.cpu.iter().all(|s| s.part != CpuPart::Python));
        let g = run(
            &tiny(),
            &m,
            Remedies {
                cuda_graphs: true,
                ..Remedies::NONE
            },
        );
        assert_eq!(g.cpu.len(), 3);
        assert_eq!(g.timeline.spans.len(), 8);
        assert!((g.cpu_time() - m.overhead).abs() < 1e-15);
    }

    #[test]
    fn graph_of_one_kernel_equals_eager() {
        let m = a100_fp32();
        let shape = Shape {
            fused: true,
            ..big()
        };
        let a = run(&shape, &m, Remedies::NONE).timeline;
        let b = run(
            &shape,
            &m,
            Remedies {
                cuda_graphs: true,
                ..Remedies::NONE
            },
        )
        .timeline;
        assert!((a.wall - b.wall).abs() <= 1e-12 * a.wall);
        assert_eq!(
            gpu_util(&Timeline {
                spans: vec![],
                wall: 0.0,
                busy_compute: 0.0,
                busy_memory: 0.0,
                busy_floor: 0.0,
                busy_comm: 0.0,
            }),
            0.0
        );
    }
}
