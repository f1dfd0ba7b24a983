//! The JS glue the page's shell (`ui`) and the lab's driver (`gpu::web`) share,
//! each written once (wasm32 only): awaiting a promise, a JS error as text, a
//! test knob on `window`, and watching whether an element is on screen.

use js_sys::Reflect;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Await a promise as a plain `JsValue`: the one use of `JsFuture`, so the future
/// machinery is compiled once for every promise type (a smaller .wasm).
pub async fn wait(p: impl AsRef<JsValue>) -> Result<JsValue, JsValue> {
    JsFuture::from(p.as_ref().clone().unchecked_into::<js_sys::Promise>()).await
}

/// A JS exception or rejection as text.
pub fn js_err(e: JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    let msg = Reflect::get(&e, &"message".into())
        .ok()
        .and_then(|m| m.as_string());
    let name = Reflect::get(&e, &"name".into())
        .ok()
        .and_then(|m| m.as_string());
    match (name, msg) {
        (Some(n), Some(m)) if !m.is_empty() => format!("{n}: {m}"),
        (_, Some(m)) if !m.is_empty() => m,
        (Some(n), _) => n,
        _ => "unknown JavaScript error".into(),
    }
}

/// A test knob set by a test before it acts: `window[name] === true`.
pub fn flag(name: &str) -> bool {
    web_sys::window()
        .and_then(|w| Reflect::get(&w, &name.into()).ok())
        .and_then(|v| v.as_bool())
        == Some(true)
}

/// An IntersectionObserver on the viewport grown by a margin, and its callback;
/// dropping it disconnects the observer.
struct Intersections {
    io: web_sys::IntersectionObserver,
    _cb: Closure<dyn FnMut(js_sys::Array)>,
}

impl Intersections {
    /// Calls `on_entry` for each entry the observer reports, oldest first;
    /// `margin` is CSS (e.g. `"300px"`). `None` where the browser has none.
    fn new(
        margin: &str,
        mut on_entry: impl FnMut(web_sys::IntersectionObserverEntry) + 'static,
    ) -> Option<Self> {
        let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            for i in 0..entries.length() {
                if let Ok(e) = entries.get(i).dyn_into() {
                    on_entry(e);
                }
            }
        });
        let init = web_sys::IntersectionObserverInit::new();
        init.set_root_margin(margin);
        let io =
            web_sys::IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &init)
                .ok()?;
        Some(Intersections { io, _cb: cb })
    }
}

impl Drop for Intersections {
    fn drop(&mut self) {
        self.io.disconnect();
    }
}

/// Whether one element is within a margin of the viewport, as the browser
/// reports it; dropping it disconnects the observer.
pub struct OnScreenWatch {
    _watch: Intersections,
}

impl OnScreenWatch {
    /// Call `on_change(visible)` whenever `el` enters or leaves the viewport grown
    /// by `margin` (CSS, e.g. `"300px"`). `None` where the browser has no
    /// IntersectionObserver: the caller treats the element as always visible.
    pub fn new(
        el: &web_sys::Element,
        margin: &str,
        mut on_change: impl FnMut(bool) + 'static,
    ) -> Option<OnScreenWatch> {
        // the last entry is the newest state of the one target
        let watch = Intersections::new(margin, move |e| on_change(e.is_intersecting()))?;
        watch.io.observe(el);
        Some(OnScreenWatch { _watch: watch })
    }
}

/// Many elements, each reported as it comes within a margin of the viewport;
/// dropping it disconnects the observer.
pub struct NearWatch(Intersections);

impl NearWatch {
    /// `None` where the browser has no IntersectionObserver.
    pub fn new(margin: &str, mut on_near: impl FnMut(web_sys::Element) + 'static) -> Option<Self> {
        let watch = Intersections::new(margin, move |e| {
            if e.is_intersecting() {
                on_near(e.target());
            }
        })?;
        Some(NearWatch(watch))
    }

    pub fn observe(&self, el: &web_sys::Element) {
        self.0.io.observe(el);
    }

    pub fn unobserve(&self, el: &web_sys::Element) {
        self.0.io.unobserve(el);
    }
}

/// A ResizeObserver on one element and its callback; dropping it disconnects the
/// observer. The browser reports sizes after its own layout, so watching never
/// forces a synchronous layout the way reading `clientWidth` does.
pub struct SizeWatch {
    ro: web_sys::ResizeObserver,
    _cb: Closure<dyn FnMut(js_sys::Array)>,
}

impl SizeWatch {
    /// Call `on_width(css_px)` with `el`'s content-box width once it is laid out,
    /// then whenever it changes. `None` where the browser has no ResizeObserver.
    pub fn new(
        el: &web_sys::Element,
        mut on_width: impl FnMut(f64) + 'static,
    ) -> Option<SizeWatch> {
        let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            // the last entry is the newest size of our single target
            if let Ok(e) = entries.pop().dyn_into::<web_sys::ResizeObserverEntry>() {
                on_width(e.content_rect().width());
            }
        });
        let ro = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok()?;
        ro.observe(el);
        Some(SizeWatch { ro, _cb: cb })
    }
}

impl Drop for SizeWatch {
    fn drop(&mut self) {
        self.ro.disconnect();
    }
}
