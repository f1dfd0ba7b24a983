//! The lab's results as words and numbers for the page (pure; the widget renders
//! them as DOM nodes through Leptos, so nothing from the browser or an imported
//! file is ever parsed as HTML).

use super::analysis::{summary, Row, Summary};
use super::results::{
    spread, AdapterInfo, Check, Kernel, LabRun, Measurement, Outcome, NOISY_SPREAD,
};
use crate::model::units;

/// "±3 %": a spread ((max − min) / median) as plus or minus half the range, in
/// percent of the median.
pub fn spread_pct(s: f64) -> String {
    format!("±{:.0} %", s * 50.0)
}

/// "±3 %" from the trials' spread.
pub fn spread_text(times: &[f64]) -> String {
    spread(times).map_or(String::new(), spread_pct)
}

/// A figure's text with its spread: "1.23 ms ±2 %", and "(noisy)" when the
/// trials spread more than ±10 % ([`NOISY_SPREAD`]).
pub fn and_spread(text: String, spread: Option<f64>) -> String {
    match spread {
        Some(s) if s > NOISY_SPREAD => format!("{text} {} (noisy)", spread_pct(s)),
        Some(s) => format!("{text} {}", spread_pct(s)),
        None => text,
    }
}

/// A value with its spread, e.g. "1.23 ms ±2 %".
pub fn with_spread(value: f64, unit: &str, times: &[f64]) -> String {
    and_spread(units::si(value, unit), spread(times))
}

/// What one table cell group (time, FLOP/s, bandwidth) of a variant shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Cells {
    /// Not measured (or not usable).
    Missing,
    /// Verification failed: never plotted; the detail goes in a tooltip.
    Failed(String),
    /// `[time ± spread, FLOP/s, bandwidth]`, a tooltip (element count, whether it
    /// was measured again) and whether the trials are noisy.
    Values([String; 3], String, bool),
}

/// "fused mul ×4 (f32)", "copy (f32)".
pub fn variant_name(m: &Measurement) -> String {
    if m.kernel == Kernel::Read {
        return format!(
            "read {} ×{} ({})",
            super::plan::size_text(m.working_set()),
            m.repeat,
            m.dt.id()
        );
    }
    format!(
        "{}{}{} ({})",
        m.kernel.id(),
        m.op.map_or(String::new(), |o| format!(" {}", o.id())),
        if m.repeat > 0 {
            format!(" ×{}", m.repeat)
        } else {
            String::new()
        },
        m.dt.id(),
    )
}

