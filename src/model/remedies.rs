//! Counterfactual remedies: every optimisation the page knows, tried on the current
//! setting by running the whole model again.
//!
//! The essay's lesson is to diagnose before treating. Here the treatment is not
//! looked up from the regime: each remedy is applied to a copy of the setting (or,
//! for the CPU-side ones, to how the step is issued) and the model is evaluated
//! again. Its predicted speedup is the time per sample before ÷ after, so a bigger
//! batch is judged by throughput, not by the longer step it makes. A remedy
//! **helps** iff its speedup is at least [`HELPS_FROM`] (5 %): the page's one rule
//! ([`super::verdict`]) with time per sample the objective and the only headline
//! figure, so no remedy here is a trade-off.
//!
//! Every list, sentence and highlight on the page about what helps comes from
//! [`evaluate`]; the regime is what limits the step ([`super::limit`]).

use super::hardware::Dtype;
use super::limit::{self, Limit};
use super::overhead::{self, Remedies};
use super::setting::{limits, Setting};
use super::timeline::{Regime, Shares};
use super::units;
use super::workload::Workload;

/// A remedy helps iff it makes the step at least this much faster per sample.
pub use super::verdict::HELPS_FROM;
/// The batch remedy multiplies the batch by this.
pub const BATCH_FACTOR: u32 = 4;
/// The tracing / compiling remedy divides the per-launch CPU cost by this.
pub const TRACE_FACTOR: f64 = 10.0;

/// Stable remedy ids (`data-remedy`, docs/contract.md "Remedy items").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RemedyId {
    Fuse,
    Graphs,
    Cpp,
    Overhead,
    Batch,
    Tensor,
    Dtype,
    Flops,
    Bw,
}

impl RemedyId {
    pub const ALL: [RemedyId; 9] = [
        RemedyId::Fuse,
        RemedyId::Graphs,
        RemedyId::Cpp,
        RemedyId::Overhead,
        RemedyId::Batch,
        RemedyId::Tensor,
        RemedyId::Dtype,
        RemedyId::Flops,
        RemedyId::Bw,
    ];

    pub fn id(self) -> &'static str {
        match self {
            RemedyId::Fuse => "fuse",
            RemedyId::Graphs => "graphs",
            RemedyId::Cpp => "cpp",
            RemedyId::Overhead => "overhead",
            RemedyId::Batch => "batch",
            RemedyId::Tensor => "tensor",
            RemedyId::Dtype => "dtype",
            RemedyId::Flops => "flops",
            RemedyId::Bw => "bw",
        }
    }

    /// The rows of the essay's conclusion table (regime → remedies) it sits in: the
    /// regime it is *meant* for. Whether it helps here is [`Outcome::helps`].
    pub fn essay_rows(self) -> &'static [Regime] {
        match self {
            RemedyId::Fuse | RemedyId::Batch => &[Regime::Overhead, Regime::Memory],
            RemedyId::Graphs | RemedyId::Cpp | RemedyId::Overhead => &[Regime::Overhead],
            RemedyId::Dtype | RemedyId::Bw => &[Regime::Memory],
            RemedyId::Tensor | RemedyId::Flops => &[Regime::Compute],
        }
    }
}

/// How a remedy is applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    /// A new explorer setting (what clicking the remedy does).
    Setting(Setting),
    /// A change to how the CPU issues the step (C++ instead of Python, a CUDA
    /// graph), which the explorer's per-kernel overhead cannot express; the overhead
    /// widget models it with these switches.
    Cpu(Remedies),
}

/// A remedy's predicted effect on the current setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Effect {
    /// Seconds per sample now and after the remedy.
    pub before: f64,
    pub after: f64,
    pub change: Change,
    /// The cost class whose time per sample the remedy cuts most: how it wins
    /// (bf16 on a pointwise chain wins by halving the bytes moved, not on the
    /// tensor cores it is named for), derived from the two runs, never from the
    /// remedy's name.
    pub cuts: Regime,
}

