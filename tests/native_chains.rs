//! The lab's chains run as WGSL on this machine's GPU adapter (through the native
//! driver, `brrr::gpu::native`) and checked against the CPU reference at every
//! repeat, f32 and — where the adapter has `shader-f16` — f16: the fma chain (the
//! compute ceiling) and the essay's x·m chain. In the test command (scripts/test.sh,
//! which installs Mesa's software Vulkan driver) `BRRR_REQUIRE_ADAPTER=1` makes a
//! missing adapter a failure; elsewhere, without any Vulkan/Metal/DX12 adapter,
//! these tests say they did not run.
#![cfg(not(target_arch = "wasm32"))]

use brrr::gpu::native;
use brrr::gpu::plan::REPEATS;
use brrr::gpu::results::{Dt, Op};

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
