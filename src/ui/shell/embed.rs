//! Embed mode (`?embed=WIDGET_ID`): one widget in an iframe, and the height
//! message it posts to the page around it.

use super::frame::framed;
use super::{notices, store};
use crate::state::url as state_url;
use crate::ui::kit::Ctx;
use leptos::prelude::*;

/// Embed mode (`?embed=WIDGET_ID`): one widget, no page chrome, filling the iframe,
/// with a link to the full page at the same state.
#[component]
pub fn Embed(
    ctx: Ctx,
    id: &'static str,
    notices: Vec<state_url::Notice>,
    /// A theme the embed's URL fixed: the full page opens in it too.
    theme: Option<RwSignal<bool>>,
) -> impl IntoView {
    if let Some(el) = document().document_element() {
        let _ = el.class_list().add_1("embed");
    }
    let full = move || {
        crate::ui::kit::on_demand::track_unread();
        let q = ctx
            .state
            .with(|s| store::query_themed(s, None, theme.map(|d| d.get())));
        store::page_url(&q, &format!("#{id}"))
    };
    post_height(id);
    view! {
        <notices::UrlNotices notices=notices/>
        <main class="embed-main">
            // The frame's title is an h3, as on the full page; these give the embedded
            // document its h1 and h2 for screen readers without changing the look.
            <h1 class="sr-only">"brrr"</h1>
            <h2 class="sr-only">"A widget from the brrr essay on GPU performance"</h2>
            {framed(ctx, id)}
            <p class="embed-foot">
                <a href=full target="_blank" rel="noopener">"Open in brrr ↗"</a>
            </p>
        </main>
    }
}

/// The message an embed posts to the page around it whenever its content height
/// changes (and once it has laid out): `{type: "brrr:height", id, height}`, height
/// in CSS pixels, rounded up. The host page sets its iframe's height from it (the
/// snippet is in docs/contract.md, "Widgets and embeds"). It goes to any origin ("*"): an
/// embed cannot know the course page it sits in, and the message says nothing but
/// the widget's id and its height.
pub const HEIGHT_MESSAGE: &str = "brrr:height";

/// In embed mode inside a frame, post [`HEIGHT_MESSAGE`] to the parent now and
/// whenever the document's height changes (a ResizeObserver on `<html>`, whose
/// height is its content's, whatever the iframe's height). Not framed: nothing.
fn post_height(id: &'static str) {
    use std::cell::Cell;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    let w = window();
    let Ok(Some(parent)) = w.parent() else { return };
    if js_sys::Object::is(&parent, &w) {
        return;
    }
    let Some(root) = document().document_element() else {
        return;
    };
    let last = Cell::new(f64::NAN);
    let observed = root.clone();
    let send = Closure::<dyn FnMut()>::new(move || {
        let h = observed.get_bounding_client_rect().height().ceil();
        if !(h.is_finite() && h > 0.0) || h == last.get() {
            return;
        }
        last.set(h);
        let msg = js_sys::Object::new();
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&msg, &k.into(), &v).is_ok();
        if set("type", HEIGHT_MESSAGE.into()) && set("id", id.into()) && set("height", h.into()) {
            let _ = parent.post_message(&msg, "*");
        }
    });
    // the observer reports once as soon as it observes (after the first layout),
    // then on every change of the height; it lives as long as the page
    if let Ok(obs) = web_sys::ResizeObserver::new(send.as_ref().unchecked_ref()) {
        obs.observe(&root);
        send.forget();
    }
}
