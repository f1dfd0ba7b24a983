//! Light and dark themes: follow `prefers-color-scheme` until the user picks one
//! with the toggle; the pick is remembered in localStorage (`brrr.theme.v1`).

use super::storage;
use super::Ctx;
use leptos::prelude::*;

const KEY: &str = "brrr.theme.v1";

fn prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .map(|m| m.matches())
        .unwrap_or(false)
}

fn apply(dark: bool) {
    if let Some(el) = document().document_element() {
        let _ = el.set_attribute("data-theme", if dark { "dark" } else { "light" });
    }
}

/// The theme signal, initialised from storage or the system preference, and kept
/// applied to `<html data-theme>`.
pub fn init() -> RwSignal<bool> {
    let stored = match storage::get(KEY) {
        Ok(Some(v)) if v == "dark" => Some(true),
        Ok(Some(v)) if v == "light" => Some(false),
        _ => None, // nothing stored, unreadable, or not ours: follow the system
    };
    let dark = RwSignal::new(stored.unwrap_or_else(prefers_dark));
    Effect::new(move |_| apply(dark.get()));
    dark
}

#[component]
pub fn ThemeToggle(ctx: Ctx) -> impl IntoView {
    let note = RwSignal::new(None::<String>);
    let toggle = move |_| {
        let d = !ctx.dark.get_untracked();
        ctx.dark.set(d);
        note.set(
            storage::set(KEY, if d { "dark" } else { "light" })
                .err()
                .map(|e| format!("Theme not remembered: {e}.")),
        );
    };
    view! {
        <button id="theme-toggle" class="theme-toggle" aria-pressed=move || ctx.dark.get().to_string() on:click=toggle
            title="Switch between light and dark">
            {move || if ctx.dark.get() { "☀ Light" } else { "☾ Dark" }}
        </button>
        {move || note.get().map(|n| view! { <span class="note">{n}</span> })}
    }
}
