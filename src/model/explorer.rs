//! The explorer's model: one workload on one machine, its kernels run on the
//! timeline, with what limits the step ([`analyse`]).

use crate::model::limit::{self, Limit};
use crate::model::roofline::Bound;
use crate::model::timeline::{self, Regime, Shares, Timeline};
use crate::model::workload::{self, KernelGroup, Machine, Shape};

/// Per-group results, for points on the roofline.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupResult {
    pub group: KernelGroup,
    /// Time of one kernel of the group.
    pub time: f64,
    pub bound: Bound,
    /// FLOP/s one kernel attains.
    pub achieved_flops: f64,
    /// The memory level its traffic is priced on ([`Machine::level`]).
    pub level: crate::model::workload::Level,
}

/// Everything the explorer shows for one state.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub wall_time_s: f64,
    pub total_flops: f64,
    pub total_bytes: f64,
    pub achieved_flops: f64,
    pub achieved_bw: f64,
    /// Workload FLOPs / bytes.
    pub intensity: f64,
    pub shares: Shares,
    /// What limits the step ([`limit`]): the regime and its three counterfactuals.
    pub limit: Limit,
    /// The memory cost split by level, where the machine has an L2 roof.
    pub levels: Option<limit::Levels>,
    pub regime: Regime,
    pub kernel_count: u32,
    pub groups: Vec<GroupResult>,
    pub timeline: Timeline,
}

impl Report {
    /// Each group where the roofline draws it.
    pub fn roof_points(&self) -> Vec<workload::RoofPoint> {
        self.groups
            .iter()
            .map(|g| workload::RoofPoint {
                name: g.group.name.into(),
                intensity: g.group.intensity(),
                flops: g.achieved_flops,
                time: g.time,
                count: g.group.count,
                unit: g.group.unit,
                bound: g.bound,
            })
            .collect()
    }

    /// The whole step where the roofline draws it.
    pub fn roof_step(&self) -> timeline::RoofStep {
        timeline::RoofStep {
            intensity: self.intensity,
            flops: self.achieved_flops,
            time: self.wall_time_s,
            regime: self.regime,
        }
    }
}

/// Run the model for one workload on one machine.
pub fn analyse(shape: &Shape, m: &Machine) -> Report {
    let groups = workload::kernels(shape, m.elem_bytes);
    let timeline = timeline::simulate(&groups, m);
    let limit = limit::of_groups(&groups, m, &timeline);
    let levels = limit::levels(&groups, m, timeline.wall);
    let total_flops: f64 = groups.iter().map(|g| g.flops * f64::from(g.count)).sum();
    let total_bytes: f64 = groups.iter().map(|g| g.bytes * f64::from(g.count)).sum();
    let kernel_count = groups.iter().map(|g| g.count).sum();
    let results = groups
        .into_iter()
        .map(|g| {
            let (time, bound) = g.time(m);
            GroupResult {
                level: m.level(g.bytes),
                achieved_flops: g.flops / time,
                time,
                bound,
                group: g,
            }
        })
        .collect();
    let wall = timeline.wall;
    let shares = timeline.shares();
    Report {
        wall_time_s: wall,
        total_flops,
        total_bytes,
        achieved_flops: total_flops / wall,
        achieved_bw: total_bytes / wall,
        intensity: total_flops / total_bytes,
        regime: limit.regime,
        limit,
        levels,
        shares,
        kernel_count,
        groups: results,
        timeline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::workload::{Level, Workload};

    /// Bit for bit: the page's default (an A100 40GB, whose L2 bandwidth no
    /// source gives) runs on the same machine as before; and on every preset
    /// a step whose working sets are all beyond L2 (batch and hidden 8192:
    /// 268 MB per pointwise op in bf16) reports the same numbers with the L2
    /// roof as without it, only the level split added.
    #[test]
    fn large_working_sets_are_priced_as_without_l2() {
        let d = crate::state::State::default();
        assert_eq!(d.setting.cached(), d.setting.machine());
        for hw in crate::model::hardware::PRESETS {
            let mut s = crate::state::State::for_preset(hw);
            s.setting.shape.batch = 8192;
            s.setting.shape.hidden = 8192;
            let (with, without) = (s.setting.cached(), s.setting.machine());
            let a = analyse(&s.setting.shape, &with);
            let b = analyse(&s.setting.shape, &without);
            assert!(a.groups.iter().all(|g| g.level == Level::Hbm), "{}", hw.id);
            assert_eq!(
                Report {
                    levels: None,
                    ..a.clone()
                },
                b,
                "{}",
                hw.id
            );
            assert_eq!(a.levels.is_some(), with.l2.is_some(), "{}", hw.id);
            if let Some(v) = a.levels {
                assert_eq!(v.l2_2, 1.0, "{}", hw.id);
                assert_eq!(v.binds(), Level::Hbm, "{}", hw.id);
            }
        }
    }

    /// A small chain on the H200 is priced on its L2: the regime is memory,
    /// the level that binds is L2 (2x L2 bandwidth buys, 2x HBM nothing), and
    /// the headline and the kernel say so.
    #[test]
    fn a_small_working_set_is_placed_and_priced_on_l2() {
        let hw = crate::model::hardware::preset("h200").unwrap();
        let mut s = crate::state::State::for_preset(hw);
        s.setting.overhead = 0.0;
        s.setting.shape = Shape {
            workload: Workload::Chain,
            batch: 2048,
            hidden: 4096,
            ops: 4,
            fused: true,
        };
        let m = s.setting.cached();
        let r = analyse(&s.setting.shape, &m);
        let g = &r.groups[0];
        // 2048 x 4096 bf16 read and written: 33.6 MB, within the 41.4 MB plateau
        assert_eq!(g.level, Level::L2);
        let l2 = crate::model::hardware::l2(hw).bw.unwrap();
        assert!((g.group.bytes / g.time / l2 - 1.0).abs() < 1e-12);
        assert_eq!(r.regime, crate::model::Regime::Memory);
        let v = r.levels.unwrap();
        assert_eq!(v.binds(), Level::L2);
        assert!(v.l2_2 > 1.9 && v.hbm2 == 1.0, "{v:?}");
        let h = crate::model::limit::headline_at(&r.limit, r.wall_time_s, r.levels);
        assert!(h.contains("memory-bandwidth-bound (L2)"), "{h}");
        assert!(
            v.sentence().starts_with("Of the memory levels, L2 binds"),
            "{}",
            v.sentence()
        );
        // 2x bandwidth doubles both levels: the memory regime's test holds
        assert!(r.limit.bw2 > 1.9, "{:?}", r.limit);
        // on HBM alone the same step is slower by the ratio of the roofs
        let plain = analyse(&s.setting.shape, &s.setting.machine());
        assert!((plain.wall_time_s / r.wall_time_s - l2 / hw.mem_bw).abs() < 1e-9);
    }
}
