//! Remedy items as the page shows them, everywhere: the diagnosis card's lists, the
//! remedies table, the help's hints. Each item carries the public contract
//! `data-remedy` (stable id), `data-speedup` (predicted time per sample before ÷
//! after, raw) and, inside a "helps" / "does not help" list, `data-helps` 1 / 0.
//! The words and numbers come from `model::remedies::advice`; nothing here
//! decides what helps.

use crate::model::remedies::{self, Advice, Item};
use crate::ui::kit::Ctx;
use leptos::prelude::*;

/// The remedies as the page shows them, for the widget's view of the
/// explorer's setting: recomputed only when that setting changes.
pub fn advice(ctx: Ctx) -> Memo<Advice> {
    let setting = Memo::new(move |_| ctx.view.with(|s| s.setting));
    Memo::new(move |_| setting.with(remedies::advice))
}

/// One `<li>` of a list of remedies (its `data-helps` is its verdict).
pub fn item(o: &Item) -> impl IntoView {
    view! {
        <li data-remedy=o.id.id() data-speedup=o.speedup.to_string()
            data-helps=if o.helps { "1" } else { "0" }
            data-applicable=if o.applicable { "1" } else { "0" }>
            {o.label.clone()}" — "<span class="effect">{o.effect.clone()}</span>
        </li>
    }
}
