//! The trace widget's own app ("Diagnose your own run", `src/ui/widgets/trace.rs`),
//! wasm32 only: Trunk builds it as a separate ES module with its own .wasm
//! (`index.html`'s `data-type="worker" data-bindgen-target="web"` link, used
//! here only for its unhashed names), which the page's stand-in
//! (`src/ui/widgets/trace.rs`) imports when the widget first comes on screen. The
//! page's first load therefore does not carry the widget's UI.
//!
//! Exports: `mount(element, dark)` (once) and `set_dark(dark)` (on every theme
//! change).

#[cfg(not(target_arch = "wasm32"))]
fn main() {}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(target_arch = "wasm32")]
mod exports {
    use wasm_bindgen::prelude::wasm_bindgen;

    #[wasm_bindgen]
    pub fn mount(el: web_sys::HtmlElement, dark: bool) {
        brrr::ui::mount_trace(el, dark);
    }

    #[wasm_bindgen]
    pub fn set_dark(dark: bool) {
        brrr::ui::trace_dark(dark);
    }
}
