//! Where state comes from and goes to: the URL (read once on load, rewritten in
//! place on every change so a copied address always reproduces the view).

use crate::state::url::{self, Notice};
use crate::state::State;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

pub fn initial_state() -> (State, Vec<Notice>) {
    let search = window().location().search().unwrap_or_default();
    url::decode(&search)
}

/// Mirror the state into the address bar with `history.replaceState` (no history
/// entries, no reload). Skips the write when the query is already current.
pub fn sync_url(state: RwSignal<State>) {
    Effect::new(move |prev: Option<String>| {
        let query = state.with(url::encode);
        if prev.as_deref() != Some(query.as_str()) {
            let win = window();
            let loc = win.location();
            let path = loc.pathname().unwrap_or_default();
            let hash = loc.hash().unwrap_or_default();
            if let Ok(history) = win.history() {
                let _ = history.replace_state_with_url(
                    &JsValue::NULL,
                    "",
                    Some(&format!("{path}?{query}{hash}")),
                );
            }
        }
        query
    });
}
