//! The widgets the page loads on demand (their `state::widgets::widget_list!` line
//! says `on_demand`: `src/ui/apps/more/`),
//! wasm32 only: Trunk builds this as a separate ES module with its own .wasm
//! (`index.html`'s `data-type="worker" data-bindgen-target="web"` link, used here
//! only for its unhashed names), which the page's stand-in (`src/ui/widgets/more.rs`)
//! imports when one of those widgets first comes on screen. The page's first load
//! therefore carries none of them (the 480 KB first-visit budget, docs/perf.md).
//!
//! Exports: `mount(element, options)` (once per widget; the options are
//! `ui/widgets/more.rs`'s), `set_dark(dark)` (on every theme change) and
//! `set_view(query)` (whenever the state the page draws changes). Natively an
//! empty program.

fn main() {}

#[cfg(target_arch = "wasm32")]
mod exports {
    use wasm_bindgen::prelude::{wasm_bindgen, JsValue};

    #[wasm_bindgen]
    pub fn mount(el: web_sys::HtmlElement, options: JsValue) {
        brrr::ui::mount_more(el, &options);
    }

    #[wasm_bindgen]
    pub fn set_dark(dark: bool) {
        brrr::ui::more_dark(dark);
    }

    #[wasm_bindgen]
    pub fn set_view(query: String) {
        brrr::ui::more_view(&query);
    }
}
