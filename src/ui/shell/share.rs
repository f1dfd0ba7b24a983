//! Share a widget: "Copy link" (this page, this state, scrolled to the widget) and
//! "Copy embed code" (an iframe showing only the widget). The text is also shown in
//! a read-only box, so it can be copied by hand where the clipboard is blocked.

use super::store;
use crate::state::spec::Spec;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The link that reopens the page at `def` with the current state.
pub fn link(ctx: Ctx, def: &Spec) -> String {
    let q = ctx.state.with_untracked(|s| store::query(s, None));
    store::page_url(&q, &format!("#{}", def.id))
}

/// The iframe snippet that embeds `def` alone with the current state, and the
/// script that sizes it to the height the embed posts (its `height` fits 720 px
/// wide in the default state; other widths and states differ).
pub fn embed_code(ctx: Ctx, def: &Spec) -> String {
    // only the keys the widget reads (and the GPU); ids are [a-z-]: nothing to escape
    let q = ctx
        .state
        .with_untracked(|s| crate::state::url::embed_query(s, def));
    let src = store::page_url(&format!("{q}&embed={}", def.id), "");
    // Only our own URL (percent-encoded by the codec) and static titles go in here.
    format!(
        "<iframe src=\"{}\" title=\"brrr: {}\" width=\"100%\" height=\"{}\" loading=\"lazy\" style=\"border:0\"></iframe>{}",
        src.replace('&', "&amp;").replace('"', "&quot;"),
        def.title,
        def.embed_height,
        crate::state::page::EMBED_RESIZE
    )
}

async fn copy(text: String) -> bool {
    let Some(clip) = web_sys::window().map(|w| w.navigator().clipboard()) else {
        return false;
    };
    crate::js::wait(clip.write_text(&text)).await.is_ok()
}

#[component]
pub fn ShareButtons(ctx: Ctx, def: &'static Spec) -> impl IntoView {
    let shown = RwSignal::new(None::<(String, String)>); // (what, text)
    let act = move |what: &'static str, text: String| {
        shown.set(Some((format!("{what}: copying…"), text.clone())));
        spawn_local(async move {
            let ok = copy(text.clone()).await;
            let msg = if ok {
                format!("{what} copied")
            } else {
                format!("{what}: copy it from the box")
            };
            shown.set(Some((msg, text)));
        });
    };
    view! {
        <div class="share" role="group" aria-label="Share this widget">
            <button class="small" data-share="link" on:click=move |_| act("Link", link(ctx, def))>"Copy link"</button>
            <button class="small" data-share="embed" on:click=move |_| act("Embed code", embed_code(ctx, def))>"Copy embed code"</button>
            {move || shown.get().map(|(msg, text)| view! {
                <span class="share-status" role="status">{msg}</span>
                <input class="share-text" type="text" readonly aria-label="Text to copy" prop:value=text
                    on:focus=|ev| {
                        use wasm_bindgen::JsCast;
                        if let Some(i) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            i.select();
                        }
                    }/>
            })}
        </div>
    }
}
