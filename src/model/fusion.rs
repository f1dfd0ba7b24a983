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

impl FusionComparison {
    /// `eager_time / fused_time`.
    pub fn speedup(&self) -> f64 {
        if self.fused_time > 0.0 {
            self.eager_time / self.fused_time
        } else {
            1.0
        }
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
    let eager = timeline::simulate(&ops::pointwise_chain(ops, elements, b, false), m);
    let fused = timeline::simulate(&ops::pointwise_chain(ops, elements, b, true), m);
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
        eager_regime: eager.shares().regime(),
        fused_regime: fused.shares().regime(),
        eager_time: eager.wall,
        fused_time: fused.wall,
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
