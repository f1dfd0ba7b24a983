//! The CPU reference: the input every kernel reads, the same op chains computed in
//! Rust, and the tolerances a GPU result must meet.
//!
//! # Tolerances, next to the WGSL precision rules
//!
//! WGSL (§ "Floating Point Accuracy") makes `x * y` correctly rounded in f32 and
//! f16, lets an implementation flush subnormals to zero, and bounds `cos` by an
//! absolute error of 2⁻¹¹ (f32) or 2⁻⁷ (f16) on [−π, π]. Our inputs are ±[0.5, 1),
//! so no chain ever meets a subnormal, an overflow or an argument outside [−π, π].
//!
//! - **copy**: bit-exact.
//! - **mul**: each multiply is correctly rounded, but a compiler may reassociate
//!   the chain (`v·m·m` as `v·(m·m)`), keep f16 values in f32 registers, or both;
//!   real drivers do (NVIDIA's Vulkan driver on an H200, 2026-11-26: f16 ×256 gave
//!   −0.7607 where rounding after every multiply gives −0.7158 and the exact
//!   product −0.7585). So the reference is the exact product `x·mʳ` (in f64,
//!   rounded once to the kernel's precision), and the tolerance covers every order
//!   of evaluation: `r` multiplies, each rounded once with relative error at most
//!   the unit roundoff `u` (2⁻²⁴ in f32, 2⁻¹¹ in f16), plus the reference's own
//!   rounding, give `(1 + u)^(r+2) − 1` relative. In f32 that is below 6.2e-5 even
//!   at ×1024; in f16 it grows to 65 % there (rounding after every multiply by
//!   1 + 2⁻¹⁰ loses up to 2 ulps a step, always downwards), so long f16 chains
//!   check the sign and magnitude, not the last digits.
//! - **cos**: an absolute error `ε` per op, where `ε` = the WGSL bound plus the
//!   rounding of the stored value (2⁻¹¹ + 2⁻²³ in f32, 2⁻⁷ + 2⁻¹¹ in f16). Errors do
//!   not pile up linearly: on [−1, 1] |cos′| = |sin| ≤ sin 1 < 0.85, so an error
//!   shrinks by 0.85 per step and after `r` ops the bound is
//!   `ε · (1 − 0.85ʳ) / (1 − 0.85)` (< 6.7 ε, about 3.3e-3 in f32).
//! - **fma** (`v = fma(v, v, c)`, `c` = −0.4990234375): WGSL does not promise a
//!   fused multiply-add; `fma(a, b, c)` is only as accurate as `a * b + c`, two
//!   correctly rounded operations. Results stay in [−0.5, 0.51] and products in
//!   [0, 1], so one op errs by at most half an ulp of each: `ε` = 2⁻²⁵ + 2⁻²⁴ <
//!   2⁻²³ in f32, and 2⁻¹² + 2⁻¹¹ < 2⁻¹⁰ in f16 (we take those round bounds; a
//!   backend keeping f16 values in f32 registers errs less). An error `e` in `v`
//!   becomes `(2v + e)·e` after one op. After the first op `v` ∈ [c, 1 + c], so
//!   one op scales errors by at most |2v| ≤ 1.002, and two ops by at most
//!   max |4·v·(v² + c)| < 0.55 (checked in the tests) — the map contracts towards
//!   its fixed point ≈ −0.365. Hence `e(k+2) ≤ 0.55·e(k) + 2.002·ε` and, from an
//!   exact input, `e ≤ 2.002 ε / (1 − 0.55)` ≈ 4.45 ε for every repeat; we allow
//!   [`FMA_ERR_STEPS`] = 5 ε (the margin covers the second-order `e²`): 6e-7 in
//!   f32, 4.9e-3 in f16. The CPU computes each op as the exact product (in f64) plus
//!   `c`, rounded once: the fused result.

use super::results::{Check, Dt, Op};
use super::wgsl::{FMA_C, MUL};

