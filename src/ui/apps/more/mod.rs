//! The widgets loaded on demand, those whose line in `state::widgets::widget_list!`
//! says `on_demand` (their views are `ui/widgets/NAME.rs`, like every widget's): one
//! Leptos app in its own .wasm (`src/bin/brrr-more-ui.rs`), mounted by the page's
//! stand-in (`ui/widgets/more.rs`) when one of them first comes on screen. The
//! page's first load carries neither (the first visit stays within its
//! 480 KB gzipped budget).
//!
//! One state for the page and this app, carried as the URL codec's query (a
//! stable contract that round-trips exactly): the page sends the state it draws
//! with `set_view(query)`; a change made here (a slider, a select) goes back with
//! the host's `apply(query)`. Each side passes on only a query it has not just
//! seen, so the two never echo each other. Both widgets of one page share one
//! state signal here.

use crate::state::page::Knobs;
use crate::state::url;
use crate::state::widgets::widget_list;
use crate::ui::kit::Ctx;
use leptos::prelude::*;
use std::cell::RefCell;
use wasm_bindgen::{JsCast, JsValue};

/// What every widget of this app shares: the state, the theme, the page's
/// `apply` and the last query that crossed between the two.
struct Shared {
    ctx: Ctx,
    last: String,
}

thread_local! {
    static SHARED: RefCell<Option<Shared>> = const { RefCell::new(None) };
    static APPLY: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// The shared context, made at the first mount from that mount's options.
fn shared(view: &str, dark: bool) -> Ctx {
    if let Some(ctx) = SHARED.with(|s| s.borrow().as_ref().map(|s| s.ctx)) {
        return ctx;
    }
    let state = RwSignal::new(url::decode(view).0);
    let dark = RwSignal::new(dark);
    let ctx = Ctx::of_app(state, dark, Knobs::default());
    SHARED.with(|s| {
        *s.borrow_mut() = Some(Shared {
            ctx,
            last: view.to_string(),
        })
    });
    // a change made here goes back to the page, once
    Effect::new(move |_| {
        let q = state.with(url::encode);
        let fresh = SHARED.with(|s| match s.borrow_mut().as_mut() {
            Some(sh) if sh.last != q => {
                sh.last.clone_from(&q);
                true
            }
            _ => false,
        });
        if fresh {
            APPLY.with(|a| {
                if let Some(f) = a.borrow().as_ref() {
                    let _ = f.call1(&JsValue::NULL, &q.into());
                }
            });
        }
    });
    ctx
}

/// This module's reading of the widget list (`state::widgets::widget_list!`):
/// `render`, the view of each widget whose line says `on_demand`.
macro_rules! on_demand_views {
    ($($m:ident: $view:ident, $draws:ident, $loads:ident $(($what:literal))?;)*) => {
        /// The view of the on-demand widget with this id; `None` for any other id.
        fn render(id: &str, ctx: Ctx) -> Option<AnyView> {
            $($(
                let _: &str = $what;
                if id == crate::state::widgets::$m::SPEC.id {
                    use crate::ui::widgets::$m::$view;
                    return Some(view! { <$view ctx=ctx/> }.into_any());
                }
            )?)*
            None
        }
    };
}

widget_list!(on_demand_views);

/// Mounts widget `options.id` into `el` (an id no line declares on demand
/// is an error, shown in its place). `options` (see `ui/widgets/more.rs`):
/// `id`, `dark`, `view` (the page's state as a query) and `apply(query)`.
pub fn mount(el: web_sys::HtmlElement, opts: &JsValue) {
    let get = |k: &str| js_sys::Reflect::get(opts, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let id = get("id").as_string().unwrap_or_default();
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    owner.set();
    if let Ok(f) = get("apply").dyn_into::<js_sys::Function>() {
        APPLY.with(|a| *a.borrow_mut() = Some(f));
    }
    let ctx = shared(
        &get("view").as_string().unwrap_or_default(),
        get("dark").as_bool().unwrap_or(false),
    );
    let reads = crate::state::registry::widget(&id)
        .and_then(|w| w.reads)
        .map(|r| r.inputs);
    let ctx = ctx.reading(reads);
    leptos::mount::mount_to(el, move || match render(&id, ctx) {
        Some(v) => v,
        None => {
            let e = format!("This module has no widget '{id}'.");
            view! { <p class="note" role="alert">{e}</p> }.into_any()
        }
    })
    .forget();
    std::mem::forget(owner);
}

/// The page's theme changed.
pub fn set_dark(on: bool) {
    if let Some(ctx) = SHARED.with(|s| s.borrow().as_ref().map(|s| s.ctx)) {
        ctx.dark.set(on);
    }
}

/// The state the page draws changed (a URL query).
pub fn set_view(query: &str) {
    let ctx = SHARED.with(|s| match s.borrow_mut().as_mut() {
        Some(sh) if sh.last != query => {
            sh.last = query.to_string();
            Some(sh.ctx)
        }
        _ => None,
    });
    if let Some(ctx) = ctx {
        ctx.state.set(url::decode(query).0);
    }
}
