//! The page's parts below the first screen, built when a reader comes near them
//! (built at start, each was a long task of 50-120 ms at 4× CPU, and
//! together they were most of the start's blocking time, for widgets nobody
//! had scrolled to yet).
//!
//! A waiting slot is marked `data-pending` and holds its widget's height (the
//! registry's `embed_height`), so the page is as long as it will be and a jump
//! lands where it should. It is built, in a task of its own ([`later::queue`]),
//! once it is within half a screen of the viewport; at once when a link or the
//! address names it (`#widget-id`, `hashchange`); and every waiting slot at once
//! before the page prints (`beforeprint`, with the parts they leave for
//! later: `later::drain`), so a printout has them all.

use crate::js::NearWatch;
use crate::state::registry;
use crate::ui::kit::later;
use leptos::prelude::{document, window, window_event_listener_untyped};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::HtmlElement;

/// Builds one slot's part (the shell's `mount_slot`, under the app's owner).
type Mount = Rc<dyn Fn(&str, HtmlElement)>;

struct Waiting {
    slots: Vec<(String, HtmlElement)>,
    mount: Mount,
    /// `None` where the browser has no IntersectionObserver (every slot queued)
    watch: Option<NearWatch>,
}

thread_local! {
    static WAITING: RefCell<Option<Waiting>> = const { RefCell::new(None) };
}

/// How near the viewport (above or below it) a waiting slot is built: half a
/// screen, time for a phone at 4× CPU to build one before it scrolls into view.
const NEAR: &str = "50% 0px";

/// Leaves `slots` to be built when they come near the screen (or are named by
/// the address, or the page prints), each by `mount`.
pub fn defer(slots: Vec<(String, HtmlElement)>, mount: impl Fn(&str, HtmlElement) + 'static) {
    for (name, el) in &slots {
        let _ = el.set_attribute("data-pending", "");
        if let Some(def) = registry::widget(name) {
            let h = format!("{}px", def.embed_height);
            let _ = el.style().set_property("min-height", &h);
        }
    }
    let watch = NearWatch::new(NEAR, |el| {
        if let Some(name) = el.get_attribute("data-slot") {
            queue_build(name);
        }
    });
    match &watch {
        Some(w) => slots.iter().for_each(|(_, el)| w.observe(el)),
        None => slots.iter().for_each(|(name, _)| queue_build(name.clone())),
    }
    let mount: Mount = Rc::new(mount);
    WAITING.set(Some(Waiting {
        slots,
        mount,
        watch,
    }));
    listen("hashchange", || {
        if let Some(id) = hash_id() {
            if build(&id) {
                scroll_to(&id);
            }
        }
    });
    listen("beforeprint", build_all);
}

/// Builds slot `name` in a task of its own, after the parts queued before it.
fn queue_build(name: String) {
    later::queue(move || {
        build(&name);
    });
}

/// Builds slot `name` now if it is still waiting; whether it was.
pub fn build(name: &str) -> bool {
    let found = WAITING.with_borrow_mut(|w| {
        let w = w.as_mut()?;
        let i = w.slots.iter().position(|(n, _)| n == name)?;
        let (_, el) = w.slots.remove(i);
        if let Some(watch) = &w.watch {
            watch.unobserve(&el);
        }
        Some((el, w.mount.clone()))
    });
    let Some((el, mount)) = found else {
        return false;
    };
    let _ = el.remove_attribute("data-pending");
    let _ = el.style().remove_property("min-height");
    // outside the borrow: a part may queue more
    mount(name, el);
    true
}

/// Builds every waiting slot now, in the page's order, and the parts they
/// left for later.
pub fn build_all() {
    while let Some(name) = WAITING.with_borrow(|w| {
        w.as_ref()
            .and_then(|w| w.slots.first().map(|s| s.0.clone()))
    }) {
        build(&name);
    }
    later::drain();
}

/// The address's `#fragment`, if any.
pub fn hash_id() -> Option<String> {
    let hash = window().location().hash().ok()?;
    let id = hash.trim_start_matches('#');
    (!id.is_empty()).then(|| id.to_string())
}

/// Scrolls element `id` into view now, and again a frame after the parts
/// being built have been (one above it that grows would push it down).
pub fn scroll_to(id: &str) {
    scroll_now(id);
    let id = id.to_string();
    later::when_done(move || later::after_frame(move || scroll_now(&id)));
}

fn scroll_now(id: &str) {
    if let Some(el) = document().get_element_by_id(id) {
        el.scroll_into_view();
    }
}

/// Calls `f` on each `event` at the window, for the page's life.
fn listen(event: &str, f: impl Fn() + 'static) {
    // never removed: the handle is dropped without removing the listener
    let _ = window_event_listener_untyped(event, move |_| f());
}
