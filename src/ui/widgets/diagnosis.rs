//! Widget `diagnosis`: what limits the current step — the regime by the page's one
//! rule (`model::limit`: the cost whose halving shortens the step most, with the
//! three re-runs as readouts), the three time shares as a stacked bar, a sentence
//! where the two disagree — and what would and would not help, each remedy tried on
//! the model (`model::remedies`): a remedy is listed as helping iff it makes the
//! step at least 5 % faster per sample.

use super::advice;
use crate::model::limit::{self, Halving};
use crate::model::remedies::Advice;
use crate::model::{units, Report};
use crate::ui::kit::readout::Readout;
use crate::ui::kit::Ctx;
use leptos::prelude::*;

#[component]
pub fn Diagnosis(ctx: Ctx) -> impl IntoView {
    let r = ctx.report;
    let regime = Memo::new(move |_| r.with(|r| r.regime));
    let share = move |get: fn(&Report) -> f64| Memo::new(move |_| r.with(get));
    let (c, m, o) = (
        share(|r| r.shares.compute),
        share(|r| r.shares.memory),
        share(|r| r.shares.overhead),
    );
    let width = move |s: Memo<f64>| move || format!("width:{:.3}%", s.get() * 100.0);
    let summary = move || {
        format!(
            "{}: {} of the time computing, {} moving memory, {} waiting on overhead.",
            regime.get().label(),
            units::percent(c.get()),
            units::percent(m.get()),
            units::percent(o.get()),
        )
    };
    let adv = advice::advice(ctx);
    let best = Memo::new(move |_| adv.with(|a| a.best.clone()));
    let headline = move || adv.with(|a| a.headline.clone());
    let limit = Memo::new(move |_| r.with(|r| r.limit));
    let speedup = move |h: Halving, name: &'static str| {
        view! {
            <span class="halving">{h.words()}" "
                <Readout name=name raw=Signal::derive(move || limit.with(|l| l.speedup(h)).to_string())
                    text=Signal::derive(move || format!("{}×", units::sig3(limit.with(|l| l.speedup(h)))))/>
            </span>
        }
    };
    // at a near-tie, which two costs balance; else where the largest share and
    // the limit disagree
    let contrast = move || limit.with(limit::card_sentence);

    view! {
        <div class="regime" data-regime=move || regime.get().id()>
            <p class="regime-name">
                "This step is "
                <strong data-metric="regime" data-value=move || regime.get().id()>
                    {move || regime.get().label()}
                </strong>
            </p>
            <div class="share-bar" role="img" aria-label=summary>
                <div class="share compute" style=width(c)></div>
                <div class="share memory" style=width(m)></div>
                <div class="share overhead" style=width(o)></div>
            </div>
            <p class="shares">
                <span class="key compute">"compute "
                    <Readout name="share_compute" raw=Signal::derive(move || c.get().to_string()) text=Signal::derive(move || units::percent(c.get()))/>
                </span>
                <span class="key memory">"memory "
                    <Readout name="share_memory" raw=Signal::derive(move || m.get().to_string()) text=Signal::derive(move || units::percent(m.get()))/>
                </span>
                <span class="key overhead">"overhead "
                    <Readout name="share_overhead" raw=Signal::derive(move || o.get().to_string()) text=Signal::derive(move || units::percent(o.get()))/>
                </span>
            </p>
            <p class="limit">"Halve one cost at a time: "
                {speedup(Halving::Flops, "speedup_flops2")}", "
                {speedup(Halving::Bw, "speedup_bw2")}", "
                {speedup(Halving::Overhead, "speedup_overhead_half")}
                ". The largest speedup names the regime."
            </p>
            <p class="levels" data-metric="mem_level"
                data-value=move || r.with(|r| r.levels.map_or("hbm", |v| v.binds().id()))
                hidden=move || r.with(|r| r.levels.is_none())>
                {move || r.with(|r| r.levels.map(|v| v.sentence()).unwrap_or_default())}
            </p>
            <p class="contrast" data-metric="regime_contrast" hidden=move || contrast().is_none()>
                {move || contrast().unwrap_or_default()}
            </p>
            <p class="advice-headline" data-metric="advice">{headline}</p>
            <div class="advice">{move || adv.with(lists)}</div>
            <p class="best">"Best remedy: "
                <span class="readout" data-metric="best_remedy"
                    data-value=move || best.with(|b| b.as_ref().map_or("none", |b| b.id).to_string())
                    data-speedup=move || best.with(|b| b.as_ref().map_or(1.0, |b| b.speedup).to_string())>
                    {move || best.with(|b| b.as_ref().map_or_else(|| "none".to_string(), |b| b.text.clone()))}
                </span>
            </p>
            <p class="sr-only" aria-live="polite">{summary}</p>
        </div>
    }
}

/// What would help (the largest speedup first), what is too close to the bar
/// to split, what would not, and what is not possible here, each remedy tried
/// on the model (`model::remedies::advice`).
#[inline(always)] // one call site: the page's .wasm stays as before the split
fn lists(a: &Advice) -> impl IntoView {
    let n_na = a.na.len();
    let near = (!a.near.is_empty()).then(|| {
        let items = a.near.iter().map(advice::item).collect_view();
        view! {
            <div>
                <h4>"Too close to call (within 5 % of each other, across the bar)"</h4>
                <ul class="near">{items}</ul>
            </div>
        }
    });
    view! {
        <div>
            <h4>"Would help (predicted, per sample)"</h4>
            <ul class="helps">
                {a.helps.iter().map(advice::item).collect_view()}
                {a.none_helps.then(|| view! { <li class="none">"nothing here makes the step 5 % faster"</li> })}
            </ul>
        </div>
        {near}
        <div>
            <h4>"Would not help"</h4>
            <ul class="useless">
                {a.useless.iter().map(advice::item).collect_view()}
            </ul>
            {(n_na > 0).then(|| view! {
                <details class="na">
                    <summary>{format!("Not possible here ({n_na})")}</summary>
                    <ul class="useless">{a.na.iter().map(advice::item).collect_view()}</ul>
                </details>
            })}
        </div>
    }
}
