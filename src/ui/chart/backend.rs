//! One drawing backend type for every chart: a canvas (on screen) or an SVG
//! document (export). Render functions are written once against [`AnyBackend`], so
//! each is compiled once instead of once per backend (a smaller .wasm), and the
//! SVG export is by construction the same drawing code as the screen.
//!
//! Text on a canvas is drawn here rather than by plotters-canvas, which sets the
//! context's font (a CSS font string the browser parses), alignment and baseline
//! again for every label; [`Pen`] sets each only when it changes, and sizes text
//! with `measureText` ([`super::text::text_size`]) instead of plotters' estimate
//! through a DOM element, which forces a page layout.
//!
//! [`Layer`] keeps a picture of part of a canvas (a chart's background, axes, grid
//! and labels) so that a redraw copies it back instead of drawing it again.

use plotters::element::{Drawable, PointCollection};
use plotters::prelude::SVGBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontTransform,
};
use plotters_canvas::CanvasBackend;
use std::cell::Cell;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

pub enum AnyBackend<'a> {
    Canvas(CanvasBackend, Pen),
    Svg(SVGBackend<'a>),
}

impl AnyBackend<'_> {
    /// A canvas backend, or None where the browser gives no 2D context.
    pub fn canvas(canvas: &HtmlCanvasElement) -> Option<Self> {
        let ctx = canvas
            .get_context("2d")
            .ok()
            .flatten()?
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        let backend = CanvasBackend::with_canvas_object(canvas.clone())?;
        Some(AnyBackend::Canvas(backend, Pen::new(ctx)))
    }
}

/// The canvas context's text state as last set by this backend (None: not set
/// yet in this drawing, so unknown). Only text drawing touches font, alignment
/// and baseline, so what was set stays set between labels.
pub struct Pen {
    ctx: CanvasRenderingContext2d,
    font: Option<String>,
    align: Option<&'static str>,
    baseline: Option<&'static str>,
}

impl Pen {
    fn new(ctx: CanvasRenderingContext2d) -> Self {
        Pen {
            ctx,
            font: None,
            align: None,
            baseline: None,
        }
    }

    fn text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), String> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let baseline = match style.anchor().v_pos {
            VPos::Top => "top",
            VPos::Center => "middle",
            VPos::Bottom => "bottom",
        };
        if self.baseline.replace(baseline) != Some(baseline) {
            self.ctx.set_text_baseline(baseline);
        }
        let align = match style.anchor().h_pos {
            HPos::Left => "start",
            HPos::Right => "end",
            HPos::Center => "center",
        };
        if self.align.replace(align) != Some(align) {
            self.ctx.set_text_align(align);
        }
        let font = format!(
            "{} {}px {}",
            style.style().as_str(),
            style.size(),
            style.family().as_str()
        );
        if self.font.as_deref() != Some(font.as_str()) {
            self.ctx.set_font(&font);
            self.font = Some(font);
        }
        // fills elsewhere (plotters-canvas's rectangles, circles) change the fill
        // style, so it is set for every label
        let (r, g, b) = color.rgb;
        self.ctx
            .set_fill_style_str(&format!("rgba({r},{g},{b},{})", color.alpha));
        let turn = match style.transform() {
            FontTransform::None => 0.0,
            FontTransform::Rotate90 => 0.5,
            FontTransform::Rotate180 => 1.0,
            FontTransform::Rotate270 => 1.5,
        } * std::f64::consts::PI;
        let (x, y) = (f64::from(pos.0), f64::from(pos.1));
        let js = |e: wasm_bindgen::JsValue| format!("{e:?}");
        if turn == 0.0 {
            return self.ctx.fill_text(text, x, y).map_err(js);
        }
        // the state set above was set before `save`, so `restore` keeps it
        self.ctx.save();
        let r = self
            .ctx
            .translate(x, y)
            .and_then(|()| self.ctx.rotate(turn))
            .and_then(|()| self.ctx.fill_text(text, 0.0, 0.0))
            .map_err(js);
        self.ctx.restore();
        r
    }
}

/// A picture of a drawing area's pixels, kept on its canvas element (a JS
/// property per area origin) with the key it was drawn for: a chart's background,
/// axes, grid and labels, which depend on the key alone, are drawn twice (the
/// picture is taken once a key repeats) and copied back on every later redraw
/// with the same key. The key must name everything the picture depends on
/// (size, axes, labels, look); a different key draws afresh.
/// SVG export never keeps one (`Restore` misses, `Save` does nothing). A browser
/// error in either only costs the copy: the area is drawn as without one.
pub enum Layer<'k> {
    /// Copy the picture back if it was kept for `key`; `hit` says whether it was.
    Restore { key: &'k str, hit: &'k Cell<bool> },
    /// Keep a picture of the area as it is now, for `key`.
    Save { key: &'k str },
}

impl<'a> PointCollection<'a, BackendCoord> for &'a Layer<'_> {
    type Point = BackendCoord;
    type IntoIter = std::iter::Once<BackendCoord>;
    fn point_iter(self) -> Self::IntoIter {
        // the area's own origin; the drawing area translates it to the canvas's
        std::iter::once((0, 0))
    }
}

