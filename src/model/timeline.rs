//! Overhead: the CPU issues kernels, the GPU runs them, asynchronously.
//!
//! The CPU spends `overhead` seconds to issue each kernel, one after another: kernel
//! `i` is ready at `(i + 1) · overhead` (each op dispatched with a kernel that
//! launches none, [`KernelGroup::cpu_ops`], adds one more `overhead`). The GPU starts kernel `i` at
//! `max(ready_i, end_{i-1})` and runs it for its roofline time. The step's wall time
//! is when the last kernel ends. While kernels are long the CPU runs ahead and
//! overhead hides; while they are short the GPU waits for the CPU.
//!
//! A kernel runs for `max(roofline time, floor)`: the part above its roofline time
//! is the GPU's fixed cost per kernel ([`Machine::floor`]).
//!
//! Time shares of the wall time `T` (they sum to 1):
//! - compute  = Σ roofline time of compute-bound kernels / T
//! - memory   = Σ roofline time of memory-bound kernels / T
//! - overhead = (GPU idle time + time kernels spend at their floor) / T
//!   = 1 − compute − memory: the fixed costs per kernel, CPU side and GPU side.
//!
//! The largest share says where the time goes; what *limits* the step is decided
//! by counterfactuals ([`super::limit`]), not by the largest share.

use super::roofline::Bound;
use super::workload::{KernelGroup, Machine, Parts, Unit};
use serde::{Deserialize, Serialize};

/// The whole step as the roofline draws it (a cross): its FLOPs per byte, the
/// FLOP/s it reaches over its wall time (overhead included), and its regime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoofStep {
    pub intensity: f64,
    pub flops: f64,
    /// Wall time, seconds.
    pub time: f64,
    pub regime: Regime,
}

/// The link between GPUs as a roof: FLOP/s ≤ link bandwidth × FLOPs per byte
/// over the link; the step's point sits at its own FLOPs per link byte.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRoof {
    /// Bytes/s per GPU per direction.
    pub bw: f64,
    /// The step's FLOPs per byte one GPU sends over the link.
    pub intensity: f64,
    /// The step's FLOP/s.
    pub flops: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Regime {
    Compute,
    Memory,
    Overhead,
    /// Bytes moved between GPUs: collectives over the link.
    Communication,
}

impl Regime {
    /// The word used in `data-value` and URLs.
    pub fn id(self) -> &'static str {
        match self {
            Regime::Compute => "compute",
            Regime::Memory => "memory",
            Regime::Overhead => "overhead",
            Regime::Communication => "communication",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Regime::Compute => "compute-bound",
            Regime::Memory => "memory-bandwidth-bound",
            Regime::Overhead => "overhead-bound",
            Regime::Communication => "communication-bound",
        }
    }
}

/// One kernel on the two lanes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// Index into the kernel groups.
    pub group: usize,
    pub cpu_start: f64,
    pub cpu_end: f64,
    pub gpu_start: f64,
    pub gpu_end: f64,
    pub bound: Bound,
}

/// Shares of wall time; always sum to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shares {
    pub compute: f64,
    pub memory: f64,
    pub overhead: f64,
    /// Collectives between GPUs (0 on one GPU).
    pub comm: f64,
}

impl Shares {
    /// Shares of one GPU's step, with nothing moved between GPUs.
    pub fn three(compute: f64, memory: f64, overhead: f64) -> Shares {
        Shares {
            compute,
            memory,
            overhead,
            comm: 0.0,
        }
    }

