//! The essay's numbers, reproduced by the model with the A100 preset.

use super::*;
use crate::state::State;

/// A100 40GB, fp32, `chain` on 65536 x 4096 = 268M elements (1 GiB), fused.
fn a100_chain(ops: u32, fused: bool) -> State {
    let mut s = State::default();
    s.select_dtype(Dtype::Fp32);
    s.setting.shape.workload = Workload::Chain;
    s.setting.shape.batch = 65536;
    s.setting.shape.hidden = 4096;
    s.setting.shape.ops = ops;
    s.setting.shape.fused = fused;
    s
}

#[test]
fn crossover_between_32_and_64_repeats() {
    assert_eq!(a100_chain(32, true).report().regime, Regime::Memory);
    assert_eq!(a100_chain(64, true).report().regime, Regime::Compute);
}

#[test]
fn about_0_19_tflops_at_one_repeat() {
    let r = a100_chain(1, true).report();
    assert!(
        (0.185e12..0.2e12).contains(&r.achieved_flops),
        "{}",
        r.achieved_flops
    );
    // and bandwidth close to the 1.555 TB/s peak
    assert!(r.achieved_bw > 0.99 * 1.555e12);
}

#[test]
fn runtime_flat_then_linear() {
    let t1 = a100_chain(1, true).report().wall_time_s;
    let t32 = a100_chain(32, true).report().wall_time_s;
    let t1024 = a100_chain(1024, true).report().wall_time_s;
    assert!((t32 / t1 - 1.0).abs() < 1e-9, "flat while memory-bound");
    // compute-bound: N*1024 / 9.75e12
    let n = 65536.0 * 4096.0;
    assert!((t1024 - (n * 1024.0 / 9.75e12 + 1.0 / 280_000.0)).abs() / t1024 < 1e-9);
}

#[test]
fn fusing_cos_cos_is_2x() {
    let eager = a100_chain(2, false).report().wall_time_s;
    let fused = a100_chain(2, true).report().wall_time_s;
    assert!((eager / fused - 2.0).abs() < 0.01, "{}", eager / fused);
}

#[test]
fn tiny_tensor_is_overhead_bound() {
    let mut s = a100_chain(8, false);
    s.setting.shape.batch = 1;
    s.setting.shape.hidden = 1024;
    assert_eq!(s.report().regime, Regime::Overhead);
    s.setting.shape.fused = true;
    assert_eq!(s.report().regime, Regime::Overhead);
}

#[test]
fn a100_fp32_loads_400_billion_numbers_per_20_trillion_ops() {
    // 1.555e12 B/s / 4 B = ~389e9 numbers/s vs 19.5e12 FLOP/s.
    // (the widget shows this for the selected preset: microbench::fp32_budget)
    let s = a100_chain(1, true);
    let b = microbench::fp32_budget(&s.machine());
    assert!((b.numbers_per_s / 400e9 - 1.0).abs() < 0.05, "{b:?}");
    assert!((b.ops_per_s / 20e12 - 1.0).abs() < 0.05, "{b:?}");
    // so ~100 ops per element (read + write = 2 numbers at the 19.5 FMA rate; at
    // the 9.75 plain-multiply rate that is the ~50 of the repeat crossover)
    assert!((90.0..=110.0).contains(&b.ops_per_element), "{b:?}");
}

#[test]
fn double_batch_diagnostic() {
    // Overhead-bound: doubling batch barely moves runtime. Compute-bound: ~2x.
    let mut tiny = a100_chain(4, false);
    tiny.setting.shape.batch = 1;
    let mut tiny2 = tiny.clone();
    tiny2.setting.shape.batch = 2;
    let r = tiny2.report().wall_time_s / tiny.report().wall_time_s;
    assert!(r < 1.1, "{r}");
    let big = a100_chain(1024, true);
    let mut big2 = big.clone();
    big2.setting.shape.batch = 32768;
    let r = big.report().wall_time_s / big2.report().wall_time_s;
    assert!((r - 2.0).abs() < 0.01, "{r}");
}

#[test]
fn bigger_batches_raise_mlp_intensity() {
    let mut s = State::default();
    s.setting.shape.batch = 16;
    let a = s.report().groups[0].group.intensity();
    s.setting.shape.batch = 32;
    let b = s.report().groups[0].group.intensity();
    assert!(b > 1.9 * a);
}

#[test]
fn mlp_batch_sweep_crosses_regimes() {
    // Default MLP (D=4096, bf16, eager, 8 ops): big batches are compute-bound only
    // once the chain is fused; tiny batches on the chain are overhead-bound.
    let mut s = State::default();
    s.setting.shape.fused = true;
    s.setting.shape.batch = 8192;
    assert_eq!(s.report().regime, Regime::Compute);
    s.setting.shape.batch = 16;
    assert_eq!(s.report().regime, Regime::Memory);
}
