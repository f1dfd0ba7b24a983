//! One drawing backend type for every chart: a canvas (on screen) or an SVG
//! document (export). Render functions are written once against [`AnyBackend`], so
//! each is compiled once instead of once per backend (a smaller .wasm), and the
//! SVG export is by construction the same drawing code as the screen.

use plotters::prelude::SVGBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;

pub enum AnyBackend<'a> {
    Canvas(CanvasBackend),
    Svg(SVGBackend<'a>),
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
            AnyBackend::Canvas($b) => $e.map_err(conv),
            AnyBackend::Svg($b) => $e.map_err(conv),
        }
    };
}

impl DrawingBackend for AnyBackend<'_> {
    type ErrorType = AnyError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            AnyBackend::Canvas(b) => b.get_size(),
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
        both!(self, b => b.draw_text(text, style, pos))
    }
    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<AnyError>> {
        both!(self, b => b.estimate_text_size(text, style))
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
