//! Building the page a part per frame. The first screen is built in one task when
//! the app starts; everything else waits in one queue, and each queued part is
//! built in a task of its own after a frame has been drawn, so that no task and
//! no frame's layout holds the main thread for long (Lighthouse's Total Blocking
//! Time): the rest of the page's slots (`ui::start`), and the parts of the
//! explorer that are below its chart ([`Later`]). The queue runs in order; what
//! waits for it to drain ([`when_done`]: the page's `data-ready` flag) runs last.

use leptos::prelude::*;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::time::Duration;

type Job = Box<dyn FnOnce()>;

thread_local! {
    /// The parts waiting, and what runs once none is left.
    static QUEUE: RefCell<(VecDeque<Job>, Vec<Job>)> = RefCell::new(Default::default());
    /// Whether a step is scheduled.
    static PUMPING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` in a task of its own after the parts queued before it, a frame
/// after the last one.
pub fn queue(f: impl FnOnce() + 'static) {
    QUEUE.with_borrow_mut(|(q, _)| q.push_back(Box::new(f)));
    pump();
}

/// Runs `f` once the queue is empty (at once if it is; after any part queued
/// before the queue drains, including parts that queue more).
pub fn when_done(f: impl FnOnce() + 'static) {
    let idle = QUEUE.with_borrow_mut(|(q, done)| {
        done.push(Box::new(f));
        q.is_empty()
    });
    if idle && !PUMPING.get() {
        finish();
    }
}

fn finish() {
    let done = QUEUE.with_borrow_mut(|(_, done)| std::mem::take(done));
    for f in done {
        f();
    }
}

/// Schedules the next step: after the next frame (an animation frame, then a
/// task), or after 100 ms where no frame comes (a hidden tab, a frame that is
/// not drawn), whichever is first.
fn pump() {
    if PUMPING.replace(true) {
        return;
    }
    let ran = std::rc::Rc::new(std::cell::Cell::new(false));
    let once = {
        let ran = ran.clone();
        move || {
            if !ran.replace(true) {
                step();
            }
        }
    };
    let after_frame = once.clone();
    let frame = wasm_bindgen::closure::Closure::once_into_js(move || {
        set_timeout(after_frame, Duration::ZERO);
    });
    {
        use wasm_bindgen::JsCast;
        let _ = window().request_animation_frame(frame.unchecked_ref());
    }
    set_timeout(once, Duration::from_millis(100));
}

fn step() {
    PUMPING.set(false);
    let job = QUEUE.with_borrow_mut(|(q, _)| q.pop_front());
    match job {
        Some(job) => {
            job();
            let more = QUEUE.with_borrow(|(q, _)| !q.is_empty());
            if more {
                pump();
            } else if !PUMPING.get() {
                finish();
            }
        }
        None => finish(),
    }
}

/// Its children, built by the queue ([`queue`]); an empty `div.later` until
/// then, which CSS can hold room for (the explorer's slot keeps a screen's
/// height while one is there: static/style.css), so nothing on the screen moves
/// when the children arrive.
#[component]
pub fn Later(children: ChildrenFn) -> impl IntoView {
    let ready = RwSignal::new(false);
    // a widget removed before its turn: the signal is gone, nothing to do
    queue(move || {
        let _ = ready.try_set(true);
    });
    move || {
        if ready.get() {
            children()
        } else {
            view! { <div class="later"></div> }.into_any()
        }
    }
}