impl Effect {
    /// before ÷ after (1 when both are zero or not finite).
    pub fn speedup(&self) -> f64 {
        let s = self.before / self.after;
        if s.is_finite() && s > 0.0 {
            s
        } else {
            1.0
        }
    }
}

/// One remedy tried on one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub id: RemedyId,
    /// What it does, for this setting ("Switch to bf16 on the tensor cores").
    pub label: String,
    /// The prediction, or why the remedy does not apply here.
    pub effect: Result<Effect, String>,
}

impl Outcome {
    /// Predicted speedup; 1 where the remedy does not apply.
    pub fn speedup(&self) -> f64 {
        self.effect.as_ref().map_or(1.0, Effect::speedup)
    }
    pub fn applicable(&self) -> bool {
        self.effect.is_ok()
    }
    /// The page's rule: shown as helping iff the speedup is ≥ [`HELPS_FROM`].
    pub fn helps(&self) -> bool {
        self.applicable() && super::verdict::helps(self.speedup())
    }
}

/// Try every remedy on `s` (in [`RemedyId::ALL`] order).
pub fn evaluate(s: &Setting) -> Vec<Outcome> {
    evaluate_on(s, &crate::model::explorer::analyse(&s.shape, &s.cached()))
}

/// [`evaluate`] given `s`'s report, `run`.
fn evaluate_on(s: &Setting, run: &crate::model::Report) -> Vec<Outcome> {
    let now = per_sample_classes(run.wall_time_s, &run.timeline, s);
    let before = now.wall;
    RemedyId::ALL
        .into_iter()
        .map(|id| {
            let (label, change) = plan(id, s);
            let effect = change.map(|change| {
                let then = after(s, &change);
                Effect {
                    before,
                    after: then.wall,
                    change,
                    cuts: now.most_cut(&then),
                }
            });
            Outcome { id, label, effect }
        })
        .collect()
}

/// One run's time per sample, in all and in each cost class (the timeline's
/// shares of it).
#[derive(Clone, Copy, Debug)]
struct PerSample {
    wall: f64,
    shares: Shares,
}

fn per_sample_classes(wall: f64, tl: &super::timeline::Timeline, s: &Setting) -> PerSample {
    PerSample {
        wall: wall / f64::from(s.shape.batch.max(1)),
        shares: tl.shares(),
    }
}

impl PerSample {
    fn class(&self, r: Regime) -> f64 {
        self.wall * limit::share(&self.shares, r)
    }

    /// The class whose seconds per sample fell most from `self` to `then` (ties:
    /// the first of compute, memory, overhead, communication).
    fn most_cut(&self, then: &PerSample) -> Regime {
        [
            Regime::Compute,
            Regime::Memory,
            Regime::Overhead,
            Regime::Communication,
        ]
        .into_iter()
        .fold((Regime::Compute, f64::MIN), |best, r| {
            let cut = self.class(r) - then.class(r);
            if cut > best.1 {
                (r, cut)
            } else {
                best
            }
        })
        .0
    }
}

/// The remedy with the largest predicted speedup (the first on ties).
pub fn best(outcomes: &[Outcome]) -> Option<&Outcome> {
    outcomes
        .iter()
        .filter(|o| o.applicable())
        .fold(None, |best: Option<&Outcome>, o| match best {
            Some(b) if b.speedup() >= o.speedup() => Some(b),
            _ => Some(o),
        })
}

