//! The essay's repeat microbenchmark (figure 10): `for _ in range(repeat): x = x * 2`
//! on `N` elements of `b` bytes, compiled into one fused kernel.
//!
//! The kernel reads `x` once and writes it once (`2·N·b` bytes) and does `N·r`
//! multiplies (one FLOP each, at the pointwise, non-FMA ceiling `P`). With the
//! explorer's model (one kernel, so one launch overhead `o`, then the roofline time):
//!
//! ```text
//! t(r)        = o + max(N·r / P, 2·N·b / W)
//! achieved    = N·r / t(r)              FLOP/s
//! bandwidth   = 2·N·b / t(r)            bytes/s
//! ```
//!
//! The kernel turns compute-bound where the two roofline terms meet:
//! `N·r*/P = 2·N·b/W`, so `r* = 2·b·P / W` (independent of `N`; it is the ridge
//! intensity `P/W` times the `2·b` bytes moved per element). Below `r*` the runtime
//! is flat and achieved FLOP/s grows linearly with `r`; above it the runtime grows
//! linearly and achieved bandwidth falls as `1/r`. A100 fp32: `r* = 2·4·9.75e12 /
//! 1.555e12 ≈ 50.2`, so the first power of two that is compute-bound is 64.

use super::roofline::Bound;
use super::timeline;
use super::workload::{KernelGroup, Machine, Unit};

/// The repeats the essay plots: 1, 2, 4, …, 1024.
pub const REPEATS: [u32; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// One point of the three panels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchPoint {
    pub repeat: u32,
    /// Wall time including one launch overhead, seconds.
    pub runtime: f64,
    /// `N·r / runtime`, FLOP/s.
    pub achieved_flops: f64,
    /// `2·N·b / runtime`, bytes/s.
    pub achieved_bw: f64,
    /// What bounds the kernel itself (overhead aside).
    pub bound: Bound,
}

/// Where the kernel turns compute-bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossover {
    /// `r* = 2·b·P / W`, continuous.
    pub repeat: f64,
    /// The first power of two strictly above `r*` (clamped to `2^31`).
    pub next_pow2: u32,
}

/// The fused kernel of `repeat` (at least 1) multiplies on `n` elements.
pub fn kernel(repeat: u32, n: f64, elem_bytes: f64) -> KernelGroup {
    KernelGroup {
        name: "x * 2, repeated",
        unit: Unit::Pointwise,
        count: 1,
        flops: n * f64::from(repeat.max(1)),
        bytes: 2.0 * n * elem_bytes,
    }
}

/// One point for any repeat (0 is treated as 1), elements stored as `m.elem_bytes`.
pub fn point(repeat: u32, n: f64, m: &Machine) -> BenchPoint {
    let repeat = repeat.max(1);
    let k = kernel(repeat, n, m.elem_bytes);
    let (_, bound) = k.time(m);
    let tl = timeline::simulate(std::slice::from_ref(&k), m);
    let t = tl.wall;
    let per_s = |x: f64| if t > 0.0 { x / t } else { 0.0 };
    BenchPoint {
        repeat,
        runtime: t,
        achieved_flops: per_s(k.flops),
        achieved_bw: per_s(k.bytes),
        bound,
    }
}

/// The essay's sweep over [`REPEATS`].
pub fn sweep(n: f64, m: &Machine) -> Vec<BenchPoint> {
    REPEATS.iter().map(|&r| point(r, n, m)).collect()
}

/// `r* = 2·b·P / W`: the repeat at which the kernel's compute time equals its memory
/// time, for `elem_bytes` bytes per element on `m` (pointwise ceiling `P`, bandwidth
/// `W`). Returns 0 for a non-positive or non-finite machine.
pub fn crossover_repeat(m: &Machine, elem_bytes: f64) -> f64 {
    let r = 2.0 * elem_bytes * m.pointwise_flops / m.bw;
    if r.is_finite() && r > 0.0 {
        r
    } else {
        0.0
    }
}

/// [`crossover_repeat`] and the first power of two above it.
pub fn crossover(m: &Machine, elem_bytes: f64) -> Crossover {
    let r = crossover_repeat(m, elem_bytes);
    let mut p: u32 = 1;
    while f64::from(p) <= r && p < (1 << 31) {
        p <<= 1;
    }
    Crossover {
        repeat: r,
        next_pow2: p,
    }
}

