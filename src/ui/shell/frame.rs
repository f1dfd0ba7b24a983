//! The frame every essay widget sits in: a titled, anchored section (`#id`), so
//! `#widget-id` links scroll to it and embed mode can render it alone.

use super::share::ShareButtons;
use crate::model::Report;
use crate::state::widgets::Spec;
use crate::state::State;
use crate::ui::chart::OnScreen;
use crate::ui::kit::Ctx;
use crate::ui::widgets::{render, widget};
use leptos::html::Section;
use leptos::prelude::*;

#[component]
pub fn WidgetFrame(ctx: Ctx, def: &'static Spec) -> impl IntoView {
    let (id, title, embed_height) = (def.id, def.title, def.embed_height);
    let section = NodeRef::<Section>::new();
    let on = OnScreen::new(section);
    let own = ctx.reading(def.reads);
    let inner = if def.gate { gate(own, on) } else { own };
    let heading = format!("{id}-title");
    let labelled_by = heading.clone();
    view! {
        // `away` (reported off the screen) lets CSS skip its rendering
        <section node_ref=section class="widget panel" class:away=move || on.away() id=id
            aria-labelledby=labelled_by data-widget=id data-embed-height=embed_height>
            <div class="widget-head">
                <h3 id=heading class="widget-title">{title}</h3>
                <ShareButtons ctx=ctx def=def/>
            </div>
            {render(def, inner)}
        </section>
    }
}

/// A view of the shared state for one widget: `view` and `report` follow the
/// shared ones while the widget is on (or near) the screen and hold their last
/// value while it is off-screen, so off-screen widgets neither recompute their
/// models nor touch the DOM when a slider moves; they catch up when scrolled to.
/// Writes still go to the shared `state`.
pub fn gate(ctx: Ctx, on: OnScreen) -> Ctx {
    let view = Memo::new(move |prev: Option<&State>| match prev {
        Some(p) if !on.get() => p.clone(),
        _ => ctx.state.get(),
    });
    let report = Memo::new(move |prev: Option<&Report>| match prev {
        Some(p) if !on.get() => p.clone(),
        _ => ctx.report.get(),
    });
    Ctx {
        view,
        report,
        on_screen: Signal::derive(move || on.get()),
        ..ctx
    }
}

/// Render a registered widget in its frame (`#id` anchor, title).
pub fn framed(ctx: Ctx, id: &'static str) -> AnyView {
    match widget(id) {
        Some(w) => view! {
            <WidgetFrame ctx=ctx def=w/>
        }
        .into_any(),
        None => ().into_any(),
    }
}
