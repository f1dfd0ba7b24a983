//! Building the page in small pieces. Everything waits in one queue and is
//! built a part per task, so that no task holds the main thread for long
//! (Lighthouse's Total Blocking Time): the slots before the explorer, the
//! explorer's frame and headline, its parts ([`Later`]: the chart first), then
//! the page's parts below the first screen as they come near it
//! (`ui::shell::nearby`). At start each part also pays for compiling the wasm
//! functions it is the first to call (V8 compiles a function on its first
//! call, on the main thread): about half of each part's task. The queue runs
//! in order; what waits for it to drain ([`when_done`]: the page's
//! `data-ready` flag) runs last.
//!
//! A part on the first screen ([`Later`]) also waits for a frame to be drawn
//! first, so the browser lays it out in a frame of its own: built back to back,
//! the explorer's parts made one layout of ~600 boxes, the longest task of the
//! load. The slots below the fold do not wait: spacing every part a frame apart
//! stretched the load over more frames, and Lighthouse's Speed Index, computed
//! from when layouts happen, went from ≈ 0.7 to ≈ 1.6 s.

use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::time::Duration;

type Job = Box<dyn FnOnce()>;
/// Parts in order, each with whether it waits for a frame.
type Parts = VecDeque<(Job, bool)>;

thread_local! {
    /// The parts waiting, and what runs once none is left.
    static QUEUE: RefCell<(Parts, Vec<Job>)> = RefCell::new(Default::default());
    /// Whether a step is scheduled.
    static PUMPING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` in a task of its own after the parts queued before it.
pub fn queue(f: impl FnOnce() + 'static) {
    push(Box::new(f), false);
}

/// Like [`queue`], after the next frame has been drawn too.
pub fn queue_after_frame(f: impl FnOnce() + 'static) {
    push(Box::new(f), true);
}

fn push(f: Job, frame: bool) {
    QUEUE.with_borrow_mut(|(q, _)| q.push_back((f, frame)));
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

/// Runs every part waiting in the queue now, in order, then what waits for it
/// to drain: the page is about to print (`ui::shell::nearby`), and a printout
/// has every part. (A [`Later`]'s children render in the effects that run
/// right after the caller's task.)
pub fn drain() {
    while let Some((job, _)) = QUEUE.with_borrow_mut(|(q, _)| q.pop_front()) {
        job();
    }
    finish();
}

fn finish() {
    let done = QUEUE.with_borrow_mut(|(_, done)| std::mem::take(done));
    for f in done {
        f();
    }
}

/// Schedules the next step: a task of its own (a zero-delay timer); for a part
/// that waits for a frame, that task is queued from the next animation frame, or
/// after 100 ms where no frame comes (a hidden tab), whichever is first.
fn pump() {
    if PUMPING.replace(true) {
        return;
    }
    let frame = QUEUE.with_borrow(|(q, _)| q.front().is_some_and(|(_, f)| *f));
    if !frame {
        set_timeout(step, Duration::ZERO);
        return;
    }
    after_frame_or(step);
}

/// Runs `f` once, in a task queued from the next animation frame or after 100
/// ms where no frame comes (a hidden tab), whichever is first.
pub fn after_frame_or(f: impl FnOnce() + 'static) {
    let f = std::rc::Rc::new(Cell::new(Some(f)));
    let once = move || {
        if let Some(f) = f.take() {
            f();
        }
    };
    after_frame(once.clone());
    set_timeout(once, Duration::from_millis(100));
}

/// Runs `f` in a task queued from the next animation frame, so after the browser
/// has laid out and drawn that frame. (None comes in a hidden tab: callers that
/// must run there add a timer of their own.)
pub fn after_frame(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    let on_frame =
        wasm_bindgen::closure::Closure::once_into_js(move || set_timeout(f, Duration::ZERO));
    let _ = window().request_animation_frame(on_frame.unchecked_ref());
}

fn step() {
    PUMPING.set(false);
    let job = QUEUE.with_borrow_mut(|(q, _)| q.pop_front());
    match job {
        Some((job, _)) => {
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

/// Its children, built by the queue after a frame ([`queue_after_frame`]): a part
/// of the first screen that would make its first task long. An empty `div.later`
/// until then, which CSS can hold room for (the explorer's slot keeps a screen's
/// height while one is there: static/style.css), so nothing on the screen moves
/// when the children arrive.
/// `name` labels its build in the page's user timings (`brrr:mount:NAME`, as each
/// slot's), which the benchmark and the profiler read.
#[component]
pub fn Later(#[prop(optional)] name: &'static str, children: ChildrenFn) -> impl IntoView {
    let ready = RwSignal::new(false);
    // a widget removed before its turn: the signal is gone, nothing to do
    queue_after_frame(move || {
        let _ = ready.try_set(true);
    });
    move || {
        if ready.get() {
            measured(if name.is_empty() { "later" } else { name }, || children())
        } else {
            view! { <div class="later"></div> }.into_any()
        }
    }
}

/// `f()`, with a user-timing measure `brrr:mount:NAME` around it.
pub fn measured<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let perf = window().performance();
    let start = format!("brrr:mount:{name}:start");
    if let Some(p) = &perf {
        let _ = p.mark(&start);
    }
    let out = f();
    if let Some(p) = &perf {
        let _ = p.measure_with_str(&format!("brrr:mount:{name}"), &start);
    }
    out
}
