//! The lab's kernels as WGSL, generated here: one template per family.
//!
//! - [`elementwise`] (the copy kernel and the op chains): each invocation loads
//!   one `vec4` from `src`, applies `repeat` ops in registers and stores one
//!   `vec4` to `dst`. A fused kernel of `repeat` ops and an eager step (`repeat`
//!   = 1) are the same template, so the only difference between fused and eager
//!   is the number of trips to memory.
//! - [`empty`]: a kernel that does nothing, for the cost of a dispatch.
//!
//! Layout shared by the elementwise family: binding 0 `src` (read-only storage),
//! 1 `dst` (storage), 2 the uniform `P { n, m }`: `n` = vec4s to process, `m` =
//! the multiplier, 1 + 2⁻¹⁰ rather than the essay's 2 so 1024 multiplies stay
//! finite (2¹⁰²⁴ overflows f32); the cost is the same one multiply per op.
//!
//! # Which chain measures the hardware
//!
//! The essay's chain `x·m·m·…·m` is kept for the fused-vs-eager comparison, but it
//! does **not** measure the multiply rate everywhere: WGSL does not promise IEEE's
//! ban on reassociation, and on an H100 (Vulkan, NVIDIA's driver) the fused chain
//! ran at 64 T multiplies/s at ×1024, twice the 33.5 T/s the chip can issue — the
//! driver's compiler shortened it (e.g. `v·m·m` into `v·(m·m)`), even though `m`
//! is a runtime value (`tests/data/h100.json`).
//!
//! The compute ceiling comes from [`Op::Fma`]: `v = fma(v, v, c)` with `c = m − 1.5`
//! (a runtime value too). Every op squares the previous result, so no algebra can
//! merge two ops into one, and the map is contracting with an attracting fixed
//! point (≈ −0.365) on the inputs' range, so 1024 ops stay finite and verifiable
//! (see [`super::reference`]). On the same GPU it ran at 32.2 T FMA/s, 96 % of the
//! datasheet. An FMA counts as 2 FLOP.
//!
//! Grids are 2D when one dimension is not enough: the flat index is
//! `g.y · (workgroups.x · WG) + g.x`, and invocations past `n` return.

use super::results::{Dt, Op};

/// The multiplier of the `mul` chain: exactly representable in f16 and f32.
pub const MUL: f32 = 1.0 + 1.0 / 1024.0;

/// The constant of the `fma` chain, `m − 1.5` = −0.4990234375: exact in f16 and
/// f32 (the kernel computes it from the uniform `m`, so it is a runtime value).
pub const FMA_C: f32 = MUL - 1.5;

fn scalar(dt: Dt) -> &'static str {
    match dt {
        Dt::F32 => "f32",
        Dt::F16 => "f16",
    }
}

/// The copy kernel (`repeat` = 0, no op) or a chain of `repeat` ops.
pub fn elementwise(dt: Dt, op: Option<Op>, repeat: u32, wg: u32) -> String {
    let t = scalar(dt);
    let enable = match dt {
        Dt::F32 => "",
        Dt::F16 => "enable f16;\n",
    };
    let mut body = String::new();
    if let Some(op) = op {
        let step = match op {
            Op::Mul => {
                body.push_str(&format!("  let m = {t}(p.m);\n"));
                "  v = v * m;\n"
            }
            Op::Cos => "  v = cos(v);\n",
            Op::Fma => {
                body.push_str(&format!("  let c = vec4<{t}>({t}(p.m - 1.5));\n"));
                "  v = fma(v, v, c);\n"
            }
        };
        // Unrolled: a loop would add a counter and a branch per op.
        body.push_str(&step.repeat(repeat as usize));
    }
    format!(
        "{enable}struct P {{ n: u32, m: f32 }}
@group(0) @binding(0) var<storage, read> src: array<vec4<{t}>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<{t}>>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size({wg})
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{
  let i = g.y * (nw.x * {wg}u) + g.x;
  if (i >= p.n) {{ return; }}
  var v = src[i];
{body}  dst[i] = v;
}}
"
    )
}

/// The cache sweep's read-mostly kernel: `threads` invocations each add up
/// `reads` vec4s of `src` (f32) and store the sum once. Invocation `i` reads
/// `src[i]`, then steps by `s = (threads + 7·wg) mod n` (`n` = the working set in
/// vec4s, the uniform's `n`), wrapping at `n`: each step of the whole grid reads a
/// contiguous window of `threads` vec4s (coalesced), and successive windows move
/// on, so `threads × reads` loads pass over the working set `threads × reads / n`
/// times and no invocation reads one address twice in a row. The index depends on
/// a runtime value, so no compiler can hoist or merge the loads; the sum is stored,
/// so none can drop them. The CPU mirror is [`super::reference::read_sum`].
pub fn read(wg: u32, threads: u64, reads: u32) -> String {
    format!(
        "struct P {{ n: u32, m: f32 }}
@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> p: P;

@compute @workgroup_size({wg})
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {{
  let i = g.y * (nw.x * {wg}u) + g.x;
  if (i >= {threads}u) {{ return; }}
  let s = ({threads}u + {step}u) % p.n;
  var j = i;
  var acc = vec4<f32>(0.0);
  for (var k = 0u; k < {reads}u; k = k + 1u) {{
    acc = acc + src[j];
    j = j + s;
    if (j >= p.n) {{ j = j - p.n; }}
  }}
  dst[i] = acc;
}}
",
        step = 7 * wg
    )
}

