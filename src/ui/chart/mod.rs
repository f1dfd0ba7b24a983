//! The one place that knows plotters: canvas sizing at devicePixelRatio, the
//! theme's look (colours from [`palette`]), drawing to a canvas or to an SVG
//! string with the same code (render functions are written against
//! `backend::AnyBackend`), log-log (and, for the shapes widget, linear) axes with few labels whose background, grid and
//! labels a canvas keeps between redraws (`backend::Layer`), and the redraw counter
//! tests and benchmarks read.

pub mod backend;
pub mod palette;
pub mod plot;
pub mod text;

use crate::geom::{decade_label, Pt, Rect};
use crate::js::{OnScreenWatch, SizeWatch};
use backend::{AnyBackend, Layer};
use leptos::html::Canvas;
use leptos::prelude::{on_cleanup, Effect, Get, GetUntracked, NodeRef, RwSignal, Set};
use palette::Palette;
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::cell::Cell;
pub use text::text_size;
use text::FONT;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

pub type LogLog = Cartesian2d<LogCoord<f64>, LogCoord<f64>>;

/// Linear axes both ways.
pub type Lin =
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>;

pub type Area<DB> = DrawingArea<DB, Shift>;

/// How to draw: the pixel scale (device pixel ratio for canvases, 1 for SVG) and
/// the theme's colours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    pub dpr: f64,
    pub pal: Palette,
}

impl Look {
    pub fn px(&self, v: f64) -> u32 {
        px(v, self.dpr)
    }
    /// Chart text in `color`, made legible on the chart's background: a series
    /// colour too light for text there (the memory roof's orange on white) is
    /// darkened, or lightened on the dark theme, until it reaches 4.5:1
    /// (`colour::legible`; every label of every chart is drawn through here).
    pub fn font(&self, size: f64, color: &RGBColor) -> TextStyle<'static> {
        let (bg, c) = (self.pal.bg, color);
        let (r, g, b) = crate::colour::legible(
            (c.0, c.1, c.2),
            (bg.0, bg.1, bg.2),
            crate::colour::TEXT_CONTRAST,
        );
        font(size, self.dpr, &RGBColor(r, g, b))
    }
}

/// Size the canvas backing store to `css_w` × `aspect(css_w)` CSS pixels at the
/// device pixel ratio (plotters-canvas draws in backing-store pixels and ignores
/// DPR). Only touches width/height when they change, since that clears and
/// reallocates. Returns the scale factor to apply to fonts and strokes.
///
/// The caller passes the CSS width it measured when the layout last changed (see
/// [`CssWidth`]): reading `clientWidth` on every redraw would force a synchronous
/// layout of the whole page after each slider move.
pub fn fit(
    canvas: &HtmlCanvasElement,
    css_w: f64,
    aspect: impl Fn(f64) -> f64,
    min_h: f64,
    max_h: f64,
) -> f64 {
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0);
    let dpr = if dpr.is_finite() && dpr > 0.0 {
        dpr.min(4.0)
    } else {
        1.0
    };
    let css_w = if css_w > 0.0 { css_w } else { 640.0 };
    let css_h = (css_w * aspect(css_w)).clamp(min_h, max_h);
    let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    dpr
}

/// Like [`fit`] with an explicit CSS height.
pub fn fit_height(canvas: &HtmlCanvasElement, css_w: f64, css_h: f64) -> f64 {
    fit(
        canvas,
        css_w,
        |w| if w > 0.0 { css_h / w } else { 0.6 },
        css_h,
        css_h,
    )
}

/// A canvas's CSS width as the browser last laid it out (a ResizeObserver: it
/// reports after layout, so no read forces one; 0 until the first report);
/// reading it is a reactive dependency, so charts redraw when the width changes.
#[derive(Clone, Copy)]
pub struct CssWidth(RwSignal<f64>);

