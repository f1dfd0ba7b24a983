//! The lab's results as words and numbers for the page (pure; the widget renders
//! them as DOM nodes through Leptos, so nothing from the browser or an imported
//! file is ever parsed as HTML).

use super::analysis::{summary, Row, Summary};
use super::results::{spread, AdapterInfo, Check, LabRun, Measurement, Op, Outcome};
use crate::model::units;

/// "±3 %" from the trials' spread.
pub fn spread_text(times: &[f64]) -> String {
    spread(times).map_or(String::new(), |s| format!("±{:.0} %", s * 50.0))
}

/// A value with its spread, e.g. "1.23 ms ±2 %".
pub fn with_spread(value: f64, unit: &str, times: &[f64]) -> String {
    let sp = spread_text(times);
    if sp.is_empty() {
        units::si(value, unit)
    } else {
        format!("{} {sp}", units::si(value, unit))
    }
}

/// What one table cell group (time, FLOP/s, bandwidth) of a variant shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Cells {
    /// Not measured (or not usable).
    Missing,
    /// Verification failed: never plotted; the detail goes in a tooltip.
    Failed(String),
    /// `[time ± spread, FLOP/s, bandwidth]` and the element count.
    Values([String; 3], u64),
}

pub fn cells(m: Option<&Measurement>) -> Cells {
    let Some(m) = m else { return Cells::Missing };
    match &m.check {
        Check::Failed { detail } => Cells::Failed(detail.clone()),
        Check::Passed { .. } if !m.usable() => Cells::Missing,
        Check::Passed { .. } => Cells::Values(
            [
                with_spread(m.time().unwrap_or(f64::NAN), "s", &m.times),
                units::si(m.achieved_flops().unwrap_or(f64::NAN), "FLOP/s"),
                units::si(m.achieved_bw().unwrap_or(f64::NAN), "B/s"),
            ],
            m.elements,
        ),
    }
}

/// The speedup column of a row: raw value and text.
pub fn speedup(r: &Row<'_>) -> (Option<f64>, String) {
    match r.speedup() {
        Some(s) => (Some(s), format!("{}×", units::sig3(s))),
        None => (None, "–".into()),
    }
}

/// Failed variants, in words.
pub fn failures(run: &LabRun) -> Vec<String> {
    run.measurements
        .iter()
        .filter_map(|m| match &m.check {
            Check::Failed { detail } => Some(format!(
                "{} {}{} ({}): {}",
                m.kernel.id(),
                m.op.map_or("", Op::id),
                if m.repeat > 0 {
                    format!(" ×{}", m.repeat)
                } else {
                    String::new()
                },
                m.dt.id(),
                detail
            )),
            Check::Passed { .. } => None,
        })
        .collect()
}

/// The crossover readout's words.
pub fn cross_text(s: &Summary) -> String {
    match (s.crossover, s.first_compute_bound) {
        (Some(c), Some(f)) => format!("{} (slower from ×{f})", units::sig3(c)),
        (Some(c), None) => units::sig3(c),
        _ if s.peak_flops.is_some() => "still memory-bound at ×1024".into(),
        _ => "—".into(),
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
    use crate::gpu::analysis::tests::synthetic;
    use crate::gpu::results::{Dt, Kernel};

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
        assert_eq!(cross_text(&empty), "—");
        let run = synthetic();
        let s = summary_of(Some(&run));
        assert!(cross_text(&s).starts_with("80"), "{}", cross_text(&s));
        assert!(notes(&run, false)[0].starts_with("Complete"));
        assert!(notes(&run, true)[0].starts_with("Running"));
        let items = adapter_items(&run.adapter);
        assert_eq!(items.len(), 7);
        assert_eq!(items[0].0, "Adapter");
    }

    #[test]
    fn spreads() {
        assert_eq!(spread_text(&[1.0, 1.02, 0.98]), "±2 %");
        assert_eq!(spread_text(&[]), "");
        assert_eq!(with_spread(1e-3, "s", &[1e-3]), "1 ms ±0 %");
    }
}