fn times_in_words(n: u32) -> String {
    match n {
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

pub fn cells(m: Option<&Measurement>) -> Cells {
    let Some(m) = m else { return Cells::Missing };
    match &m.check {
        Check::Failed { detail } => Cells::Failed(detail.clone()),
        Check::Passed { .. } if !m.usable() => Cells::Missing,
        Check::Passed { .. } => {
            let mut tip = format!("{} elements, {} trials", m.elements, m.times.len());
            if m.remeasured > 0 {
                tip.push_str(&format!(
                    "; measured again {} because the trials spread more than ±10 %",
                    times_in_words(m.remeasured)
                ));
            }
            Cells::Values(
                [
                    with_spread(m.time().unwrap_or(f64::NAN), "s", &m.times),
                    units::si(m.achieved_flops().unwrap_or(f64::NAN), "FLOP/s"),
                    units::si(m.achieved_bw().unwrap_or(f64::NAN), "B/s"),
                ],
                tip,
                m.noisy(),
            )
        }
    }
}

/// The speedup column of a row: raw value and text. At repeat 1 the fused and the
/// eager variant are the same kernel, so there is no speedup to report.
pub fn speedup(r: &Row<'_>) -> (Option<f64>, String) {
    if r.same_kernel() {
        return (None, "same kernel".into());
    }
    let noisy = [r.fused, r.eager]
        .into_iter()
        .flatten()
        .any(Measurement::noisy);
    match r.speedup() {
        Some(s) if noisy => (Some(s), format!("{}× (noisy)", units::sig3(s))),
        Some(s) => (Some(s), format!("{}×", units::sig3(s))),
        None => (None, "–".into()),
    }
}

/// Failed variants, in words.
pub fn failures(run: &LabRun) -> Vec<String> {
    run.measurements
        .iter()
        .filter_map(|m| match &m.check {
            Check::Failed { detail } => Some(format!("{}: {}", variant_name(m), detail)),
            Check::Passed { .. } => None,
        })
        .collect()
}

/// The crossover readout: the figure in words, and a sentence under it that says
/// where the measured runtime started to rise.
pub fn cross_text(s: &Summary) -> (String, Option<String>) {
    let rise = |f: u32| {
        format!(
            "The fused kernel's runtime first rose {:.0} % above its memory-bound time at {}.",
            (super::analysis::COMPUTE_BOUND_RISE - 1.0) * 100.0,
            ops_per_element(f)
        )
    };
    match (s.crossover, s.first_compute_bound) {
        (Some(c), f) => (
            format!("about {} ops per element", units::sig3(c)),
            f.map(rise),
        ),
        (None, _) => match s.last_repeat {
            Some(r) if s.peak_flops.is_some() => (
                "not reached".into(),
                Some(format!(
                    "Still memory-bound at {}, the most measured.",
                    ops_per_element(r)
                )),
            ),
            _ => ("—".into(), None),
        },
    }
}

fn ops_per_element(n: u32) -> String {
    if n == 1 {
        "1 op per element".into()
    } else {
        format!("{n} ops per element")
    }
}

/// Noisy variants (trials still spread more than ±10 % after measuring again),
/// each with its spread.
pub fn noisy_variants(run: &LabRun) -> Vec<String> {
    run.measurements
        .iter()
        .filter(|m| m.usable() && m.noisy())
        .map(|m| format!("{} {}", variant_name(m), spread_text(&m.times)))
        .collect()
}

/// Where the lab widget stands: `lab_status` (docs/contract.md, a public contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// No run yet (and none saved or imported).
    Idle,
    Running,
    Done,
    Partial,
    Cancelled,
    Failed,
    /// This browser offers no WebGPU adapter.
    Unsupported,
}

impl Status {
    pub const ALL: [Status; 7] = [
        Status::Idle,
        Status::Running,
        Status::Done,
        Status::Partial,
        Status::Cancelled,
        Status::Failed,
        Status::Unsupported,
    ];

    /// The status a finished (or imported) run leaves.
    pub fn of(o: Outcome) -> Status {
        match o {
            Outcome::Complete => Status::Done,
            Outcome::Partial => Status::Partial,
            Outcome::Cancelled => Status::Cancelled,
        }
    }

    /// The `lab_status` value (and `data-lab-status`, which the CSS reads).
    pub fn id(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Running => "running",
            Status::Done => "done",
            Status::Partial => "partial",
            Status::Cancelled => "cancelled",
            Status::Failed => "failed",
            Status::Unsupported => "unsupported",
        }
    }

    /// The words the page shows.
    pub fn text(self) -> &'static str {
        match self {
            Status::Idle => "No run yet",
            Status::Running => "Running…",
            Status::Done => "Done",
            Status::Partial => "Partial results",
            Status::Cancelled => "Cancelled",
            Status::Failed => "Failed",
            Status::Unsupported => "WebGPU unavailable",
        }
    }
}

/// The progress line's last words once a run has ended (a cancelled run says
/// "cancelled", not the "cancelling…" shown while it stops).
pub fn progress_end(o: Outcome) -> &'static str {
    match o {
        Outcome::Complete => "done",
        Outcome::Partial => "stopped early (partial results)",
        Outcome::Cancelled => "cancelled",
    }
}

/// The run summary (all `None` without a run).
pub fn summary_of(run: Option<&LabRun>) -> Summary {
    run.map(summary).unwrap_or_default()
}

