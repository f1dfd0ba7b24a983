//! The functional core: pure Rust, no web-sys / leptos / DOM. Everything the page
//! shows is computed here and tested natively.

pub mod achievable;
pub mod bert;
pub mod dit;
pub mod double_batch;
pub mod fusion;
pub mod gemm;
pub mod generations;
pub mod hardware;
pub mod limit;
pub mod llm;
pub mod measured;
pub mod microbench;
pub mod ops;
pub mod overhead;
pub mod parallel;
pub mod reference;
pub mod remedies;
pub mod roofline;
pub mod serve;
pub mod setting;
pub mod timeline;
pub mod units;
pub mod verdict;
pub mod workload;

pub use generations::Line;
pub use hardware::{Dtype, Preset};
pub use limit::Limit;
pub use roofline::Bound;
pub use setting::Setting;
pub use timeline::{Regime, Shares, Timeline};
pub use workload::{KernelGroup, Machine, Shape, Unit, Workload};

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

#[cfg(test)]
mod essay_tests;

/// Test fixture: the A100 40GB preset in fp32, the essay's setting.
#[cfg(test)]
pub(crate) fn a100_fp32() -> Machine {
    let mut s = crate::state::State::default();
    s.select_dtype(Dtype::Fp32);
    s.machine()
}

/// Sorts a short list by `key`, largest first, keeping the given order among
/// equal keys (as a stable `sort_by` would). An insertion sort: the lists it
/// sorts hold a handful of items, and each `sort_by` closure would otherwise
/// link its own copy of the standard library's sort into the page's .wasm
/// (~4 KB of code each, counted in the first visit's bytes).
pub(crate) fn sort_largest_first<T>(v: &mut [T], key: impl Fn(&T) -> f64) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j - 1]).total_cmp(&key(&v[j])).is_lt() {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod sort_tests {
    #[test]
    fn largest_first_and_stable() {
        let mut v = [(1.0, 'a'), (3.0, 'b'), (1.0, 'c'), (2.0, 'd'), (3.0, 'e')];
        super::sort_largest_first(&mut v, |x| x.0);
        let order: String = v.iter().map(|x| x.1).collect();
        assert_eq!(order, "bedac");
        let mut e: [f64; 0] = [];
        super::sort_largest_first(&mut e, |x| *x);
    }
}
