//! Two traces of the same model, before and after a change: what changed (the
//! step, each class's time per step, the regime, the kernels that appeared or
//! vanished) and whether the change delivered what brrr predicted from the
//! first trace. It reads two [`Row`]s, so the CLI (`brrr-trace BEFORE --compare
//! AFTER`) and the page compare the same numbers.
//!
//! **The change it matches**, from what the second trace shows that the first
//! did not: CUDA graphs replayed and `torch.compile`d kernels →
//! `compile_cuda_graphs`; graphs alone → `cuda_graphs`; compiled kernels alone
//! → `fuse_memory_bound` (torch.compile's fusion without graphs). Anything else
//! matches no remedy, and nothing is claimed about a prediction.

use super::report::Row;
use crate::model::units::{si, sig3};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A class's time per step before and after.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassDelta {
    pub class: String,
    pub before_s: f64,
    pub after_s: f64,
}

/// What changed between two runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Compare {
    /// The step before ÷ the step after, each as an unprofiled run would take
    /// it (`unprofiled_before_s`, `unprofiled_after_s`): what the change buys
    /// a run nobody profiles.
    pub speedup: f64,
    /// The same as the traces show it, profiled: a profiler slows an eager
    /// run's CPU side far more than a graph replay's, so this overstates it.
    pub speedup_profiled: f64,
    /// Each step as an unprofiled run would take it, s: the row's estimate
    /// (`step_unprofiled_s`), else its profiled step (a run whose trace gives
    /// no estimate records too few CPU events for the profiler to matter).
    pub unprofiled_before_s: f64,
    pub unprofiled_after_s: f64,
    /// Whether each was estimated (false: the profiled step stands in).
    pub estimated_before: bool,
    pub estimated_after: bool,
    /// What brrr predicted from the first trace for the change it matches
    /// (`matched`); null when no remedy matches.
    pub predicted: Option<f64>,
    pub matched: Option<String>,
    pub step_before_s: f64,
    pub step_after_s: f64,
    /// The step after the change as brrr predicted it, s.
    pub predicted_step_s: Option<f64>,
    pub regime_before: String,
    pub regime_after: String,
    /// Every kernel class of either run, time per step.
    pub classes: Vec<ClassDelta>,
    /// Kernel names only in the second trace, and only in the first.
    pub kernels_added: Vec<String>,
    pub kernels_removed: Vec<String>,
    /// The comparison in words.
    pub sentence: String,
}

/// What the two files of a comparison are called, by position: "before" and
/// "after" (not ranks: they are two runs, not two ranks of one).
pub fn file_label(i: usize) -> &'static str {
    match i {
        0 => "before",
        _ => "after",
    }
}

/// `brrr-trace --compare`'s JSON top level.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompareOut {
    pub compare: Compare,
    /// The two rows, before and after (the key is `--json`'s, whose rows are
    /// ranks; here they are two runs).
    pub ranks: Vec<Row>,
}

/// The remedy id the change from `a` to `b` matches (see the module doc).
pub fn matched(a: &Row, b: &Row) -> Option<&'static str> {
    let graphs = b.graph_replay && !a.graph_replay;
    let compiled = b.compiled && !a.compiled;
    match (graphs, compiled) {
        (true, true) => Some("compile_cuda_graphs"),
        (true, false) => Some("cuda_graphs"),
        (false, true) => Some("fuse_memory_bound"),
        (false, false) => None,
    }
}

/// `a` (before) against `b` (after).
pub fn compare(a: &Row, b: &Row) -> Compare {
    let ratio = |x: f64, y: f64| if y > 0.0 && x > 0.0 { x / y } else { 1.0 };
    let unprofiled = |r: &Row| {
        r.step_unprofiled_s
            .filter(|u| u.is_finite() && *u > 0.0)
            .map_or((r.step_s, false), |u| (u, true))
    };
    let ((ua, ea), (ub, eb)) = (unprofiled(a), unprofiled(b));
    let id = matched(a, b);
    let remedy = id.and_then(|id| a.remedy_list.iter().find(|r| r.id == id));
    let mut classes: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for c in &a.classes {
        classes.entry(c.class.clone()).or_default().0 = c.step_s;
    }
    for c in &b.classes {
        classes.entry(c.class.clone()).or_default().1 = c.step_s;
    }
    let names = |r: &Row| r.kernel_names.iter().cloned().collect::<BTreeSet<String>>();
    let (na, nb) = (names(a), names(b));
    let mut out = Compare {
        speedup: ratio(ua, ub),
        speedup_profiled: ratio(a.step_s, b.step_s),
        unprofiled_before_s: ua,
        unprofiled_after_s: ub,
        estimated_before: ea,
        estimated_after: eb,
        predicted: remedy.map(|r| r.speedup),
        matched: remedy.map(|r| r.id.clone()),
        step_before_s: a.step_s,
        step_after_s: b.step_s,
        predicted_step_s: remedy.map(|r| r.step_after_s),
        regime_before: a.regime.clone(),
        regime_after: b.regime.clone(),
        classes: classes
            .into_iter()
            .map(|(class, (before_s, after_s))| ClassDelta {
                class,
                before_s,
                after_s,
            })
            .collect(),
        kernels_added: nb.difference(&na).cloned().collect(),
        kernels_removed: na.difference(&nb).cloned().collect(),
        sentence: String::new(),
    };
    out.sentence = sentence(&out);
    out
}