/// What the run was, why it is partial, its notes and failures, in sentences.
/// `running`: the run is still going (its outcome is not final yet).
pub fn notes(r: &LabRun, running: bool) -> Vec<String> {
    let mut notes = vec![format!(
        "{} run of {} on {} ({} timing, {} buffers).",
        if running {
            "Running: a"
        } else if r.outcome == Outcome::Complete {
            "Complete"
        } else {
            "Partial"
        },
        r.date,
        r.adapter.name(),
        r.timer.id(),
        super::plan::size_text((r.elements * 4) as f64),
    )];
    if !r.reason.is_empty() && !running {
        notes.push(r.reason.clone());
    }
    notes.extend(r.notes.iter().cloned());
    notes.extend(
        failures(r)
            .into_iter()
            .map(|f| format!("Failed (not plotted): {f}")),
    );
    let again = r
        .measurements
        .iter()
        .filter(|m| m.usable() && m.remeasured > 0 && !m.noisy())
        .count();
    if again > 0 {
        notes.push(format!(
            "Measured again because the first trials spread more than ±10 % around the \
             median: {again} variant{}, now within ±10 %.",
            if again == 1 { "" } else { "s" }
        ));
    }
    let noisy = noisy_variants(r);
    if !noisy.is_empty() {
        notes.push(format!(
            "Noisy (trials spread more than ±10 % around the median even after measuring \
             again, so treat these figures as rough): {}.",
            noisy.join("; ")
        ));
    }
    notes
}

