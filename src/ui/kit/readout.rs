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

/// Sentences as list items that change in place: the item at each index keeps
/// its element, a changed sentence rewrites only its text, and a change of count
/// adds or removes items at the end. A list rebuilt from scratch on each input
/// replaces every element, and a slider moves it every frame.
#[component]
pub fn Lines(#[prop(into)] items: Signal<Vec<String>>) -> impl IntoView {
    let n = Memo::new(move |_| items.with(Vec::len));
    view! {
        <For each=move || 0..n.get() key=|i| *i let:i>
            <li>{move || items.with(|v| v.get(i).cloned().unwrap_or_default())}</li>
        </For>
    }
}

/// One part of a [`ShareBar`]: its class (`share {class}`), its tooltip and
/// its width in percent of the bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Share {
    pub class: &'static str,
    pub title: String,
    pub pct: f64,
}

/// A bar of shares (`div.share-bar`, an image labelled with what it shows): an
/// element per part that keeps its place while its width and tooltip update in
/// place, as [`Lines`] does for sentences. `parts` should be a memo: each part
/// reads it.
#[component]
pub fn ShareBar(
    #[prop(into)] parts: Signal<Vec<Share>>,
    #[prop(into)] label: Signal<String>,
    /// More classes for the bar.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let n = Memo::new(move |_| parts.with(Vec::len));
    let part = move |i: usize, f: fn(&Share) -> String| {
        parts.with(|p| p.get(i).map(f).unwrap_or_default())
    };
    let class = if class.is_empty() {
        "share-bar".to_string()
    } else {
        format!("share-bar {class}")
    };
    view! {
        <div class=class role="img" aria-label=move || label.get()>
            <For each=move || 0..n.get() key=|i| *i let:i>
                <div class=move || part(i, |s| format!("share {}", s.class))
                    style=move || part(i, |s| format!("width:{:.3}%", s.pct))
                    title=move || part(i, |s| s.title.clone())></div>
            </For>
        </div>
    }
}