impl CssWidth {
    pub fn new(canvas: NodeRef<Canvas>) -> Self {
        let width = RwSignal::new(0.0);
        Effect::new(move |prev: Option<bool>| {
            if prev == Some(true) {
                return true; // observer already attached
            }
            let Some(c) = canvas.get() else { return false };
            let watch = SizeWatch::new(c.unchecked_ref(), move |w| {
                if w.is_finite() && w != width.get_untracked() {
                    width.set(w);
                }
            });
            match watch {
                // lives as long as the component
                Some(w) => {
                    let w = send_wrapper::SendWrapper::new(w);
                    on_cleanup(move || drop(w));
                }
                // no ResizeObserver: measure once
                None => width.set(f64::from(c.client_width())),
            }
            true
        });
        CssWidth(width)
    }

    pub fn get(&self) -> f64 {
        self.0.get()
    }

    pub fn get_untracked(&self) -> f64 {
        self.0.get_untracked()
    }

    /// [`CssWidth::get_untracked`], or `None` once its chart is gone.
    pub fn try_get_untracked(&self) -> Option<f64> {
        self.0.try_get_untracked()
    }
}

/// Whether a canvas (or a widget's section) is on, or within 300 px of, the
/// screen (`within`: another margin). Charts skip redraws while off-screen and
/// catch up when scrolled into view, so a slider move only pays for the charts
/// a user can see; a chart within the margin but not on the screen redraws
/// after the input's frame (`plot::Chart`). `None` until the observer's first
/// report.
#[derive(Clone, Copy)]
pub struct OnScreen(RwSignal<Option<bool>>);

impl OnScreen {
    pub fn new<E>(node: NodeRef<E>) -> Self
    where
        E: leptos::html::ElementType,
        E::Output: JsCast + Clone + 'static,
    {
        Self::within(node, "300px")
    }

    /// On the screen or within `margin` (a CSS length) of it.
    pub fn within<E>(node: NodeRef<E>, margin: &'static str) -> Self
    where
        E: leptos::html::ElementType,
        E::Output: JsCast + Clone + 'static,
    {
        let visible = RwSignal::new(None);
        Effect::new(move |prev: Option<bool>| {
            if prev == Some(true) {
                return true; // observer already attached
            }
            let Some(el) = node.get() else { return false };
            let watch = OnScreenWatch::new(el.unchecked_ref(), margin, move |on| {
                if Some(on) != visible.get_untracked() {
                    visible.set(Some(on));
                }
            });
            match watch {
                // lives as long as the component
                Some(w) => {
                    let w = send_wrapper::SendWrapper::new(w);
                    on_cleanup(move || drop(w));
                }
                // no IntersectionObserver: always draw
                None => visible.set(Some(true)),
            }
            true
        });
        OnScreen(visible)
    }

    /// On (or near) the screen, as last reported; false before the first report.
    pub fn get(&self) -> bool {
        self.0.get() == Some(true)
    }

    /// Reported off the screen (false before the first report).
    pub fn away(&self) -> bool {
        self.0.get() == Some(false)
    }

    /// [`OnScreen::away`], read without subscribing to it.
    pub fn away_untracked(&self) -> bool {
        self.0.get_untracked() == Some(false)
    }
}

/// A chart's plotting area in backend pixels: the box its axis ranges map onto
/// (plotters maps a range onto pixels `start ..= end − 1`, rounding down).
pub fn plot_rect<DB: DrawingBackend>(ch: &ChartContext<'_, DB, LogLog>) -> Rect {
    let (x, y) = ch.plotting_area().get_pixel_range();
    Rect {
        x0: f64::from(x.start),
        y0: f64::from(y.start),
        x1: f64::from(x.end - 1),
        y1: f64::from(y.end - 1),
    }
}

/// A chart's data → backend pixel mapping, as `f64`.
pub fn to_px<DB: DrawingBackend>(ch: &ChartContext<'_, DB, LogLog>, p: Pt) -> Pt {
    let (x, y) = ch.backend_coord(&p);
    (f64::from(x), f64::from(y))
}

/// A font at `px` CSS pixels.
pub fn font(px: f64, dpr: f64, color: &RGBColor) -> TextStyle<'static> {
    (FONT, px * dpr).into_font().color(color)
}