/// The adapter and the limits that matter, as (label, value) pairs.
pub fn adapter_items(a: &AdapterInfo) -> Vec<(&'static str, String)> {
    vec![
        (
            "Adapter",
            format!(
                "{}{}",
                a.name(),
                if a.fallback {
                    " — software fallback"
                } else {
                    ""
                }
            ),
        ),
        (
            "Largest storage buffer binding",
            units::si(a.max_storage_binding, "B"),
        ),
        ("Largest buffer", units::si(a.max_buffer, "B")),
        (
            "Workgroups per dimension",
            a.max_workgroups_per_dim.to_string(),
        ),
        ("Invocations per workgroup", a.max_invocations.to_string()),
        (
            "Timestamp queries",
            if a.timestamps {
                "yes"
            } else {
                "no (wall-clock timing)"
            }
            .into(),
        ),
        (
            "shader-f16",
            if a.f16 {
                "yes (f16 runs too)"
            } else {
                "no (f32 only)"
            }
            .into(),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::analysis::rows;

    #[test]
    fn status_ids_are_the_documented_ones() {
        let ids: Vec<&str> = Status::ALL.iter().map(|s| s.id()).collect();
        assert_eq!(
            ids,
            [
                "idle",
                "running",
                "done",
                "partial",
                "cancelled",
                "failed",
                "unsupported"
            ]
        );
        let readme = include_str!("../../docs/contract.md");
        let documented = ids
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(" | ");
        assert!(
            readme.replace('\n', " ").contains(&documented),
            "docs/contract.md's lab_status values: {documented}"
        );
        assert_eq!(Status::of(Outcome::Complete), Status::Done);
        assert_eq!(Status::of(Outcome::Partial), Status::Partial);
        assert_eq!(Status::of(Outcome::Cancelled), Status::Cancelled);
        let texts: std::collections::BTreeSet<&str> =
            Status::ALL.iter().map(|s| s.text()).collect();
        assert_eq!(
            texts.len(),
            Status::ALL.len(),
            "each status reads differently"
        );
    }
    use crate::gpu::analysis::tests::synthetic;
    use crate::gpu::results::{Dt, Kernel, Op};

    #[test]
    fn cells_and_failures() {
        let mut run = synthetic();
        run.measurements
            .iter_mut()
            .filter(|m| m.kernel == Kernel::Eager && m.repeat == 4)
            .for_each(|m| {
                m.check = Check::Failed {
                    detail: "<script>alert(1)</script>".into(),
                }
            });
        let rs = rows(&run, Op::Mul, Dt::F32);
        assert_eq!(rs.len(), 11);
        let r4 = rs.iter().find(|r| r.repeat == 4).unwrap();
        assert_eq!(
            cells(r4.eager),
            Cells::Failed("<script>alert(1)</script>".into())
        );
        assert!(matches!(cells(r4.fused), Cells::Values(..)));
        assert!(rs.iter().any(|r| speedup(r).0 == Some(8.0)));
        // repeat 1: one and the same kernel, no speedup claimed
        assert_eq!(speedup(&rs[0]), (None, "same kernel".into()));
        let f = failures(&run);
        assert_eq!(f.len(), 1);
        assert!(f[0].starts_with("eager mul ×4 (f32): "), "{}", f[0]);
        assert!(notes(&run, false)
            .iter()
            .any(|n| n.starts_with("Failed (not plotted)")));
    }

    #[test]
    fn summary_words() {
        let empty = summary_of(None);
        assert_eq!(cross_text(&empty), ("—".into(), None));
        let run = synthetic();
        let s = summary_of(Some(&run));
        let (text, note) = cross_text(&s);
        assert_eq!(text, "about 80 ops per element");
        assert_eq!(
            note.as_deref(),
            Some("The fused kernel's runtime first rose 25 % above its memory-bound time at 128 ops per element.")
        );
        // no cryptic "(slower from ×16)" or "×1024" shorthand
        assert!(!text.contains('×') && !text.contains("slower from"));
        // memory-bound throughout a sweep cut short at 64: said with that number
        let mut flat = synthetic();
        flat.measurements.retain(|m| m.repeat <= 64);
        for m in &mut flat.measurements {
            m.times = vec![1e-3];
        }
        let (text, note) = cross_text(&summary(&flat));
        assert_eq!(text, "not reached");
        assert_eq!(
            note.as_deref(),
            Some("Still memory-bound at 64 ops per element, the most measured.")
        );
        assert!(notes(&run, false)[0].starts_with("Complete"));
        assert!(notes(&run, true)[0].starts_with("Running"));
        let items = adapter_items(&run.adapter);
        assert_eq!(items.len(), 7);
        assert_eq!(items[0].0, "Adapter");
    }

    #[test]
    fn progress_says_how_the_run_ended() {
        assert_eq!(progress_end(Outcome::Cancelled), "cancelled");
        assert_eq!(progress_end(Outcome::Complete), "done");
        assert!(progress_end(Outcome::Partial).contains("partial"));
    }

    #[test]
    fn spreads() {
        assert_eq!(spread_text(&[1.0, 1.02, 0.98]), "±2 %");
        assert_eq!(spread_text(&[]), "");
        assert_eq!(with_spread(1e-3, "s", &[1e-3]), "1 ms ±0 %");
        assert_eq!(
            with_spread(1e-3, "s", &[0.8e-3, 1e-3, 1.2e-3]),
            "1 ms ±20 % (noisy)"
        );
        assert_eq!(and_spread("5 GB/s".into(), Some(0.08)), "5 GB/s ±4 %");
        assert_eq!(and_spread("5 GB/s".into(), None), "5 GB/s");
    }

    #[test]
    fn noisy_variants_are_said_in_words() {
        let mut run = synthetic();
        assert!(noisy_variants(&run).is_empty());
        assert!(!notes(&run, false).iter().any(|n| n.contains("Noisy")));
        for m in &mut run.measurements {
            // one variant: the synthetic run also has an fma chain at ×4
            if m.kernel == Kernel::Fused && m.repeat == 4 && m.op == Some(Op::Mul) {
                m.times = vec![0.7e-3, 1e-3, 1.3e-3];
                m.remeasured = 2;
            }
            if m.kernel == Kernel::Eager && m.repeat == 8 {
                m.remeasured = 1; // measured again, now quiet
            }
        }
        assert_eq!(
            noisy_variants(&run),
            vec!["fused mul ×4 (f32) ±30 %".to_string()]
        );
        let ns = notes(&run, false);
        assert!(
            ns.iter()
                .any(|n| n.starts_with("Noisy (") && n.ends_with("fused mul ×4 (f32) ±30 %.")),
            "{ns:?}"
        );
        assert!(
            ns.iter().any(|n| n.contains("1 variant, now within ±10 %")),
            "{ns:?}"
        );
        let rs = rows(&run, Op::Mul, Dt::F32);
        let r4 = rs.iter().find(|r| r.repeat == 4).unwrap();
        let Cells::Values(v, tip, noisy) = cells(r4.fused) else {
            panic!("no values")
        };
        assert!(noisy);
        assert!(v[0].ends_with("±30 % (noisy)"), "{}", v[0]);
        assert!(tip.contains("measured again twice"), "{tip}");
        assert!(speedup(r4).1.ends_with("× (noisy)"), "{}", speedup(r4).1);
        // the copy's name has no op and no repeat
        assert_eq!(variant_name(&run.measurements[0]), "copy (f32)");
    }
}