/// The fma chain's tolerance in units of one op's rounding error (see above).
pub const FMA_ERR_STEPS: f64 = 5.0;

/// The input repeats with this period (elements), so it can be uploaded in pieces.
pub const PATTERN: u64 = 1 << 16;

/// Element `i` of the input: ±[0.5, 1), deterministic, period [`PATTERN`].
pub fn input(i: u64) -> f32 {
    let mut h = (i % PATTERN) as u32;
    h = h.wrapping_mul(0x9E37_79B9) ^ 0x5BD1_E995;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    let u = (h >> 8) as f32 / 16_777_216.0; // [0, 1)
    let mag = 0.5 + 0.5 * u;
    if h & 1 == 1 {
        -mag
    } else {
        mag
    }
}

/// The input as the kernel of precision `dt` sees it.
pub fn input_dt(i: u64, dt: Dt) -> f32 {
    match dt {
        Dt::F32 => input(i),
        Dt::F16 => round_f16(input(i)),
    }
}

/// One period of the input pattern as `dt`'s little-endian bytes (at most `elems`
/// elements): what both drivers upload, repeated, to fill an input buffer.
pub fn pattern_bytes(dt: Dt, elems: u64) -> Vec<u8> {
    let period = PATTERN.min(elems);
    let mut bytes = Vec::with_capacity((period * dt.bytes()) as usize);
    for i in 0..period {
        match dt {
            Dt::F32 => bytes.extend_from_slice(&input(i).to_le_bytes()),
            Dt::F16 => bytes.extend_from_slice(&f32_to_f16_bits(input(i)).to_le_bytes()),
        }
    }
    bytes
}

/// What the read kernel ([`super::wgsl::read`]) stores at f32 index `e` of its
/// output: invocation `e / 4`'s walk of `reads` steps over a working set of `n`
/// vec4s with `threads` invocations of workgroup size `wg`, component `e % 4`,
/// summed exactly (f64).
pub fn read_sum(e: u64, n: u64, threads: u64, reads: u32, wg: u32) -> f64 {
    let (i, c) = (e / 4, e % 4);
    let n = n.max(1);
    let s = (threads + 7 * u64::from(wg)) % n;
    let mut j = i % n;
    let mut sum = 0.0;
    for _ in 0..reads {
        sum += f64::from(input(4 * j + c));
        j += s;
        if j >= n {
            j -= n;
        }
    }
    sum
}

/// The read kernel's tolerance: `reads` f32 additions of values below 1 in any
/// order err by at most `(reads − 1) · u · reads` (u = 2⁻²⁴), plus the rounding
/// of the reference itself; we allow `reads² · 2⁻²⁴` (and at least 2⁻²⁰).
pub fn read_tolerance(reads: u32) -> Tolerance {
    let r = f64::from(reads.max(1));
    Tolerance::Absolute((r * r * 2f64.powi(-24)).max(2f64.powi(-20)))
}

/// One op, in the precision of `dt`. A product of two f16 values is exact in f32,
/// so rounding it to f16 once is the correctly rounded f16 product.
pub fn step(op: Op, dt: Dt, v: f32) -> f32 {
    let r = match op {
        Op::Mul => v * MUL,
        Op::Cos => cos(v),
        // v² is exact in f64 (2 × 24 significant bits), so this is v·v + c with
        // one f64 rounding, then one to f32: the fused result (a double rounding
        // may differ by one f32 ulp in rare ties, far inside the tolerance)
        Op::Fma => (f64::from(v) * f64::from(v) + f64::from(FMA_C)) as f32,
    };
    match dt {
        Dt::F32 => r,
        Dt::F16 => round_f16(r),
    }
}