/// The comparison in words, from its numbers.
pub fn sentence(c: &Compare) -> String {
    let how = match (c.estimated_before, c.estimated_after) {
        (true, true) => "each step less the profiler's cost as its own trace shows it".to_string(),
        (false, false) => "neither trace gives an estimate of the profiler's cost, so these are the profiled steps".to_string(),
        (before, _) => format!(
            "the {} step less the profiler's cost as its trace shows it; the {} trace records too few CPU events for an estimate, so its profiled step stands",
            if before { "first" } else { "second" },
            if before { "second" } else { "first" }
        ),
    };
    let mut s = format!(
        "Unprofiled, the step went from {} to {} (×{}: {how}); as profiled, from {} to {} (×{}). The run was {}-bound before and {}-bound after.",
        si(c.unprofiled_before_s, "s"),
        si(c.unprofiled_after_s, "s"),
        sig3(c.speedup),
        si(c.step_before_s, "s"),
        si(c.step_after_s, "s"),
        sig3(c.speedup_profiled),
        c.regime_before,
        c.regime_after
    );
    match (&c.matched, c.predicted, c.predicted_step_s) {
        (Some(id), Some(p), Some(step)) => {
            let off = if step > 0.0 { c.step_after_s / step - 1.0 } else { 0.0 };
            s += &format!(
                " The change looks like the remedy \"{}\", for which brrr predicted ×{} on the profiled step from the first trace (a step of {}): the second trace's step is {} {} the prediction.",
                super::remedy::name(id),
                sig3(p),
                si(step, "s"),
                crate::model::units::percent(off.abs()),
                if off >= 0.0 { "above" } else { "below" }
            );
        }
        _ => s += " No remedy brrr prices matches this change (neither CUDA graphs nor torch.compile appeared), so there is no prediction to hold it to.",
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn matched_changes_read_as_words() {
        for id in ["cuda_graphs", "compile_cuda_graphs", "fuse_memory_bound"] {
            let w = crate::trace::remedy::name(id);
            assert!(!w.contains('_') && w != "A remedy", "{id}: {w}");
        }
    }

    use super::*;
    use crate::trace::report::{ClassRow, RemedyRow};

    fn row(step: f64, graphs: bool, compiled: bool, kernels: &[&str], pointwise_s: f64) -> Row {
        Row {
            step_s: step,
            graph_replay: graphs,
            compiled,
            regime: "overhead".into(),
            kernel_names: kernels.iter().map(|k| k.to_string()).collect(),
            classes: vec![ClassRow {
                class: "pointwise".into(),
                step_s: pointwise_s,
                ..ClassRow::default()
            }],
            remedy_list: ["cuda_graphs", "compile_cuda_graphs", "fuse_memory_bound"]
                .iter()
                .enumerate()
                .map(|(i, id)| RemedyRow {
                    id: id.to_string(),
                    speedup: 2.0 + i as f64,
                    step_after_s: step / (2.0 + i as f64),
                    ..RemedyRow::default()
                })
                .collect(),
            ..Row::default()
        }
    }

    #[test]
    fn the_change_is_matched_and_held_to_its_prediction() {
        let a = row(1e-3, false, false, &["mul", "gemv"], 4e-4);
        let b = row(0.5e-3, true, false, &["gemv"], 1e-4);
        let c = compare(&a, &b);
        assert_eq!(c.speedup, 2.0);
        assert_eq!(
            (c.matched.as_deref(), c.predicted),
            (Some("cuda_graphs"), Some(2.0))
        );
        assert_eq!(c.kernels_removed, vec!["mul".to_string()]);
        assert!(c.kernels_added.is_empty());
        assert_eq!(
            c.classes,
            vec![ClassDelta {
                class: "pointwise".into(),
                before_s: 4e-4,
                after_s: 1e-4
            }]
        );
        assert!(
            c.sentence.contains("the remedy \"CUDA graphs\"")
                && !c.sentence.contains("cuda_graphs")
                && c.sentence.contains("×2"),
            "{}",
            c.sentence
        );
        // compiled and replayed: compile_cuda_graphs; compiled alone: fusion
        let b = row(0.25e-3, true, true, &["triton_poi_fused_mul_0"], 0.0);
        assert_eq!(
            compare(&a, &b).matched.as_deref(),
            Some("compile_cuda_graphs")
        );
        assert_eq!(
            compare(&a, &b).kernels_added,
            vec!["triton_poi_fused_mul_0".to_string()]
        );
        let b = row(0.25e-3, false, true, &[], 0.0);
        assert_eq!(compare(&a, &b).predicted, Some(4.0));
        // nothing brrr prices: no prediction claimed
        let c = compare(&a, &a);
        assert_eq!((c.speedup, c.predicted, c.matched), (1.0, None, None));
        assert!(c.sentence.contains("No remedy"), "{}", c.sentence);
    }
}
