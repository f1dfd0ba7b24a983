//! Light and dark themes: follow `prefers-color-scheme` until the user picks one
//! with the toggle; the pick is remembered in localStorage (`brrr.theme.v1`). A
//! `theme=light|dark` in the URL (an embed in a course page) wins over both.

use crate::ui::kit::storage;
use crate::ui::kit::Ctx;
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

/// What storage holds for the theme.
enum Stored {
    Choice(bool),
    Nothing,
    /// Something this version cannot read: ignored, kept until the user says.
    Unreadable(String),
}

fn stored() -> Stored {
    match storage::get(KEY) {
        Ok(Some(v)) if v == "dark" => Stored::Choice(true),
        Ok(Some(v)) if v == "light" => Stored::Choice(false),
        Ok(Some(v)) => Stored::Unreadable(v.chars().take(40).collect()),
        Ok(None) | Err(_) => Stored::Nothing, // nothing stored, or no storage: follow the system
    }
}

/// The theme signal, initialised from the URL's `theme` (`from_url`), else storage,
/// else the system preference, and kept applied to `<html data-theme>`.
pub fn init(from_url: Option<bool>) -> RwSignal<bool> {
    let choice = match stored() {
        Stored::Choice(d) => Some(d),
        Stored::Nothing | Stored::Unreadable(_) => None,
    };
    let dark = RwSignal::new(from_url.or(choice).unwrap_or_else(prefers_dark));
    Effect::new(move |_| apply(dark.get()));
    dark
}

#[component]
pub fn ThemeToggle(ctx: Ctx) -> impl IntoView {
    let unreadable = match stored() {
        Stored::Unreadable(v) => Some(v),
        _ => None,
    };
    let note = RwSignal::new(unreadable.map(|v| {
        format!("A saved theme ({v:?}) could not be read and was ignored. Choosing a theme replaces it.")
    }));
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