/// One sentence on what to do, from the outcomes and what limits the step: the
/// biggest win and whether it treats the limit ([`super::limit`]). It never names a
/// remedy as a win unless it [`Outcome::helps`].
pub fn headline(limit: &Limit, outcomes: &[Outcome]) -> String {
    let regime = limit.regime;
    let test = Limit::halving(regime);
    let win = best(outcomes)
        .filter(|b| b.helps())
        .and_then(|b| b.effect.as_ref().ok().map(|e| (b, e.cuts)));
    match win {
        None => format!(
            "None of the {} remedies here makes this step at least {} % faster per sample.",
            outcomes.len(),
            units::sig3((HELPS_FROM - 1.0) * 100.0)
        ),
        Some((b, cuts)) if cuts == regime => format!(
            "Biggest win: “{}” ({}× faster per sample), a remedy for what limits the step: it is {} ({} alone buys {}×).",
            b.label,
            speedup_text(b),
            regime.label(),
            test.words(),
            units::sig3(limit.speedup(test))
        ),
        Some((b, cuts)) => format!(
            "The step is {} ({} alone buys {}×), yet the biggest win is “{}” ({}× faster per sample): it wins by cutting {}, which takes {} of the step now.",
            regime.label(),
            test.words(),
            units::sig3(limit.speedup(test)),
            b.label,
            speedup_text(b),
            limit::time_words(cuts),
            units::percent(limit::share(&limit.shares, cuts))
        ),
    }
}

/// Why doubling the FLOP/s gave `speedup`, from the shares before: only the
/// part of a step on the compute roof gets faster (the factory of the essay's analogy;
/// the trucks are memory bandwidth, the desk is CPU overhead).
pub fn why_more_flops(before: Shares, speedup: f64) -> String {
    let pct = units::percent;
    let mut rest = Vec::new();
    if before.memory >= 0.0005 {
        rest.push(format!("the trucks (memory, {})", pct(before.memory)));
    }
    if before.overhead >= 0.0005 {
        rest.push(format!("the desk (CPU overhead, {})", pct(before.overhead)));
    }
    let rest = rest.join(" and ");
    if speedup >= 1.9 {
        format!(
            "close to 2×: the factory was busy {} of the step, so a bigger factory is what it needed.",
            pct(before.compute)
        )
    } else if !super::verdict::helps(speedup) {
        format!(
            "not 2× at all: the factory was busy only {} of the step; {} set the pace, and they are no faster than before.",
            pct(before.compute),
            rest
        )
    } else {
        format!(
            "not 2×: only the time on the compute roof ({}) got faster; {} did not.",
            pct(before.compute),
            rest
        )
    }
}

/// A speedup as the page writes it: three significant digits, or four decimals
/// where three digits would round a remedy under the bar up to it ("1.0496", not
/// "1.05", for one that does not help).
pub fn speedup_text(o: &Outcome) -> String {
    let t = units::sig3(o.speedup());
    if !o.helps() && t.parse::<f64>().is_ok_and(super::verdict::helps) {
        format!("{:.4}", o.speedup())
    } else {
        t
    }
}

/// The remedies table's effect for an applicable remedy: "2.00 µs → 1.28 µs
/// per sample (1.56×)", or, where before and after print alike, "33.4 µs per
/// sample either way (no faster, under the 5 % bar)" rather than a time
/// against itself.
pub fn before_after(o: &Outcome, e: &Effect) -> String {
    let (a, b) = (units::si(e.before, "s"), units::si(e.after, "s"));
    let bar = if o.helps() { "" } else { ", under the 5 % bar" };
    if a == b {
        format!("{a} per sample either way (no faster{bar})")
    } else {
        format!("{a} → {b} per sample ({}×{bar})", speedup_text(o))
    }
}

/// A step's time before and after a change, as the factory's caption says it:
/// `Some(("33.4 µs", "30.1 µs", "1.11× faster"))`, or `None` where the two
/// print alike (the caption then says the step stays where it was).
pub fn step_change(before: f64, after: f64) -> Option<(String, String, String)> {
    let sp = limit::ratio(before, after);
    let (x, one) = limit::two_speedups(sp, 1.0);
    if x == one {
        return None;
    }
    let (mut a, mut b) = (units::si(before, "s"), units::si(after, "s"));
    if a == b {
        // more digits, on the first time's prefix, until the two differ
        let (num, unit) = a.split_once(' ').unwrap_or((a.as_str(), "s"));
        let scale = num.parse::<f64>().map_or(1.0, |n| before / n);
        for digits in 3usize..=6 {
            let (p, q) = (
                format!("{:.digits$} {unit}", before / scale),
                format!("{:.digits$} {unit}", after / scale),
            );
            if p != q {
                (a, b) = (p, q);
                break;
            }
        }
    }
    let faster = if units::sig3(sp) == "1" {
        format!("{x}× faster")
    } else {
        format!("{}× faster", units::sig3(sp))
    };
    Some((a, b, faster))
}

