//! THE WIDGET LIST. One file per essay widget (`NAME.rs`: its parameter rows,
//! their labels, its adapters from the state to its model, and its `Spec`),
//! shared pieces in [`common`], and [`widget_list!`], the only list of widgets:
//! each widget's module here and its part of [`Widgets`], page order, embed ids,
//! the URL codec's keys (`state::url` runs over every spec's `params`), the
//! registry (`state::registry`), the page's views (`ui::widgets::VIEWS`), the
//! on-demand module's views and the browser tests' list all come from it.
//!
//! This file sits at the bottom of `state/`: it names no other module of it, so
//! the `State` (`state::data`), which holds [`Widgets`], stands on it, and each
//! widget's file stands on the `State`. The one tie that runs the other way is
//! the list itself: [`Widgets`] holds each widget file's `Params`, named through
//! [`widget_list!`] (the compiler resolves it; no import names it).
//!
//! Adding a widget (ARCHITECTURE.md, "A new widget"): its model module, this
//! folder's `NAME.rs`, `ui/widgets/NAME.rs`, one line in [`widget_list!`] below
//! (which declares both modules), its slot in `index.html` and its tests. The
//! test `registry::tests::every_registered_widget_has_each_part` checks each
//! part.

pub mod common;
#[cfg(test)]
mod sentences;

/// THE LIST OF WIDGETS: one line per widget, in page order, and the only one.
/// Each line reads `NAME: Component, draws, loads;`:
/// - `NAME`: its files, `state/widgets/NAME.rs` (its [`Spec`]: id, title, URL
///   keys, model) and `ui/widgets/NAME.rs` (its view, the component
///   `Component`), and its part of [`Widgets`];
/// - `draws`: `charts` where its view file draws a chart itself (names
///   plotters), `no_charts` where it draws none or only through a part several
///   views share (`roofline.rs`, `scaling.rs`; `tests/invariants.rs` holds the
///   files that name plotters to this);
/// - `loads`: `page` where the page's own .wasm builds its view, or
///   `on_demand("The … widget")` where the module the page loads when the
///   widget first comes on screen builds it (`ui/apps/more`, named so in the
///   stand-in's status line until then).
///
/// The state reads it here (each widget's module and its part of [`Widgets`])
/// and in `state::registry` (`WIDGETS`, `FILES`, `DECLARED`), the page's app in
/// `ui::widgets` (each view's module and `VIEWS`), the on-demand app in
/// `ui::apps::more`, and the browser tests through
/// `tests/e2e/data/widgets.json`, which
/// `registry::tests::the_browser_tests_list_is_the_registry` writes from
/// `DECLARED`. It calls `then!` with the lines.
macro_rules! widget_list {
    ($then:ident) => {
        $then! {
            explorer: Explorer, no_charts, page;
            diagnosis: Diagnosis, no_charts, page;
            generations: Generations, charts, page;
            tensor_cores: TensorCores, no_charts, page;
            shapes: Shapes, charts, on_demand("The matmul-shapes widget");
            bert: Bert, no_charts, page;
            factory: Factory, no_charts, on_demand("The factory");
            fusion: Fusion, no_charts, page;
            microbench: Microbench, charts, page;
            overhead: Overhead, charts, page;
            remedies: Remedies, no_charts, page;
            lab: LabHost, no_charts, page;
            trace: TraceHost, no_charts, page;
            llm: Llm, charts, page;
            serve: Serve, charts, on_demand("The serving widget");
            dit: Dit, no_charts, on_demand("The DiT widget");
            calculator: Calculator, no_charts, on_demand("The op calculator");
            hardware: HardwareTable, no_charts, on_demand("The hardware table");
        }
    };
}
pub(crate) use widget_list;

/// The list's widget modules and their controls, read from [`widget_list!`].
macro_rules! modules {
    ($($m:ident: $view:ident, $draws:ident, $loads:ident $(($what:literal))?;)*) => {
        $(pub mod $m;)*

        /// The widgets' own controls: one part per widget, named after its file
        /// (`s.widgets.llm.batch`).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Widgets {
            $(pub $m: $m::Params,)*
        }
    };
}

widget_list!(modules);
