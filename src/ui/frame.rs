//! The frame every essay widget sits in: a titled, anchored section (`#id`), so
//! `#widget-id` links scroll to it and embed mode can render it alone.

use leptos::prelude::*;

#[component]
pub fn WidgetFrame(
    id: &'static str,
    title: &'static str,
    embed_height: u32,
    children: Children,
) -> impl IntoView {
    let heading = format!("{id}-title");
    let labelled_by = heading.clone();
    view! {
        <section class="widget panel" id=id aria-labelledby=labelled_by data-widget=id
            data-embed-height=embed_height>
            <h3 id=heading class="widget-title">{title}</h3>
            {children()}
        </section>
    }
}

/// A readout following the `data-metric` / `data-value` contract.
#[component]
pub fn Readout(
    name: &'static str,
    #[prop(into)] raw: Signal<String>,
    #[prop(into)] text: Signal<String>,
) -> impl IntoView {
    view! { <span class="readout" data-metric=name data-value=move || raw.get()>{move || text.get()}</span> }
}
