//! Measuring chart text: what both the chart helpers ([`super`]) and the backend
//! ([`super::backend`]) ask of the chart font.

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

/// The chart font's family.
pub const FONT: &str = "system-ui, sans-serif";

/// Width and height, in backend pixels, of `text` drawn in the chart font at
/// `size` backend pixels (what [`super::font`] gives plotters). Measured with an
/// off-screen canvas's `measureText`, which needs no page layout (plotters'
/// own text estimate goes through a DOM element); estimated where no canvas
/// context exists.
pub fn text_size(text: &str, size: f64) -> (f64, f64) {
    thread_local! {
        static MEASURE: Option<web_sys::CanvasRenderingContext2d> = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.create_element("canvas").ok())
            .and_then(|c| c.dyn_into::<HtmlCanvasElement>().ok())
            .and_then(|c| c.get_context("2d").ok().flatten())
            .and_then(|c| c.dyn_into().ok());
    }
    thread_local! {
        /// The font size last set on MEASURE: parsing a font string is most of a
        /// short label's measurement, and a chart measures many in one size.
        static SIZE: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NAN) };
    }
    let measured = MEASURE.with(|ctx| {
        let ctx = ctx.as_ref()?;
        if SIZE.replace(size) != size {
            ctx.set_font(&format!("normal {size}px {FONT}"));
        }
        let f: js_sys::Function = js_sys::Reflect::get(ctx, &"measureText".into())
            .ok()?
            .dyn_into()
            .ok()?;
        let m = f.call1(ctx, &text.into()).ok()?;
        js_sys::Reflect::get(&m, &"width".into()).ok()?.as_f64()
    });
    let w = measured
        .filter(|w| w.is_finite() && *w > 0.0)
        .unwrap_or_else(|| crate::geom::text_width(text, size));
    // canvas "top" baseline: the em box hangs below y; leave room for descenders
    (w.ceil(), (size * 1.2).ceil())
}
