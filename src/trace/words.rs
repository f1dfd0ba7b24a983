//! What the trace widget says about one rank, in words: the regime beside
//! HTA's "compute", the profiler's cost, each remedy's effect, why kernels are
//! off the roofline, what measured the step. Built from the JSON row
//! (`report::Row`) the worker posts, so the page's sentences are written here
//! and tested natively; `ui/apps/trace` only lays them out. The CLI's remedy
//! lines share the bracket that compares a speedup with the unprofiled step.

use super::report::{RemedyRow, Row};
use crate::model::{units, verdict};

/// A share as the page writes it; "—" when absent or not finite.
pub fn pc(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or_else(|| "—".into(), units::percent)
}

/// `name` cut to `max` characters, an ellipsis standing for the rest.
pub fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        format!(
            "{}…",
            name.chars().take(max.saturating_sub(1)).collect::<String>()
        )
    }
}

/// The words for the cost whose halving saves most (`Row::regime`).
fn regime_words(regime: &str) -> &'static str {
    match regime {
        "overhead" => "idle",
        "compute" => "compute-bound kernels'",
        "memory" => "memory-bound kernels'",
        _ => "communication",
    }
}

/// HTA's "compute" beside the essay's regimes, in words from this rank.
pub fn regime_sentence(c: &Row) -> String {
    let halving = |k: &str| c.halving_saves.get(k).copied();
    let mut s = format!(
        "HTA's \"compute\" is every busy kernel ({} of the span here); the essay's regime is another question: halving each cost, {} time saves most ({} of the span). By each kernel's real limit on the roof, {} of the span is compute-bound kernels and {} memory-bound ones.",
        pc(Some(c.compute_share)),
        regime_words(&c.regime),
        pc(halving(&c.regime)),
        pc(Some(c.matmul_share)),
        pc(Some(c.memory_share))
    );
    if c.graph_replay {
        s += &format!(
            " This run already replays CUDA graphs ({} graph launches, {} kernels replayed), so CUDA graphs are not offered.",
            c.graph_launches, c.replayed_kernels
        );
    }
    s
}

/// The step readout's text: its time and what measured it.
pub fn step_text(c: &Row) -> String {
    let what = match c.step_basis.as_str() {
        "cpu" => "the CPU step span, the longer",
        "gpu" => "first kernel to last",
        _ => "no markers: the whole trace",
    };
    format!("{} ({what})", units::si(c.step_s, "s"))
}

/// The unprofiled step, where it takes something off the profiled one (a
/// GPU-paced step keeps its time: then `None`).
pub fn unprofiled_step(c: &Row) -> Option<f64> {
    c.step_unprofiled_s.filter(|u| *u < 0.99 * c.step_s)
}

/// Why a speedup against the profiled step overstates an unprofiled run's,
/// said where the unprofiled step is shorter.
pub fn profiled_note(c: &Row) -> Option<String> {
    unprofiled_step(c).map(|u| format!(
        "A profiled run's CPU side is slower than an unprofiled one: the profiler records every op and runtime call, and in this trace an op that only calls one other lasts a median {} longer than its child, the cost of one record. Less that cost for each record, this step would take about {} unprofiled, so a speedup against the profiled step ({}) overstates what an unprofiled run gains; that gain is given in brackets.",
        c.profiler_record_s.map_or_else(|| "—".into(), |r| units::si(r, "s")), units::si(u, "s"), units::si(c.step_s, "s")))
}

/// The bracket after a remedy's speedup: its speedup `u` against the
/// unprofiled step, written `times` (the page's "1.23×", the CLI's "×1.23");
/// a fix that buys nothing there says so rather than showing under 1×.
pub fn unprofiled_bracket(u: f64, times: &str) -> String {
    if u >= 1.0 {
        format!(" ({times} against the unprofiled step)")
    } else {
        " (no faster than the unprofiled step)".to_string()
    }
}

/// One remedy's effect in words on this rank.
#[derive(Clone, Debug, PartialEq)]
pub struct RemedyWords {
    /// It passes the page's one bar (`verdict::helps`).
    pub helps: bool,
    /// The speedup and the predicted step, or that it is under the bar.
    pub effect: String,
    /// Its speedup against the unprofiled step, where the page gives one.
    pub unprofiled: Option<String>,
}

