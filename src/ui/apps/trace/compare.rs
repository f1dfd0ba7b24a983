//! The trace widget's comparison: two files of the same model, before and after
//! a change (`trace::compare`, the numbers `brrr-trace BEFORE --compare AFTER`
//! writes): the step, each class's time per step, the regime, the kernels that
//! appeared or vanished, and whether the change delivered what brrr predicted
//! from the first trace. The speedup is of the steps as unprofiled runs would
//! take them (`trace::profiler`), the profiled one beside it, labelled. Two
//! files of the same rank (or of none) are compared at once, named "before"
//! and "after"; the checkbox switches between that and ranks of one run.

use super::row::{raw, Rank};
use super::table;
use crate::model::units;
use crate::trace::compare::{compare, Compare};
use crate::ui::kit::readout::Readout;
use leptos::prelude::*;

/// At most this many kernel names are listed as added or removed.
const NAMES: usize = 12;

#[component]
pub fn ComparePanel(ranks: RwSignal<Vec<Rank>>, on: RwSignal<bool>) -> impl IntoView {
    let cmp = Memo::new(move |_| {
        if !on.get() {
            return None;
        }
        ranks.with(|r| Some(compare(r.first()?, r.get(1)?)))
    });
    let two = move || ranks.with(|r| r.len() >= 2);
    let speedup = Signal::derive(move || cmp.with(|c| raw(c.as_ref().map(|c| c.speedup))));
    let profiled =
        Signal::derive(move || cmp.with(|c| raw(c.as_ref().map(|c| c.speedup_profiled))));
    let predicted = Signal::derive(move || cmp.with(|c| raw(c.as_ref().and_then(|c| c.predicted))));
    let times = |x: Option<f64>| x.map_or_else(|| "—".into(), |x| format!("{}×", units::sig3(x)));
    view! {
        {move || two().then(|| view! {
            <label class="check"><input type="checkbox" name="trace_compare" data-trace-compare
                prop:checked=move || on.get() on:change=move |e| on.set(event_target_checked(&e))/>
                " Compare the first two files: before a change, then after it"</label>
        })}
        {move || cmp.get().map(|c| view! {
            <div class="trace-compare" data-trace-compare-matched=c.matched.clone().unwrap_or_default()>
                <h4>"Before and after"</h4>
                <dl class="metrics">
                    <div class="metric"><dt>"Speedup measured, unprofiled (step before ÷ after, each less the profiler's cost)"</dt><dd>
                        <Readout name="trace_compare_speedup" raw=speedup text=Signal::derive(move || cmp.with(|c| times(c.as_ref().map(|c| c.speedup))))/></dd></div>
                    <div class="metric"><dt>"As profiled (the traces' own steps)"</dt><dd>
                        <Readout name="trace_compare_speedup_profiled" raw=profiled text=Signal::derive(move || cmp.with(|c| times(c.as_ref().map(|c| c.speedup_profiled))))/></dd></div>
                    <div class="metric"><dt>"Predicted from the first trace (on its profiled step)"</dt><dd>
                        <Readout name="trace_compare_predicted" raw=predicted text=Signal::derive(move || cmp.with(|c| times(c.as_ref().and_then(|c| c.predicted))))/></dd></div>
                </dl>
                <p data-trace-compare-sentence>{c.sentence.clone()}</p>
                {classes(&c)}
                {kernels(&c)}
            </div>
        })}
    }
}

/// Each class's time per step, before and after.
fn classes(c: &Compare) -> AnyView {
    table(
        "trace-compare-classes",
        "Kernel time per step by class, before and after",
        &["class", "before", "after"],
        c.classes
            .iter()
            .map(|k| {
                vec![
                    k.class.clone(),
                    units::si(k.before_s, "s"),
                    units::si(k.after_s, "s"),
                ]
            })
            .collect(),
    )
}

/// The kernels that appeared and vanished (the first few of each).
fn kernels(c: &Compare) -> impl IntoView {
    let list = |what: &'static str, names: &[String]| {
        let more = names.len().saturating_sub(NAMES);
        view! {
            <p class="note">{format!("{what} ({}): ", names.len())}
                {names.iter().take(NAMES).map(|n| view! { <code>{crate::trace::words::short(n, 60)}</code>" " }).collect_view()}
                {(more > 0).then(|| format!("and {more} more"))}</p>
        }
    };
    view! {
        {list("Kernels only after", &c.kernels_added)}
        {list("Kernels only before", &c.kernels_removed)}
    }
}
