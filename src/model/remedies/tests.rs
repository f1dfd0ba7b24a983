use super::*;
use crate::model::hardware::PRESETS;
use crate::model::workload::Shape;
use crate::model::{analyse, Regime};
use crate::state::State;

/// Every preset × its dtypes × both workloads × batch 1, 256, 65536 × fused/eager ×
/// a few op counts and overheads: the declared input range, corners included.
pub(super) fn settings() -> Vec<Setting> {
    let mut out = Vec::new();
    for hw in PRESETS {
        for dtype in hw.dtypes() {
            for workload in Workload::ALL {
                for batch in [1, 256, limits::BATCH.1] {
                    for fused in [false, true] {
                        for ops in [1, 8, limits::OPS.1] {
                            for overhead in [limits::OVERHEAD.0, 1.0 / 280e3, limits::OVERHEAD.1] {
                                let mut s = State::for_preset(hw).setting;
                                s.select_dtype(dtype);
                                s.overhead = overhead;
                                s.shape = Shape {
                                    workload,
                                    batch,
                                    hidden: 4096,
                                    ops,
                                    fused,
                                };
                                out.push(s);
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The time per sample a change leads to, evaluated from scratch (not through
/// `evaluate`'s own helper).
pub(super) fn recompute(s: &Setting, change: &Change) -> f64 {
    match change {
        Change::Setting(t) => analyse(&t.shape, &t.cached()).wall_time_s / f64::from(t.shape.batch),
        Change::Cpu(r) => {
            overhead::run(&s.shape, &s.cached(), *r).wall() / f64::from(s.shape.batch)
        }
    }
}

#[test]
fn every_remedy_is_two_full_model_runs() {
    let all = settings();
    assert!(all.len() > 1000, "{}", all.len());
    for s in &all {
        let before = analyse(&s.shape, &s.cached()).wall_time_s / f64::from(s.shape.batch);
        let outs = evaluate(s);
        assert_eq!(outs.len(), RemedyId::ALL.len());
        for o in &outs {
            let sp = o.speedup();
            assert!(sp.is_finite() && sp > 0.0, "{:?} {s:?}", o.id);
            assert!(!o.label.is_empty());
            match &o.effect {
                Ok(e) => {
                    assert_eq!(e.before, before);
                    let after = recompute(s, &e.change);
                    assert!(after.is_finite() && after > 0.0);
                    assert!(
                        (sp - before / after).abs() <= 1e-12 * sp,
                        "{:?}: {} vs {}",
                        o.id,
                        sp,
                        before / after
                    );
                    if let Change::Setting(t) = e.change {
                        // a remedy keeps the state valid
                        assert!(t.hw.supports(t.dtype), "{:?} {:?}", o.id, t.dtype);
                        assert!((limits::FLOPS.0..=limits::FLOPS.1).contains(&t.flops));
                        assert!((limits::BW.0..=limits::BW.1).contains(&t.bw));
                        assert!((limits::OVERHEAD.0..=limits::OVERHEAD.1).contains(&t.overhead));
                        assert!(t.shape.batch <= limits::BATCH.1);
                        assert_ne!(t, *s, "{:?} changed nothing", o.id);
                    }
                }
                Err(why) => {
                    assert!(!why.is_empty());
                    assert_eq!(sp, 1.0);
                    assert!(!o.helps());
                }
            }
            assert_eq!(o.helps(), o.applicable() && sp >= HELPS_FROM);
        }
    }
}

#[test]
fn dtype_remedies_follow_the_preset() {
    for s in settings() {
        for o in evaluate(&s) {
            if let Ok(Effect {
                change: Change::Setting(t),
                ..
            }) = o.effect
            {
                if t.dtype == Dtype::Fp8 {
                    assert!(s.hw.fp8.is_some(), "fp8 offered on {}", s.hw.id);
                }
            }
        }
    }
    let outcome = |hw: &str, dtype: Dtype, id: RemedyId| {
        let mut s = State::for_preset(crate::model::hardware::preset(hw).unwrap()).setting;
        s.select_dtype(dtype);
        s.shape.batch = 16384; // big enough that the GPU, not the CPU, sets the pace
        evaluate(&s).into_iter().find(|o| o.id == id).unwrap()
    };
    // no tensor cores on the M2 Max: not applicable, and it says why
    let m2 = outcome("m2-max", Dtype::Fp32, RemedyId::Tensor);
    assert!(m2
        .effect
        .as_ref()
        .unwrap_err()
        .contains("no tensor-core dtype"));
    assert!(!outcome("m2-max", Dtype::Fp32, RemedyId::Dtype).applicable());
    // an A100 in bf16 has nowhere faster to go (no fp8)
    let a100 = outcome("a100-40gb", Dtype::Bf16, RemedyId::Tensor);
    assert!(a100.effect.as_ref().unwrap_err().contains("no fp8"));
    // an H100 in bf16 can go to fp8
    let h100 = outcome("h100-sxm", Dtype::Bf16, RemedyId::Tensor);
    assert_eq!(h100.label, "Switch to fp8 on the tensor cores");
    assert!(h100.helps());
}

#[test]
fn the_default_state_is_compute_heavy_yet_fusing_helps_most() {
    // What this module was written to show: the default step's largest share is
    // compute, but fusing its eight pointwise ops is the biggest win. By the
    // counterfactuals the step is memory-bound: 2× bandwidth pays more than 2×
    // FLOP/s.
    let s = State::default();
    let r = s.report();
    assert_eq!(r.shares.largest(), Regime::Compute);
    assert_eq!(r.regime, Regime::Memory);
    assert!(r.limit.bw2 > 1.2 && r.limit.flops2 < 1.1, "{:?}", r.limit);
    let outs = evaluate(&s.setting);
    let fuse = outs.iter().find(|o| o.id == RemedyId::Fuse).unwrap();
    assert!(fuse.helps());
    assert!((fuse.speedup() - 1.56).abs() < 0.01, "{}", fuse.speedup());
    assert_eq!(best(&outs).unwrap().id, RemedyId::Fuse);
}

#[test]
fn overhead_remedies_help_only_where_overhead_is_the_cost() {
    // tiny chain, eager: overhead-bound, tracing and graphs help a lot, FLOP/s not
    let mut s = State::default().setting;
    s.shape.workload = Workload::Chain;
    s.shape.batch = 1;
    s.shape.hidden = 1024;
    let outs = evaluate(&s);
    let get = |id| outs.iter().find(|o| o.id == id).unwrap();
    assert_eq!(analyse(&s.shape, &s.machine()).regime, Regime::Overhead);
    // 10× less CPU per launch, until the GPU's floor per kernel sets the pace
    assert!(get(RemedyId::Overhead).speedup() > 3.0);
    assert!(get(RemedyId::Graphs).helps());
    assert!(!get(RemedyId::Flops).helps());
    assert!(!get(RemedyId::Bw).helps());
    // a big matmul: the CPU-side remedies do nothing
    let mut s = State::default().setting;
    s.shape.batch = limits::BATCH.1;
    s.shape.fused = true;
    let outs = evaluate(&s);
    let get = |id| outs.iter().find(|o| o.id == id).unwrap();
    for id in [RemedyId::Overhead, RemedyId::Graphs, RemedyId::Cpp] {
        assert!(!get(id).helps(), "{id:?}: {}", get(id).speedup());
    }
    assert!(get(RemedyId::Flops).helps());
}

#[test]
fn best_is_the_largest_speedup() {
    for s in settings().iter().step_by(7) {
        let outs = evaluate(s);
        let b = best(&outs).unwrap();
        assert!(outs.iter().all(|o| o.speedup() <= b.speedup()));
    }
}

#[test]
fn ids_are_unique() {
    let mut ids: Vec<_> = RemedyId::ALL.iter().map(|r| r.id()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), RemedyId::ALL.len());
}

#[test]
fn the_headline_follows_the_numbers() {
    for s in settings().iter().step_by(5) {
        let r = analyse(&s.shape, &s.machine());
        let outs = evaluate(s);
        let h = headline(&r.limit, &outs);
        match best(&outs).filter(|b| b.helps()) {
            Some(b) => {
                assert!(h.contains(&speedup_text(b)), "{h}");
                assert!(h.contains(&format!("“{}”", b.label)), "{h}");
            }
            None => assert!(h.starts_with("None of the"), "{h}"),
        }
    }
    // the default state: compute is the largest share, but 2× bandwidth pays more
    // than 2× FLOP/s, so memory limits it, and fusing (a memory remedy) wins
    let s = State::default();
    let r = s.report();
    assert_eq!(r.shares.largest(), Regime::Compute);
    assert!(r.limit.bw2 > r.limit.flops2, "{:?}", r.limit);
    assert_eq!(r.regime, Regime::Memory);
    let h = headline(&r.limit, &evaluate(&s.setting));
    assert!(
        h.starts_with("Biggest win: “Fuse the 8 pointwise ops into one kernel” (1.56×"),
        "{h}"
    );
    assert!(
        h.contains("it is memory-bandwidth-bound (2× bandwidth alone buys"),
        "{h}"
    );
}

#[test]
fn doubling_the_factory_is_explained_by_the_shares() {
    let sh = Shares::three;
    assert!(why_more_flops(sh(0.97, 0.03, 0.0), 1.94)
        .starts_with("close to 2×: the factory was busy 97.0 %"));
    let w = why_more_flops(sh(0.2, 0.5, 0.3), 1.11);
    assert!(
        w.contains("only the time on the compute roof (20.0 %)"),
        "{w}"
    );
    assert!(
        w.contains("memory, 50.0 %") && w.contains("CPU overhead, 30.0 %"),
        "{w}"
    );
    let w = why_more_flops(sh(0.0, 1.0, 0.0), 1.0);
    assert!(
        w.starts_with("not 2× at all") && !w.contains("overhead"),
        "{w}"
    );
    // the model's own doubling: the explanation's branch follows the real speedup
    for s in settings().iter().step_by(11) {
        let r = analyse(&s.shape, &s.machine());
        let flops = evaluate(s)
            .into_iter()
            .find(|o| o.id == RemedyId::Flops)
            .unwrap();
        let w = why_more_flops(r.shares, flops.speedup());
        assert_eq!(
            w.starts_with("not 2× at all"),
            !flops.helps(),
            "{w} {}",
            flops.speedup()
        );
    }
}

#[test]
fn a_speedup_under_the_bar_never_reads_as_the_bar() {
    let o = |sp: f64| Outcome {
        id: RemedyId::Batch,
        label: "x".into(),
        effect: Ok(Effect {
            before: sp,
            after: 1.0,
            change: Change::Cpu(Remedies::NONE),
            cuts: Regime::Overhead,
        }),
    };
    assert_eq!(speedup_text(&o(1.0496)), "1.0496");
    assert_eq!(speedup_text(&o(1.05)), "1.05");
    assert_eq!(speedup_text(&o(1.5)), "1.5");
    assert!(!o(1.0496).helps() && o(1.05).helps());
}

/// bf16 wins on a fused fp32 chain (no matmul at all) by halving the
/// bytes it moves; the headline names that mechanism, not the tensor cores the
/// remedy is named for (it said "a remedy for compute time, which still takes
/// 0.0 % of the step").
#[test]
fn the_headline_names_how_the_winner_wins() {
    let hw = crate::model::hardware::preset("a100-40gb").unwrap_or(&PRESETS[0]);
    let mut s = State::for_preset(hw).setting;
    s.select_dtype(Dtype::Fp32);
    s.shape = Shape {
        workload: Workload::Chain,
        batch: 65536,
        hidden: 4096,
        ops: 32,
        fused: true,
    };
    let r = analyse(&s.shape, &s.machine());
    let outs = evaluate(&s);
    let b = best(&outs).filter(|b| b.helps());
    let b = b.unwrap_or_else(|| panic!("something helps: {outs:?}"));
    assert_eq!(b.id, RemedyId::Tensor, "{outs:?}");
    let cuts = b.effect.as_ref().map(|e| e.cuts);
    assert_eq!(cuts, Ok(Regime::Memory));
    let h = headline(&r.limit, &outs);
    assert!(!h.contains("compute time"), "{h}");
    if r.regime == Regime::Memory {
        assert!(h.contains("a remedy for what limits the step"), "{h}");
    } else {
        assert!(h.contains("by cutting memory traffic, which takes"), "{h}");
    }
    // every winner's mechanism is the class its run cut most, so a headline that
    // calls it "a remedy for what limits the step" cut that very class
    for s in settings().iter().step_by(7) {
        let r = analyse(&s.shape, &s.machine());
        let outs = evaluate(s);
        let h = headline(&r.limit, &outs);
        if let Some(b) = best(&outs).filter(|b| b.helps()) {
            let cuts = b.effect.as_ref().map(|e| e.cuts).unwrap_or(r.regime);
            assert_eq!(
                h.contains("a remedy for what limits the step"),
                cuts == r.regime,
                "{h}"
            );
        }
    }
}

#[test]
fn remedies_within_five_percent_are_never_split_across_the_bar() {
    let mut all = settings();
    for b in [1, 2, 8, 32, 64, 84, 100, 128, 160, 256, 1024] {
        let mut s = State::default().setting;
        s.shape.batch = b;
        all.push(s);
    }
    let mut near = 0;
    for s in all.iter() {
        let outs = evaluate(s);
        let g = groups(&outs);
        assert_eq!(
            g.helps.len() + g.near.len() + g.useless.len() + g.na.len(),
            outs.len()
        );
        assert!(g.helps.iter().all(|o| o.helps()));
        assert!(g.useless.iter().all(|o| o.applicable() && !o.helps()));
        assert!(g.na.iter().all(|o| !o.applicable()));
        for h in &g.helps {
            for u in &g.useless {
                assert!(
                    h.speedup() >= limit::NEAR * u.speedup(),
                    "{:?} {} beside {:?} {}: {s:?}",
                    h.id,
                    h.speedup(),
                    u.id,
                    u.speedup()
                );
            }
        }
        // the near list straddles the bar
        if !g.near.is_empty() {
            near += 1;
            assert!(g.near.iter().any(|o| o.helps()) && g.near.iter().any(|o| !o.helps()));
        }
        for l in [&g.helps, &g.near, &g.useless] {
            assert!(l.windows(2).all(|w| w[0].speedup() >= w[1].speedup()));
        }
    }
    assert!(near > 10, "{near}");
}
