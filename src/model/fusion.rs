//! The fusion counter: a chain of `n` pointwise ops (`x.cos().cos()` is `n = 2`) on
//! `N` elements of `b` bytes, run eagerly or fused.
//!
//! Global-memory accesses per element:
//! - eager: every op reads its input from DRAM and writes its output back: `2·n`;
//! - fused: one kernel reads `x` once and writes the result once: `2`.
//!
//! Bytes = accesses per element · `N` · `b`. Time comes from the explorer's model:
//! the kernels are [`ops::pointwise_chain`] (the same shapes as
//! `workload::kernels` for the `chain` workload: 1 FLOP per element per op at the
//! pointwise ceiling) run through [`timeline::simulate`], so each kernel pays the
//! machine's launch overhead exactly as in the explorer. For a memory-bound chain
//! the speedup of fusion tends to `n` (`2·n·N·b / W` against `2·N·b / W`); for tiny
//! tensors the `n` launches dominate and the speedup tends to `n` as well, but for a
//! different reason (fewer launches).

use super::limit;
use super::ops;
use super::timeline::{self, Regime};
use super::workload::Machine;

/// Eager versus fused for one chain.
#[derive(Clone, Debug, PartialEq)]
pub struct FusionComparison {
    pub ops: u32,
    pub elements: f64,
    pub elem_bytes: f64,
    /// DRAM reads + writes per element.
    pub eager_accesses: u32,
    pub fused_accesses: u32,
    pub eager_bytes: f64,
    pub fused_bytes: f64,
    pub eager_kernels: u32,
    pub fused_kernels: u32,
    /// Wall time, seconds, launch overhead included.
    pub eager_time: f64,
    pub fused_time: f64,
    pub eager_regime: Regime,
    pub fused_regime: Regime,
}

/// `slow / fast`, or 1 when `fast` is not a positive time.
fn speedup(slow: f64, fast: f64) -> f64 {
    if fast > 0.0 {
        slow / fast
    } else {
        1.0
    }
}

impl FusionComparison {
    /// `eager_time / fused_time`.
    pub fn speedup(&self) -> f64 {
        speedup(self.eager_time, self.fused_time)
    }
}

/// DRAM accesses per element of a chain of `ops` (at least 1) pointwise ops.
pub fn accesses_per_element(ops: u32, fused: bool) -> u32 {
    if fused {
        2
    } else {
        ops.max(1).saturating_mul(2)
    }
}

/// Compare eager and fused for `ops` ops on `elements` elements, stored with
/// `m.elem_bytes` bytes each.
pub fn compare(ops: u32, elements: f64, m: &Machine) -> FusionComparison {
    let ops = ops.max(1);
    let b = m.elem_bytes;
    let eager_k = ops::pointwise_chain(ops, elements, b, false);
    let fused_k = ops::pointwise_chain(ops, elements, b, true);
    let eager = timeline::simulate(&eager_k, m);
    let fused = timeline::simulate(&fused_k, m);
    let ea = accesses_per_element(ops, false);
    let fa = accesses_per_element(ops, true);
    FusionComparison {
        ops,
        elements,
        elem_bytes: b,
        eager_accesses: ea,
        fused_accesses: fa,
        eager_bytes: f64::from(ea) * elements * b,
        fused_bytes: f64::from(fa) * elements * b,
        eager_kernels: ops,
        fused_kernels: 1,
        eager_regime: limit::of_groups(&eager_k, m, &eager).regime,
        fused_regime: limit::of_groups(&fused_k, m, &fused).regime,
        eager_time: eager.wall,
        fused_time: fused.wall,
    }
}

/// The chain as code: `x.cos()`, `x.cos().cos()`, … up to four ops, then
/// `x.cos().cos() … (n ops)`.
pub fn chain_code(ops: u32) -> String {
    match ops.max(1) {
        n @ 1..=4 => format!("x{}", ".cos()".repeat(n as usize)),
        n => format!("x.cos().cos() … ({n} ops)"),
    }
}

impl FusionComparison {
    /// The note under the speedup where the fused chain is not memory-bound:
    /// what a larger tensor would show, for this chain's op count.
    pub fn note(&self) -> Option<String> {
        if self.fused_regime == Regime::Memory {
            return None;
        }
        let head = "This tensor is small enough that launch overhead matters too";
        Some(if self.ops <= 1 {
            format!("{head}; a single op has nothing to fuse. ")
        } else {
            format!(
                "{head}; raise the batch or hidden size to see the pure memory-bound {}× of {} ({} accesses per element down to {}). ",
                self.ops,
                chain_code(self.ops),
                self.eager_accesses,
                self.fused_accesses
            )
        })
    }
}

