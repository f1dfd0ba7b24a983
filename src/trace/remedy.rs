//! The remedies a trace can price, each with its predicted step and a sentence
//! written from the numbers of this trace (never a fixed table).
//!
//! Two kinds of prediction:
//! - **the time warp** ([`super::counterfactual`]) for `no_idle`,
//!   `fuse_memory_bound`, `matmuls_at_roof` and `overlap_communication`: a cost
//!   class scaled on the recorded timeline; the speedup is the span's, and the
//!   step after the fix is the step ÷ that speedup;
//! - **a replay** ([`super::replay`]) for `cuda_graphs` and `compile_cuda_graphs`
//!   (`torch.compile(mode="reduce-overhead")`: fusion, then a graph): each step
//!   predicted as a replay; the speedup is the step ÷ that. A run that already
//!   replays CUDA graphs is offered neither.
//!
//! Every speedup is against the step as profiled. A profiler slows the CPU side
//! of an eager run, so where the trace lets brrr estimate the unprofiled step
//! ([`super::profiler`]) it also gives the speedup against that
//! ([`Remedy::speedup_unprofiled`]): the gain an unprofiled run would see.

use super::counterfactual::{Profile, Scale};
use crate::model::units::si;

/// One priced remedy.
#[derive(Clone, Debug, PartialEq)]
pub struct Remedy {
    pub id: &'static str,
    /// What it is and what it buys here, as a sentence.
    pub label: String,
    /// The step before ÷ the step after (the profiled step).
    pub speedup: f64,
    /// The step after the fix, µs, as a trace of the fixed run would show it.
    pub step_after: f64,
    /// The unprofiled step estimate ÷ the step after, where there is one.
    pub speedup_unprofiled: Option<f64>,
}

/// The remedy ids, in the order they are priced (the list is sorted by speedup).
pub const REMEDY_IDS: [&str; 6] = [
    "no_idle",
    "cuda_graphs",
    "compile_cuda_graphs",
    FUSE_MEMORY_BOUND,
    MATMULS_AT_ROOF,
    "overlap_communication",
];
pub const FUSE_MEMORY_BOUND: &str = "fuse_memory_bound";
pub const MATMULS_AT_ROOF: &str = "matmuls_at_roof";

/// A remedy's name in words (the page shows these, not the ids).
pub fn name(id: &str) -> &'static str {
    match id {
        "no_idle" => "No idle time",
        "cuda_graphs" => "CUDA graphs",
        "compile_cuda_graphs" => "torch.compile, reduce-overhead",
        FUSE_MEMORY_BOUND => "Fuse memory-bound kernels",
        MATMULS_AT_ROOF => "Matmuls at the roof",
        "overlap_communication" => "Overlap communication",
        _ => "A remedy",
    }
}

/// What fusion found ([`super::fusion`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FusionFound {
    /// Runs of two or more fusible kernels.
    pub runs: usize,
    /// Kernels in the longest run: that run's traffic falls at most this many times.
    pub longest: usize,
    /// The memory class's time after fusion ÷ before.
    pub factor: f64,
}

