//! Property tests of the model over the whole declared input range.

use brrr::model::{Dtype, Workload};
use brrr::state::{limits, url, State};
use proptest::prelude::*;

fn arb_state() -> impl Strategy<Value = State> {
    let presets = brrr::model::hardware::PRESETS;
    (
        0..presets.len(),
        0usize..4,
        (limits::FLOPS.0.log10()..=limits::FLOPS.1.log10()),
        (limits::BW.0.log10()..=limits::BW.1.log10()),
        limits::BATCH.0..=limits::BATCH.1,
        limits::HIDDEN.0..=limits::HIDDEN.1,
        any::<bool>(),
        limits::OPS.0..=limits::OPS.1,
        any::<bool>(),
        (limits::OVERHEAD.0.log10()..=limits::OVERHEAD.1.log10()),
    )
        .prop_map(|(hw, dt, f, b, batch, hidden, mlp, ops, fused, o)| {
            let mut s = State::for_preset(&presets[hw]);
            s.select_dtype(Dtype::ALL[dt]);
            s.setting.flops = 10f64.powf(f).clamp(limits::FLOPS.0, limits::FLOPS.1);
            s.setting.bw = 10f64.powf(b).clamp(limits::BW.0, limits::BW.1);
            s.setting.shape.batch = batch;
            s.setting.shape.hidden = hidden;
            s.setting.shape.workload = if mlp { Workload::Mlp } else { Workload::Chain };
            s.setting.shape.ops = ops;
            s.setting.shape.fused = fused;
            s.setting.overhead = 10f64.powf(o).clamp(limits::OVERHEAD.0, limits::OVERHEAD.1);
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn outputs_finite_and_shares_sum_to_one(s in arb_state()) {
        let r = s.report();
        for v in [r.wall_time_s, r.achieved_flops, r.achieved_bw, r.intensity,
                  r.shares.compute, r.shares.memory, r.shares.overhead] {
            prop_assert!(v.is_finite() && v >= 0.0, "{v}");
        }
        prop_assert!(r.wall_time_s > 0.0);
        prop_assert!((r.shares.compute + r.shares.memory + r.shares.overhead - 1.0).abs() < 1e-9);
    }

    #[test]
    fn more_flops_bw_or_less_overhead_never_slower(s in arb_state(), k in 1.0f64..100.0) {
        let t = s.report().wall_time_s;
        let mut f = s.clone(); f.setting.flops *= k;
        let mut b = s.clone(); b.setting.bw *= k;
        let mut o = s.clone(); o.setting.overhead /= k;
        prop_assert!(f.report().wall_time_s <= t * (1.0 + 1e-12));
        prop_assert!(b.report().wall_time_s <= t * (1.0 + 1e-12));
        prop_assert!(o.report().wall_time_s <= t * (1.0 + 1e-12));
    }

    /// The essay: achieving 80 % of peak FLOP/s means being compute-bound at least
    /// 80 % of the time. In the model: the share of the matmul peak a step attains
    /// never exceeds the share of the step during which the compute units are busy
    /// (each kernel keeps them busy for FLOPs / ceiling), and at most the time its
    /// kernels run at all.
    #[test]
    fn share_of_peak_is_at_most_the_share_of_time_computing(s in arb_state()) {
        let r = s.report();
        let m = s.machine();
        let busy: f64 = r.groups.iter()
            .map(|g| f64::from(g.group.count) * g.group.flops / m.ceiling(g.group.unit))
            .sum::<f64>() / r.wall_time_s;
        let of_peak = r.achieved_flops / m.matmul_flops;
        prop_assert!(of_peak <= busy * (1.0 + 1e-9), "{of_peak} of peak, computing {busy}");
        prop_assert!(busy <= (r.shares.compute + r.shares.memory) * (1.0 + 1e-9) + 1e-12);
    }

    #[test]
    fn fused_never_slower_than_eager(s in arb_state()) {
        let mut e = s.clone(); e.setting.shape.fused = false;
        let mut f = s; f.setting.shape.fused = true;
        prop_assert!(f.report().wall_time_s <= e.report().wall_time_s * (1.0 + 1e-12));
    }

    #[test]
    fn valid_states_round_trip_through_the_url(s in arb_state()) {
        let (back, notices) = url::decode(&url::encode(&s));
        prop_assert!(notices.is_empty(), "{:?}", notices);
        prop_assert_eq!(back, s);
    }

    #[test]
    fn any_query_decodes_without_panicking(q in ".{0,200}") {
        let (s, _) = url::decode(&q);
        let r = s.report();
        prop_assert!(r.wall_time_s.is_finite());
        let (again, n) = url::decode(&url::encode(&s));
        prop_assert!(n.is_empty());
        prop_assert_eq!(again, s);
    }
}
