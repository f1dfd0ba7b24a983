//! THE TRACE ANALYSER (pure, native-tested; no web imports, all targets):
//! a PyTorch-profiler (Kineto) trace → where the GPU's time went and which
//! regime the run is in.
//!
//! - [`mod@parse`]: streaming parse of the Chrome-trace JSON (any size, progress,
//!   cancellation, defensive about every field);
//! - [`mod@breakdown`]: HTA 0.5.0's temporal breakdown (idle / compute / non-compute),
//!   reproduced exactly, per rank and per device; [`hta`]: its idle-time
//!   breakdown, communication–computation overlap and launch statistics;
//! - [`classify`]: kernel classes by name, HTA's kernel types, device → preset;
//! - [`shapes`]: FLOPs/bytes of aten ops (matmul, conv, attention, pointwise,
//!   norms, reductions) from recorded shapes;
//! - [`place`]: kernels placed on their ops' FLOPs and bytes, the roofline points;
//! - [`bound`]: each kernel's real limit (compute or memory) on the trace's GPU;
//! - [`steps`]: `ProfilerStep#N`, the kernels of each step, the step's time;
//! - [`fusion`]: the runs a compiler would fuse; [`replay`]: a step as a CUDA
//!   graph replay;
//! - [`counterfactual`]: the time warp that prices halving a cost class, the
//!   regime verdict; [`remedy`]: the remedies, their predicted steps and sentences;
//! - [`profiler`]: the profiler's own cost, and the step without it;
//! - [`timeline`]: the busiest second as lanes of spans;
//! - [`report`]: the JSON row; [`compare`]: two runs before and after a change;
//! - [`diagnose`] puts them together into a [`Diagnosis`].

pub mod bound;
pub mod breakdown;
pub mod classify;
pub mod compare;
pub mod counterfactual;
pub mod fusion;
pub mod hta;
pub mod launch;
pub mod parse;
pub mod place;
pub mod profiler;
pub mod remedy;
pub mod replay;
pub mod report;
pub mod roof;
pub mod shapes;
pub mod steps;
#[cfg(test)]
mod testing;
pub mod timeline;
pub mod unplaced;
pub mod words;

pub use bound::{roof_dtype, time_at_roof};
use breakdown::{activities, breakdown, share, Activity, Breakdown};
pub use classify::is_gpu_cat;
use classify::{is_copy_cat, preset_for_device, CostClass, KernelClass};
use counterfactual::Halving;
pub use parse::{parse, Trace, TraceError};
use place::PlacedRow;
pub use remedy::Remedy;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;
use timeline::TimelineRow;

/// A gap counts as the GPU waiting for a launch when the kernel after it starts
/// within this many µs of its launch call's return and the call returned after
/// the GPU went idle (nothing was queued).
pub const LAUNCH_SLACK_US: f64 = 10.0;

/// Kernels shorter than this (µs) are "short": launch overhead is of their order.
pub const SHORT_KERNEL_US: f64 = 10.0;

/// At most this many distinct kernel names are kept for a comparison.
pub const MAX_KERNEL_NAMES: usize = 2000;

/// Time per kernel class.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassTime {
    pub class: KernelClass,
    pub count: usize,
    /// Σ durations, µs.
    pub time: f64,
    /// Share of Σ durations of all activities.
    pub share: f64,
    /// Σ durations per step, µs (mean over the steps, [`steps`]; the whole
    /// trace when it has no `ProfilerStep` markers).
    pub per_step: f64,
}

/// One kernel name's total.
#[derive(Clone, Debug, PartialEq)]
pub struct TopKernel {
    pub name: String,
    pub class: KernelClass,
    pub count: usize,
    pub time: f64,
}

/// Per step ([`steps`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepSummary {
    /// Distinct `ProfilerStep#N` (0 without markers).
    pub count: usize,
    /// The mean step, µs (the whole trace without markers).
    pub mean: f64,
    /// `cpu`, `gpu` or `trace` ([`steps::Steps::basis`]).
    pub basis: &'static str,
    /// The step as an unprofiled run would take it, µs, where the trace lets
    /// brrr estimate the profiler's cost ([`profiler::unprofiled`]).
    pub unprofiled: Option<f64>,
    /// What one profiler record cost, µs ([`profiler::per_record`]).
    pub per_record: Option<f64>,
    /// Steps most of whose activities are in HTA's breakdown (whose span
    /// leaves out what was launched in the last step, [`breakdown`]).
    pub in_span: usize,
}

/// CUDA graphs found in the trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Graphs {
    /// Graph launch calls (`cudaGraphLaunch`, `hipGraphLaunch`).
    pub launches: usize,
    /// GPU activities launched by one (replayed from a graph).
    pub replayed: usize,
}

impl Graphs {
    /// The run replays CUDA graphs.
    pub fn replay(&self) -> bool {
        self.launches > 0 || self.replayed > 0
    }
}

