//! `PlotCanvas`: the one chart component. It owns the canvas scaffolding every chart
//! needs — sizing at devicePixelRatio, redrawing only while on screen, the theme,
//! the redraw counter, error display — and the exports (PNG from the canvas, SVG
//! from the same drawing code through plotters' SVG backend, CSV of the data).
//! A chart is a data type implementing [`Plot`].

use super::backend::AnyBackend;
use super::palette::Palette;
use crate::geom::{LogAxes, Pt, Rect};
use crate::ui::chart::{self, Area, CssWidth, Look, OnScreen};
use crate::ui::kit::Ctx;
use crate::ui::kit::{download, later};
use leptos::html::Canvas;
use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::{intern, JsCast};

/// The data behind one chart, and how to draw it.
pub trait Plot: Clone + PartialEq + Send + Sync + 'static {
    /// Chart height (CSS px) for a CSS width.
    fn height(&self, css_w: f64) -> f64;
    /// Draw; a chart that opts into the overlay records its points in `marks`.
    fn draw(
        &self,
        root: Area<AnyBackend<'_>>,
        look: &Look,
        marks: &mut Marks,
    ) -> Result<(), String>;
    /// The numbers behind the chart, with a header row.
    fn csv(&self) -> String;
}

/// Implement [`Plot::draw`] with a render function
/// `fn(&Self, Area<DB>, &Look) -> Result<(), String>` (generic or not), or, as
/// `plot_with!(marks render)`, one that also records its points:
/// `fn(&Self, Area<DB>, &Look, &mut Marks) -> Result<(), String>`.
macro_rules! plot_with {
    ($render:path) => {
        fn draw(
            &self,
            root: $crate::ui::chart::Area<$crate::ui::chart::backend::AnyBackend<'_>>,
            look: &$crate::ui::chart::Look,
            _marks: &mut $crate::ui::chart::plot::Marks,
        ) -> Result<(), String> {
            $render(self, root, look)
        }
    };
    (marks $render:path) => {
        fn draw(
            &self,
            root: $crate::ui::chart::Area<$crate::ui::chart::backend::AnyBackend<'_>>,
            look: &$crate::ui::chart::Look,
            marks: &mut $crate::ui::chart::plot::Marks,
        ) -> Result<(), String> {
            $render(self, root, look, marks)
        }
    };
}
pub(crate) use plot_with;

/// One plotted point made hoverable and focusable by the overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Centre in CSS pixels from the canvas's top-left corner.
    pub x: f64,
    pub y: f64,
    /// `data-mark`: what the point is (`kernel`, `step`, `measured`, `bench`).
    pub kind: &'static str,
    /// The point's data coordinates (`data-x`, `data-y`).
    pub at: (f64, f64),
    /// `data-bound` (`memory`, `compute`, `overhead`), where it applies.
    pub bound: &'static str,
    /// The tooltip: the point's name, then its numbers.
    pub lines: Vec<String>,
}

