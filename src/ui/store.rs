//! Where state comes from and goes to: the URL (read once on load, rewritten in
//! place on every change so a copied address always reproduces the view), plus the
//! page mode: `embed=WIDGET_ID` shows one widget alone, `theme=light|dark` fixes the
//! theme (for embeds in course pages that have their own).

use super::widgets;
use crate::state::page::{self, Start};
use crate::state::url;
use crate::state::State;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

/// What the page starts from: its address, decoded once (`state::page::decode`).
pub fn initial() -> Start {
    let search = window().location().search().unwrap_or_default();
    page::decode(&search, |id| widgets::widget(id).map(|w| w.id))
}

/// The query string for a state, keeping embed mode.
pub fn query(state: &State, embed: Option<&str>) -> String {
    let mut q = url::encode(state);
    if let Some(id) = embed {
        q.push_str("&embed=");
        q.push_str(id); // widget ids are [a-z-]: nothing to escape
    }
    q
}

/// An absolute URL of this page with `query` and `hash` (with its `#`, or empty).
pub fn page_url(query: &str, hash: &str) -> String {
    let loc = window().location();
    let origin = loc.origin().unwrap_or_default();
    let path = loc.pathname().unwrap_or_default();
    format!("{origin}{path}?{query}{hash}")
}

/// Mirror the state into the address bar with `history.replaceState` (no history
/// entries, no reload). Skips the write when the query is already current.
/// A theme the URL fixed (`theme`: the page's theme signal) stays in it, following
/// the toggle. The write happens in the task after the change (see `url_write`):
/// `replaceState` cost ~2 ms of every slider input's redraw.
pub fn sync_url(
    state: RwSignal<State>,
    embed: Option<&'static str>,
    theme: Option<RwSignal<bool>>,
) {
    Effect::new(move |prev: Option<String>| {
        let mut q = state.with(|s| query(s, embed));
        if let Some(dark) = theme {
            q.push_str(if dark.get() {
                "&theme=dark"
            } else {
                "&theme=light"
            });
        }
        if prev.as_deref() != Some(q.as_str()) {
            url_write(q.clone());
        }
        q
    });
}

thread_local! {
    /// The query waiting to be written (a write is scheduled while this is Some).
    static URL_PENDING: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Writes `q` in the next task: the input that changed the state redraws without
/// waiting for `replaceState`, and several changes within one task (a burst of
/// input events) write once, the latest.
fn url_write(q: String) {
    let schedule = URL_PENDING.with_borrow_mut(|pending| pending.replace(q).is_none());
    if schedule {
        set_timeout(
            || {
                if let Some(q) = URL_PENDING.with_borrow_mut(Option::take) {
                    replace_query(&q);
                }
            },
            std::time::Duration::ZERO,
        );
    }
}

fn replace_query(q: &str) {
    let win = window();
    let loc = win.location();
    let path = loc.pathname().unwrap_or_default();
    let hash = loc.hash().unwrap_or_default();
    if let Ok(history) = win.history() {
        let _ =
            history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{path}?{q}{hash}")));
    }
}
