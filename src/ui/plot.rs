//! `PlotCanvas`: the one chart component. It owns the canvas scaffolding every chart
//! needs — sizing at devicePixelRatio, redrawing only while on screen, the theme,
//! the redraw counter, error display — and the exports (PNG from the canvas, SVG
//! from the same drawing code through plotters' SVG backend, CSV of the data).
//! A chart is a data type implementing [`Plot`].

use super::backend::AnyBackend;
use super::chart::{self, Area, CssWidth, Look, OnScreen};
use super::download;
use super::Ctx;
use leptos::html::Canvas;
use leptos::prelude::*;
use std::sync::Arc;

/// The data behind one chart, and how to draw it.
pub trait Plot: Clone + PartialEq + Send + Sync + 'static {
    /// Chart height (CSS px) for a CSS width.
    fn height(&self, css_w: f64) -> f64;
    fn draw(&self, root: Area<AnyBackend<'_>>, look: &Look) -> Result<(), String>;
    /// The numbers behind the chart, with a header row.
    fn csv(&self) -> String;
}

/// Implement [`Plot::draw`] with a render function
/// `fn(&Self, Area<DB>, &Look) -> Result<(), String>` (generic or not).
macro_rules! plot_with {
    ($render:path) => {
        fn draw(
            &self,
            root: $crate::ui::chart::Area<$crate::ui::backend::AnyBackend<'_>>,
            look: &$crate::ui::chart::Look,
        ) -> Result<(), String> {
            $render(self, root, look)
        }
    };
}
pub(crate) use plot_with;

/// Quote a CSV field when needed.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A CSV document from a header and rows of fields.
pub fn csv(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut out = header
        .iter()
        .map(|h| csv_field(h))
        .collect::<Vec<_>>()
        .join(",");
    out.push('\n');
    for r in rows {
        out.push_str(&r.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// The object-safe face of a [`Plot`], so [`PlotCanvas`] is compiled once rather
/// than once per chart type.
pub trait DynPlot: Send + Sync {
    fn height(&self, css_w: f64) -> f64;
    fn draw(&self, root: Area<AnyBackend<'_>>, look: &Look) -> Result<(), String>;
    fn csv(&self) -> String;
}

impl<T: Plot> DynPlot for T {
    fn height(&self, css_w: f64) -> f64 {
        Plot::height(self, css_w)
    }
    fn draw(&self, root: Area<AnyBackend<'_>>, look: &Look) -> Result<(), String> {
        Plot::draw(self, root, look)
    }
    fn csv(&self) -> String {
        Plot::csv(self)
    }
}

pub type SharedPlot = Arc<dyn DynPlot>;

/// A chart's data as the shared, type-erased signal [`PlotCanvas`] takes.
pub fn shared<T: Plot>(data: Memo<T>) -> Signal<SharedPlot> {
    Signal::derive(move || Arc::new(data.get()) as SharedPlot)
}

#[component]
pub fn PlotCanvas(
    ctx: Ctx,
    /// Canvas id; also the stem of exported file names.
    id: &'static str,
    #[prop(into)] label: Signal<String>,
    /// The chart (see [`shared`]).
    data: Signal<SharedPlot>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let width = CssWidth::new(canvas);
    let on_screen = OnScreen::new(canvas);
    let error = RwSignal::new(None::<String>);
    let status = RwSignal::new(String::new());

    Effect::new(move |_| {
        let w = width.get();
        if !on_screen.get() {
            return;
        }
        let pal = chart::palette(ctx.dark.get());
        let Some(c) = canvas.get() else { return };
        let r = data.with(|d| {
            let dpr = chart::fit_height(&c, w, d.height(w));
            let look = Look { dpr, pal };
            chart::draw(&c, &pal, |root| d.draw(root, &look))
        });
        error.set(r.err());
    });

    let report = move |r: Result<(), String>, what: &str| match r {
        Ok(()) => status.set(format!("{what} saved")),
        Err(e) => status.set(format!("Could not export {what}: {e}")),
    };
    let png = move |_| {
        let r = canvas
            .get_untracked()
            .ok_or_else(|| "the chart is not on the page".to_string())
            .and_then(|c| {
                c.to_data_url()
                    .map_err(|_| "the canvas could not be read".to_string())
            })
            .and_then(|url| download::save_data_url(&format!("brrr-{id}.png"), &url));
        report(r, "PNG");
    };
    let svg = move |_| {
        let w = width.get_untracked();
        let w = if w > 0.0 { w } else { 640.0 };
        let pal = chart::palette(ctx.dark.get_untracked());
        let r = data.with_untracked(|d| {
            let h = d.height(w);
            chart::to_svg(w.round() as u32, h.round() as u32, &pal, |root| {
                d.draw(root, &Look { dpr: 1.0, pal })
            })
        });
        report(
            r.and_then(|s| download::save_text(&format!("brrr-{id}.svg"), "image/svg+xml", &s)),
            "SVG",
        );
    };
    let csv = move |_| {
        let text = data.with_untracked(|d| d.csv());
        report(
            download::save_text(&format!("brrr-{id}.csv"), "text/csv", &text),
            "CSV",
        );
    };

    view! {
        <canvas id=id node_ref=canvas role="img" aria-label=move || label.get() data-frame="0"></canvas>
        {move || error.get().map(|e| view! { <p class="field-error">"Chart could not be drawn: " {e}</p> })}
        <div class="exports" role="group" aria-label="Export this chart">
            <span class="exports-label">"Export:"</span>
            <button class="small" data-export="png" on:click=png>"PNG"</button>
            <button class="small" data-export="svg" on:click=svg>"SVG"</button>
            <button class="small" data-export="csv" on:click=csv>"CSV"</button>
            <span class="export-status" role="status">{move || status.get()}</span>
        </div>
    }
}
