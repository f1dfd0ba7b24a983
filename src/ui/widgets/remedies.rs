//! Widget `remedies`: the essay's conclusion table — regime → the remedies meant for
//! it — with every remedy tried on the current state by the model
//! (`model::remedies::advice`). The row of the step's regime is highlighted, but an item is
//! marked as helping only by its own predicted speedup (≥ 5 % per sample), so a
//! remedy from another row that wins is shown winning. Remedies the explorer can
//! express are buttons that apply them (`data-apply=ID`: only the item, the `<li>`,
//! carries `data-remedy` and its contract).

use super::advice;
use crate::model::remedies::{self, Item, RemedyId};
use crate::model::Regime;
use crate::ui::kit::Ctx;
use leptos::prelude::*;

const ROWS: [(Regime, &str); 3] = [
    (Regime::Overhead, "Overhead-bound"),
    (Regime::Memory, "Bandwidth-bound"),
    (Regime::Compute, "Compute-bound"),
];

/// Apply remedy `id` to the live state, re-evaluated at click time.
fn apply(ctx: Ctx, id: RemedyId) {
    let change = ctx
        .state
        .with_untracked(|s| remedies::applied(&s.setting, id));
    if let Some(t) = change {
        ctx.state.update(|s| s.set_setting(&t));
    }
}

fn item(ctx: Ctx, o: &Item) -> impl IntoView {
    let id = o.id;
    let label = o.label.clone();
    view! {
        <li class:helps=o.helps data-remedy=id.id() data-speedup=o.speedup.to_string()
            data-helps=if o.helps { "1" } else { "0" }
            data-applicable=if o.applicable { "1" } else { "0" }>
            {if o.apply.is_some() {
                view! { <button class="remedy" data-apply=id.id() on:click=move |_| apply(ctx, id)>{label}</button> }.into_any()
            } else {
                view! { <span class="remedy-text">{label}</span> }.into_any()
            }}
            " "<span class="effect">{o.before_after.clone()}</span>
        </li>
    }
}

#[component]
pub fn Remedies(ctx: Ctx) -> impl IntoView {
    let regime = Memo::new(move |_| ctx.report.with(|r| r.regime));
    let adv = advice::advice(ctx);
    let headline = move || adv.with(|a| a.headline.clone());
    view! {
        <table class="remedies">
            <thead><tr><th scope="col">"regime"</th><th scope="col">"remedies meant for it (predicted time per sample now → after; click to apply)"</th></tr></thead>
            <tbody>
                {ROWS.iter().map(|(r, name)| {
                    let r = *r;
                    view! {
                        <tr class:current=move || regime.get() == r data-regime=r.id()>
                            <th scope="row">{*name}{move || (regime.get() == r).then_some(" ← what limits the step")}</th>
                            <td>
                                <ul class="remedy-list">
                                    {move || adv.with(|a| a.items.iter()
                                        .filter(|o| o.rows.contains(&r))
                                        .map(|o| item(ctx, o))
                                        .collect_view())}
                                </ul>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        <p class="note remedies-headline" aria-live="polite">{headline}</p>
        <p class="note">
            "Marked in bold: predicted to make the step at least 5 % faster per sample. C++ and CUDA "
            "graphs change how the CPU issues kernels, which the explorer's one overhead number cannot "
            "express, so they are predictions only."
        </p>
    }
}
