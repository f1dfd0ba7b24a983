//! The lab's own app ("Measure my GPU", `src/ui/widgets/lab.rs` with the WebGPU driver
//! `src/gpu/web/`), wasm32 only: Trunk builds it as a separate ES module with its
//! own .wasm (`index.html`'s `data-type="worker" data-bindgen-target="web"` link,
//! used here only for its unhashed names), which the page's stand-in
//! (`src/ui/widgets/lab.rs`) imports when the widget first comes on screen. The
//! page's first load therefore does not carry the lab.
//!
//! Exports: `mount(element, options)` (once; the options are `ui/widgets/lab.rs`'s),
//! `set_dark(dark)` (on every theme change) and `set_view(query)` (whenever the
//! state the widget draws changes). Natively an empty program.

fn main() {}

#[cfg(target_arch = "wasm32")]
mod exports {
    use wasm_bindgen::prelude::{wasm_bindgen, JsValue};

    #[wasm_bindgen]
    pub fn mount(el: web_sys::HtmlElement, options: JsValue) {
        brrr::ui::mount_lab(el, &options);
    }

    #[wasm_bindgen]
    pub fn set_dark(dark: bool) {
        brrr::ui::lab_dark(dark);
    }

    #[wasm_bindgen]
    pub fn set_view(query: String) {
        brrr::ui::lab_view(&query);
    }
}