    /// The regime with the largest share (ties: compute, then memory, then
    /// overhead). Where the time goes, not what limits the step: see
    /// [`super::limit`].
    pub fn largest(&self) -> Regime {
        [
            (Regime::Compute, self.compute),
            (Regime::Memory, self.memory),
            (Regime::Overhead, self.overhead),
            (Regime::Communication, self.comm),
        ]
        .into_iter()
        .fold(
            (Regime::Compute, f64::MIN),
            |b, x| if x.1 > b.1 { x } else { b },
        )
        .0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Timeline {
    pub spans: Vec<Span>,
    pub wall: f64,
    /// Roofline time of the compute-bound and memory-bound kernels.
    pub busy_compute: f64,
    pub busy_memory: f64,
    /// GPU time kernels spent above their roofline time, at the kernel floor.
    pub busy_floor: f64,
    /// Time the step waits on collectives between GPUs: all of it when they run
    /// in line with the kernels, the part not hidden behind them when overlapped.
    pub busy_comm: f64,
}

impl Timeline {
    /// GPU time with no kernel running.
    pub fn idle(&self) -> f64 {
        (self.wall - self.busy_compute - self.busy_memory - self.busy_floor).max(0.0)
    }
    /// GPU time with a kernel running (what `nvidia-smi` counts as busy).
    pub fn busy(&self) -> f64 {
        self.busy_compute + self.busy_memory + self.busy_floor
    }
    /// The overhead part of the wall time: idle + kernel floors.
    pub fn overhead(&self) -> f64 {
        (self.wall - self.busy_compute - self.busy_memory - self.busy_comm).max(0.0)
    }

    pub fn shares(&self) -> Shares {
        if self.wall.is_nan() || self.wall <= 0.0 {
            return Shares::three(0.0, 0.0, 1.0);
        }
        let compute = (self.busy_compute / self.wall).clamp(0.0, 1.0);
        let memory = (self.busy_memory / self.wall).clamp(0.0, 1.0 - compute);
        let comm = (self.busy_comm / self.wall).clamp(0.0, 1.0 - compute - memory);
        Shares {
            compute,
            memory,
            overhead: (1.0 - compute - memory - comm).max(0.0),
            comm,
        }
    }
}

/// Simulate the CPU issuing and the GPU running `groups` in order.
pub fn simulate(groups: &[KernelGroup], m: &Machine) -> Timeline {
    simulate_priced(groups, &priced(groups, m), m)
}

/// Each group's [`Parts`] on `m`, in order (what the simulations price each
/// group by).
pub fn priced(groups: &[KernelGroup], m: &Machine) -> Vec<Parts> {
    groups.iter().map(|g| g.parts(m)).collect()
}

/// [`simulate`] with each group's parts on `m` given (`parts[i]` is
/// `groups[i].parts(m)`): a step that repeats its layer prices each distinct
/// kernel once (`llm::step`'s layout) and gets the same timeline, bit for bit.
pub fn simulate_priced(groups: &[KernelGroup], parts: &[Parts], m: &Machine) -> Timeline {
    // the CPU cost of each kernel in launch order: its own dispatch and the
    // kernel-less ops dispatched with it
    let costs: Vec<f64> = groups
        .iter()
        .flat_map(|g| std::iter::repeat_n(m.overhead * g.dispatches(), g.count as usize))
        .collect();
    let mut cpu = 0.0f64;
    simulate_issued_priced(groups, parts, move |i| {
        let start = cpu;
        cpu += costs.get(i).copied().unwrap_or(m.overhead);
        (start, cpu)
    })
}

/// The GPU side of the simulation, for any issue schedule: `issue(i)` gives the
/// CPU interval in which kernel `i` (launch order) is handed over; the GPU starts it
/// at `max(handed over, previous done)`. Used by [`simulate`] (one overhead per
/// kernel) and by `overhead::simulate_graph` (one launch for the whole step).
pub fn simulate_issued(
    groups: &[KernelGroup],
    m: &Machine,
    issue: impl FnMut(usize) -> (f64, f64),
) -> Timeline {
    simulate_issued_priced(groups, &priced(groups, m), issue)
}

/// [`simulate_issued`] with each group's parts given, as [`simulate_priced`].
pub fn simulate_issued_priced(
    groups: &[KernelGroup],
    parts: &[Parts],
    mut issue: impl FnMut(usize) -> (f64, f64),
) -> Timeline {
    debug_assert_eq!(groups.len(), parts.len());
    let total: usize = groups.iter().map(|g| g.count as usize).sum();
    let mut spans = Vec::with_capacity(total);
    let mut lanes = Lanes::default();
    for (gi, (g, parts)) in groups.iter().zip(parts).enumerate() {
        for _ in 0..g.count {
            let (cpu_start, cpu_end) = issue(spans.len());
            let (gpu_start, gpu_end) = lanes.run(g.unit, parts, cpu_end);
            spans.push(Span {
                group: gi,
                cpu_start,
                cpu_end,
                gpu_start,
                gpu_end,
                bound: parts.bound,
            });
        }
    }
    lanes.finish(spans)
}

/// The GPU's two lanes while kernels are handed over: the kernels' own and the
/// link's (overlapped collectives run there, beside the kernels), with the busy
/// time of each kind. [`simulate_issued`] drives it kernel by kernel and keeps
/// the spans; [`WallOnly`] drives it the same way and keeps only the wall
/// time: one arithmetic, so the two agree bit for bit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lanes {
    gpu: f64,
    link: f64,
    busy_compute: f64,
    busy_memory: f64,
    busy_floor: f64,
    busy_comm: f64,
}

impl Lanes {
    /// One kernel of `unit` (its `parts` on the machine) handed over at
    /// `cpu_end`: when the GPU starts and ends it.
    pub fn run(&mut self, unit: Unit, parts: &Parts, cpu_end: f64) -> (f64, f64) {
        let Parts {
            roof,
            bound,
            total: t,
        } = *parts;
        match unit {
            // its input is ready once the kernel before it is done
            Unit::Collective { overlapped: true } => {
                let start = cpu_end.max(self.gpu).max(self.link);
                self.link = start + t;
                (start, self.link)
            }
            Unit::Collective { overlapped: false } => {
                let start = cpu_end.max(self.gpu).max(self.link);
                self.gpu = start + t;
                self.busy_comm += t;
                (start, self.gpu)
            }
            _ => {
                let start = cpu_end.max(self.gpu);
                self.gpu = start + t;
                match bound {
                    Bound::Compute => self.busy_compute += roof,
                    Bound::Memory => self.busy_memory += roof,
                }
                self.busy_floor += t - roof;
                (start, self.gpu)
            }
        }
    }