impl Drawable<AnyBackend<'_>> for Layer<'_> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut pos: I,
        backend: &mut AnyBackend<'_>,
        dim: (u32, u32),
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        if let (AnyBackend::Canvas(_, pen), Some(at)) = (backend, pos.next()) {
            // an error here means no picture: the caller draws instead
            let _ = pen.layer(self, at, dim);
        }
        Ok(())
    }
}

impl Pen {
    fn layer(
        &self,
        layer: &Layer,
        (x, y): BackendCoord,
        (w, h): (u32, u32),
    ) -> Result<(), JsValue> {
        let Some(canvas) = self.ctx.canvas() else {
            return Ok(());
        };
        let prop = JsValue::from_str(&format!("brrrLayer{x},{y}"));
        let kept = js_sys::Reflect::get(&canvas, &prop)?;
        let kept_canvas = || -> Result<HtmlCanvasElement, JsValue> {
            js_sys::Reflect::get(&kept, &"canvas".into())?.dyn_into()
        };
        match layer {
            Layer::Restore { key, hit } => {
                if kept.is_undefined()
                    || js_sys::Reflect::get(&kept, &"key".into())?
                        .as_string()
                        .as_deref()
                        != Some(key)
                {
                    return Ok(());
                }
                let pic = kept_canvas()?;
                if (pic.width(), pic.height()) != (w, h) {
                    return Ok(());
                }
                self.ctx
                    .draw_image_with_html_canvas_element(&pic, f64::from(x), f64::from(y))?;
                hit.set(true);
            }
            Layer::Save { key } => {
                // Taking the picture makes the browser draw everything queued
                // on the canvas at once, which costs more than the axes: a
                // chart whose axes follow its data (a new key every redraw)
                // would pay it for nothing. So the picture is taken on the
                // second drawing in a row with the same key.
                let seen = JsValue::from_str(&format!("brrrLayerSeen{x},{y}"));
                if js_sys::Reflect::get(&canvas, &seen)?.as_string().as_deref() != Some(key) {
                    js_sys::Reflect::set(&canvas, &seen, &JsValue::from_str(key))?;
                    return Ok(());
                }
                let pic = match kept_canvas() {
                    Ok(c) if !kept.is_undefined() => c,
                    _ => canvas
                        .owner_document()
                        .ok_or_else(|| JsValue::from_str("no document"))?
                        .create_element("canvas")?
                        .dyn_into()?,
                };
                // setting the size clears the picture, even to the same size
                pic.set_width(w);
                pic.set_height(h);
                let pctx: CanvasRenderingContext2d = pic
                    .get_context("2d")?
                    .ok_or_else(|| JsValue::from_str("no 2d context"))?
                    .dyn_into()?;
                let (x, y, w, h) = (f64::from(x), f64::from(y), f64::from(w), f64::from(h));
                pctx.draw_image_with_html_canvas_element_and_sw_and_sh_and_dx_and_dy_and_dw_and_dh(
                    &canvas, x, y, w, h, 0.0, 0.0, w, h,
                )?;
                let slot = js_sys::Object::new();
                js_sys::Reflect::set(&slot, &"key".into(), &JsValue::from_str(key))?;
                js_sys::Reflect::set(&slot, &"canvas".into(), &pic)?;
                js_sys::Reflect::set(&canvas, &prop, &slot)?;
            }
        }
        Ok(())
    }
}

/// A backend error, as text.
#[derive(Debug)]
pub struct AnyError(String);

impl std::fmt::Display for AnyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AnyError {}

fn conv<E: std::error::Error + Send + Sync>(e: DrawingErrorKind<E>) -> DrawingErrorKind<AnyError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(AnyError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

macro_rules! both {
    ($self:ident, $b:ident => $e:expr) => {
        match $self {
            AnyBackend::Canvas($b, _) => $e.map_err(conv),
            AnyBackend::Svg($b) => $e.map_err(conv),
        }
    };
}

impl DrawingBackend for AnyBackend<'_> {
    type ErrorType = AnyError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            AnyBackend::Canvas(b, _) => b.get_size(),
            AnyBackend::Svg(b) => b.get_size(),
        }
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.ensure_prepared())
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.present())
    }
    fn draw_pixel(
        &mut self,
        p: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.draw_pixel(p, c))
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.draw_line(from, to, style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        ul: BackendCoord,
        br: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.draw_rect(ul, br, style, fill))
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.draw_path(path, style))
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.draw_circle(c, r, style, fill))
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.fill_polygon(vert, style))
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        match self {
            AnyBackend::Canvas(_, pen) => pen
                .text(text, style, pos)
                .map_err(|e| DrawingErrorKind::DrawingError(AnyError(e))),
            AnyBackend::Svg(b) => b.draw_text(text, style, pos).map_err(conv),
        }
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<AnyError>> {
        match self {
            AnyBackend::Canvas(..) => {
                let (w, h) = super::text::text_size(text, style.size());
                Ok((w as u32, h as u32))
            }
            AnyBackend::Svg(b) => b.estimate_text_size(text, style).map_err(conv),
        }
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<AnyError>> {
        both!(self, b => b.blit_bitmap(pos, size, src))
    }
}