/// What the `fusion` widget shows for one state: its one model entry point
/// ([`widget`]), computed once per change.
#[derive(Clone, Debug, PartialEq)]
pub struct FusionView {
    /// The chain eager and fused (`fusion_speedup`).
    pub compare: FusionComparison,
    /// Training it: save or recompute (`remat_speedup`).
    pub remat: Remat,
}

/// Everything the `fusion` widget draws and publishes: a chain of `ops` ops on
/// `elements` elements, eager against fused and saved against recomputed.
pub fn widget(ops: u32, elements: f64, m: &Machine) -> FusionView {
    FusionView {
        compare: compare(ops, elements, m),
        remat: remat(ops, elements, m),
    }
}

/// Training the same chain (forward and backward, each one fused kernel): save the
/// `n − 1` intermediates for the backward pass, or recompute them there from `x`
/// (rematerialisation). Per element, with `b` bytes each:
/// - save: forward reads `x`, writes `y` and the `n − 1` intermediates (`n + 1`);
///   backward reads the incoming gradient and the `n` op inputs (`x` and the
///   intermediates) and writes the gradient of `x` (`n + 2`); `n − 1` extra tensors
///   stay in memory between the passes;
/// - recompute: forward reads `x`, writes `y` (2); backward reads the gradient and
///   `x`, recomputes the chain in registers and writes the gradient (3); nothing
///   extra is kept, at the price of `n` more FLOPs per element.
///
/// The backward pass counts 2 FLOPs per op per element (the derivative and the
/// chain rule). Time comes from [`timeline::simulate`], launches included.
#[derive(Clone, Debug, PartialEq)]
pub struct Remat {
    pub save_bytes: f64,
    pub remat_bytes: f64,
    /// Extra memory held between the passes by the save strategy, bytes.
    pub saved_memory: f64,
    pub save_time: f64,
    pub remat_time: f64,
}

impl Remat {
    /// `save_time / remat_time`.
    pub fn speedup(&self) -> f64 {
        speedup(self.save_time, self.remat_time)
    }
}

impl Remat {
    /// The remat sentence in three parts: the text before the speedup readout,
    /// the readout's text, and the text after it. Where both strategies print
    /// the same time (one op: nothing to save), it says so instead of "X
    /// instead of X: 1× faster".
    pub fn words(&self) -> (String, String, String) {
        let si = super::units::si;
        let (save, remat) = (si(self.save_time, "s"), si(self.remat_time, "s"));
        let lead = "Training this chain (forward and backward, each fused): ";
        if self.saved_memory <= 0.0 {
            return (
                format!(
                    "{lead}a single op has no intermediate to save, so both ways move {} and take {}: recomputing is ",
                    si(self.save_bytes, "B"),
                    save
                ),
                "no faster".to_string(),
                ".".to_string(),
            );
        }
        let head = format!(
            "{lead}saving its intermediates for the backward pass moves {} and holds {} more memory; recomputing them in the backward kernel moves {}, holds nothing extra and ",
            si(self.save_bytes, "B"),
            si(self.saved_memory, "B"),
            si(self.remat_bytes, "B"),
        );
        let sp = self.speedup();
        let (x, y) = super::limit::two_speedups(sp.max(1.0 / sp), 1.0);
        let (time, readout) = if save == remat || x == y {
            (
                format!("takes the same time, {remat}: "),
                "no faster".to_string(),
            )
        } else if sp > 1.0 {
            (
                format!("takes {remat} instead of {save}: "),
                format!("{}× faster", super::units::sig3(sp)),
            )
        } else {
            (
                format!("takes {remat} instead of {save}: "),
                format!("{}× slower", super::units::sig3(1.0 / sp)),
            )
        };
        (head + &time, readout, " (rematerialisation).".to_string())
    }
}