    /// When the last kernel or collective ends.
    pub fn wall(&self) -> f64 {
        self.gpu.max(self.link)
    }

    /// The timeline of the kernels run, with their `spans`.
    pub fn finish(self, spans: Vec<Span>) -> Timeline {
        // what the kernels could not hide of the overlapped collectives
        let wall = self.wall();
        Timeline {
            spans,
            wall,
            busy_compute: self.busy_compute,
            busy_memory: self.busy_memory,
            busy_floor: self.busy_floor,
            busy_comm: self.busy_comm + (wall - self.gpu),
        }
    }
}

/// The wall time of [`simulate`] (one dispatch after the other), or of a CUDA
/// graph's replay where `graph` (`overhead::simulate_graph` with the machine's
/// overhead as its one launch: every kernel handed over when it is done), for
/// kernels given with their parts already priced; bit for bit, no spans kept.
pub fn wall_only<'a>(
    kernels: impl IntoIterator<Item = (&'a KernelGroup, &'a Parts)>,
    m: &Machine,
    graph: bool,
) -> f64 {
    lanes_only(kernels, m, graph).wall
}

/// [`wall_only`]'s timeline: the wall and busy times (so the shares) of the
/// same schedules, bit for bit, without spans ([`WallOnly::finish`]).
pub fn lanes_only<'a>(
    kernels: impl IntoIterator<Item = (&'a KernelGroup, &'a Parts)>,
    m: &Machine,
    graph: bool,
) -> Timeline {
    let mut w = WallOnly::new(m, graph);
    for (g, parts) in kernels {
        w.push(g, parts);
    }
    w.finish()
}

/// [`wall_only`] driven one group at a time, for callers that walk their
/// kernels with their own loops (a step's layout: its layer repeated, which a
/// chained iterator walks several times slower than the arithmetic it feeds).
/// The same arithmetic in the same order as [`simulate_issued`] under
/// [`simulate`]'s and a graph's schedules, so the same bits.
#[derive(Clone, Copy, Debug)]
pub struct WallOnly {
    lanes: Lanes,
    cpu: f64,
    overhead: f64,
    graph: bool,
}

