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
    pub regime: Regime,
    pub kernel_count: u32,
    pub groups: Vec<GroupResult>,
    pub timeline: Timeline,
}

/// Run the model for one workload on one machine.
pub fn analyse(shape: &Shape, m: &Machine) -> Report {
    let groups = workload::kernels(shape, m.elem_bytes);
    let timeline = timeline::simulate(&groups, m);
    let limit = limit::of_groups(&groups, m, &timeline);
    let total_flops: f64 = groups.iter().map(|g| g.flops * f64::from(g.count)).sum();
    let total_bytes: f64 = groups.iter().map(|g| g.bytes * f64::from(g.count)).sum();
    let kernel_count = groups.iter().map(|g| g.count).sum();
    let results = groups
        .into_iter()
        .map(|g| {
            let (time, bound) = g.time(m);
            GroupResult {
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
        shares,
        kernel_count,
        groups: results,
        timeline,
    }
}