/// Time per sample after `change`, in all and by class.
fn after(s: &Setting, change: &Change) -> PerSample {
    match change {
        Change::Setting(t) => {
            let r = crate::model::explorer::analyse(&t.shape, &t.cached());
            per_sample_classes(r.wall_time_s, &r.timeline, t)
        }
        Change::Cpu(r) => {
            let run = overhead::run(&s.shape, &s.cached(), *r);
            per_sample_classes(run.wall(), &run.timeline, s)
        }
    }
}

/// `s` changed by `f`, as a remedy's change.
fn with(s: &Setting, f: &dyn Fn(&mut Setting)) -> Change {
    let mut t = *s;
    f(&mut t);
    Change::Setting(t)
}

/// The tensor-core remedy: the fastest tensor-core dtype ahead of the current
/// one, or why there is none.
fn plan_tensor(s: &Setting) -> (String, Result<Change, String>) {
    let name = s.hw.name;
    // Fastest first: only the tensor-core dtypes ahead of the current one
    // can be faster.
    let faster = [Dtype::Fp8, Dtype::Bf16, Dtype::Tf32]
        .into_iter()
        .take_while(|d| *d != s.dtype)
        .find(|d| s.hw.supports(*d));
    match faster {
        Some(d) => (
            format!("Switch to {} on the tensor cores", d.id()),
            Ok(with(s, &|t| t.select_dtype(d))),
        ),
        None => {
            let has_any = [Dtype::Fp8, Dtype::Bf16, Dtype::Tf32]
                .into_iter()
                .any(|d| s.hw.supports(d));
            let reason = if s.hw.is_measured() {
                "the lab measures fp32 only, so brrr does not know this GPU's tensor cores"
                    .to_string()
            } else if !has_any {
                format!("the {name} has no tensor-core dtype")
            } else if !s.hw.supports(Dtype::Fp8) {
                format!(
                    "{} is already the fastest tensor-core dtype the {name} has (it has no fp8)",
                    s.dtype.id()
                )
            } else {
                format!("{} is already the fastest tensor-core dtype", s.dtype.id())
            };
            (
                "Switch to a faster tensor-core dtype".to_string(),
                Err(reason),
            )
        }
    }
}

/// The smaller-dtype remedy: the next smaller dtype the GPU has, or why not.
fn plan_dtype(s: &Setting) -> (String, Result<Change, String>) {
    let name = s.hw.name;
    let next = match s.dtype {
        Dtype::Fp32 | Dtype::Tf32 => Some(Dtype::Bf16),
        Dtype::Bf16 => Some(Dtype::Fp8),
        Dtype::Fp8 => None,
    };
    match next {
        Some(d) if s.hw.supports(d) => (
            format!(
                "Store tensors in {} ({} per element instead of {})",
                d.id(),
                units::amount(d.bytes(), "byte", "bytes"),
                s.dtype.bytes()
            ),
            Ok(with(s, &|t| t.select_dtype(d))),
        ),
        Some(_) if s.hw.is_measured() => (
            "Store tensors in a smaller dtype".to_string(),
            Err("the lab measures fp32 only; other dtypes of this GPU are unknown".to_string()),
        ),
        Some(d) => (
            "Store tensors in a smaller dtype".to_string(),
            Err(format!("the {name} has no {}", d.id())),
        ),
        None => (
            "Store tensors in a smaller dtype".to_string(),
            Err("fp8 is already the smallest dtype in this model".to_string()),
        ),
    }
}