/// What remedy `r` buys on rank `c`, in words.
pub fn remedy_words(c: &Row, r: &RemedyRow) -> RemedyWords {
    let helps = verdict::helps(r.speedup);
    let effect = if helps {
        format!(
            "{}× faster: a step of {} instead of {}",
            units::sig3(r.speedup),
            units::si(r.step_after_s, "s"),
            units::si(c.step_s, "s")
        )
    } else {
        format!("{}× (under the 5 % bar)", units::sig3(r.speedup))
    };
    let lower = unprofiled_step(c).is_some();
    let unprofiled = r
        .speedup_unprofiled
        .filter(|_| helps && lower)
        .map(|u| unprofiled_bracket(u, &format!("{}×", units::sig3(u))));
    RemedyWords {
        helps,
        effect,
        unprofiled,
    }
}

/// Which kernels are not on the roofline, why, and how much time that is.
pub fn unplaced(c: &Row) -> String {
    let (placed, all) = (c.placed_kernels as f64, c.kernels as f64);
    let by_launch = c
        .unplaced
        .iter()
        .find(|u| u.basis == "launch")
        .map_or(String::new(), |u| {
            format!(
                " {} of kernel time could not be placed but is memory-bound by its kernels' tiles and launch grids, which bound its FLOPs per byte below the ridge; the longest, {} ({}×): {}.",
                units::si(c.launch_classed_kernel_s, "s"),
                u.name.chars().take(60).collect::<String>(),
                units::sig3(u.count as f64),
                u.why
            )
        });
    let by_name = format!(
        "{} of kernel time kept the class of its name (a GEMV memory-bound, a matmul or attention kernel compute-bound, the others memory-bound); the rest was classed by where it sits on the roof.{by_launch}",
        units::si(c.unplaced_kernel_s, "s")
    );
    if c.roof_preset.is_none() {
        return format!("No roofline: the trace's GPU matches no preset, so every kernel kept the class of its name. Pick the GPU it ran on above to place its kernels. {by_name}");
    }
    let why = if c.graph_replay && c.replayed_kernels > 0 {
        format!(
            "{} kernels were replayed from a CUDA graph: a replay records no aten op, so their shapes are unknown{}",
            units::sig3(c.replayed_kernels as f64),
            if c.placed_by_name > 0 {
                format!(" ({} placed by the name of a kernel placed elsewhere in the trace)", units::sig3(c.placed_by_name as f64))
            } else {
                String::new()
            }
        )
    } else {
        "the trace has no recorded shapes for them (profile with record_shapes=True) or no op this page can count FLOPs for".into()
    };
    if c.placed_kernels == 0 {
        format!(
            "None of the {} kernels could be placed: {why}. {by_name}",
            units::sig3(all)
        )
    } else {
        format!(
            "{} of {} kernels placed by their op's shapes; the other {} are not on the chart: {why}. {by_name}",
            units::sig3(placed),
            units::sig3(all),
            units::sig3((all - placed).max(0.0))
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::verdict::HELPS_FROM;

    const REGIMES: [&str; 4] = ["overhead", "compute", "memory", "communication"];

    /// A rank whose halvings save `saves` (in `REGIMES` order) and whose
    /// regime is the largest of them, as `trace::counterfactual` decides it.
    fn rank(saves: [f64; 4]) -> Row {
        let i = (0..4)
            .max_by(|a, b| saves[*a].total_cmp(&saves[*b]))
            .unwrap();
        Row {
            regime: REGIMES[i].to_string(),
            halving_saves: REGIMES
                .iter()
                .zip(saves)
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            compute_share: 0.61,
            matmul_share: 0.42,
            memory_share: 0.19,
            step_s: 0.010,
            kernels: 40,
            placed_kernels: 30,
            roof_preset: Some("a100-80gb".into()),
            ..Row::default()
        }
    }

    #[test]
    fn the_regime_sentence_names_the_cost_whose_halving_saves_most() {
        let cases = [
            [0.30, 0.10, 0.05, 0.0],
            [0.02, 0.25, 0.11, 0.0],
            [0.05, 0.12, 0.31, 0.01],
            [0.01, 0.02, 0.03, 0.22],
        ];
        for saves in cases {
            let c = rank(saves);
            let s = regime_sentence(&c);
            let (best, max) = REGIMES
                .iter()
                .zip(saves)
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            let said = format!(
                "halving each cost, {} time saves most ({} of the span)",
                regime_words(best),
                pc(Some(max))
            );
            assert!(s.contains(&said), "{s}");
            // no other cost is named as the one that saves most
            for other in REGIMES.iter().filter(|r| *r != best) {
                let wrong = format!("halving each cost, {} time", regime_words(other));
                assert!(!s.contains(&wrong), "{s}");
            }
            assert!(s.contains(&format!("({} of the span here)", pc(Some(0.61)))));
            assert!(!s.contains("CUDA graphs"), "{s}");
        }
    }

    #[test]
    fn a_replayed_run_is_told_graphs_are_not_offered() {
        let mut c = rank([0.3, 0.1, 0.0, 0.0]);
        c.graph_replay = true;
        c.graph_launches = 12;
        c.replayed_kernels = 480;
        let s = regime_sentence(&c);
        assert!(
            s.ends_with(
                "(12 graph launches, 480 kernels replayed), so CUDA graphs are not offered."
            ),
            "{s}"
        );
    }

    #[test]
    fn the_step_says_what_measured_it() {
        let mut c = rank([0.3, 0.1, 0.0, 0.0]);
        for (basis, words) in [
            ("cpu", "(the CPU step span, the longer)"),
            ("gpu", "(first kernel to last)"),
            ("none", "(no markers: the whole trace)"),
        ] {
            c.step_basis = basis.into();
            let s = step_text(&c);
            assert!(s.starts_with(&units::si(c.step_s, "s")), "{s}");
            assert!(s.ends_with(words), "{s}");
        }
    }

    /// The profiler's note and every bracket appear only where the unprofiled
    /// step is at least 1 % shorter, and a bracket only after a remedy that
    /// passes the page's bar.
    #[test]
    fn the_unprofiled_step_is_said_only_where_it_is_shorter() {
        let r = |speedup: f64, unprofiled: Option<f64>| RemedyRow {
            id: "cuda_graphs".into(),
            label: "replay the step as a CUDA graph".into(),
            speedup,
            step_after_s: 0.010 / speedup,
            speedup_unprofiled: unprofiled,
        };
        for (u, lower) in [(None, false), (Some(0.0095), true), (Some(0.00995), false)] {
            let mut c = rank([0.3, 0.1, 0.0, 0.0]);
            c.step_unprofiled_s = u;
            c.profiler_record_s = Some(2e-6);
            assert_eq!(profiled_note(&c).is_some(), lower, "{u:?}");
            assert_eq!(unprofiled_step(&c).is_some(), lower);
            for speedup in [1.0, HELPS_FROM - 1e-9, HELPS_FROM, 1.8] {
                for against in [None, Some(0.97), Some(1.3)] {
                    let w = remedy_words(&c, &r(speedup, against));
                    assert_eq!(w.helps, speedup >= HELPS_FROM);
                    assert_eq!(
                        w.effect.contains("(under the 5 % bar)"),
                        !w.helps,
                        "{}",
                        w.effect
                    );
                    assert_eq!(
                        w.effect.contains("faster: a step of"),
                        w.helps,
                        "{}",
                        w.effect
                    );
                    assert_eq!(
                        w.unprofiled.is_some(),
                        w.helps && lower && against.is_some()
                    );
                    if let (Some(b), Some(a)) = (&w.unprofiled, against) {
                        assert_eq!(
                            b.contains("no faster than the unprofiled step"),
                            a < 1.0,
                            "{b}"
                        );
                    }
                }
            }
        }
    }

    /// The CLI and the page write the bracket in one sentence, each with its
    /// own way of writing the ratio.
    #[test]
    fn the_unprofiled_bracket_has_one_wording() {
        assert_eq!(
            unprofiled_bracket(1.234, "×1.23"),
            " (×1.23 against the unprofiled step)"
        );
        assert_eq!(
            unprofiled_bracket(1.0, "1×"),
            " (1× against the unprofiled step)"
        );
        assert_eq!(
            unprofiled_bracket(0.9, "×0.90"),
            " (no faster than the unprofiled step)"
        );
    }

    #[test]
    fn the_unplaced_kernels_add_up_to_all() {
        let mut c = rank([0.3, 0.1, 0.0, 0.0]);
        let s = unplaced(&c);
        assert!(
            s.starts_with(
                "30 of 40 kernels placed by their op's shapes; the other 10 are not on the chart"
            ),
            "{s}"
        );
        assert!(s.contains("no recorded shapes"), "{s}");
        c.graph_replay = true;
        c.replayed_kernels = 10;
        let s = unplaced(&c);
        assert!(
            s.contains("10 kernels were replayed from a CUDA graph"),
            "{s}"
        );
        c.placed_kernels = 0;
        assert!(unplaced(&c).starts_with("None of the 40 kernels could be placed"));
        c.roof_preset = None;
        assert!(unplaced(&c).starts_with("No roofline: the trace's GPU matches no preset"));
    }

    #[test]
    fn a_short_name_is_at_most_its_length() {
        let long = "k".repeat(100);
        assert_eq!(short(&long, 60).chars().count(), 60);
        assert!(short(&long, 60).ends_with('…'));
        assert_eq!(short("ampere_sgemm", 60), "ampere_sgemm");
        assert_eq!(short(&"é".repeat(60), 60), "é".repeat(60));
    }
}
