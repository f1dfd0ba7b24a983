//! The essay's widgets, above the kit and the chart layer: one view file per
//! registered widget (its name in the one widget list,
//! `state::widgets::widget_list!`, which declares its module here), the parts
//! several share (the roofline chart, "Compare GPUs", the scaling chart, the
//! remedy items, the explorer's readouts, the on-demand stand-in), and
//! [`VIEWS`], each registered widget's view in registry order, read from the
//! same list.

pub mod advice;
pub mod compare;
pub mod llm_measured;
pub mod llm_spec;
pub mod more;
pub mod readouts;
pub mod roofline;
pub mod scaling;

use super::kit::Ctx;
use crate::state::registry::WIDGETS;
use crate::state::spec::Spec;
use crate::state::widgets::widget_list;
use leptos::prelude::*;

/// A widget's view, given its context.
pub type Render = fn(Ctx) -> AnyView;

/// A [`widget_list!`] line's view: the page's own component where the line says
/// `page`, the stand-in that loads the on-demand module where `on_demand`.
macro_rules! view_of {
    ($m:ident, $view:ident, page) => {
        |ctx| view! { <$m::$view ctx=ctx/> }.into_any()
    };
    ($m:ident, $view:ident, on_demand($what:literal)) => {
        |ctx| {
            let id = crate::state::widgets::$m::SPEC.id;
            view! { <more::MoreHost ctx=ctx id=id what=$what/> }.into_any()
        }
    };
}

/// The page's reading of [`widget_list!`]: each view's module and [`VIEWS`].
macro_rules! views {
    ($($m:ident: $view:ident, $draws:ident, $loads:ident $(($what:literal))?;)*) => {
        $(pub mod $m;)*

        /// Each registered widget's view: `(id, render)`, one row per line of
        /// the widget list, in its (the page's) order.
        pub const VIEWS: [(&str, Render); WIDGETS.len()] = [$((
            crate::state::widgets::$m::SPEC.id,
            view_of!($m, $view, $loads $(($what))?),
        ),)*];
    };
}

widget_list!(views);

/// The registered widget with this id.
pub fn widget(id: &str) -> Option<&'static Spec> {
    crate::state::registry::widget(id)
}

/// A registered widget's view.
pub fn render(spec: &Spec, ctx: Ctx) -> AnyView {
    match VIEWS.iter().find(|(id, _)| *id == spec.id) {
        Some((_, r)) => r(ctx),
        None => ().into_any(),
    }
}
