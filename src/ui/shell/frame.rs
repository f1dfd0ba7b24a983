//! The frame every essay widget sits in: a titled, anchored section (`#id`), so
//! `#widget-id` links scroll to it and embed mode can render it alone.

use super::share::ShareButtons;
use crate::model::Report;
use crate::state::spec::Spec;
use crate::state::State;
use crate::ui::chart::OnScreen;
use crate::ui::kit::{drag, Ctx};
use crate::ui::widgets::{render, widget};
use leptos::html::Section;
use leptos::prelude::*;

#[component]
pub fn WidgetFrame(ctx: Ctx, def: &'static Spec) -> impl IntoView {
    let (id, title, embed_height) = (def.id, def.title, def.embed_height);
    let section = NodeRef::<Section>::new();
    let on = OnScreen::new(section);
    let own = ctx.reading(def.reads.map(|r| r.inputs));
    let inner = if def.gate {
        gate(own, on, OnScreen::within(section, "0px"))
    } else {
        own
    };
    let heading = format!("{id}-title");
    let labelled_by = heading.clone();
    view! {
        // `away` (reported off the screen) lets CSS skip its rendering
        <section node_ref=section class="widget panel" class:away=move || on.away() id=id
            aria-labelledby=labelled_by data-widget=id data-embed-height=embed_height>
            <div class="widget-head">
                <h3 id=heading class="widget-title">{title}</h3>
                <ShareButtons ctx=ctx def=def/>
            </div>
            {render(def, inner)}
        </section>
    }
}

/// A view of the shared state for one widget: `view` and `report` follow the
/// shared ones while the widget is on (or near) the screen and hold their last
/// value while it is off-screen, so off-screen widgets neither recompute their
/// drawn parts nor touch the DOM for them when a slider moves; they catch up
/// when scrolled to. Its `inputs` (what its readouts and model read) follow the
/// state at once while any of it is on the screen (`seen`) and a frame late
/// while none is ([`late_off_screen`]). Writes still go to the shared `state`.
pub fn gate(ctx: Ctx, on: OnScreen, seen: OnScreen) -> Ctx {
    let view = Memo::new(move |prev: Option<&State>| match prev {
        Some(p) if !on.get() => p.clone(),
        _ => ctx.state.get(),
    });
    let report = Memo::new(move |prev: Option<&Report>| match prev {
        Some(p) if !on.get() => p.clone(),
        _ => ctx.report.get(),
    });
    Ctx {
        view,
        report,
        inputs: late_off_screen(ctx.inputs, seen),
        on_screen: Signal::derive(move || on.get()),
        ..ctx
    }
}

/// `inputs`, taken at once while the widget is on the screen; while it is off
/// it, a change is taken in a task after the next frame (or after 100 ms where
/// no frame comes), the last one of a burst only; during a pointer drag of a
/// slider, once the drag has rested [`drag::WHEN_STILL_MS`] (or ended). A slider moved elsewhere
/// shows its own widget's answer in the input's frame; the off-screen widgets'
/// readouts (`data-metric`), kept current for readers at any time, follow in
/// the task after it (the explorer's GPU sliders move every widget, and the
/// input's own task stays short).
pub(super) fn late_off_screen(inputs: Signal<State>, seen: OnScreen) -> Signal<State> {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
    use std::sync::Arc;
    let tick = ArcTrigger::new();
    // changes while a slider is held: the last one's number
    let held = Arc::new(AtomicU32::new(0));
    // `due`: the owed catch-up ran, take what is there; `owed`: one is queued
    let (due, owed) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let catch_up = {
        let (tick, due, owed) = (tick.clone(), due.clone(), owed.clone());
        move || {
            owed.store(false, Relaxed);
            due.store(true, Relaxed);
            tick.notify();
        }
    };
    Memo::new(move |prev: Option<&State>| {
        tick.track();
        let on = !seen.away();
        let fresh = inputs.get();
        match prev {
            Some(p) if !on && !due.swap(false, Relaxed) => {
                if *p != fresh && drag::dragging() {
                    // a slider held by a pointer: follow once the drag pauses
                    let (n, held, go) = (
                        held.fetch_add(1, Relaxed) + 1,
                        held.clone(),
                        catch_up.clone(),
                    );
                    set_timeout(
                        move || {
                            if held.load(Relaxed) == n {
                                go();
                            }
                        },
                        std::time::Duration::from_millis(drag::WHEN_STILL_MS),
                    );
                } else if *p != fresh && !owed.swap(true, Relaxed) {
                    crate::ui::kit::later::after_frame_or(catch_up.clone());
                }
                p.clone()
            }
            _ => {
                due.store(false, Relaxed);
                fresh
            }
        }
    })
    .into()
}

/// Render a registered widget in its frame (`#id` anchor, title).
pub fn framed(ctx: Ctx, id: &'static str) -> AnyView {
    match widget(id) {
        Some(w) => view! {
            <WidgetFrame ctx=ctx def=w/>
        }
        .into_any(),
        None => ().into_any(),
    }
}