/// Everything `brrr-trace` reports for one rank.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosis {
    pub rank: Option<i64>,
    pub device: Option<String>,
    /// The hardware preset matched from the device's name.
    pub preset: Option<&'static str>,
    /// The preset the kernels are placed against, classed by and
    /// `matmuls_at_roof` is priced on: [`Options::preset`] if given, else
    /// [`Diagnosis::preset`].
    pub roof_preset: Option<&'static str>,
    /// HTA's breakdown of the rank (all devices together), µs.
    pub hta: Breakdown,
    /// The same per GPU device id.
    pub per_device: Vec<(i64, Breakdown)>,
    /// Events HTA's breakdown counts (kernels, memcpy, memset, and any other
    /// event with a stream).
    pub activities: usize,
    /// Kernels ([`is_gpu_cat`], not copies).
    pub kernels: usize,
    /// Idle time in gaps where the GPU waited for a launch, µs.
    pub launch_wait: f64,
    pub short_kernels: usize,
    /// Σ durations of short kernels / Σ durations of all kernels.
    pub short_kernel_time_share: f64,
    /// Kernels per second of span.
    pub launches_per_s: f64,
    pub classes: Vec<ClassTime>,
    /// Union of each cost class's activities / span, each activity in the cost
    /// class of its real limit ([`bound`]).
    pub compute_class_share: f64,
    pub memory_class_share: f64,
    pub comm_share: f64,
    /// Kernel time (µs) whose class was decided by name, not placed on the roof.
    pub unplaced_time: f64,
    /// Kernel time (µs) not placed but memory-bound by its name's tile and its
    /// launch grid ([`launch`]).
    pub launch_time: f64,
    /// The kernels not placed by shape, by name, most time first: how each was
    /// classed and why ([`unplaced::unplaced`]).
    pub unplaced: Vec<unplaced::Unplaced>,
    pub top_kernels: Vec<TopKernel>,
    pub regime: CostClass,
    pub halvings: Vec<Halving>,
    pub remedies: Vec<Remedy>,
    pub steps: StepSummary,
    pub graphs: Graphs,
    /// The run went through `torch.compile` ([`Trace::compiled`]).
    pub compiled: bool,
    /// Kernels placed by shape: linked to an aten op of any kind [`shapes`]
    /// prices ([`place`]).
    pub placed_kernels: usize,
    /// Of these, replayed kernels placed by their name ([`place::Placement::by_name`]).
    pub placed_by_name: usize,
    /// FLOPs and bytes of the matmul-family ops with a placed kernel, and Σ
    /// those kernels' time (µs).
    pub matmul_flops: f64,
    pub matmul_bytes: f64,
    pub matmul_time: f64,
    /// The roofline's points: (op, kernel) pairs, most time first.
    pub roofline: Vec<PlacedRow>,
    /// The busiest second.
    pub timeline: Option<TimelineRow>,
    /// HTA's idle time breakdown, communication overlap and launch statistics.
    pub idle: hta::IdleBreakdown,
    pub comm_overlap: Option<f64>,
    pub launch: hta::LaunchStats,
    /// Every distinct kernel name, sorted (at most [`MAX_KERNEL_NAMES`]).
    pub kernel_names: Vec<String>,
}

impl Diagnosis {
    pub fn span_s(&self) -> f64 {
        self.hta.span * 1e-6
    }
    pub fn launch_wait_share(&self) -> f64 {
        share(self.launch_wait, self.hta.span)
    }
    pub fn short_kernel_share(&self) -> f64 {
        share(self.short_kernels as f64, self.kernels as f64)
    }
    pub fn best_remedy(&self) -> Option<&Remedy> {
        self.remedies.first()
    }
}

/// Choices the trace cannot make for itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// A hardware preset id (`crate::model::hardware::PRESETS`) to place the
    /// kernels against instead of the one matched from the device name (for a GPU
    /// brrr has no preset for, or to ask "what if on that GPU").
    pub preset: Option<&'static str>,
}

impl Options {
    /// Options with the preset `id`; an error naming the known ids if it is not
    /// one of [`crate::model::hardware::PRESETS`].
    pub fn with_preset(id: &str) -> Result<Options, String> {
        let presets = crate::model::hardware::PRESETS;
        match presets.iter().find(|p| p.id == id) {
            Some(p) => Ok(Options { preset: Some(p.id) }),
            None => Err(format!(
                "unknown GPU preset {id:?} (known: {})",
                presets.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
            )),
        }
    }
}

