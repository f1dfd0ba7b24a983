//! Tells the user which URL parameters were ignored and why.

use crate::state::url::Notice;
use leptos::prelude::*;

#[component]
pub fn UrlNotices(notices: Vec<Notice>) -> impl IntoView {
    let (visible, set_visible) = signal(!notices.is_empty());
    view! {
        <Show when=move || visible.get()>
            <div id="url-notices" class="notice" role="status">
                <p><strong>"Some link parameters were ignored:"</strong></p>
                <ul>
                    {notices
                        .iter()
                        .map(|n| {
                            view! { <li data-param=n.param.clone()>{n.to_string()}</li> }
                        })
                        .collect_view()}
                </ul>
                <button class="link" on:click=move |_| set_visible.set(false)>"Dismiss"</button>
            </div>
        </Show>
    }
}