/// cos in f64, rounded once to f32: far more accurate than any GPU's f32 `cos`,
/// and a few lines instead of a libm (range-reduced to [−π, π], then the Taylor
/// series to x²², whose next term is below 2e-12 even at ±π; our values stay in
/// [−1, 1], where it is below 2e-24).
pub fn cos(x: f32) -> f32 {
    use std::f64::consts::PI;
    let mut x = f64::from(x);
    if x.abs() > PI {
        x -= 2.0 * PI * (x / (2.0 * PI)).round();
    }
    let x2 = x * x;
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..=11 {
        let k = f64::from(k);
        term *= -x2 / ((2.0 * k - 1.0) * (2.0 * k));
        sum += term;
    }
    sum as f32
}

/// `repeat` ops of `op` applied to `x` (eager and fused compute the same chain),
/// rounded to `dt` after every op.
pub fn chain(op: Op, dt: Dt, x: f32, repeat: u32) -> f32 {
    (0..repeat).fold(x, |v, _| step(op, dt, v))
}

/// What a GPU result is checked against: for `mul` the exact product `x·mʳ`
/// rounded once to `dt` (a compiler may reassociate the multiplies, so no one
/// rounding order is the answer), for `cos` and `fma` (which no compiler may
/// reorder) the chain rounded after every op.
pub fn reference(op: Op, dt: Dt, x: f32, repeat: u32) -> f32 {
    match op {
        Op::Mul => {
            let exact = (f64::from(x) * f64::from(MUL).powi(repeat as i32)) as f32;
            match dt {
                Dt::F32 => exact,
                Dt::F16 => round_f16(exact),
            }
        }
        Op::Cos | Op::Fma => chain(op, dt, x, repeat),
    }
}

/// f32 → IEEE binary16 bits, round to nearest even (overflow → ∞, NaN kept).
pub fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let round = |sig: u32, shift: u32| -> u32 {
        let kept = sig >> shift;
        let rem = sig & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        if rem > half || (rem == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    if e <= 0 {
        // subnormal f16 (or zero): value = m · 2⁻²⁴
        if exp == 0 {
            return sign; // f32 zero or subnormal: far below f16's range
        }
        let shift = (14 - e) as u32;
        if shift > 24 {
            return sign;
        }
        return sign | round(man | 0x80_0000, shift) as u16;
    }
    // normal: a carry out of the mantissa correctly bumps the exponent (to ∞ at the top)
    sign | (((e as u32) << 10) + round(man, 13)) as u16
}

/// IEEE binary16 bits → f32 (exact).
pub fn f16_bits_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    match exp {
        0 => sign * man as f32 / 16_777_216.0,
        0x1f => {
            if man == 0 {
                sign * f32::INFINITY
            } else {
                f32::NAN
            }
        }
        _ => f32::from_bits((u32::from(h & 0x8000) << 16) | ((exp + 112) << 23) | (man << 13)),
    }
}

/// `x` rounded to the nearest f16 value.
pub fn round_f16(x: f32) -> f32 {
    f16_bits_to_f32(f32_to_f16_bits(x))
}

/// How far a GPU result may be from the CPU reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    Exact,
    /// |got − want| ≤ bound · |want|
    Relative(f64),
    /// |got − want| ≤ bound
    Absolute(f64),
}

impl Tolerance {
    pub fn for_variant(op: Option<Op>, dt: Dt, repeat: u32) -> Tolerance {
        let r = f64::from(repeat);
        match (op, dt) {
            (None, _) => Tolerance::Exact,
            (Some(Op::Mul), _) => {
                let u = match dt {
                    Dt::F32 => 2f64.powi(-24),
                    Dt::F16 => 2f64.powi(-11),
                };
                Tolerance::Relative((1.0 + u).powf(r + 2.0) - 1.0)
            }
            (Some(Op::Fma), _) => {
                let eps = match dt {
                    Dt::F32 => 2f64.powi(-23),
                    Dt::F16 => 2f64.powi(-10),
                };
                Tolerance::Absolute(FMA_ERR_STEPS * eps)
            }
            (Some(Op::Cos), _) => {
                let eps = match dt {
                    Dt::F32 => 2f64.powi(-11) + 2f64.powi(-23),
                    Dt::F16 => 2f64.powi(-7) + 2f64.powi(-11),
                };
                let s: f64 = 0.85;
                Tolerance::Absolute(eps * (1.0 - s.powi(repeat as i32)) / (1.0 - s))
            }
        }
    }