/// Parses and diagnoses in one go.
pub fn analyse<R: std::io::Read>(
    reader: R,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Diagnosis, TraceError> {
    diagnose(&parse(reader, progress)?)
}

/// [`analyse`] with [`Options`].
pub fn analyse_with<R: std::io::Read>(
    reader: R,
    progress: &mut dyn FnMut(u64) -> bool,
    options: &Options,
) -> Result<Diagnosis, TraceError> {
    diagnose_with(&parse(reader, progress)?, options)
}

/// The diagnosis of one parsed trace; [`TraceError::NoGpuEvents`] when HTA's
/// rules leave no GPU activity.
pub fn diagnose(t: &Trace) -> Result<Diagnosis, TraceError> {
    diagnose_with(t, &Options::default())
}

/// [`diagnose`] with [`Options`].
pub fn diagnose_with(t: &Trace, options: &Options) -> Result<Diagnosis, TraceError> {
    let acts = activities(t);
    let refs: Vec<&Activity> = acts.iter().collect();
    let hta = breakdown(t, &refs).ok_or(TraceError::NoGpuEvents)?;
    let (per_device, device, preset) = devices(t, &acts);
    let roof_preset = options.preset.or(preset);
    let hw = roof_preset.and_then(crate::model::hardware::preset);

    // each kernel placed by shape, and its real limit on the roof preset
    let placement = place::place(t);
    let limits = bound::limits(t, &placement, hw);
    let mut in_acts = vec![false; t.gpu.len()];
    for a in &acts {
        if let Some(x) = in_acts.get_mut(a.index) {
            *x = true;
        }
    }
    let in_acts = |i: usize| in_acts.get(i).copied().unwrap_or(false);
    let placed = place::summary(t, &placement, &in_acts);
    let steps = steps::steps(t, (hta.start, hta.start + hta.span));
    let tally = tally(t, &acts, &limits, &steps);

    // the warp's timeline: each activity in its real limit's class, and the
    // launch-wait gaps (CUDA graphs remove just these)
    let launch_gaps = launch_gaps(t, &acts);
    let mut spans = tally.spans.clone();
    spans.extend(
        launch_gaps
            .iter()
            .map(|(a, b)| (*a, *b, CostClass::Overhead)),
    );
    let (regime, halvings) = counterfactual::regime(&spans);
    let union_share = |cost: CostClass| {
        let iv = spans
            .iter()
            .filter(|s| s.2 == cost && s.1 > s.0)
            .map(|s| (s.0, s.1))
            .collect();
        share(breakdown::covered(&breakdown::merge(iv)), hta.span)
    };
    let graphs = graphs(t);
    let step_summary = step_summary(t, &steps, &in_acts);
    let found = Found {
        t,
        acts: &acts,
        in_acts: &in_acts,
        steps: &steps,
        limits: &limits,
        placement: &placement,
    };
    let remedies = found.priced(&step_summary, hw, &spans, &graphs);
    Ok(Diagnosis {
        rank: t.rank,
        device,
        preset,
        roof_preset,
        hta,
        per_device,
        activities: acts.len(),
        kernels: tally.kernels,
        launch_wait: launch_gaps.iter().fold(0.0, |acc, (a, b)| acc + (b - a)),
        short_kernels: tally.short,
        short_kernel_time_share: tally.short_time_share,
        launches_per_s: share(tally.kernels as f64, hta.span * 1e-6),
        classes: tally.classes,
        compute_class_share: union_share(CostClass::Compute),
        memory_class_share: union_share(CostClass::Memory),
        comm_share: union_share(CostClass::Communication),
        unplaced_time: tally.unplaced_time,
        launch_time: tally.launch_time,
        unplaced: unplaced::unplaced(t, &acts, &limits, hw),
        top_kernels: tally.top_kernels,
        regime,
        halvings,
        remedies,
        steps: step_summary,
        graphs,
        compiled: t.compiled,
        placed_kernels: placed.count,
        placed_by_name: placement.by_name,
        matmul_flops: placed.matmul_flops,
        matmul_bytes: placed.matmul_bytes,
        matmul_time: placed.matmul_time,
        roofline: placed.roofline,
        timeline: timeline::timeline(t, &acts, hta.start, hta.span),
        idle: hta::idle_breakdown(t, &acts),
        comm_overlap: hta::comm_overlap(t, &acts),
        launch: hta::launch_stats(t, &acts),
        kernel_names: tally.names,
    })
}

/// The breakdown per device, and the rank's GPU name and preset.
fn devices(
    t: &Trace,
    acts: &[Activity],
) -> (Vec<(i64, Breakdown)>, Option<String>, Option<&'static str>) {
    let mut by_device: BTreeMap<i64, Vec<&Activity>> = BTreeMap::new();
    for a in acts {
        if let Some(e) = t.gpu.get(a.index) {
            by_device.entry(e.device).or_default().push(a);
        }
    }
    // a "device" holding only CPU-side events (a Triton launcher's `cpu_op`
    // carries `"stream": 0`, which HTA counts, under the process id) is no GPU:
    // it stays in the rank's breakdown, as in HTA's, but gets no line of its own
    let per_device: Vec<(i64, Breakdown)> = by_device
        .iter()
        .filter(|(_, v)| {
            v.iter().any(|a| {
                t.gpu
                    .get(a.index)
                    .is_some_and(|e| is_gpu_cat(t.name(e.cat)))
            })
        })
        .filter_map(|(d, v)| breakdown(t, v).map(|b| (*d, b)))
        .collect();
    // device name: the device with the most activities, else the first listed
    let main_device = by_device
        .iter()
        .max_by_key(|(_, v)| v.len())
        .map(|(d, _)| *d);
    let info = main_device
        .and_then(|d| t.devices.iter().find(|i| i.id == d))
        .or(t.devices.first());
    let device = info.map(|i| i.name.clone());
    let preset = info.and_then(|i| preset_for_device(&i.name, i.memory));
    (per_device, device, preset)
}

/// What one pass over the activities counts.
struct Tally {
    classes: Vec<ClassTime>,
    top_kernels: Vec<TopKernel>,
    kernels: usize,
    short: usize,
    short_time_share: f64,
    unplaced_time: f64,
    launch_time: f64,
    /// (start, end, cost class by real limit) of every kernel, memcpy, memset.
    spans: Vec<counterfactual::Span>,
    names: Vec<String>,
}

/// Classes, short kernels, top kernels and the warp's spans of `acts`; each
/// class's time per step from `steps`.
fn tally(t: &Trace, acts: &[Activity], limits: &bound::Limits, steps: &steps::Steps) -> Tally {
    let mut classes: BTreeMap<KernelClass, (usize, f64)> = BTreeMap::new();
    let mut names: HashMap<u32, (KernelClass, usize, f64)> = HashMap::default();
    let mut spans = Vec::with_capacity(acts.len());
    let (mut kernels, mut short, mut short_time, mut kernel_time, mut total_time, mut unplaced) =
        (0usize, 0usize, 0.0, 0.0, 0.0, 0.0);
    let mut by_launch = 0.0;
    for a in acts {
        let Some(e) = t.gpu.get(a.index).filter(|e| is_gpu_cat(t.name(e.cat))) else {
            continue;
        };
        let c = limits.class(a.index);
        // HTA's rounding can leave a sub-µs kernel with end < start: 0 here
        let dur = (a.end - a.ts).max(0.0);
        let x = classes.entry(c).or_insert((0, 0.0));
        x.0 += 1;
        x.1 += dur;
        let n = names.entry(e.name).or_insert((c, 0, 0.0));
        n.1 += 1;
        n.2 += dur;
        total_time += dur;
        if !is_copy_cat(t.name(e.cat)) {
            kernels += 1;
            kernel_time += dur;
            if dur < SHORT_KERNEL_US {
                short += 1;
                short_time += dur;
            }
            match limits.basis(a.index) {
                launch::Basis::Name => unplaced += dur,
                launch::Basis::Launch => by_launch += dur,
                launch::Basis::Roof => {}
            }
        }
        spans.push((a.ts, a.end, limits.of(a.index)));
    }
    let per_step = class_per_step(t, steps, limits);
    let classes: Vec<ClassTime> = classes
        .into_iter()
        .map(|(class, (count, time))| ClassTime {
            class,
            count,
            time,
            share: share(time, total_time),
            per_step: per_step.get(&class).copied().unwrap_or(0.0),
        })
        .collect();
    let mut all_names: Vec<String> = t
        .gpu
        .iter()
        .filter(|e| t.name(e.cat).eq_ignore_ascii_case("kernel"))
        .map(|e| e.name)
        .collect::<HashSet<u32>>()
        .into_iter()
        .map(|n| t.name(n).to_string())
        .collect();
    all_names.sort();
    all_names.truncate(MAX_KERNEL_NAMES);
    let mut top_kernels: Vec<TopKernel> = names
        .into_iter()
        .map(|(id, (class, count, time))| TopKernel {
            name: t.name(id).to_string(),
            class,
            count,
            time,
        })
        .collect();
    top_kernels.sort_by(|a, b| b.time.total_cmp(&a.time).then_with(|| a.name.cmp(&b.name)));
    top_kernels.truncate(10);
    Tally {
        classes,
        top_kernels,
        kernels,
        short,
        short_time_share: share(short_time, kernel_time),
        unplaced_time: unplaced,
        launch_time: by_launch,
        spans,
        names: all_names,
    }
}

/// Each kernel class's time per step, µs (as written: a step's own figures).
fn class_per_step(
    t: &Trace,
    steps: &steps::Steps,
    limits: &bound::Limits,
) -> BTreeMap<KernelClass, f64> {
    let mut per: BTreeMap<KernelClass, f64> = BTreeMap::new();
    for s in &steps.steps {
        for (i, e) in s.acts.iter().filter_map(|i| t.gpu.get(*i).map(|e| (*i, e))) {
            *per.entry(limits.class(i)).or_insert(0.0) += e.dur.max(0.0);
        }
    }
    let n = steps.steps.len().max(1) as f64;
    per.values_mut().for_each(|v| *v /= n);
    per
}

/// The graph launches and the activities they launched.
fn graphs(t: &Trace) -> Graphs {
    let replayed = t
        .gpu
        .iter()
        .filter(|e| is_gpu_cat(t.name(e.cat)))
        .filter(|e| launch::replayed(t, e))
        .count();
    Graphs {
        launches: t.graph_launches.len(),
        replayed,
    }
}

/// The steps' count, mean, basis and unprofiled estimate ([`profiler`]: each
/// step less what the profiler's records cost, estimated from this trace).
fn step_summary(t: &Trace, steps: &steps::Steps, in_acts: &dyn Fn(usize) -> bool) -> StepSummary {
    let unprofiled = profiler::unprofiled(t, steps);
    let per_record = profiler::per_record(t).map(|p| p.us);
    StepSummary {
        count: steps.count(),
        mean: steps.mean(),
        basis: steps.basis(),
        unprofiled,
        per_record,
        in_span: steps
            .steps
            .iter()
            .filter(|s| 2 * s.acts.iter().filter(|i| in_acts(**i)).count() > s.acts.len())
            .count(),
    }
}

/// What the analysis found that the remedies are priced from.
struct Found<'a> {
    t: &'a Trace,
    /// HTA's activities, and their GPU event indices.
    acts: &'a [Activity],
    in_acts: &'a dyn Fn(usize) -> bool,
    steps: &'a steps::Steps,
    limits: &'a bound::Limits,
    placement: &'a place::Placement,
}