impl WallOnly {
    pub fn new(m: &Machine, graph: bool) -> Self {
        WallOnly {
            lanes: Lanes::default(),
            cpu: 0.0,
            overhead: m.overhead,
            graph,
        }
    }

    /// Hands over and runs the `g.count` kernels of `g`, priced as `parts`.
    #[inline]
    pub fn push(&mut self, g: &KernelGroup, parts: &Parts) {
        for _ in 0..g.count {
            let cpu_end = if self.graph {
                self.overhead
            } else {
                self.cpu += self.overhead * g.dispatches();
                self.cpu
            };
            self.lanes.run(g.unit, parts, cpu_end);
        }
    }

    /// When the last kernel or collective ends.
    pub fn wall(&self) -> f64 {
        self.lanes.wall()
    }

    /// The timeline without its spans: the wall time and busy times (so the
    /// shares) [`simulate_issued`] gives, bit for bit.
    pub fn finish(self) -> Timeline {
        self.lanes.finish(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::workload::Unit;

    fn machine(overhead: f64) -> Machine {
        Machine {
            matmul_flops: 1e12,
            pointwise_flops: 1e12,
            bw: 1e12,
            overhead,
            elem_bytes: 4.0,
            floor: 0.0,
            gemm: None,
            l2: None,
        }
    }

    fn group(count: u32, flops: f64, bytes: f64) -> KernelGroup {
        KernelGroup {
            gemm: None,
            cpu_ops: 0,
            latency: 0.0,
            name: "k",
            unit: Unit::Pointwise,
            count,
            flops,
            bytes,
        }
    }

    #[test]
    fn big_kernels_hide_overhead() {
        // 3 kernels of 1 ms, overhead 1 us: wall = 1 us + 3 ms.
        let t = simulate(&[group(3, 1e9, 1.0)], &machine(1e-6));
        assert!((t.wall - (1e-6 + 3e-3)).abs() < 1e-12);
        assert_eq!(t.shares().largest(), Regime::Compute);
        assert_eq!(t.spans.len(), 3);
        // the CPU ran ahead: the third kernel was issued long before it started
        assert!(t.spans[2].cpu_end < t.spans[2].gpu_start);
    }

    #[test]
    fn tiny_kernels_leave_gpu_idle() {
        // 10 kernels of 1 ns each, overhead 1 us: wall = 10 us + 1 ns.
        let t = simulate(&[group(10, 1.0, 1000.0)], &machine(1e-6));
        assert!((t.wall - (10e-6 + 1e-9)).abs() < 1e-15);
        let s = t.shares();
        assert!(s.overhead > 0.99);
        assert_eq!(s.largest(), Regime::Overhead);
        assert!((s.compute + s.memory + s.overhead - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_floor_is_fixed_cost_and_views_cost_cpu_time() {
        // 10 kernels of 1 ns on a GPU whose least kernel takes 1 µs, launched from a
        // CUDA-graph-like schedule (all handed over at 0): 10 µs, all of it floor
        let m = Machine {
            floor: 1e-6,
            ..machine(0.0)
        };
        let t = simulate_issued(&[group(10, 1.0, 1000.0)], &m, |_| (0.0, 0.0));
        assert!((t.wall - 10e-6).abs() < 1e-15);
        assert!((t.busy_floor - (10e-6 - 10e-9)).abs() < 1e-15);
        assert!(t.idle() < 1e-18, "{}", t.idle());
        assert!((t.busy() - t.wall).abs() < 1e-15);
        let s = t.shares();
        assert!(s.overhead > 0.99 && (s.compute + s.memory + s.overhead - 1.0).abs() < 1e-12);
        // two views before each kernel: three ops' CPU time per kernel
        let views = KernelGroup {
            cpu_ops: 2,
            ..group(4, 1.0, 1000.0)
        };
        let t = simulate(&[views], &machine(1e-6));
        assert!(
            (t.spans[3].cpu_end - 12e-6).abs() < 1e-15,
            "{}",
            t.spans[3].cpu_end
        );
    }
}
