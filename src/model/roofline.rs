//! The roofline: what a kernel of a given arithmetic intensity can attain.
//!
//! For a kernel doing `F` FLOPs and moving `B` bytes of DRAM traffic on a machine
//! with compute ceiling `P` (FLOP/s) and bandwidth `W` (bytes/s):
//!
//! ```text
//! intensity I = F / B                       (FLOP/byte)
//! time      t = max(F / P, B / W)           (whichever unit is the bottleneck)
//! attained    = F / t = min(P, W * I)       (the roof)
//! ridge    I* = P / W                       (below: memory-bound, above: compute-bound)
//! ```

use serde::{Deserialize, Serialize};

/// Which resource limits a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Bound {
    Compute,
    Memory,
}

impl Bound {
    /// `compute` or `memory`.
    pub fn id(self) -> &'static str {
        match self {
            Bound::Compute => "compute",
            Bound::Memory => "memory",
        }
    }
}

/// `t` raised to the kernel floor (a NaN or negative floor is ignored).
pub fn floored(t: f64, floor: f64) -> f64 {
    if floor > t {
        floor
    } else {
        t
    }
}

/// Time of one kernel and what bounds it. Compute wins only when strictly slower.
pub fn kernel_time(flops: f64, bytes: f64, ceiling: f64, bw: f64) -> (f64, Bound) {
    let tc = flops / ceiling;
    let tm = bytes / bw;
    if tc > tm {
        (tc, Bound::Compute)
    } else {
        (tm, Bound::Memory)
    }
}

/// Attainable FLOP/s at arithmetic intensity `i` (FLOP/byte).
pub fn attainable(i: f64, ceiling: f64, bw: f64) -> f64 {
    (bw * i).min(ceiling)
}

/// Ridge point: the intensity where the memory roof meets the compute roof.
pub fn ridge(ceiling: f64, bw: f64) -> f64 {
    ceiling / bw
}

/// A TPU v5e as the JAX scaling book ("How to Scale Your Model", roofline chapter)
/// gives it: 1.97e14 bf16 FLOP/s over 8.2e11 B/s of HBM, a ridge of about 240
/// FLOP/byte (the book's H100 figure, about 295, is the H100 preset's ridge).
pub const TPU_V5E: (f64, f64) = (1.97e14, 8.2e11);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jax_book_ridges_are_240_and_295() {
        let tpu = ridge(TPU_V5E.0, TPU_V5E.1);
        assert!((tpu - 240.0).abs() < 1.0, "{tpu}");
        let h100 = crate::model::hardware::preset("h100-sxm")
            .map(|h| ridge(h.bf16.unwrap_or(0.0), h.mem_bw));
        assert!(h100.is_some_and(|x| (x - 295.0).abs() < 1.0), "{h100:?}");
    }

    #[test]
    fn roof_shape() {
        let (p, w) = (312e12, 1.555e12);
        assert!((ridge(p, w) - 200.64).abs() < 0.01);
        assert_eq!(attainable(1.0, p, w), w);
        assert_eq!(attainable(1e6, p, w), p);
        let (t, b) = kernel_time(1e9, 1e9, p, w);
        assert_eq!(b, Bound::Memory);
        assert!((t - 1e9 / w).abs() < 1e-15);
        assert_eq!(kernel_time(1e15, 1.0, p, w).1, Bound::Compute);
    }
}
