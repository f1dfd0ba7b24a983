//! The lab's chains run as WGSL on this machine's GPU adapter (through the native
//! driver, `brrr::gpu::native`) and checked against the CPU reference at every
//! repeat, f32 and — where the adapter has `shader-f16` — f16: the fma chain (the
//! compute ceiling) and the essay's x·m chain. In the test command (scripts/test.sh,
//! which installs Mesa's software Vulkan driver) `BRRR_REQUIRE_ADAPTER=1` makes a
//! missing adapter a failure; elsewhere, without any Vulkan/Metal/DX12 adapter,
//! these tests say they did not run.
#![cfg(not(target_arch = "wasm32"))]

use brrr::gpu::plan::REPEATS;
use brrr::gpu::results::{Dt, Op};
use brrr::gpu::{cliff, native};

fn chains_verify(op: Op) {
    let verdicts = match native::verify_chains(op) {
        Ok(v) => v,
        Err(e) if std::env::var_os("BRRR_REQUIRE_ADAPTER").is_none() => {
            eprintln!("NOT RUN (no GPU adapter, BRRR_REQUIRE_ADAPTER unset): {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let f32s = verdicts
        .iter()
        .filter(|((dt, _), _)| *dt == Dt::F32)
        .count();
    assert_eq!(f32s, REPEATS.len(), "{verdicts:?}");
    for ((dt, r), check) in &verdicts {
        assert!(check.passed(), "{} ×{r} ({}): {check:?}", op.id(), dt.id());
    }
    eprintln!("{} chain verified on the adapter: {verdicts:?}", op.id());
}

#[test]
fn fma_chain_verifies_on_the_adapter_at_every_repeat() {
    chains_verify(Op::Fma);
}

#[test]
fn mul_chain_verifies_on_the_adapter_at_every_repeat() {
    chains_verify(Op::Mul);
}

/// The cache sweep at the small size on this machine's adapter (lavapipe in the
/// test command: the CPU's caches): every working set from 64 KiB to 64 MiB
/// verified against the CPU and timed, and the finder's reading sane.
#[test]
fn the_cache_sweep_verifies_and_finds_a_fast_level() {
    let run = match native::cache_sweep() {
        Ok(r) => r,
        Err(e) if std::env::var_os("BRRR_REQUIRE_ADAPTER").is_none() => {
            eprintln!("NOT RUN (no GPU adapter, BRRR_REQUIRE_ADAPTER unset): {e}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    assert_eq!(run.measurements.len(), 11, "{:?}", run.measurements);
    for m in &run.measurements {
        assert!(m.usable(), "{m:?}");
    }
    let pts = cliff::points(&run);
    assert_eq!(pts.first().map(|p| p.0), Some(65536.0));
    assert_eq!(pts.last().map(|p| p.0), Some(64.0 * 1048576.0));
    let c = cliff::find(&pts).unwrap_or_else(|| panic!("no reading of {pts:?}"));
    assert!(c.cache_bw > 0.0);
    if let (Some(at), Some(mem)) = (c.cache_bytes, c.mem_bw) {
        assert!((65536.0..=64.0 * 1048576.0).contains(&at), "{at}");
        assert!(c.cache_bw >= mem);
    }
    let words = cliff::words(&c, &run.adapter.name(), cliff::software(&run.adapter));
    if cliff::software(&run.adapter) {
        assert!(words.contains("the CPU's caches"), "{words}");
    }
    eprintln!("{words}\n{pts:?}");
}