impl Found<'_> {
    /// Every remedy priced on this trace.
    fn priced(
        &self,
        summary: &StepSummary,
        hw: Option<&'static crate::model::hardware::Preset>,
        spans: &[counterfactual::Span],
        graphs: &Graphs,
    ) -> Vec<Remedy> {
        let (t, steps, in_acts) = (self.t, self.steps, self.in_acts);
        let cost = |i: usize| self.limits.of(i);
        let class = |i: usize| self.limits.class(i);
        let runs = fusion::runs(t, &class, &cost, &steps.step_of(t.gpu.len()));
        let fused: HashMap<usize, usize> = runs
            .iter()
            .enumerate()
            .flat_map(|(r, run)| run.members.iter().map(move |m| (*m, r)))
            .collect();
        let run_max: Vec<f64> = runs.iter().map(|r| r.max).collect();
        let in_runs = |r: &&fusion::Run| r.members.iter().all(|m| in_acts(*m));
        let kernels: usize = steps.steps.iter().map(|s| s.acts.len()).sum();
        let inputs = remedy::Inputs {
            profile: counterfactual::Profile::new(spans),
            step: summary.mean,
            step_unprofiled: summary.unprofiled,
            graph_replay: graphs.replay(),
            graph_launch: (!t.graph_launches.is_empty()).then(|| {
                t.graph_launches
                    .iter()
                    .map(|(a, b)| (b - a).max(0.0))
                    .sum::<f64>()
                    / t.graph_launches.len() as f64
            }),
            replay: replay::replay(t, steps, &HashMap::default(), &[]),
            replay_fused: replay::replay(t, steps, &fused, &run_max),
            kernels_per_step: kernels as f64 / steps.steps.len().max(1) as f64,
            fusion: remedy::FusionFound {
                runs: runs.iter().filter(in_runs).count(),
                longest: runs
                    .iter()
                    .filter(in_runs)
                    .map(|r| r.members.len())
                    .max()
                    .unwrap_or(0),
                factor: fusion::fuse_factor(t, &runs, &cost, in_acts),
            },
            roof: hw.map(|hw| {
                let (c, m) = self.roof_factors(hw);
                (c, m, hw.name)
            }),
            communication: spans.iter().any(|s| s.2 == CostClass::Communication),
        };
        remedy::remedies(&inputs)
    }

    /// `matmuls_at_roof`'s factors: the compute class's and the memory class's
    /// time with every matmul-class kernel placed by shape at its time at the
    /// roof (never longer than it took), ÷ as recorded (1 without such time).
    fn roof_factors(&self, hw: &crate::model::hardware::Preset) -> (f64, f64) {
        let t = self.t;
        let mut sums = [(0.0, 0.0); 2];
        for a in self.acts {
            if !t
                .gpu
                .get(a.index)
                .is_some_and(|e| is_gpu_cat(t.name(e.cat)))
            {
                continue;
            }
            let slot = match self.limits.of(a.index) {
                CostClass::Compute => 0,
                CostClass::Memory => 1,
                _ => continue,
            };
            let dur = (a.end - a.ts).max(0.0);
            let matmul = matches!(
                self.limits.class(a.index),
                KernelClass::Matmul | KernelClass::Attention
            );
            let at = self
                .placement
                .get(a.index)
                .filter(|_| matmul)
                .and_then(|k| time_at_roof(k, hw))
                .map_or(dur, |x| x.clamp(0.0, dur));
            if let Some(s) = sums.get_mut(slot) {
                s.0 += dur;
                s.1 += at;
            }
        }
        let f = |(old, new): (f64, f64)| if old > 0.0 { new / old } else { 1.0 };
        (f(sums[0]), f(sums[1]))
    }
}

