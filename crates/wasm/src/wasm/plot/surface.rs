//! One concrete drawing backend for every plot: a canvas or an SVG document, chosen at run time.
//!
//! Every plot function is generic over plotters' `DrawingBackend`, and plotters' charts, meshes
//! and series are generic over it too. Drawn on `CanvasBackend` and on `SVGBackend` directly,
//! each plot and all of plotters' chart code it uses were compiled twice into the wasm; drawn
//! on [`Surface`], once, with a `match` per drawing call (a few per mark: nothing beside the
//! canvas call itself). See docs/benchmarks.md, "Keeping the wasm small".

use plotters::prelude::SVGBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;

/// The page's canvas, or an SVG document written into a string.
pub(super) enum Surface<'a> {
    Canvas(CanvasBackend),
    Svg(SVGBackend<'a>),
}

/// A backend's error, as its message: the one thing [`super::PlotError`] keeps of it.
#[derive(Debug)]
pub(super) struct SurfaceError(String);

impl std::fmt::Display for SurfaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SurfaceError {}

/// The inner backend's error with its message unchanged (a font error passes as it is).
fn lift<E: std::error::Error + Send + Sync>(
    e: DrawingErrorKind<E>,
) -> DrawingErrorKind<SurfaceError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(SurfaceError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// Calls the same method on whichever backend this is, lifting its error.
macro_rules! each {
    ($self:expr, $b:ident => $call:expr) => {
        match $self {
            Surface::Canvas($b) => $call.map_err(lift),
            Surface::Svg($b) => $call.map_err(lift),
        }
    };
}

type Drawn = Result<(), DrawingErrorKind<SurfaceError>>;

impl DrawingBackend for Surface<'_> {
    type ErrorType = SurfaceError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Surface::Canvas(b) => b.get_size(),
            Surface::Svg(b) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Drawn {
        each!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Drawn {
        each!(self, b => b.present())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        each!(self, b => b.draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        each!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        each!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        each!(self, b => b.draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        each!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn {
        each!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Drawn {
        each!(self, b => b.draw_text(text, style, pos))
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<SurfaceError>> {
        each!(self, b => b.estimate_text_size(text, style))
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Drawn {
        each!(self, b => b.blit_bitmap(pos, size, src))
    }
}
