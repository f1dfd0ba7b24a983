//! A slider held by a pointer, and the parts of the page that wait for it to
//! rest: while a drag moves a slider, the dragged widget's headline and chart
//! follow every input and its longer details (tables, remedy lists, readouts
//! below the chart) follow once the drag has rested [`WHEN_STILL_MS`] or ended
//! ([`still`]), so each input costs a frame's work at a phone's CPU.

use leptos::prelude::*;
use std::cell::Cell;

/// How long a held slider rests before what waits on it follows (within the
/// 200 ms of a pause the page promises; the headline and the charts on the
/// screen follow every input).
pub const WHEN_STILL_MS: u64 = 80;

thread_local! {
    /// Whether a pointer holds a range input now; `None` until the listeners
    /// that keep it are installed (on the first question).
    static HELD: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Whether a pointer holds a slider now (from its press to its release). Kept
/// by three listeners on the window (a press on a range input; a release or a
/// cancelled pointer anywhere; the window losing focus), so asking costs
/// nothing: the `input[type=range]:active` query it replaces ran once per
/// off-screen widget per input.
pub fn dragging() -> bool {
    HELD.with(|h| match h.get() {
        Some(held) => held,
        None => {
            install();
            let now = document()
                .query_selector("input[type=range]:active")
                .is_ok_and(|e| e.is_some());
            h.set(Some(now));
            now
        }
    })
}

fn set_held(held: bool) {
    HELD.with(|h| h.set(Some(held)));
}

fn install() {
    use leptos::ev;
    use wasm_bindgen::JsCast;
    // the handles are dropped on purpose: the listeners live as long as the page
    let _ = window_event_listener(ev::pointerdown, |e| {
        let on_range = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
            .is_some_and(|i| i.type_() == "range");
        if on_range {
            set_held(true);
        }
    });
    let _ = window_event_listener(ev::pointerup, |_| set_held(false));
    let _ = window_event_listener(ev::pointercancel, |_| set_held(false));
    let _ = window_event_listener(ev::blur, |_| set_held(false));
}

/// `src`, held at its last value while a slider is dragged and the value
/// changes; it catches up once the drag has rested [`WHEN_STILL_MS`] (or, the
/// drag over, right after its last input's rest). Outside a drag it follows
/// `src` at once, so scripted inputs, keys and typed numbers see no delay.
pub fn still<T>(src: Memo<T>) -> Memo<T>
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
    use std::sync::Arc;
    let tick = ArcTrigger::new();
    // changes held back: the last one's number, and whether the catch-up is due
    let held = Arc::new(AtomicU32::new(0));
    let due = Arc::new(AtomicBool::new(false));
    Memo::new(move |prev: Option<&T>| {
        tick.track();
        let fresh = src.get();
        match prev {
            Some(p) if *p != fresh && dragging() && !due.swap(false, Relaxed) => {
                let (n, held, due, tick) = (
                    held.fetch_add(1, Relaxed) + 1,
                    held.clone(),
                    due.clone(),
                    tick.clone(),
                );
                set_timeout(
                    move || {
                        if held.load(Relaxed) == n {
                            due.store(true, Relaxed);
                            tick.notify();
                        }
                    },
                    std::time::Duration::from_millis(WHEN_STILL_MS),
                );
                p.clone()
            }
            _ => {
                due.store(false, Relaxed);
                fresh
            }
        }
    })
}
