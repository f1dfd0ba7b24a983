//! The essay's widgets, above the kit and the chart layer: one view file per
//! registered widget (its name in `state::widgets`' registry), the parts several
//! share (the roofline chart, "Compare GPUs", the scaling chart, the remedy
//! items, the explorer's readouts), and [`VIEWS`], each registered widget's view
//! in registry order.

pub mod advice;
pub mod bert;
pub mod calculator;
pub mod compare;
pub mod diagnosis;
pub mod dit;
pub mod explorer;
pub mod factory;
pub mod fusion;
pub mod generations;
pub mod hardware;
pub mod lab;
pub mod llm;
pub mod llm_measured;
pub mod microbench;
pub mod more;
pub mod overhead;
pub mod readouts;
pub mod remedies;
pub mod roofline;
pub mod scaling;
pub mod serve;
pub mod shapes;
pub mod tensor_cores;
pub mod trace;

use super::kit::Ctx;
use crate::state::widgets::{Spec, WIDGETS};
use leptos::prelude::*;

/// A widget's view, given its context.
pub type Render = fn(Ctx) -> AnyView;

/// Each registered widget's view: `(id, render)`, one row per widget in the
/// registry's order (`state::widgets::WIDGETS`). The length is the registry's,
/// and a const check below fails the build when an id or the order differs.
pub const VIEWS: [(&str, Render); WIDGETS.len()] = [
    ("roofline-explorer", |ctx| {
        view! { <explorer::Explorer ctx=ctx/> }.into_any()
    }),
    ("diagnosis", |ctx| {
        view! { <diagnosis::Diagnosis ctx=ctx/> }.into_any()
    }),
    ("generations", |ctx| {
        view! { <generations::Generations ctx=ctx/> }.into_any()
    }),
    ("tensor-cores", |ctx| {
        view! { <tensor_cores::TensorCores ctx=ctx/> }.into_any()
    }),
    ("shapes", |ctx| {
        view! { <more::MoreHost ctx=ctx id="shapes" what="The matmul-shapes widget"/> }.into_any()
    }),
    ("bert", |ctx| view! { <bert::Bert ctx=ctx/> }.into_any()),
    ("factory", |ctx| {
        view! { <factory::Factory ctx=ctx/> }.into_any()
    }),
    ("fusion", |ctx| {
        view! { <fusion::Fusion ctx=ctx/> }.into_any()
    }),
    ("microbench", |ctx| {
        view! { <microbench::Microbench ctx=ctx/> }.into_any()
    }),
    ("overhead", |ctx| {
        view! { <overhead::Overhead ctx=ctx/> }.into_any()
    }),
    ("remedies", |ctx| {
        view! { <remedies::Remedies ctx=ctx/> }.into_any()
    }),
    ("lab", |ctx| view! { <lab::LabHost ctx=ctx/> }.into_any()),
    ("trace", |ctx| {
        view! { <trace::TraceHost ctx=ctx/> }.into_any()
    }),
    ("llm", |ctx| view! { <llm::Llm ctx=ctx/> }.into_any()),
    ("serve", |ctx| {
        view! { <more::MoreHost ctx=ctx id="serve" what="The serving widget"/> }.into_any()
    }),
    ("dit", |ctx| view! { <dit::Dit ctx=ctx/> }.into_any()),
    ("calculator", |ctx| {
        view! { <calculator::Calculator ctx=ctx/> }.into_any()
    }),
    ("hardware", |ctx| {
        view! { <hardware::HardwareTable ctx=ctx/> }.into_any()
    }),
];

/// `VIEWS` names the registry's widgets, in its order.
const _: () = {
    const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
    let mut i = 0;
    while i < WIDGETS.len() {
        assert!(
            same(VIEWS[i].0, WIDGETS[i].id),
            "ui::widgets::VIEWS and state::widgets::WIDGETS differ"
        );
        i += 1;
    }
};

/// The registered widget with this id.
pub fn widget(id: &str) -> Option<&'static Spec> {
    crate::state::widgets::widget(id)
}

/// A registered widget's view.
pub fn render(spec: &Spec, ctx: Ctx) -> AnyView {
    match VIEWS.iter().find(|(id, _)| *id == spec.id) {
        Some((_, r)) => r(ctx),
        None => ().into_any(),
    }
}
