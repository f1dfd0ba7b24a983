//! Helpers shared by the native integration tests (each test file that needs them
//! declares `mod common;`).

/// xorshift64*: deterministic, dependency-free, good enough to drive a fuzzer or a
/// sweep, so a failure names its case.
pub struct Rng(pub u64);

#[allow(dead_code)] // each test file uses its own subset
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    /// Log-uniform in [lo, hi].
    pub fn log(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo * (hi / lo).powf(u)
    }
}
