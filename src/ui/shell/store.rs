//! Where state comes from and goes to: the URL (read once on load, rewritten in
//! place on every change so a copied address always reproduces the view), plus the
//! page mode: `embed=WIDGET_ID` shows one widget alone, `theme=light|dark` fixes the
//! theme (for embeds in course pages that have their own).

use crate::state::page::{self, Start};
use crate::state::url;
use crate::state::State;
use crate::ui::widgets;
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

/// [`query`] with a theme the URL fixed (`Some(dark)`): the page's own address
/// and the embed's "Open in brrr" link keep it alike.
pub fn query_themed(state: &State, embed: Option<&str>, dark: Option<bool>) -> String {
    let mut q = query(state, embed);
    if let Some(dark) = dark {
        q.push_str(if dark { "&theme=dark" } else { "&theme=light" });
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
/// the toggle. The write waits until the state has been still for
/// [`URL_QUIET_MS`] (see `url_write`).
pub fn sync_url(
    state: RwSignal<State>,
    embed: Option<&'static str>,
    theme: Option<RwSignal<bool>>,
) {
    Effect::new(move |prev: Option<String>| {
        crate::ui::kit::on_demand::track_unread();
        let q = state.with(|s| query_themed(s, embed, theme.map(|d| d.get())));
        // the first run writes only where the address differs (a page opened at
        // its canonical address has nothing to write)
        let same = match prev.as_deref() {
            Some(p) => p == q,
            None => window()
                .location()
                .search()
                .is_ok_and(|s| s.trim_start_matches('?') == q),
        };
        if !same {
            url_write(q.clone());
        }
        q
    });
    // leaving or hiding the page writes what is pending (the address a tab
    // restores, or a user copies after switching back, is the current one)
    for event in ["pagehide", "visibilitychange", "blur"] {
        let handle = window_event_listener_untyped(event, move |_| url_flush());
        on_cleanup(move || handle.remove());
    }
}

/// How long the state must be still before the address bar follows it. A drag
/// sends an input per frame; `replaceState` costs ~1-2 ms each (and Chromium
/// refuses more than 200 in 10 s), so a drag writes once, when it stops.
pub const URL_QUIET_MS: u32 = 250;

thread_local! {
    /// The query waiting to be written, and the timer that writes it.
    static URL_PENDING: std::cell::RefCell<Option<(String, gloo_timers::callback::Timeout)>> =
        const { std::cell::RefCell::new(None) };
}

/// Writes `q` once the state has been still for [`URL_QUIET_MS`]: every change
/// restarts the wait. While a write waits, `<html data-url-pending>` says so (the
/// tests read the address after it is gone).
fn url_write(q: String) {
    let timer = gloo_timers::callback::Timeout::new(URL_QUIET_MS, url_flush);
    let was_idle = URL_PENDING.with_borrow_mut(|p| p.replace((q, timer)).is_none());
    if was_idle {
        if let Some(root) = document().document_element() {
            let _ = root.set_attribute("data-url-pending", "");
        }
    }
}

/// Writes the pending query now, if any.
fn url_flush() {
    // the old timer is dropped (cancelled) with the pending entry
    if let Some((q, _timer)) = URL_PENDING.with_borrow_mut(Option::take) {
        replace_query(&q);
        if let Some(root) = document().document_element() {
            let _ = root.remove_attribute("data-url-pending");
        }
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