/// The essay's back-of-the-envelope for `m` in fp32: how many 4-byte numbers the
/// memory delivers per second against how many operations the general units do at
/// their FMA rate (twice the pointwise ceiling), and so how many operations each
/// element can take before compute dominates, given that a unary op reads it and
/// writes it back. On an A100: ~390 billion numbers vs 19.5 trillion ops, ~100 ops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fp32Budget {
    pub numbers_per_s: f64,
    pub ops_per_s: f64,
    pub ops_per_element: f64,
}

pub fn fp32_budget(m: &Machine) -> Fp32Budget {
    let numbers_per_s = m.bw / 4.0;
    let ops_per_s = 2.0 * m.pointwise_flops;
    let ops_per_element = 2.0 * ops_per_s / numbers_per_s;
    Fp32Budget {
        numbers_per_s,
        ops_per_s,
        ops_per_element: if ops_per_element.is_finite() {
            ops_per_element
        } else {
            0.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::a100_fp32;

    const N: f64 = 65536.0 * 4096.0;

    #[test]
    fn crossover_is_about_50() {
        let m = a100_fp32();
        assert_eq!(m.pointwise_flops, 9.75e12);
        let c = crossover(&m, 4.0);
        assert!((c.repeat - 50.16).abs() < 0.01, "{}", c.repeat);
        assert!(32.0 < c.repeat && c.repeat < 64.0);
        assert_eq!(c.next_pow2, 64);
        assert_eq!(point(32, N, &m).bound, Bound::Memory);
        assert_eq!(point(64, N, &m).bound, Bound::Compute);
        // just either side of r*
        assert_eq!(point(50, N, &m).bound, Bound::Memory);
        assert_eq!(point(51, N, &m).bound, Bound::Compute);
    }

    #[test]
    fn about_0_19_tflops_at_one_repeat() {
        let p = point(1, N, &a100_fp32());
        assert!(
            (0.185e12..0.2e12).contains(&p.achieved_flops),
            "{}",
            p.achieved_flops
        );
        assert!(p.achieved_bw > 0.99 * 1.555e12);
    }

    #[test]
    fn runtime_flat_until_32_then_linear() {
        let pts = sweep(N, &a100_fp32());
        assert_eq!(pts.len(), 11);
        let t1 = pts[0].runtime;
        for p in pts.iter().filter(|p| p.repeat <= 32) {
            assert!((p.runtime / t1 - 1.0).abs() < 0.01, "{}", p.repeat);
        }
        // compute-bound: doubling r doubles runtime (to within the overhead)
        let t512 = pts[9].runtime;
        let t1024 = pts[10].runtime;
        assert!((t1024 / t512 - 2.0).abs() < 0.01);
        // achieved FLOP/s approaches the 9.75 TFLOP/s peak
        assert!(pts[10].achieved_flops > 0.99 * 9.75e12);
        assert!(pts[10].achieved_flops <= 9.75e12);
    }

    #[test]
    fn achieved_bandwidth_falls_beyond_64() {
        let pts = sweep(N, &a100_fp32());
        let bw = |r: u32| {
            pts.iter()
                .find(|p| p.repeat == r)
                .map_or(f64::NAN, |p| p.achieved_bw)
        };
        assert!(bw(64) < bw(32));
        assert!(bw(128) < 0.55 * bw(64) + 1.0);
        assert!(bw(1024) < bw(512));
        // and achieved FLOP/s only grows
        assert!(pts
            .windows(2)
            .all(|w| w[1].achieved_flops >= w[0].achieved_flops));
    }

    #[test]
    fn crossover_scales_with_bytes_and_ignores_n() {
        let m = a100_fp32();
        assert!((crossover_repeat(&m, 2.0) * 2.0 - crossover_repeat(&m, 4.0)).abs() < 1e-9);
        let bad = Machine { bw: 0.0, ..m };
        assert_eq!(crossover_repeat(&bad, 4.0), 0.0);
        assert_eq!(crossover(&bad, 4.0).next_pow2, 1);
        // r* does not depend on N: the bound flips between the same repeats
        for n in [1e6, 1e8, 1e9] {
            assert_eq!(point(50, n, &m).bound, Bound::Memory);
            assert_eq!(point(51, n, &m).bound, Bound::Compute);
        }
    }

    #[test]
    fn repeat_zero_is_one() {
        let m = a100_fp32();
        assert_eq!(point(0, N, &m), point(1, N, &m));
    }
}