/// What a chart tells its overlay after drawing: its points, the boxes of its
/// labels, its plotting areas and its lines (`data-geometry`, for tests and
/// embedders). Everything in CSS pixels except `lines` (data coordinates).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    /// Backend pixels per CSS pixel.
    pub dpr: f64,
    /// Canvas size, CSS pixels.
    pub size: (f64, f64),
    pub points: Vec<Mark>,
    pub labels: Vec<(&'static str, Rect)>,
    /// Plotting area (CSS px) with its x and y data ranges.
    pub areas: Vec<LogAxes>,
    pub lines: Vec<(&'static str, [Pt; 2])>,
}

impl Marks {
    fn new(dpr: f64, size: (f64, f64)) -> Self {
        Marks {
            dpr: if dpr > 0.0 { dpr } else { 1.0 },
            size,
            ..Marks::default()
        }
    }

    fn css(&self, v: f64) -> f64 {
        v / self.dpr
    }

    /// A plotting area from plotters' pixel range (backend pixels).
    pub fn area(&mut self, r: &Rect, x: (f64, f64), y: (f64, f64)) {
        let px = self.css_rect(r);
        self.areas.push(LogAxes { x, y, px });
    }

    /// A label's box, given in backend pixels.
    pub fn label(&mut self, name: &'static str, r: &Rect) {
        let r = self.css_rect(r);
        self.labels.push((name, r));
    }

    pub fn line(&mut self, name: &'static str, seg: [Pt; 2]) {
        self.lines.push((name, seg));
    }

    /// A point at `px` (backend pixels).
    pub fn point(
        &mut self,
        px: (i32, i32),
        kind: &'static str,
        at: (f64, f64),
        bound: &'static str,
        lines: Vec<String>,
    ) {
        self.points.push(Mark {
            x: self.css(f64::from(px.0)),
            y: self.css(f64::from(px.1)),
            kind,
            at,
            bound,
            lines,
        });
    }

    fn css_rect(&self, r: &Rect) -> Rect {
        Rect {
            x0: self.css(r.x0),
            y0: self.css(r.y0),
            x1: self.css(r.x1),
            y1: self.css(r.y1),
        }
    }

    /// The geometry as JSON (`data-geometry`): `{"size":[w,h], "areas":[{"rect":
    /// [l,t,r,b],"x":[lo,hi],"y":[lo,hi]}], "labels":[{"name","rect"}], "lines":
    /// [{"name","from":[x,y],"to":[x,y]}]}`.
    pub fn geometry(&self) -> String {
        let n = |v: f64| {
            if v.is_finite() {
                format!("{v}")
            } else {
                "null".into()
            }
        };
        let pair = |(a, b): (f64, f64)| format!("[{},{}]", n(a), n(b));
        let rect = |r: &Rect| format!("[{},{},{},{}]", n(r.x0), n(r.y0), n(r.x1), n(r.y1));
        let areas: Vec<String> = self
            .areas
            .iter()
            .map(|a| {
                format!(
                    r#"{{"rect":{},"x":{},"y":{}}}"#,
                    rect(&a.px),
                    pair(a.x),
                    pair(a.y)
                )
            })
            .collect();
        let labels: Vec<String> = self
            .labels
            .iter()
            .map(|(name, r)| format!(r#"{{"name":"{name}","rect":{}}}"#, rect(r)))
            .collect();
        let lines: Vec<String> = self
            .lines
            .iter()
            .map(|(name, [a, b])| {
                format!(
                    r#"{{"name":"{name}","from":{},"to":{}}}"#,
                    pair(*a),
                    pair(*b)
                )
            })
            .collect();
        format!(
            r#"{{"size":{},"areas":[{}],"labels":[{}],"lines":[{}]}}"#,
            pair(self.size),
            areas.join(","),
            labels.join(","),
            lines.join(",")
        )
    }
}

/// A CSV document from a header and rows of fields (`crate::csv::document`).
pub use crate::csv::document as csv;

/// The object-safe face of a [`Plot`], so [`PlotCanvas`] is compiled once rather
/// than once per chart type.
pub trait DynPlot: Send + Sync {
    fn height(&self, css_w: f64) -> f64;
    fn draw(
        &self,
        root: Area<AnyBackend<'_>>,
        look: &Look,
        marks: &mut Marks,
    ) -> Result<(), String>;
    fn csv(&self) -> String;
}

impl<T: Plot> DynPlot for T {
    fn height(&self, css_w: f64) -> f64 {
        Plot::height(self, css_w)
    }
    fn draw(
        &self,
        root: Area<AnyBackend<'_>>,
        look: &Look,
        marks: &mut Marks,
    ) -> Result<(), String> {
        Plot::draw(self, root, look, marks)
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
    view! { <Chart dark=ctx.dark id=id label=label data=data/> }
}

/// [`PlotCanvas`] given only the theme (the trace widget's own app has no [`Ctx`]).
#[component]
pub fn Chart(
    dark: RwSignal<bool>,
    id: &'static str,
    label: Signal<String>,
    data: Signal<SharedPlot>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let width = CssWidth::new(canvas);
    let on_screen = OnScreen::new(canvas);
    let error = RwSignal::new(None::<String>);
    let status = RwSignal::new(String::new());
    let marks = RwSignal::new(Marks::default());

    redraw_when_seen(canvas, width, on_screen, dark, data, marks, error);

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
        let pal = Palette::of(dark.get_untracked());
        let r = data.with_untracked(|d| {
            let h = d.height(w);
            chart::to_svg(w.round() as u32, h.round() as u32, &pal, |root| {
                d.draw(root, &Look { dpr: 1.0, pal }, &mut Marks::default())
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
        <div class="plot">
            <canvas id=id node_ref=canvas role="img" aria-label=move || label.get() data-frame="0"></canvas>
            <MarkLayer marks=marks/>
        </div>
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

/// Keeps `canvas` drawn with `data`: at once while it is on the screen, after
/// the input's frame while it is only near it (one owed redraw at a time, of what
/// is there when it runs; at once if the chart scrolls on first), not at all
/// while it is away (its marks dropped where they were drawn for another width).
fn redraw_when_seen(
    canvas: NodeRef<Canvas>,
    width: CssWidth,
    on_screen: OnScreen,
    dark: RwSignal<bool>,
    data: Signal<SharedPlot>,
    marks: RwSignal<Marks>,
    error: RwSignal<Option<String>>,
) {
    let in_view = OnScreen::within(canvas, "0px");
    // draws the chart as it is now at `w` CSS pixels wide (everything read
    // untracked: the effect below says when)
    let draw = move |w: f64, pal: Palette| {
        let Some(c) = canvas.get_untracked() else {
            return;
        };
        let Some((r, mk)) = data.try_with_untracked(|d| {
            let h = d.height(w);
            let dpr = chart::fit_height(&c, w, h);
            let look = Look { dpr, pal };
            let mut mk = Marks::new(
                dpr,
                (f64::from(c.width()) / dpr, f64::from(c.height()) / dpr),
            );
            let r = chart::draw(&c, &pal, |root| d.draw(root, &look, &mut mk));
            (r, mk)
        }) else {
            return;
        };
        // the overlay only changes when what it shows does
        if marks.try_with_untracked(|m| *m != mk) == Some(true) {
            marks.try_set(mk);
        }
        error.try_set(r.err());
    };
    // a redraw of a chart near the screen but not on it waits until the frame
    // the change made has been drawn (one at a time: it draws what is there
    // then), so an input's own task only pays for the charts a user sees
    let pending = std::rc::Rc::new(std::cell::Cell::new(false));
    let pending_now = pending.clone();
    // the owed redraw, of what is there when it runs
    let owed = move || {
        if let (Some(w), Some(dark)) = (width.try_get_untracked(), dark.try_get_untracked()) {
            if w > 0.0 {
                draw(w, Palette::of(dark));
            }
        }
    };
    Effect::new(move |_| {
        let w = width.get();
        if !on_screen.get() {
            // drawn for another width: its points would sit where the chart no
            // longer is (even past the page's edge), so drop them until it redraws
            if marks.with_untracked(|m| !m.points.is_empty() && (m.size.0 - w).abs() > 0.5) {
                marks.set(Marks::default());
            }
            return;
        }
        if w <= 0.0 {
            return; // not laid out yet: the first size report draws it
        }
        let pal = Palette::of(dark.get());
        if canvas.get().is_none() {
            return;
        }
        data.track();
        // (read untracked: scrolling on or off the screen alone redraws nothing)
        if !in_view.away_untracked() {
            pending.set(false);
            draw(w, pal);
        } else if !pending.replace(true) {
            let pending = pending.clone();
            later::after_frame(move || {
                if pending.replace(false) {
                    owed();
                }
            });
        }
    });
    // scrolled onto the screen before an owed redraw ran: it runs now
    Effect::new(move |_| {
        if in_view.get() && pending_now.replace(false) {
            owed();
        }
    });
}

/// The points of a chart as focusable buttons over the canvas, each with a
/// tooltip of its numbers shown on hover and on keyboard focus (CSS). One tab
/// stop per chart (roving tabindex): arrow keys move between points, Home/End
/// jump, Escape hides the tooltip. The buttons are kept in step with [`Marks`] by
/// hand (created or removed only when the count changes, attributes set after
/// each redraw that changed them, a tooltip's text written when a pointer or
/// the focus reaches its point, and after each redraw while it is there): a
/// focused point keeps its focus while its numbers update, a slider's drag does
/// not rewrite tooltips nobody sees, and the page carries no list-diffing code
/// for it.
#[component]
fn MarkLayer(marks: RwSignal<Marks>) -> impl IntoView {
    let layer = NodeRef::<leptos::html::Div>::new();
    // the marks last written: an attribute is written where its point's value
    // changed since (no reading each one back from the DOM)
    Effect::new(move |was: Option<Marks>| {
        let Some(div) = layer.get() else {
            return Marks::default();
        };
        marks.with(|m| {
            sync_marks(&div, m, was.as_ref());
            m.clone()
        })
    });
    // the point an event happened on
    let mark_of = |ev: &web_sys::Event| {
        ev.target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest(".mark").ok().flatten())
    };
    let keydown = move |ev: leptos::ev::KeyboardEvent| {
        let Some(el) = mark_of(&ev) else { return };
        let parent = el.parent_element();
        let target = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => el.next_element_sibling(),
            "ArrowLeft" | "ArrowUp" => el.previous_element_sibling(),
            "Home" => parent.and_then(|p| p.first_element_child()),
            "End" => parent.and_then(|p| p.last_element_child()),
            "Escape" => {
                let _ = el.class_list().add_1("tip-hidden");
                ev.prevent_default();
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        if let Some(t) = target.and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = t.focus();
        }
    };
    // the focused point becomes the chart's tab stop; hover or focus undoes Escape
    // a tooltip's text is written when its point is reached (hover, focus),
    // not on every redraw (`sync_marks`)
    let fill = move |el: &web_sys::Element| {
        let mut i = 0;
        let mut prev = el.previous_element_sibling();
        while let Some(p) = prev {
            i += 1;
            prev = p.previous_element_sibling();
        }
        marks.with_untracked(|m| fill_tip(el, m, i));
    };
    let focusin = move |ev: leptos::ev::FocusEvent| {
        let Some(el) = mark_of(&ev) else { return };
        fill(&el);
        let _ = el.class_list().remove_1("tip-hidden");
        let mut sib = el.parent_element().and_then(|p| p.first_element_child());
        while let Some(s) = sib {
            let _ = s.set_attribute("tabindex", if s == el { "0" } else { "-1" });
            sib = s.next_element_sibling();
        }
    };
    let over = move |ev: leptos::ev::MouseEvent| {
        if let Some(el) = mark_of(&ev) {
            fill(&el);
            let _ = el.class_list().remove_1("tip-hidden");
        }
    };
    view! {
        <div class="marks" role="group" aria-label="Points of this chart: arrow keys move between them"
            hidden node_ref=layer on:keydown=keydown on:focusin=focusin on:mouseover=over></div>
    }
}

/// Sets attribute `k` to `v` unless it has that value already: a write is a DOM
/// mutation and, for class and style, a style recalculation of the element.
fn set_changed(el: &web_sys::Element, k: &str, v: &str) {
    if el.get_attribute(k).as_deref() != Some(v) {
        let _ = el.set_attribute(k, v);
    }
}

/// The tooltip of point `i` of `m`: its lines, and those of the points drawn
/// on top of it (the step on its only kernel: a pointer reaches only the top
/// button, so each tooltip names both).
fn tip_text(m: &Marks, i: usize) -> String {
    let Some(p) = m.points.get(i) else {
        return String::new();
    };
    let mut text = p.lines.join("\n");
    for q in &m.points {
        if !std::ptr::eq(p, q) && (q.x - p.x).hypot(q.y - p.y) < 10.0 {
            text.push_str("\n\n");
            text.push_str(&q.lines.join("\n"));
        }
    }
    text
}

/// The class that puts point `p`'s tooltip to its left or right by where it
/// sits in a chart `w` CSS pixels wide (`None`: above it).
fn tip_side(p: &Mark, w: f64) -> Option<&'static str> {
    if p.x > w * 0.62 {
        Some("tip-left")
    } else if p.x < w * 0.3 {
        Some("tip-right")
    } else {
        None
    }
}

/// Button `b`'s class for point `i` of `m`: its tooltip to the left or right
/// by where it sits, below when `below` (a tooltip that would leave the top),
/// hidden while Escape hid it.
fn mark_class(m: &Marks, i: usize, b: &web_sys::Element, below: bool) -> String {
    let mut class = String::from("mark");
    if let Some(side) = m.points.get(i).and_then(|p| tip_side(p, m.size.0)) {
        class.push(' ');
        class.push_str(side);
    }
    if below {
        class.push_str(" tip-below");
    }
    if b.class_list().contains("tip-hidden") {
        class.push_str(" tip-hidden");
    }
    class
}

/// Writes point `i`'s tooltip into button `b` (only the points a pointer or
/// the focus reaches need one) and places it below the point when it would
/// leave the chart's top (about 17 px a line).
fn fill_tip(b: &web_sys::Element, m: &Marks, i: usize) {
    let Some(p) = m.points.get(i) else { return };
    let text = tip_text(m, i);
    let below = p.y < 17.0 * (text.lines().count() as f64) + 24.0;
    set_changed(b, "class", &mark_class(m, i, b, below));
    if let Some(t) = b.first_element_child() {
        if t.text_content().as_deref() != Some(text.as_str()) {
            t.set_text_content(Some(&text));
        }
    }
}

/// Bring the layer's buttons in line with `m`; `was`, the marks they were last
/// brought in line with (`None`: the first time).
fn sync_marks(div: &web_sys::HtmlDivElement, m: &Marks, was: Option<&Marks>) {
    set_changed(div, "data-geometry", &m.geometry());
    // set only when it changes: setting it again is a DOM write all the same
    if div.hidden() != m.points.is_empty() {
        div.set_hidden(m.points.is_empty());
    }
    let n = m.points.len();
    let mut have = div.child_element_count() as usize;
    let have_before = have;
    if let Some(doc) = div.owner_document() {
        while have < n {
            let Ok(b) = doc.create_element("button") else {
                break;
            };
            let Ok(tip) = doc.create_element("span") else {
                break;
            };
            let _ = b.set_attribute("type", "button");
            // the first point is the chart's tab stop until another is focused
            let _ = b.set_attribute("tabindex", if have == 0 { "0" } else { "-1" });
            let _ = tip.set_attribute("class", "tip");
            let _ = tip.set_attribute("aria-hidden", "true");
            let _ = b.append_child(&tip);
            let _ = div.append_child(&b);
            have += 1;
        }
    }
    while have > n {
        match div.last_element_child() {
            Some(c) => c.remove(),
            None => break,
        }
        have -= 1;
    }
    // the point a pointer or the focus is on: its tooltip follows each redraw
    let shown: Vec<web_sys::Element> = [
        div.query_selector(".mark:hover").ok().flatten(),
        div.owner_document().and_then(|d| d.active_element()),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut el = div.first_element_child();
    for (i, p) in m.points.iter().enumerate() {
        let Some(b) = el else { break };
        let old = was
            .and_then(|w| w.points.get(i).map(|o| (o, w.size.0)))
            .filter(|_| i < have_before);
        // written only where its point's value changed since `was`, with no
        // reading back; the page changes the class too (Escape, a tooltip
        // placed below), so a new button gets its whole class and an old one
        // only its side swapped
        let side = tip_side(p, m.size.0);
        match old {
            None => set_changed(&b, "class", &mark_class(m, i, &b, false)),
            Some((o, w)) => {
                let was_side = tip_side(o, w);
                if was_side != side {
                    let list = b.class_list();
                    if let Some(c) = was_side {
                        let _ = list.remove_1(intern(c));
                    }
                    if let Some(c) = side {
                        let _ = list.add_1(intern(c));
                    }
                }
            }
        }
        let old = old.map(|(o, _)| o);
        // the names (and the fixed values) interned: passed to the page once,
        // not decoded on every write
        let write = |k: &str, v: &str, same: bool| {
            if !same {
                let _ = b.set_attribute(intern(k), v);
            }
        };
        let style = |m: &Mark| format!("left:{:.1}px;top:{:.1}px", m.x, m.y);
        let now = style(p);
        write("style", &now, old.is_some_and(|o| style(o) == now));
        if old.is_none_or(|o| o.lines != p.lines) {
            write("aria-label", &p.lines.join(", "), false);
        }
        write(
            "data-mark",
            intern(p.kind),
            old.is_some_and(|o| o.kind == p.kind),
        );
        write(
            "data-x",
            &p.at.0.to_string(),
            old.is_some_and(|o| o.at.0.to_bits() == p.at.0.to_bits()),
        );
        write(
            "data-y",
            &p.at.1.to_string(),
            old.is_some_and(|o| o.at.1.to_bits() == p.at.1.to_bits()),
        );
        write(
            "data-bound",
            intern(p.bound),
            old.is_some_and(|o| o.bound == p.bound),
        );
        if shown.contains(&b) {
            fill_tip(&b, m, i);
        }
        el = b.next_element_sibling();
    }
    // the tab stop was removed with its point: the first point takes it (one
    // query, not a read of every button)
    if div
        .query_selector("[tabindex='0']")
        .ok()
        .flatten()
        .is_none()
    {
        if let Some(first) = div.first_element_child() {
            let _ = first.set_attribute("tabindex", "0");
        }
    }
}
