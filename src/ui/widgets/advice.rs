//! Remedy items as the page shows them, everywhere: the diagnosis card's lists, the
//! remedies table, the help's hints. Each item carries the public contract
//! `data-remedy` (stable id), `data-speedup` (predicted time per sample before ÷
//! after, raw) and, inside a "helps" / "does not help" list, `data-helps` 1 / 0.
//! The words and numbers come from `model::remedies::evaluate`; nothing here
//! decides what helps.

use crate::model::remedies::{self, Outcome};
use crate::ui::kit::Ctx;
use leptos::prelude::*;

/// The remedies evaluated on the widget's view of the state, once per change.
pub fn outcomes(ctx: Ctx) -> Memo<Vec<Outcome>> {
    Memo::new(move |_| ctx.view.with(|s| remedies::evaluate(&s.setting)))
}

/// "1.56× faster", "no faster (1.00×)", or why it does not apply.
pub fn effect_text(o: &Outcome) -> String {
    match &o.effect {
        Err(why) => format!("not possible here: {why}"),
        Ok(_) if o.helps() => format!("{}× faster", remedies::speedup_text(o)),
        Ok(_) => format!("{}× (under the 5 % bar)", remedies::speedup_text(o)),
    }
}

/// One `<li>` of a list of remedies; `helps` is the list it sits in.
pub fn item(o: &Outcome, helps: bool) -> impl IntoView {
    let label = o.label.clone();
    let effect = effect_text(o);
    view! {
        <li data-remedy=o.id.id() data-speedup=o.speedup().to_string()
            data-helps=if helps { "1" } else { "0" }
            data-applicable=if o.applicable() { "1" } else { "0" }>
            {label}" — "<span class="effect">{effect}</span>
        </li>
    }
}