    /// The error of `got` in this tolerance's measure, or `None` if out of bounds.
    pub fn error(self, want: f32, got: f32) -> Option<f64> {
        if !got.is_finite() {
            return None;
        }
        match self {
            Tolerance::Exact => (want.to_bits() == got.to_bits()).then_some(0.0),
            Tolerance::Relative(b) => {
                let e = (f64::from(got) - f64::from(want)).abs() / f64::from(want).abs();
                (e <= b).then_some(e)
            }
            Tolerance::Absolute(b) => {
                let e = (f64::from(got) - f64::from(want)).abs();
                (e <= b).then_some(e)
            }
        }
    }
}

/// Compare GPU outputs `got[k]` (element `idx[k]`) with the CPU chain. Returns the
/// verdict for all of them; pure, so the caller may run it in slices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    pub max_err: f64,
    pub samples: u64,
    /// The first element out of tolerance: (index, got, want).
    pub bad: Option<(u64, f32, f32)>,
}

impl Verdict {
    pub fn add(&mut self, op: Option<Op>, dt: Dt, repeat: u32, idx: &[u64], got: &[f32]) {
        let tol = Tolerance::for_variant(op, dt, repeat);
        for (&i, &g) in idx.iter().zip(got) {
            let x = input_dt(i, dt);
            let want = match op {
                None => x,
                Some(op) => reference(op, dt, x, repeat),
            };
            self.push(i, want, g, tol);
        }
    }

    /// One sampled element `i`: `got` against `want` within `tol`.
    pub fn push(&mut self, i: u64, want: f32, got: f32, tol: Tolerance) {
        self.samples += 1;
        match tol.error(want, got) {
            Some(e) => self.max_err = self.max_err.max(e),
            None => {
                if self.bad.is_none() {
                    self.bad = Some((i, got, want));
                }
            }
        }
    }