/// The gaps of the union (start, end; µs) where the GPU waited for the CPU: the
/// activity that ends the gap was launched by a call that returned after the gap
/// began (nothing was queued) and it started within [`LAUNCH_SLACK_US`] of that
/// return. A wait on a graph launch (`cudaGraphLaunch`, `hipGraphLaunch`) is not
/// one: the kernels already run as a CUDA graph, which cannot remove its own
/// launch (that gap stays other idle time).
pub fn launch_gaps(t: &Trace, acts: &[Activity]) -> Vec<(f64, f64)> {
    let mut order: Vec<&Activity> = acts.iter().collect();
    order.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.end.total_cmp(&a.end)));
    let mut max_end = f64::NEG_INFINITY;
    let mut gaps = Vec::new();
    for a in order {
        if a.ts > max_end && max_end.is_finite() {
            let gap_start = max_end;
            let launch = t
                .gpu
                .get(a.index)
                .and_then(|e| t.cpu.get(&e.correlation))
                .filter(|c| !t.name(c.launch_name).contains("GraphLaunch"))
                .and_then(|c| c.launch);
            if let Some((lts, ldur)) = launch {
                let (_, lend) = breakdown::hta_times(t, lts, ldur);
                if lend > gap_start && a.ts <= lend + LAUNCH_SLACK_US {
                    gaps.push((gap_start, a.ts));
                }
            }
        }
        max_end = max_end.max(a.end);
    }
    gaps
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(events: &[String]) -> Diagnosis {
        let body = format!(r#"{{"traceEvents": [{}]}}"#, events.join(","));
        analyse(body.as_bytes(), &mut |_| true).unwrap()
    }

    fn k(name: &str, ts: f64, dur: f64, corr: i64) -> String {
        format!(
            r#"{{"ph":"X","cat":"kernel","name":"{name}","ts":{ts},"dur":{dur},"args":{{"stream":7,"correlation":{corr},"device":0}}}}"#
        )
    }

    fn launch(ts: f64, dur: f64, corr: i64) -> String {
        format!(
            r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","ts":{ts},"dur":{dur},"args":{{"correlation":{corr}}}}}"#
        )
    }

    #[test]
    fn launch_bound_gaps() {
        // k1 0..5; k2 launched 20..24, starts 26 (waited on the CPU: gap 5..26);
        // k3 launched early (1..2) but starts at 40 after a gap (e.g. a dependency)
        let d = diag(&[
            k("a", 0.0, 5.0, 1),
            launch(20.0, 4.0, 2),
            k("b", 26.0, 4.0, 2),
            launch(1.0, 1.0, 3),
            k("c", 40.0, 10.0, 3),
        ]);
        assert_eq!(d.hta.span, 50.0);
        assert_eq!(d.hta.idle, 31.0);
        assert_eq!(d.launch_wait, 21.0);
        assert_eq!(d.kernels, 3);
        assert_eq!(d.short_kernels, 2);
        assert_eq!(d.short_kernel_share(), 2.0 / 3.0);
        assert!((d.launches_per_s - 3.0 / 50e-6).abs() < 1e-6);
        assert_eq!(d.regime, CostClass::Overhead);
        let get = |id: &str| d.remedies.iter().find(|r| r.id == id).unwrap();
        assert!((get("no_idle").speedup - 50.0 / 19.0).abs() < 1e-12);
        // no markers: the trace is the step. CUDA graphs replay its kernels back
        // to back (19 µs and two in-graph gaps; the first kernel's launch is not
        // in the trace); compiled, the three pointwise kernels fuse into one as
        // long as the longest (10 µs)
        let graphs = get("cuda_graphs");
        let after = 19.0 + 2.0 * replay::GRAPH_GAP_US;
        assert!((graphs.step_after - after).abs() < 1e-12);
        assert!((graphs.speedup - 50.0 / after).abs() < 1e-12);
        assert_eq!(get("compile_cuda_graphs").step_after, 10.0);
        assert_eq!(d.best_remedy().map(|r| r.id), Some("compile_cuda_graphs"));
        assert_eq!(
            (d.steps.count, d.steps.mean, d.steps.basis),
            (0, 50.0, "trace")
        );
    }

    #[test]
    fn classes_and_regime() {
        let d = diag(&[
            k("ampere_sgemm_128x64_nn", 0.0, 100.0, 1),
            k("vectorized_elementwise_kernel", 100.0, 20.0, 2),
            k("ncclDevKernel_AllReduce", 120.0, 10.0, 3),
            r#"{"cat":"gpu_memcpy","name":"Memcpy HtoD","ts":130,"dur":10,"args":{"stream":7,"correlation":4,"device":0}}"#.into(),
        ]);
        assert_eq!(d.regime, CostClass::Compute);
        assert_eq!(d.kernels, 3);
        assert_eq!(d.activities, 4);
        assert_eq!(d.hta.compute, 120.0);
        assert_eq!(d.hta.noncompute, 20.0);
        assert_eq!(d.comm_share, 10.0 / 140.0);
        assert_eq!(d.memory_class_share, 30.0 / 140.0);
        assert_eq!(d.compute_class_share, 100.0 / 140.0);
        assert_eq!(d.top_kernels[0].name, "ampere_sgemm_128x64_nn");
        let m = d
            .classes
            .iter()
            .find(|c| c.class == KernelClass::Matmul)
            .unwrap();
        assert_eq!((m.count, m.time), (1, 100.0));
        assert!((d.classes.iter().map(|c| c.share).sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn per_device_and_the_device_name() {
        let on = |dev: i64, ts: f64, dur: f64, corr: i64| {
            format!(
                r#"{{"cat":"kernel","name":"k","ts":{ts},"dur":{dur},"args":{{"stream":7,"correlation":{corr},"device":{dev}}}}}"#
            )
        };
        let body = format!(
            r#"{{"deviceProperties":[{{"id":0,"name":"NVIDIA L4"}},{{"id":1,"name":"NVIDIA H100 PCIe"}}],"traceEvents":[{},{},{}]}}"#,
            on(0, 0.0, 10.0, 1),
            on(1, 0.0, 5.0, 2),
            on(1, 15.0, 5.0, 3)
        );
        let d = analyse(body.as_bytes(), &mut |_| true).unwrap();
        // the rank: one timeline over both devices
        assert_eq!((d.hta.span, d.hta.idle), (20.0, 5.0));
        let per: Vec<(i64, f64, f64)> = d
            .per_device
            .iter()
            .map(|(i, b)| (*i, b.span, b.idle))
            .collect();
        assert_eq!(per, vec![(0, 10.0, 0.0), (1, 20.0, 10.0)]);
        // the busiest device names the rank's GPU
        assert_eq!(d.device.as_deref(), Some("NVIDIA H100 PCIe"));
        assert_eq!(d.preset, Some("h100-pcie"));
    }

    #[test]
    fn cpu_only_is_an_error() {
        let body = r#"{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::add","ts":1,"dur":2,"args":{}}]}"#;
        assert_eq!(
            analyse(body.as_bytes(), &mut |_| true),
            Err(TraceError::NoGpuEvents)
        );
    }

    #[test]
    fn placed_by_time_on_the_launching_thread() {
        // older Kineto: a kernel's External id is its correlation; the op is the
        // innermost shaped op around the launch call on the same thread
        let op = |name: &str, ts: f64, dur: f64, ext: i64, tid: i64, m: i64| {
            format!(
                r#"{{"cat":"cpu_op","name":"{name}","tid":{tid},"ts":{ts},"dur":{dur},"args":{{"External id":{ext},"Input Dims":[[{m},8],[8,4]],"Input type":["float","float"]}}}}"#
            )
        };
        let d = diag(&[
            op("aten::matmul", 0.0, 100.0, 5, 1, 16),
            op("aten::mm", 10.0, 80.0, 6, 1, 32),
            op("aten::mm", 0.0, 100.0, 7, 2, 64),
            r#"{"cat":"cuda_runtime","name":"cudaLaunchKernel","tid":1,"ts":20,"dur":5,"args":{"correlation":42}}"#.into(),
            r#"{"cat":"kernel","name":"sgemm","ts":30,"dur":4,"args":{"stream":7,"correlation":42,"External id":42}}"#.into(),
        ]);
        assert_eq!(d.placed_kernels, 1);
        assert_eq!(d.matmul_flops, 2.0 * 32.0 * 8.0 * 4.0);
    }

    #[test]
    fn placed_matmuls() {
        let d = diag(&[
            r#"{"cat":"cpu_op","name":"aten::mm","ts":0,"dur":5,"args":{"External id":7,"Input Dims":[[64,128],[128,32]],"Input type":["float","float"]}}"#.into(),
            r#"{"cat":"kernel","name":"ampere_sgemm","ts":1,"dur":4,"args":{"stream":7,"correlation":1,"External id":7}}"#.into(),
        ]);
        assert_eq!(d.placed_kernels, 1);
        assert_eq!(d.matmul_flops, 2.0 * 64.0 * 128.0 * 32.0);
        assert_eq!(d.matmul_time, 4.0);
    }

    /// A kernel on `stream` of device 0 with its External id.
    fn ks(name: &str, ts: f64, dur: f64, corr: i64, ext: i64, stream: i64) -> String {
        format!(
            r#"{{"ph":"X","cat":"kernel","name":"{name}","ts":{ts},"dur":{dur},"args":{{"stream":{stream},"correlation":{corr},"device":0,"External id":{ext}}}}}"#
        )
    }

    fn cpu_op(name: &str, ts: f64, ext: i64, dims: &str, types: &str) -> String {
        format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"{name}","tid":1,"ts":{ts},"dur":1,"args":{{"External id":{ext},"Input Dims":{dims},"Input type":{types}}}}}"#
        )
    }

    #[test]
    fn kernels_share_their_ops_cost_by_duration() {
        // a bf16 mm (two kernels, 30 and 10 µs) and a bf16 add (one kernel, 5 µs)
        let mm_flops = 2.0 * 64.0 * 128.0 * 32.0;
        let mm_bytes = 2.0 * (64.0 * 128.0 + 128.0 * 32.0 + 64.0 * 32.0);
        let d = diag(&[
            cpu_op(
                "aten::mm",
                0.0,
                7,
                "[[64,128],[128,32]]",
                r#"["c10::BFloat16","c10::BFloat16"]"#,
            ),
            cpu_op(
                "aten::add",
                1.0,
                8,
                "[[1000],[1000],[]]",
                r#"["c10::BFloat16","c10::BFloat16","Scalar"]"#,
            ),
            ks("sm80_gemm_bf16", 0.0, 30.0, 1, 7, 7),
            ks("splitKreduce_kernel", 30.0, 10.0, 2, 7, 7),
            ks("vectorized_elementwise_kernel", 40.0, 5.0, 3, 8, 7),
            ks("unplaced_kernel", 45.0, 5.0, 4, 99, 7),
        ]);
        assert_eq!(d.placed_kernels, 3);
        // the matmul figures keep their meaning: the mm only
        assert_eq!(
            (d.matmul_flops, d.matmul_bytes, d.matmul_time),
            (mm_flops, mm_bytes, 40.0)
        );
        let r = &d.roofline;
        assert_eq!(r.len(), 3);
        // by time, most first; the mm's cost split 3 : 1
        assert_eq!(
            (r[0].op.as_str(), r[0].kernel.as_str()),
            ("aten::mm", "sm80_gemm_bf16")
        );
        // the FLOPs go to the op's matmul kernel alone (a split-K reduction does
        // not do the GEMM's FLOPs), the bytes by duration
        assert_eq!((r[0].flops, r[0].bytes), (mm_flops, mm_bytes * 0.75));
        assert_eq!((r[1].flops, r[1].bytes), (0.0, mm_bytes * 0.25));
        assert_eq!(r[0].class, "matmul");
        assert_eq!(r[0].dtype.as_deref(), Some("bf16"));
        assert!((r[0].time_s - 30e-6).abs() < 1e-18);
        assert_eq!(
            (r[2].op.as_str(), r[2].class.as_str(), r[2].count),
            ("aten::add", "pointwise", 1)
        );
        assert_eq!((r[2].flops, r[2].bytes), (1000.0, 6000.0));
        // the op's FLOPs and bytes are all handed out
        assert_eq!(r[0].flops + r[1].flops, mm_flops);
        assert_eq!(r[0].bytes + r[1].bytes, mm_bytes);
    }

    #[test]
    fn points_aggregate_over_calls() {
        let mut ev = Vec::new();
        for i in 0..4 {
            let ext = 10 + i;
            ev.push(cpu_op(
                "aten::relu",
                f64::from(i) * 10.0,
                ext.into(),
                "[[256]]",
                r#"["float"]"#,
            ));
            ev.push(ks(
                "relu_kernel",
                f64::from(i) * 10.0,
                2.0,
                ext.into(),
                ext.into(),
                7,
            ));
        }
        let d = diag(&ev);
        assert_eq!(d.roofline.len(), 1);
        let p = &d.roofline[0];
        assert_eq!(
            (p.count, p.flops, p.bytes, p.dtype.as_deref()),
            (4, 4.0 * 256.0, 4.0 * 256.0 * 8.0, Some("fp32"))
        );
        assert!((p.time_s - 8e-6).abs() < 1e-18);
    }

    #[test]
    fn matmuls_at_the_roof_of_the_preset() {
        // one A100-80GB bf16 mm 4096³ in 1000 µs: at the achievable roof
        // 2·4096³ / (312e12 · 0.8) s; an unplaced gemm of 1000 µs keeps its time
        let n = 4096.0f64;
        let body = format!(
            r#"{{"deviceProperties":[{{"id":0,"name":"NVIDIA A100-SXM4-80GB"}}],"traceEvents":[{},{},{}]}}"#,
            cpu_op(
                "aten::mm",
                0.0,
                7,
                "[[4096,4096],[4096,4096]]",
                r#"["c10::BFloat16","c10::BFloat16"]"#
            ),
            ks("ampere_bf16_gemm", 0.0, 1000.0, 1, 7, 7),
            ks("ampere_sgemm", 1000.0, 1000.0, 2, 99, 7),
        );
        let d = analyse(body.as_bytes(), &mut |_| true).unwrap();
        assert_eq!(
            (d.preset, d.roof_preset),
            (Some("a100-80gb"), Some("a100-80gb"))
        );
        let at = 2.0 * n.powi(3) / (312e12 * 0.8) * 1e6;
        let bytes_t = 3.0 * n * n * 2.0 / (2039e9 * 0.9) * 1e6;
        assert!(at > bytes_t);
        let roof = d
            .remedies
            .iter()
            .find(|r| r.id == "matmuls_at_roof")
            .unwrap();
        assert!(
            (roof.speedup - 2000.0 / (at + 1000.0)).abs() < 1e-9,
            "{}",
            roof.speedup
        );
        // another preset asked for: placed on it, the matched one kept
        let o = Options::with_preset("h100-sxm").unwrap();
        let d = analyse_with(body.as_bytes(), &mut |_| true, &o).unwrap();
        assert_eq!(
            (d.preset, d.roof_preset),
            (Some("a100-80gb"), Some("h100-sxm"))
        );
        let h100 = crate::model::hardware::preset("h100-sxm").unwrap();
        let frac = crate::model::achievable::h100_sxm().tensor;
        let at = 2.0 * n.powi(3) / (989.4e12 * frac) * 1e6;
        let roof = d
            .remedies
            .iter()
            .find(|r| r.id == "matmuls_at_roof")
            .unwrap();
        assert!((roof.speedup - 2000.0 / (at + 1000.0)).abs() < 1e-9);
        assert!(h100.bf16.is_some());
        // an unknown GPU without --gpu: no preset, no roof remedy
        let unknown = body.replace("NVIDIA A100-SXM4-80GB", "Mystery GPU");
        let d = analyse(unknown.as_bytes(), &mut |_| true).unwrap();
        assert_eq!((d.preset, d.roof_preset), (None, None));
        assert!(d.remedies.iter().all(|r| r.id != "matmuls_at_roof"));
        assert_eq!(d.remedies.len(), 5);
        assert!(Options::with_preset("nope")
            .unwrap_err()
            .contains("a100-80gb"));
        assert!(Options::with_preset("measured").is_err());
        // fp32 storage: the fp32 peak, or TF32's where the kernel's name says so
        use crate::model::hardware::Dtype;
        assert_eq!(roof_dtype("fp32", false), Some(Dtype::Fp32));
        assert_eq!(roof_dtype("fp32", true), Some(Dtype::Tf32));
        assert_eq!(roof_dtype("tf32", false), Some(Dtype::Tf32));
        assert_eq!(roof_dtype("fp16", false), Some(Dtype::Bf16));
        assert_eq!(roof_dtype("int64", false), None);
        assert!(place::tf32_kernel(
            "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align4>"
        ));
        // and the point says tf32
        let d = diag(&[
            cpu_op(
                "aten::mm",
                0.0,
                7,
                "[[64,128],[128,32]]",
                r#"["float","float"]"#,
            ),
            ks("cutlass_80_tensorop_s1688gemm_64x64", 0.0, 10.0, 1, 7, 7),
        ]);
        assert_eq!(d.roofline[0].dtype.as_deref(), Some("tf32"));
        assert!(!place::tf32_kernel("ampere_sgemm_128x64_nn"));
    }

    #[test]
    fn fusion_priced_on_the_streams() {
        // stream 7: pointwise 10, norm 20, pointwise 10 back to back, then a gemm
        // 40; fused, the run costs its longest (20): memory 40 → 20, span 80 → 60
        let d = diag(&[
            ks("vectorized_elementwise_kernel", 0.0, 10.0, 1, -1, 7),
            ks("layer_norm_kernel", 10.0, 20.0, 2, -1, 7),
            ks("vectorized_elementwise_kernel", 30.0, 10.0, 3, -1, 7),
            ks("sgemm", 40.0, 40.0, 4, -1, 7),
        ]);
        let fuse = d
            .remedies
            .iter()
            .find(|r| r.id == "fuse_memory_bound")
            .unwrap();
        assert_eq!(fuse.speedup, 80.0 / 60.0);
    }

    #[test]
    fn the_busiest_second() {
        // sparse kernels for 3 s, and a dense burst in 1.5 s .. 2.2 s on stream 8
        let mut ev = Vec::new();
        let mut corr = 0;
        for i in 0..30 {
            corr += 1;
            ev.push(ks("sgemm", f64::from(i) * 100_000.0, 1000.0, corr, -1, 7));
        }
        for i in 0..700 {
            corr += 1;
            let ts = 1_500_000.0 + f64::from(i) * 1000.0;
            ev.push(ks("vectorized_elementwise_kernel", ts, 900.0, corr, -1, 8));
            ev.push(format!(
                r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","tid":42,"ts":{},"dur":5,"args":{{"correlation":{corr}}}}}"#,
                ts - 10.0
            ));
        }
        // more runtime calls on another thread, but none launched GPU work
        for i in 0..1000 {
            ev.push(format!(
                r#"{{"ph":"X","cat":"cuda_runtime","name":"cudaEventRecord","tid":3,"ts":{},"dur":1,"args":{{"correlation":{}}}}}"#,
                1_600_000 + i * 10,
                100_000 + i
            ));
        }
        let d = diag(&ev);
        let tl = d.timeline.as_ref().unwrap();
        // every window from [1.1999, 2.1999] to [1.5, 2.5] holds the whole burst
        // (0.63 s busy, ending at 2.1999 s) and nine whole sgemms (a later one
        // trades the 1.2 s sgemm for the 2.2 s one): a tie the earliest wins; a
        // window starting before 1.1999 s loses burst time
        assert!((tl.start_s - 1.1999).abs() < 1e-9, "{}", tl.start_s);
        assert!((tl.end_s - 2.1999).abs() < 1e-9, "{}", tl.end_s);
        let labels: Vec<&str> = tl.lanes.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "GPU 0 · stream 7",
                "GPU 0 · stream 8",
                "CPU thread 42 (launches)"
            ]
        );
        assert_eq!(
            tl.lanes.iter().map(|l| l.kind.as_str()).collect::<Vec<_>>(),
            ["gpu", "gpu", "cpu"]
        );
        assert_eq!(tl.classes.len(), KernelClass::ALL.len() + 1);
        assert_eq!(tl.classes.last().map(String::as_str), Some("launch"));
        assert!(!tl.merged);
        let burst = &tl.lanes[1];
        assert_eq!(burst.spans.len(), 700);
        let first = burst.spans[0];
        assert!((first[0] - 1.5).abs() < 1e-12 && (first[1] - 900e-6).abs() < 1e-12);
        assert_eq!(tl.classes[first[2] as usize], "pointwise");
        assert_eq!(tl.names[first[3] as usize], "vectorized_elementwise_kernel");
        let cpu = &tl.lanes[2];
        assert_eq!(cpu.spans.len(), 700);
        assert_eq!(tl.classes[cpu.spans[0][2] as usize], "launch");
        assert_eq!(tl.names[cpu.spans[0][3] as usize], "cudaLaunchKernel");
        // sgemms in the window only: every span overlaps it
        for l in &tl.lanes {
            for s in &l.spans {
                assert!(s[0] + s[1] >= tl.start_s && s[0] <= tl.end_s);
            }
        }
    }

    #[test]
    fn a_short_trace_is_its_own_window() {
        let d = diag(&[k("a", 100.0, 5.0, 1), k("b", 200.0, 5.0, 2)]);
        let tl = d.timeline.unwrap();
        assert_eq!(tl.start_s, 0.0);
        assert!((tl.end_s - 105e-6).abs() < 1e-18);
        assert_eq!(tl.lanes.len(), 1);
        let s = &tl.lanes[0].spans;
        assert_eq!(s.len(), 2);
        for (got, want) in s
            .iter()
            .flatten()
            .zip([0.0, 5e-6, 6.0, 0.0, 100e-6, 5e-6, 6.0, 1.0])
        {
            assert!((got - want).abs() < 1e-18, "{s:?}");
        }
    }

    #[test]
    fn the_cap_merges_neighbours() {
        // 30 000 pointwise kernels (10 and 9 µs, two names) 1–2 µs apart in 0.33 s:
        // over the cap, and every gap is under 0.33 s / 20 000 = 16.5 µs
        let mut ev = Vec::new();
        for i in 0..30_000 {
            let name = if i % 2 == 0 {
                "elementwise_a"
            } else {
                "elementwise_b"
            };
            let dur = if i % 2 == 0 { 10.0 } else { 9.0 };
            ev.push(k(name, f64::from(i) * 11.0, dur, i.into()));
        }
        let d = diag(&ev);
        let tl = d.timeline.unwrap();
        assert!(tl.merged);
        let spans: usize = tl.lanes.iter().map(|l| l.spans.len()).sum();
        assert!(spans <= timeline::MAX_SPANS, "{spans}");
        // one class, every gap under the threshold: one span over it all,
        // named after its longest member
        assert_eq!(spans, 1);
        let s = tl.lanes[0].spans[0];
        assert!((s[1] - (29_999.0 * 11.0 + 9.0) * 1e-6).abs() < 1e-12);
        assert_eq!(tl.names[s[3] as usize], "elementwise_a");
        // and it is drawn as busy as its members were, not solid
        let busy = tl.lanes[0].busy[0];
        assert!(
            (busy - 15_000.0 * (10.0 + 9.0) * 1e-6).abs() < 1e-9,
            "{busy}"
        );
    }

    #[test]
    fn busiest_window_by_hand() {
        use timeline::busiest_window;
        // busy 0..1, 5..7, 8..9 with a window of 4 in [0, 10]: 4..8 holds 2,
        // 5..9 holds 3 (the most), 6..10 holds 2
        let iv = [(0.0, 1.0), (5.0, 7.0), (8.0, 9.0)];
        assert_eq!(busiest_window(&iv, 0.0, 10.0, 4.0), 5.0);
        // the earliest of equals: 0..4 and 1..5 both hold 1 → 0
        assert_eq!(
            busiest_window(&[(0.0, 1.0), (9.0, 10.0)], 0.0, 10.0, 4.0),
            0.0
        );
        assert_eq!(busiest_window(&iv, 0.0, 3.0, 4.0), 0.0);
    }
}