/// A kernel that does nothing: what a dispatch costs by itself.
pub fn empty() -> String {
    "@compute @workgroup_size(1)\nfn main() {}\n".to_string()
}

/// The uniform's bytes for `elements`: `n` (vec4s, u32) and the multiplier
/// [`MUL`] (f32), little-endian, as both drivers upload them.
pub fn uniform_bytes(elements: u64) -> [u8; 8] {
    let n4 = u32::try_from(elements / 4).unwrap_or(u32::MAX);
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&n4.to_le_bytes());
    bytes[4..].copy_from_slice(&MUL.to_le_bytes());
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_kernel_has_no_op() {
        let s = elementwise(Dt::F32, None, 0, 256);
        assert!(s.contains("@workgroup_size(256)"));
        assert!(s.contains("array<vec4<f32>>"));
        assert!(s.contains("dst[i] = v;"));
        assert!(!s.contains("cos"));
        assert!(!s.contains("v * m"));
        assert!(!s.contains("enable f16"));
        assert!(s.contains("nw.x * 256u"));
    }

    #[test]
    fn chains_repeat_the_op() {
        let s = elementwise(Dt::F32, Some(Op::Mul), 64, 128);
        assert_eq!(s.matches("v = v * m;").count(), 64);
        assert!(s.contains("let m = f32(p.m);"));
        let c = elementwise(Dt::F32, Some(Op::Cos), 1024, 256);
        assert_eq!(c.matches("v = cos(v);").count(), 1024);
        assert!(!c.contains("let m"));
    }

    #[test]
    fn fma_chain_is_unfoldable_and_uses_a_runtime_constant() {
        let s = elementwise(Dt::F32, Some(Op::Fma), 16, 256);
        assert_eq!(s.matches("v = fma(v, v, c);").count(), 16);
        // c comes from the uniform (a runtime value), never a literal
        assert!(s.contains("let c = vec4<f32>(f32(p.m - 1.5));"), "{s}");
        let h = elementwise(Dt::F16, Some(Op::Fma), 2, 64);
        assert!(h.contains("let c = vec4<f16>(f16(p.m - 1.5));"), "{h}");
        assert_eq!(h.matches('{').count(), h.matches('}').count());
        // m − 1.5 is exact in f16
        assert_eq!(crate::gpu::reference::round_f16(FMA_C), FMA_C);
        assert_eq!(f64::from(FMA_C), -0.499_023_437_5);
    }

    #[test]
    fn f16_enables_the_extension() {
        let s = elementwise(Dt::F16, Some(Op::Mul), 2, 64);
        assert!(s.starts_with("enable f16;\n"));
        assert!(s.contains("array<vec4<f16>>"));
        assert!(s.contains("let m = f16(p.m);"));
    }

    #[test]
    fn shader_is_balanced_and_has_one_entry_point() {
        for (dt, op, r) in [
            (Dt::F32, None, 0),
            (Dt::F32, Some(Op::Cos), 3),
            (Dt::F16, Some(Op::Mul), 5),
        ] {
            let s = elementwise(dt, op, r, 256);
            assert_eq!(s.matches('{').count(), s.matches('}').count(), "{s}");
            assert_eq!(s.matches("fn main").count(), 1);
            assert_eq!(s.matches("@binding(").count(), 3);
        }
        assert!(empty().contains("fn main() {}"));
    }

    #[test]
    fn read_kernel_sums_a_strided_walk() {
        let s = read(256, 65536, 64);
        assert!(s.contains("if (i >= 65536u) { return; }"), "{s}");
        assert!(s.contains("let s = (65536u + 1792u) % p.n;"), "{s}");
        assert!(s.contains("k < 64u"), "{s}");
        assert!(s.contains("dst[i] = acc;"));
        assert_eq!(s.matches('{').count(), s.matches('}').count(), "{s}");
        assert_eq!(s.matches("@binding(").count(), 3);
    }

    #[test]
    fn multiplier_is_exact_in_f16() {
        // 1 + 2^-10 has 10 fraction bits: representable in f16 (and f32).
        assert_eq!(crate::gpu::reference::round_f16(MUL), MUL);
    }
}