pub fn px(v: f64, dpr: f64) -> u32 {
    (v * dpr).round().max(1.0) as u32
}

/// Draw on a canvas; counts successful redraws in `data-frame`.
pub fn draw<F>(canvas: &HtmlCanvasElement, pal: &Palette, f: F) -> Result<(), String>
where
    F: FnOnce(Area<AnyBackend<'_>>) -> Result<(), String>,
{
    let root = AnyBackend::canvas(canvas)
        .ok_or_else(|| "this browser gave no 2D canvas context".to_string())?
        .into_drawing_area();
    root.fill(&pal.bg).map_err(|e| e.to_string())?;
    f(root.clone())?;
    root.present().map_err(|e| e.to_string())?;
    let frame: u64 = canvas
        .get_attribute("data-frame")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let _ = canvas.set_attribute("data-frame", &(frame + 1).to_string());
    Ok(())
}

/// The same drawing code through plotters' SVG backend: an SVG document string.
pub fn to_svg<F>(w: u32, h: u32, pal: &Palette, f: F) -> Result<String, String>
where
    F: FnOnce(Area<AnyBackend<'_>>) -> Result<(), String>,
{
    let mut out = String::new();
    {
        let svg = SVGBackend::with_string(&mut out, (w.max(1), h.max(1)));
        let root = AnyBackend::Svg(svg).into_drawing_area();
        root.fill(&pal.bg).map_err(|e| e.to_string())?;
        f(root.clone())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// The theme's fonts and line colours on a mesh; light lines off (few labels and
/// lines keep redraws cheap).
fn theme_mesh<X: Ranged, Y: Ranged, DB: DrawingBackend>(
    mesh: &mut MeshStyle<'_, '_, X, Y, DB>,
    look: &Look,
) {
    let pal = look.pal;
    mesh.label_style(look.font(11.0, &pal.muted))
        .axis_desc_style(look.font(12.0, &pal.ink))
        .bold_line_style(pal.grid.stroke_width(look.px(1.0)))
        .light_line_style(TRANSPARENT)
        .axis_style(pal.muted.stroke_width(look.px(1.0)));
}

/// `mesh.apply(f)`: run a styling function inside a builder chain.
trait Apply {
    fn apply(&mut self, f: impl FnOnce(&mut Self)) -> &mut Self {
        f(self);
        self
    }
}
impl<X: Ranged, Y: Ranged, DB: DrawingBackend> Apply for MeshStyle<'_, '_, X, Y, DB> {}

/// Log-log axes with decade ticks only.
pub fn log_log<'a, 'b>(
    root: &'a Area<AnyBackend<'b>>,
    x: (f64, f64),
    y: (f64, f64),
    x_desc: &str,
    y_desc: &str,
    look: &Look,
) -> Result<ChartContext<'a, AnyBackend<'b>, LogLog>, String> {
    log_log_with(root, x, y, x_desc, y_desc, &|v| decade_label(*v), look)
}

/// [`log_log`] with a custom x tick label (ticks stay at decades of x).
///
/// The background, axes, grid and labels depend only on the area's size, the
/// axes, their words and the look, so on a canvas they are drawn once and kept
/// ([`Layer`]): later redraws with the same of each copy them back (one image
/// copy instead of some twenty lines and labels per chart) and draw only the data.
pub fn log_log_with<'a, 'b>(
    root: &'a Area<AnyBackend<'b>>,
    x: (f64, f64),
    y: (f64, f64),
    x_desc: &str,
    y_desc: &str,
    x_label: &dyn Fn(&f64) -> String,
    look: &Look,
) -> Result<ChartContext<'a, AnyBackend<'b>, LogLog>, String> {
    let dpr = look.dpr;
    let mut chart = ChartBuilder::on(root)
        .margin(px(12.0, dpr))
        .x_label_area_size(px(40.0, dpr))
        .y_label_area_size(px(52.0, dpr))
        .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())
        .map_err(|e| e.to_string())?;
    // the key: everything the picture depends on (the area's size, both
    // ranges, the axis words, every x tick label, which is all `x_label` adds,
    // and the look: pixel ratio and palette)
    let (lo, hi) = (x.0.log10().ceil() as i32, x.1.log10().floor() as i32);
    let ticks: Vec<String> = (lo..=hi.min(lo + 40))
        .map(|k| x_label(&10f64.powi(k)))
        .collect();
    let key = format!(
        "{:?}|{x:?}|{y:?}|{x_desc}|{y_desc}|{}|{look:?}",
        root.dim_in_pixel(),
        ticks.join(",")
    );
    let decades = |a: f64, b: f64| ((b / a).log10().round() as usize) + 1;
    kept_or_drawn(root, &key, || {
        chart
            .configure_mesh()
            .x_labels(decades(x.0, x.1))
            .y_labels(decades(y.0, y.1))
            .x_label_formatter(x_label)
            .y_label_formatter(&|v| decade_label(*v))
            .x_desc(x_desc)
            .y_desc(y_desc)
            .apply(|m| theme_mesh(m, look))
            .draw()
            .map_err(|e| e.to_string())
    })?;
    Ok(chart)
}

/// The axes kept under `key` copied back where they were kept, else drawn by
/// `draw` and kept for the next redraw.
fn kept_or_drawn(
    root: &Area<AnyBackend<'_>>,
    key: &str,
    draw: impl FnOnce() -> Result<(), String>,
) -> Result<(), String> {
    let kept = Cell::new(false);
    root.draw(&Layer::Restore { key, hit: &kept })
        .map_err(|e| e.to_string())?;
    if kept.get() {
        return Ok(());
    }
    draw()?;
    root.draw(&Layer::Save { key }).map_err(|e| e.to_string())
}

/// Linear axes (a few round ticks each) for charts whose subject is a
/// difference, not an order of magnitude (the shapes widget's sawtooth); kept
/// between redraws like [`log_log_with`]'s.
pub fn linear<'a, 'b>(
    root: &'a Area<AnyBackend<'b>>,
    x: (f64, f64),
    y: (f64, f64),
    x_desc: &str,
    y_desc: &str,
    y_label: &dyn Fn(&f64) -> String,
    look: &Look,
) -> Result<ChartContext<'a, AnyBackend<'b>, Lin>, String> {
    let dpr = look.dpr;
    let mut chart = ChartBuilder::on(root)
        .margin(px(12.0, dpr))
        .x_label_area_size(px(40.0, dpr))
        .y_label_area_size(px(52.0, dpr))
        .build_cartesian_2d(x.0..x.1, y.0..y.1)
        .map_err(|e| e.to_string())?;
    let key = format!(
        "lin|{:?}|{x:?}|{y:?}|{x_desc}|{y_desc}|{look:?}",
        root.dim_in_pixel()
    );
    kept_or_drawn(root, &key, || {
        chart
            .configure_mesh()
            .x_labels(6)
            .y_labels(6)
            .x_label_formatter(&|v| crate::model::units::sig3(*v))
            .y_label_formatter(y_label)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .apply(|m| theme_mesh(m, look))
            .draw()
            .map_err(|e| e.to_string())
    })?;
    Ok(chart)
}

/// The height of a chart of two stacked panels (the llm batch sweep, the serving
/// curves): taller than wide on phones, a short band on wide screens.
pub fn two_panel_height(w: f64) -> f64 {
    if w < 560.0 {
        (w * 1.3).clamp(380.0, 560.0)
    } else {
        (w * 0.42).clamp(260.0, 360.0)
    }
}