    pub fn into_check(self, tol: Tolerance) -> Check {
        match self.bad {
            None if self.samples > 0 => Check::Passed {
                max_err: self.max_err,
                samples: self.samples,
            },
            None => Check::Failed {
                detail: "nothing was read back".into(),
            },
            Some((i, got, want)) => Check::Failed {
                detail: format!(
                    "element {i}: GPU {}, CPU {} (tolerance {})",
                    f64::from(got),
                    f64::from(want),
                    match tol {
                        Tolerance::Exact => "exact".to_string(),
                        Tolerance::Relative(b) => format!("{b:e} relative"),
                        Tolerance::Absolute(b) => format!("{b:e} absolute"),
                    }
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_bounded_periodic_and_varied() {
        let mut neg = 0;
        for i in 0..10_000u64 {
            let x = input(i);
            assert!((0.5..1.0).contains(&x.abs()), "{x}");
            assert_eq!(x, input(i + PATTERN));
            if x < 0.0 {
                neg += 1;
            }
        }
        assert!((4000..6000).contains(&neg), "{neg}");
        assert_ne!(input(1), input(2));
    }

    #[test]
    fn f16_conversion() {
        for (x, bits) in [
            (0.0f32, 0x0000u16),
            (-0.0, 0x8000),
            (1.0, 0x3c00),
            (-2.0, 0xc000),
            (0.5, 0x3800),
            (65504.0, 0x7bff),
            (65520.0, 0x7c00), // rounds up to infinity
            (1e6, 0x7c00),
            (f32::INFINITY, 0x7c00),
            (6.103_515_6e-5, 0x0400), // smallest normal
            (5.960_464_5e-8, 0x0001), // smallest subnormal
            (2.0e-8, 0x0000),         // below half of it
            (1.0 + 1.0 / 1024.0, 0x3c01),
            (1.0 + 1.0 / 2048.0, 0x3c00), // tie → even
            (1.0 + 3.0 / 2048.0, 0x3c02), // tie → even (up)
        ] {
            assert_eq!(f32_to_f16_bits(x), bits, "{x}");
        }
        assert!(f16_bits_to_f32(f32_to_f16_bits(f32::NAN)).is_nan());
        // every finite f16 survives the round trip
        for h in 0u16..=0xffff {
            let x = f16_bits_to_f32(h);
            if x.is_finite() {
                assert_eq!(f32_to_f16_bits(x), h, "{h:#x}");
            }
        }
    }

    #[test]
    fn cos_matches_libm() {
        let mut worst = 0.0f64;
        for i in -2000..=2000 {
            let x = i as f32 / 1000.0; // [-2, 2]
            worst = worst.max((f64::from(cos(x)) - f64::from(x).cos()).abs());
        }
        assert!(worst <= 6e-8, "{worst}"); // within f32 rounding
        assert!((cos(10.0) - 10f32.cos()).abs() < 1e-6);
    }

    #[test]
    fn chains() {
        assert_eq!(chain(Op::Mul, Dt::F32, 1.0, 0), 1.0);
        assert_eq!(chain(Op::Mul, Dt::F32, 1.0, 1), MUL);
        assert_eq!(chain(Op::Mul, Dt::F32, 1.0, 2), MUL * MUL);
        // 1024 multiplies by 1 + 2^-10 stay finite, near e
        let x = chain(Op::Mul, Dt::F32, 1.0, 1024);
        assert!((x - std::f32::consts::E).abs() < 0.01, "{x}");
        // cos converges to the Dottie number
        let d = chain(Op::Cos, Dt::F32, 0.9, 1024);
        assert!((d - 0.739_085_1).abs() < 1e-5, "{d}");
        // f16 chain stays on f16 values
        let h = chain(Op::Mul, Dt::F16, input_dt(7, Dt::F16), 100);
        assert_eq!(round_f16(h), h);
    }

    /// The two-op contraction the fma tolerance rests on: for v in [c, 1 + c] (every
    /// value after the first op), |d/dv of two ops| = |4·v·(v² + c)| < 0.55, and one
    /// op scales by at most 1.002.
    #[test]
    fn fma_map_contracts() {
        let c = f64::from(FMA_C);
        let (mut l1, mut l2) = (0.0f64, 0.0f64);
        for i in 0..=100_000 {
            let v = c + f64::from(i) / 100_000.0;
            l1 = l1.max((2.0 * v).abs());
            l2 = l2.max((4.0 * v * (v * v + c)).abs());
        }
        assert!(l1 <= 1.002 && l2 < 0.55, "{l1} {l2}");
        // every input lands in [c, 1 + c] after one op
        for i in 0..PATTERN {
            let v = chain(Op::Fma, Dt::F32, input(i), 1);
            assert!((FMA_C..=1.0 + FMA_C).contains(&v), "{v}");
        }
    }

    /// Every legal way a GPU may evaluate the chain (fused or not; f16 rounded every
    /// op or kept in f32 registers) agrees with the CPU reference within the
    /// tolerance, for every input the kernels ever read and every repeat swept.
    #[test]
    fn fma_chain_every_legal_evaluation_is_within_tolerance() {
        let c = FMA_C;
        let repeats = crate::gpu::plan::REPEATS;
        let mut worst = [0.0f64; 4];
        for i in (0..PATTERN).step_by(3) {
            let x32 = input(i);
            let x16 = input_dt(i, Dt::F16);
            // unfused f32 (two roundings), f32 fused (Rust's correctly rounded
            // mul_add), f16 unfused (rounded to f16 after each operation), f16 in
            // f32 registers (rounded to f16 only when stored)
            let (mut a, mut b, mut h, mut r) = (x32, x32, x16, x16);
            let (mut want32, mut want16) = (x32, x16);
            for k in 1..=1024u32 {
                a = a * a + c;
                b = b.mul_add(b, c);
                h = round_f16(round_f16(h * h) + c);
                r = r * r + c;
                want32 = step(Op::Fma, Dt::F32, want32);
                want16 = step(Op::Fma, Dt::F16, want16);
                if repeats.contains(&k) {
                    let t32 = Tolerance::for_variant(Some(Op::Fma), Dt::F32, k);
                    let t16 = Tolerance::for_variant(Some(Op::Fma), Dt::F16, k);
                    for (w, (got, want, tol)) in [
                        (a, want32, t32),
                        (b, want32, t32),
                        (h, want16, t16),
                        (round_f16(r), want16, t16),
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        match tol.error(want, got) {
                            Some(e) => worst[w] = worst[w].max(e),
                            None => panic!("input {i} ×{k}, way {w}: {got} vs {want} ({tol:?})"),
                        }
                    }
                }
            }
        }
        // the bound is not vacuous: unfused evaluation really differs
        assert!(worst[0] > 0.0 && worst[2] > 0.0, "{worst:?}");
        // and the reference stays on the attracting fixed point (−0.365)
        let fixed = chain(Op::Fma, Dt::F32, 0.9, 1024);
        assert!(
            (fixed - (1.0 - (1.0 - 4.0 * c).sqrt()) / 2.0).abs() < 1e-6,
            "{fixed}"
        );
    }

    #[test]
    fn tolerances() {
        assert_eq!(Tolerance::for_variant(None, Dt::F32, 0), Tolerance::Exact);
        let Tolerance::Absolute(c) = Tolerance::for_variant(Some(Op::Cos), Dt::F32, 1024) else {
            panic!("cos tolerance is absolute")
        };
        assert!(c > 2f64.powi(-11) && c < 3.4e-3, "{c}");
        let Tolerance::Absolute(c1) = Tolerance::for_variant(Some(Op::Cos), Dt::F32, 1) else {
            panic!()
        };
        assert!((c1 - (2f64.powi(-11) + 2f64.powi(-23))).abs() < 1e-12);
        let t = Tolerance::for_variant(Some(Op::Mul), Dt::F32, 8);
        assert_eq!(t.error(1.0, 1.0), Some(0.0));
        assert!(t.error(1.0, 1.0 + 4e-7).is_some()); // 3 ulps: 8 half-ulp roundings
        assert!(t.error(1.0, 1.001).is_none());
        assert!(t.error(1.0, f32::NAN).is_none());
        assert!(Tolerance::Exact.error(1.0, 1.0 + f32::EPSILON).is_none());
        let Tolerance::Relative(h) = Tolerance::for_variant(Some(Op::Mul), Dt::F16, 1024) else {
            panic!("mul tolerance is relative")
        };
        assert!((0.64..0.66).contains(&h), "{h}");
        let Tolerance::Relative(f) = Tolerance::for_variant(Some(Op::Mul), Dt::F32, 1024) else {
            panic!()
        };
        assert!(f < 6.2e-5, "{f}");
    }

    /// Every way a GPU may evaluate the mul chain (rounded after every multiply;
    /// kept in f32 registers; reassociated into a tree, or into `v·mʳ` with `mʳ`
    /// squared up in the kernel's precision) agrees with the reference within the
    /// tolerance, for inputs the kernels read and every repeat swept; and so do the
    /// values NVIDIA's Vulkan driver returned on an H200, which the old reference
    /// (rounded after every multiply, tolerance capped at 1/16) rejected.
    #[test]
    fn mul_chain_every_order_of_evaluation_is_within_tolerance() {
        let round = |dt: Dt, v: f32| match dt {
            Dt::F32 => v,
            Dt::F16 => round_f16(v),
        };
        // a balanced tree of r + 1 factors, rounded at every node
        fn tree(factors: &[f32], round: &dyn Fn(f32) -> f32) -> f32 {
            match factors {
                [one] => *one,
                _ => {
                    let (l, r) = factors.split_at(factors.len() / 2);
                    round(tree(l, round) * tree(r, round))
                }
            }
        }
        for dt in [Dt::F32, Dt::F16] {
            for r in crate::gpu::plan::REPEATS {
                let tol = Tolerance::for_variant(Some(Op::Mul), dt, r);
                for i in (0..PATTERN).step_by(97) {
                    let x = input_dt(i, dt);
                    let want = reference(Op::Mul, dt, x, r);
                    let mut factors = vec![x];
                    factors.extend(std::iter::repeat_n(MUL, r as usize));
                    let mut power = MUL;
                    let mut k = 1;
                    while k < r {
                        power = round(dt, power * power);
                        k *= 2;
                    }
                    let wide = (0..r).fold(x, |v, _| v * MUL);
                    for (way, got) in [
                        chain(Op::Mul, dt, x, r),
                        round(dt, wide),
                        tree(&factors, &|v| round(dt, v)),
                        if r.is_power_of_two() {
                            round(dt, x * power)
                        } else {
                            want
                        },
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        assert!(
                            tol.error(want, got).is_some(),
                            "{dt:?} ×{r} input {i}, way {way}: {got} vs {want} ({tol:?})"
                        );
                    }
                }
            }
        }
        for (i, r, gpu) in [
            (13, 256, -0.760_742_2f32),
            (1, 512, 0.843_75),
            (1, 1024, 1.374_023_4),
        ] {
            let want = reference(Op::Mul, Dt::F16, input_dt(i, Dt::F16), r);
            let tol = Tolerance::for_variant(Some(Op::Mul), Dt::F16, r);
            assert!(tol.error(want, gpu).is_some(), "H200 ×{r}: {gpu} vs {want}");
        }
        // the bound still has teeth: a sign error or a doubled value fails
        let want = reference(Op::Mul, Dt::F16, input_dt(1, Dt::F16), 1024);
        let tol = Tolerance::for_variant(Some(Op::Mul), Dt::F16, 1024);
        assert!(tol.error(want, -want).is_none() && tol.error(want, 2.0 * want).is_none());
    }

    #[test]
    fn verdicts() {
        let idx: Vec<u64> = (0..100).collect();
        let good: Vec<f32> = idx
            .iter()
            .map(|&i| chain(Op::Cos, Dt::F32, input(i), 8))
            .collect();
        let mut v = Verdict::default();
        v.add(Some(Op::Cos), Dt::F32, 8, &idx, &good);
        let tol = Tolerance::for_variant(Some(Op::Cos), Dt::F32, 8);
        assert!(v.clone().into_check(tol).passed());
        assert_eq!(v.samples, 100);
        // a GPU answer off by a cos error within the WGSL bound still passes
        let near: Vec<f32> = good.iter().map(|g| g + 4e-4).collect();
        let mut v = Verdict::default();
        v.add(Some(Op::Cos), Dt::F32, 8, &idx, &near);
        assert!(v.into_check(tol).passed());
        // a wrong answer fails, naming the element
        let mut bad = good.clone();
        bad[42] = 0.0;
        let mut v = Verdict::default();
        v.add(Some(Op::Cos), Dt::F32, 8, &idx, &bad);
        match v.into_check(tol) {
            Check::Failed { detail } => assert!(detail.starts_with("element 42"), "{detail}"),
            c => panic!("{c:?}"),
        }
        // copies are exact
        let copy: Vec<f32> = idx.iter().map(|&i| input(i)).collect();
        let mut v = Verdict::default();
        v.add(None, Dt::F32, 0, &idx, &copy);
        assert!(v.into_check(Tolerance::Exact).passed());
        // nothing read back is a failure
        assert!(!Verdict::default().into_check(Tolerance::Exact).passed());
    }
}
