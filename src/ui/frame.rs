//! The frame every essay widget sits in: a titled, anchored section (`#id`), so
//! `#widget-id` links scroll to it and embed mode can render it alone.

use super::share::ShareButtons;
use super::widgets::WidgetDef;
use super::Ctx;
use leptos::prelude::*;

#[component]
pub fn WidgetFrame(ctx: Ctx, def: &'static WidgetDef, children: Children) -> impl IntoView {
    let (id, title, embed_height) = (def.id, def.title, def.embed_height);
    let heading = format!("{id}-title");
    let labelled_by = heading.clone();
    view! {
        <section class="widget panel" id=id aria-labelledby=labelled_by data-widget=id
            data-embed-height=embed_height>
            <div class="widget-head">
                <h3 id=heading class="widget-title">{title}</h3>
                <ShareButtons ctx=ctx def=def/>
            </div>
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
