//! Starting the page: the app's root state, then each interactive part mounted
//! into its `data-slot` placeholder in `index.html` (or one widget in embed mode).

use super::embed::Embed;
use super::frame::framed;
use super::{help, nearby, notices, offline, panic, store, theme};
use crate::state::url as state_url;
use crate::ui::kit::later;
use crate::ui::kit::Ctx;
use crate::ui::widgets;
use leptos::prelude::*;

/// Starts the app. The full page's text is already in `index.html` (it paints
/// before the wasm loads: the loader in `Trunk.toml`, `pattern_script`, fetches
/// this module only after the static page's first frame); the app mounts each
/// interactive part into its `data-slot` placeholder there: the slots before the
/// explorer, then one part per task ([`later`]: the explorer's frame, then its
/// chart, controls, diagnosis and readouts; then the static sections the first
/// paint left out, laid out one per task: [`reveal`]), so no single long task
/// or layout blocks the main thread, and sets `data-ready="1"` once they are
/// built. The widgets below (and the help) are built when a reader comes near
/// them ([`nearby`]).
/// An embed (`?embed=ID`) replaces the page's content with the one widget.
pub fn start() {
    panic::install();
    // Everything the page starts from, read now: the URL is rewritten from the
    // state once the app runs. Its test hook `?debug_panic=1` panics once the page
    // is built (the panic banner's test).
    let start = store::initial();
    let debug_panic = start.knobs.debug_panic;
    // Effects made below need Leptos's executor (mount_to would start it later).
    let _ = any_spawner::Executor::init_wasm_bindgen();
    // The app's root owner: it lives as long as the page.
    let owner = Owner::new();
    owner.set();
    let state = RwSignal::new(start.state);
    let dark = theme::init(start.theme.map(|t| t.is_dark()));
    let fixed = start.theme.map(|_| dark);
    store::sync_url(state, start.embed, fixed);
    let ctx = Ctx::of_app(state, dark, start.knobs);
    let notices = start.notices;
    if let Some(id) = start.embed {
        // the static essay is not part of an embed
        if let Some(body) = document().body() {
            body.set_inner_html("");
        }
        leptos::mount::mount_to_body(
            move || view! { <Embed ctx=ctx id=id notices=notices theme=fixed/> },
        );
        // after any part the widget left for later (the explorer's)
        later::when_done(move || started(debug_panic));
    } else {
        let mut rest = slots();
        let mut notices = Some(notices);
        // a part per task (the app's first task, which also starts
        // the module, built the first screen in one task of ~190 ms at 4×
        // CPU): the slots before the explorer (the theme toggle, the URL's
        // notices), the explorer, then the explorer's own parts it queued
        // (`Later`), then the rest
        let at = rest
            .iter()
            .position(|(name, _)| name == "roofline-explorer");
        for (name, el) in rest.drain(..at.unwrap_or(0)) {
            queue_slot(&owner, ctx, name, el, &mut notices);
        }
        let mut rest = rest.into_iter();
        let explorer = at.and_then(|_| rest.next());
        match explorer {
            Some((name, el)) => {
                let owner = owner.clone();
                later::queue(move || {
                    owner.with(|| mount_slot(ctx, &name, el, &mut None));
                    // the parts below: each built when a reader nears it
                    nearby::defer(rest.collect(), move |name, el| {
                        owner.with(|| mount_slot(ctx, name, el, &mut None));
                    });
                    // after the explorer's parts, queued as it was built
                    reveal();
                });
            }
            // no explorer (no first screen to wait for): every slot at once
            None => {
                reveal();
                for (name, el) in rest {
                    queue_slot(&owner, ctx, name, el, &mut notices);
                }
            }
        }
        later::when_done(move || started(debug_panic));
    }
    std::mem::forget(owner);
}

/// Queues slot `name`'s part in a task of its own, under `owner`; only the
/// notices' own slot takes them (`mount_slot`).
fn queue_slot(
    owner: &Owner,
    ctx: Ctx,
    name: String,
    el: web_sys::HtmlElement,
    notices: &mut Option<Vec<state_url::Notice>>,
) {
    let owner = owner.clone();
    let mut notices = notices.take_if(|_| name == "notices");
    later::queue(move || owner.with(|| mount_slot(ctx, &name, el, &mut notices)));
}

/// Lays out the static page's sections left out of its first paint
/// (`data-defer`: `content-visibility: auto` in static/style.css), one per task
/// in the queue: the attribute dropped and the layout taken at once (reading
/// `offsetHeight`), so each section's layout is its own short task rather than
/// part of the next frame's. `started` (the hash jump) waits for them.
fn reveal() {
    each_element("[data-defer]", |el| {
        later::queue(move || {
            let _ = el.remove_attribute("data-defer");
            let _ = el.offset_height();
        });
    });
}

/// After everything is mounted: the readiness flag, the hash scroll, offline.
fn started(debug_panic: bool) {
    if let Some(el) = document().document_element() {
        let _ = el.set_attribute("data-ready", "1");
    }
    // After the next frame's layout every widget has a real size, which CSS
    // remembers for it while it is skipped off screen (static/style.css,
    // `content-visibility`).
    later::after_frame(|| {
        if let Some(el) = document().document_element() {
            let _ = el.set_attribute("data-laid-out", "");
        }
    });
    scroll_to_hash();
    offline::register();
    if debug_panic {
        panic!("debug_panic=1 was requested in the URL");
    }
}

/// The `data-slot` placeholders of `index.html`, in document order.
fn slots() -> Vec<(String, web_sys::HtmlElement)> {
    let mut out = Vec::new();
    each_element("[data-slot]", |el| {
        if let Some(name) = el.get_attribute("data-slot") {
            out.push((name, el));
        }
    });
    out
}

/// Calls `f` on each of the page's HTML elements that match `selector`, in
/// document order.
fn each_element(selector: &str, mut f: impl FnMut(web_sys::HtmlElement)) {
    use wasm_bindgen::JsCast;
    let Ok(list) = document().query_selector_all(selector) else {
        return;
    };
    for i in 0..list.length() {
        if let Some(el) = list.item(i).and_then(|n| n.dyn_into().ok()) {
            f(el);
        }
    }
}

/// Mounts one slot's part: "theme", "notices", "help" or a widget id (a name the
/// app does not know leaves its slot empty).
fn mount_slot(
    ctx: Ctx,
    name: &str,
    el: web_sys::HtmlElement,
    notices: &mut Option<Vec<state_url::Notice>>,
) {
    use leptos::mount::mount_to;
    // a user-timing measure per part ("brrr:mount:NAME"), read by the benchmark
    later::measured(name, || match name {
        "theme" => mount_to(el, move || view! { <theme::ThemeToggle ctx=ctx/> }).forget(),
        "notices" => {
            let n = notices.take().unwrap_or_default();
            mount_to(el, move || view! { <notices::UrlNotices notices=n/> }).forget()
        }
        "help" => mount_to(el, move || view! { <help::Help ctx=ctx/> }).forget(),
        id => {
            if let Some(def) = widgets::widget(id) {
                let id = def.id;
                mount_to(el, move || framed(ctx, id)).forget();
            }
        }
    });
}

/// The widgets are built after load, so the browser's own jump to `#widget-id`
/// found nothing; do it now, building the widget first if it waits (`nearby`).
fn scroll_to_hash() {
    if let Some(id) = nearby::hash_id() {
        nearby::build(&id);
        nearby::scroll_to(&id);
    }
}
