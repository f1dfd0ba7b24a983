//! The readout every widget publishes its numbers through.

use leptos::prelude::*;

/// A readout following the `data-metric` / `data-value` contract.
#[component]
pub fn Readout(
    name: &'static str,
    #[prop(into)] raw: Signal<String>,
    #[prop(into)] text: Signal<String>,
) -> impl IntoView {
    view! { <span class="readout" data-metric=name data-value=move || raw.get()>{move || text.get()}</span> }
}