pub fn remat(ops: u32, elements: f64, m: &Machine) -> Remat {
    use super::workload::{KernelGroup, Unit};
    let n = f64::from(ops.max(1));
    let b = m.elem_bytes;
    let kernel = |name, flops_per_elem: f64, accesses: f64| KernelGroup {
        gemm: None,
        cpu_ops: 0,
        latency: 0.0,
        name,
        unit: Unit::Pointwise,
        count: 1,
        flops: flops_per_elem * elements,
        bytes: accesses * elements * b,
    };
    let save = [
        kernel("forward, saving", n, n + 1.0),
        kernel("backward, reloading", 2.0 * n, n + 2.0),
    ];
    let recompute = [
        kernel("forward", n, 2.0),
        kernel("backward, recomputing", 3.0 * n, 3.0),
    ];
    let bytes = |k: &[KernelGroup]| k.iter().map(|g| g.bytes).sum::<f64>();
    Remat {
        save_bytes: bytes(&save),
        remat_bytes: bytes(&recompute),
        saved_memory: (n - 1.0) * elements * b,
        save_time: timeline::simulate(&save, m).wall,
        remat_time: timeline::simulate(&recompute, m).wall,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::analyse;
    use crate::model::workload::{self, Shape, Workload};

    use crate::model::a100_fp32;

    const BIG: f64 = 65536.0 * 4096.0; // 1 GiB of fp32

    #[test]
    fn recomputing_beats_saving_while_memory_bound() {
        let m = a100_fp32();
        // one op: nothing to save, the two strategies are the same traffic
        let one = remat(1, BIG, &m);
        assert_eq!(one.save_bytes, one.remat_bytes);
        assert_eq!(one.saved_memory, 0.0);
        // x.cos().cos(): 7 against 5 accesses per element, one tensor less in memory
        let two = remat(2, BIG, &m);
        assert_eq!(two.save_bytes, 7.0 * BIG * 4.0);
        assert_eq!(two.remat_bytes, 5.0 * BIG * 4.0);
        assert_eq!(two.saved_memory, BIG * 4.0);
        assert!((two.speedup() - 1.4).abs() < 0.02, "{}", two.speedup());
        // longer chains: the gap grows while the recompute stays memory-bound
        let eight = remat(8, BIG, &m);
        assert!(eight.speedup() > 3.0, "{}", eight.speedup());
        // a very long chain makes the recompute compute-bound, but saving means
        // moving a tensor per op, which costs more still
        let long = remat(1000, BIG, &m);
        assert!(long.speedup() > 1.0, "{}", long.speedup());
    }

    #[test]
    fn cos_cos_accesses() {
        assert_eq!(accesses_per_element(2, false), 4);
        assert_eq!(accesses_per_element(2, true), 2);
        assert_eq!(accesses_per_element(0, false), 2);
        let c = compare(2, 1000.0, &a100_fp32());
        assert_eq!(c.eager_bytes, 4.0 * 1000.0 * 4.0);
        assert_eq!(c.fused_bytes, 2.0 * 1000.0 * 4.0);
        assert_eq!((c.eager_kernels, c.fused_kernels), (2, 1));
    }

    #[test]
    fn fusing_cos_cos_on_a_big_tensor_is_2x() {
        let c = compare(2, BIG, &a100_fp32());
        assert!((c.speedup() / 2.0 - 1.0).abs() < 0.01, "{}", c.speedup());
        assert_eq!(c.eager_regime, Regime::Memory);
        assert_eq!(c.fused_regime, Regime::Memory);
    }

    #[test]
    fn fused_cos_cos_costs_what_cos_costs() {
        let m = a100_fp32();
        let one = compare(1, BIG, &m).fused_time;
        let two = compare(2, BIG, &m).fused_time;
        assert!((two / one - 1.0).abs() < 0.01, "{}", two / one);
    }

    #[test]
    fn agrees_with_the_explorer() {
        let m = a100_fp32();
        for fused in [false, true] {
            let shape = Shape {
                workload: Workload::Chain,
                batch: 65536,
                hidden: 4096,
                ops: 5,
                fused,
            };
            let r = analyse(&shape, &m);
            let c = compare(5, BIG, &m);
            let t = if fused { c.fused_time } else { c.eager_time };
            assert!(
                (t - r.wall_time_s).abs() <= 1e-12 * t,
                "{t} {}",
                r.wall_time_s
            );
            let groups = workload::kernels(&shape, m.elem_bytes);
            assert_eq!(groups, ops::pointwise_chain(5, BIG, m.elem_bytes, fused));
        }
    }

    #[test]
    fn speedup_grows_with_chain_length() {
        let m = a100_fp32();
        let s4 = compare(4, BIG, &m).speedup();
        let s8 = compare(8, BIG, &m).speedup();
        assert!(s8 > s4 && s4 > 3.9, "{s4} {s8}");
    }
}