/// Everything the remedies are priced from.
#[derive(Clone, Debug, PartialEq)]
pub struct Inputs {
    /// The warp's timeline.
    pub profile: Profile,
    /// The mean step, µs, and the unprofiled estimate.
    pub step: f64,
    pub step_unprofiled: Option<f64>,
    /// The kernels already replay CUDA graphs.
    pub graph_replay: bool,
    /// The mean graph launch call (`cudaGraphLaunch`), µs, where there is one.
    pub graph_launch: Option<f64>,
    /// The mean step as a graph replay, and fused then replayed, µs.
    pub replay: f64,
    pub replay_fused: f64,
    /// Kernels per step, and host syncs per step.
    pub kernels_per_step: f64,
    pub fusion: FusionFound,
    /// `matmuls_at_roof`'s factors on the compute and memory classes, and the
    /// preset's name; `None` without a preset.
    pub roof: Option<(f64, f64, &'static str)>,
    /// Some time goes to collectives.
    pub communication: bool,
}

fn remedy(id: &'static str, label: String, x: &Inputs, step_after: f64) -> Remedy {
    let step_after = step_after.max(0.0);
    // an empty step (HTA's rounding can leave a span of 0) is not sped up
    let ratio = |before: f64| {
        if step_after > 0.0 && before > 0.0 {
            before / step_after
        } else {
            1.0
        }
    };
    Remedy {
        id,
        label,
        speedup: ratio(x.step),
        step_after,
        speedup_unprofiled: x.step_unprofiled.map(ratio),
    }
}

/// A warp remedy: the span's speedup applied to the step.
fn warped(id: &'static str, label: String, x: &Inputs, s: Scale) -> Remedy {
    let (before, after) = (x.profile.span(Scale::ONE), x.profile.span(s));
    let speedup = if after > 0.0 { before / after } else { 1.0 };
    remedy(id, label, x, x.step / speedup)
}

/// Every remedy the trace can price, best first.
pub fn remedies(x: &Inputs) -> Vec<Remedy> {
    let step = si(x.step * 1e-6, "s");
    let mut v = Vec::new();
    let busy = x.profile.span(Scale {
        idle: 0.0,
        launch_wait: 0.0,
        ..Scale::ONE
    });
    let no_idle = Scale {
        idle: 0.0,
        launch_wait: 0.0,
        ..Scale::ONE
    };
    v.push(warped("no_idle", no_idle_label(x, busy), x, no_idle));
    if !x.graph_replay {
        v.push(remedy(
            "cuda_graphs",
            format!(
                "each step replayed as one graph, its {} kernels back to back ({} µs apart, as measured in a replay) after one launch, with its host syncs: {} per step instead of {}",
                sig(x.kernels_per_step),
                super::replay::GRAPH_GAP_US,
                si(x.replay * 1e-6, "s"),
                step
            ),
            x,
            x.replay,
        ));
        v.push(remedy(
            "compile_cuda_graphs",
            format!(
                "the fusible runs fused ({} run{}), then each step replayed as a graph, as torch.compile(mode=\"reduce-overhead\") does: {} per step instead of {} (Dynamo's own per-call CPU time, which an eager trace cannot show, not counted)",
                x.fusion.runs,
                if x.fusion.runs == 1 { "" } else { "s" },
                si(x.replay_fused * 1e-6, "s"),
                step
            ),
            x,
            x.replay_fused,
        ));
    }
    v.push(warped(
        FUSE_MEMORY_BOUND,
        fuse_label(&x.fusion),
        x,
        Scale {
            memory: x.fusion.factor,
            ..Scale::ONE
        },
    ));
    if let Some((compute, memory, preset)) = x.roof {
        v.push(warped(
            MATMULS_AT_ROOF,
            format!(
                "each matmul, conv and attention kernel placed by shape runs at the achievable roof of the {preset}, max(FLOPs ÷ peak, bytes ÷ bandwidth), never longer than it took; the kernels that could not be placed keep their time"
            ),
            x,
            Scale {
                compute,
                memory,
                ..Scale::ONE
            },
        ));
    }
    v.push(warped(
        "overlap_communication",
        if x.communication {
            "collectives hidden behind compute: they cost nothing where they ran alone".to_string()
        } else {
            "this run has no collectives, so nothing to hide".to_string()
        },
        x,
        Scale {
            communication: 0.0,
            ..Scale::ONE
        },
    ));
    v.sort_by(|a, b| b.speedup.total_cmp(&a.speedup));
    v
}

/// `no_idle`'s sentence: what idle time is left, and what removing it takes.
fn no_idle_label(x: &Inputs, busy: f64) -> String {
    let head = format!(
        "the run shrinks to its busy time, {} of its {} span: an upper bound",
        si(busy * 1e-6, "s"),
        si(x.profile.span(Scale::ONE) * 1e-6, "s")
    );
    if !x.graph_replay {
        return format!("{head}, which needs CUDA graphs, no host syncs, and an input pipeline and collectives never waited on");
    }
    // a replayed run: the idle left is the CPU between replays
    let call = x.graph_launch.map_or(String::new(), |g| {
        format!(
            " (each graph launch call took {} here; the profiler lengthens it)",
            si(g * 1e-6, "s")
        )
    });
    format!(
        "{head}. The run already replays CUDA graphs: its idle time is the CPU's between replays (torch.compile's guards and input copies, the graph launch call{call}, the host sync after each step), which only launching the next step before the last one ends, with no host sync between, removes"
    )
}

fn sig(x: f64) -> String {
    crate::model::units::sig3(x)
}

fn fuse_label(f: &FusionFound) -> String {
    if f.runs == 0 {
        return "as torch.compile would: no two memory-bound kernels run back to back on a stream within a step, so there is nothing to fuse".to_string();
    }
    format!(
        "as torch.compile would: {} run{} of back-to-back memory-bound kernels on a stream, within a step and with no host sync between, each become one kernel as long as its longest member; the longest run has {} kernels, so its traffic falls at most {}× (memory-bound time ×{} after)",
        f.runs,
        if f.runs == 1 { "" } else { "s" },
        f.longest,
        f.longest,
        sig(f.factor)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::classify::CostClass;

    fn inputs(graph_replay: bool) -> Inputs {
        // compute 10, gap 5, memory 20, gap 5, comm 10: a 50 µs span, one step
        let iv = [
            (0.0, 10.0, CostClass::Compute),
            (15.0, 35.0, CostClass::Memory),
            (40.0, 50.0, CostClass::Communication),
        ];
        Inputs {
            profile: Profile::new(&iv),
            step: 50.0,
            step_unprofiled: Some(40.0),
            graph_replay,
            graph_launch: graph_replay.then_some(20.0),
            replay: 41.0,
            replay_fused: 31.0,
            kernels_per_step: 3.0,
            fusion: FusionFound {
                runs: 1,
                longest: 2,
                factor: 0.5,
            },
            roof: Some((0.2, 1.0, "NVIDIA H200")),
            communication: true,
        }
    }

    #[test]
    fn warped_and_replayed() {
        let r = remedies(&inputs(false));
        let get = |id: &str| r.iter().find(|x| x.id == id).unwrap();
        assert_eq!(r.len(), 6);
        assert!(r
            .iter()
            .all(|x| REMEDY_IDS.contains(&x.id) && !x.label.is_empty()));
        assert!(r.windows(2).all(|w| w[0].speedup >= w[1].speedup));
        // the warp: memory 20 → 10: span 50 → 40, the step too
        let f = get(FUSE_MEMORY_BOUND);
        assert_eq!((f.speedup, f.step_after), (50.0 / 40.0, 40.0));
        assert_eq!(f.speedup_unprofiled, Some(1.0));
        assert!(f.label.contains("at most 2×"), "{}", f.label);
        assert_eq!(get(MATMULS_AT_ROOF).step_after, 42.0);
        // the replays: the step as predicted
        assert_eq!(get("cuda_graphs").step_after, 41.0);
        assert_eq!(get("compile_cuda_graphs").speedup, 50.0 / 31.0);
        assert_eq!(get("no_idle").step_after, 40.0);
        assert!(get("no_idle").label.contains("needs CUDA graphs"));
        // a run that replays graphs already is not offered them, and no_idle
        // says what its idle time is instead of asking for graphs
        let r = remedies(&inputs(true));
        assert!(r.iter().all(|x| !x.id.contains("graph")));
        assert_eq!(r.len(), 4);
        let n = &r.iter().find(|x| x.id == "no_idle").unwrap().label;
        assert!(!n.contains("needs CUDA graphs"), "{n}");
        assert!(
            n.contains("already replays CUDA graphs") && n.contains("20 µs"),
            "{n}"
        );
    }
}