/// A remedy's label for `s` and the change it makes, or why it does not apply.
fn plan(id: RemedyId, s: &Setting) -> (String, Result<Change, String>) {
    let kernels = crate::model::explorer::analyse(&s.shape, &s.cached()).kernel_count;
    match id {
        RemedyId::Fuse => {
            let ops = s.shape.ops.max(1);
            let label = format!(
                "Fuse the {} into one kernel",
                units::count(ops, "pointwise op", "pointwise ops")
            );
            let change = if s.shape.fused {
                Err("the chain already runs as one fused kernel".to_string())
            } else if ops == 1 {
                Err("a single pointwise op is already one kernel".to_string())
            } else {
                Ok(with(s, &|t| t.shape.fused = true))
            };
            (label, change)
        }
        RemedyId::Graphs => (
            format!(
                "Capture the step in a CUDA graph: one launch for its {}",
                units::count(kernels, "kernel", "kernels")
            ),
            Ok(Change::Cpu(Remedies {
                cuda_graphs: true,
                ..Remedies::NONE
            })),
        ),
        RemedyId::Cpp => (
            "Drive the step from C++ instead of Python".to_string(),
            Ok(Change::Cpu(Remedies {
                cpp: true,
                ..Remedies::NONE
            })),
        ),
        RemedyId::Overhead => {
            let label = format!(
                "Trace or compile away Python and dispatch ({}× less CPU time per launch)",
                TRACE_FACTOR
            );
            let change = if s.overhead <= limits::OVERHEAD.0 {
                Err(format!(
                    "the overhead is already at the model's floor ({} per launch)",
                    units::si(limits::OVERHEAD.0, "s")
                ))
            } else {
                Ok(with(s, &|t| {
                    t.overhead = (t.overhead / TRACE_FACTOR).max(limits::OVERHEAD.0)
                }))
            };
            (label, change)
        }
        RemedyId::Batch => {
            let why = match s.shape.workload {
                Workload::Mlp => "each weight load serves more rows",
                Workload::Chain => "each launch covers more elements",
            };
            let label = format!("Raise the batch {}× ({})", BATCH_FACTOR, why);
            let change = if s.shape.batch >= limits::BATCH.1 {
                Err(format!(
                    "the batch is already at the model's limit ({})",
                    limits::BATCH.1
                ))
            } else {
                Ok(with(s, &|t| {
                    t.shape.batch = t
                        .shape
                        .batch
                        .saturating_mul(BATCH_FACTOR)
                        .min(limits::BATCH.1)
                }))
            };
            (label, change)
        }
        RemedyId::Tensor => plan_tensor(s),
        RemedyId::Dtype => plan_dtype(s),
        RemedyId::Flops => {
            let label = "A GPU with 2× the FLOP/s (same memory)".to_string();
            let change = if s.flops >= limits::FLOPS.1 {
                Err("the peak is already at the model's limit".to_string())
            } else {
                Ok(with(s, &|t| t.flops = (t.flops * 2.0).min(limits::FLOPS.1)))
            };
            (label, change)
        }
        RemedyId::Bw => {
            let label = "A GPU with 2× the memory bandwidth (same FLOP/s)".to_string();
            let change = if s.bw >= limits::BW.1 {
                Err("the bandwidth is already at the model's limit".to_string())
            } else {
                Ok(with(s, &|t| t.bw = (t.bw * 2.0).min(limits::BW.1)))
            };
            (label, change)
        }
    }
}

mod groups;
mod view;
pub use groups::{groups, Groups};
pub use view::{advice, applied, Advice, Best, Item};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod step_change_tests {
    use super::step_change;

    #[test]
    fn a_step_change_never_reads_as_no_change() {
        assert_eq!(step_change(33.4e-6, 33.4e-6), None);
        let (a, b, f) = step_change(2e-6, 1e-6).unwrap();
        assert_eq!(
            (a.as_str(), b.as_str(), f.as_str()),
            ("2 µs", "1 µs", "2× faster")
        );
        let (a, b, f) = step_change(1.2301e-3, 1.2299e-3).unwrap();
        assert_ne!(a, b);
        assert_ne!(f, "1× faster");
    }
}
