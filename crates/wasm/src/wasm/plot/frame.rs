//! What every plot shares around its drawing: a backend wrapper that draws at any scale and
//! records where each text landed, the title fitted to the width, and the context line of an
//! exported figure.
//!
//! [`Frame`] reports a logical size to plotters (the canvas's CSS-sized figure) while the
//! canvas underneath may be 2× or 3× as large under a scaling transform: a PNG for a slide is
//! drawn at that scale, its text and lines as sharp as the screen's, never upscaled pixels. It
//! also keeps the box of every text it drew ([`text_boxes`]), so a test can check that no text
//! of any plot runs off its canvas.

use std::cell::RefCell;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
// `BackendStyle` by path only: imported, its `stroke_width` would clash with `Color`'s.
use plotters_backend::{
    BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind, FontFamily, FontStyle,
    FontTransform,
};
use serde::Serialize;

use super::{FONT, PlotError};

/// Where one text was drawn, in logical pixels (its estimated box), and what it is: "legend"
/// (a row of the legend), "note" (a note inside the plotting area) or "" (a title, an axis's
/// name or tick label, anything else).
#[derive(Debug, Clone, Serialize)]
pub(super) struct TextBox {
    pub text: String,
    pub role: &'static str,
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// A mark a legend or a note must leave uncovered (w*, a release), by name, in logical pixels.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Mark {
    pub name: &'static str,
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// The texts and key marks of the last drawing and the logical size it was drawn at.
#[derive(Debug, Clone, Default, Serialize)]
pub(super) struct Drawn {
    pub width: u32,
    pub height: u32,
    pub texts: Vec<TextBox>,
    pub marks: Vec<Mark>,
}

/// A text as drawn: enough to measure it later. Measuring lays text out in the document, so
/// it is done only when asked ([`text_boxes`]), never while the page draws.
struct Recorded {
    text: String,
    family: String,
    size: f64,
    style: FontStyle,
    anchor: Pos,
    transform: FontTransform,
    pos: BackendCoord,
}

/// The texts of the last drawing, its logical size, the texts drawn as legend rows or notes
/// (by role) and its key marks.
#[derive(Default)]
struct Record {
    size: (u32, u32),
    texts: Vec<Recorded>,
    roles: Vec<(String, &'static str)>,
    marks: Vec<Mark>,
}

/// Notes that the texts `text` of the drawing under way are a legend row or a note (`role`).
pub(super) fn note_role(text: &str, role: &'static str) {
    LAST.with(|last| last.borrow_mut().roles.push((text.to_string(), role)));
}

/// Notes a key mark of the drawing under way: `name` over `[left, top, right, bottom]` logical
/// pixels.
pub(super) fn note_mark(name: &'static str, [left, top, right, bottom]: [i32; 4]) {
    LAST.with(|last| {
        last.borrow_mut().marks.push(Mark {
            name,
            left,
            top,
            right,
            bottom,
        })
    });
}

thread_local! {
    static LAST: RefCell<Record> = RefCell::new(Record::default());
}

/// The boxes of the texts of the last drawing (for the page's tests: every box must lie on the
/// canvas). A text the font code cannot measure is left out.
pub(super) fn text_boxes() -> Drawn {
    LAST.with(|last| {
        let last = last.borrow();
        let texts = last
            .texts
            .iter()
            .filter_map(|r| {
                let font = FontDesc::new(FontFamily::Name(&r.family), r.size, r.style);
                let size = font.box_size(&r.text).ok()?;
                let [left, top, right, bottom] = text_box(r.anchor, &r.transform, r.pos, size);
                let role = last
                    .roles
                    .iter()
                    .find(|(t, _)| *t == r.text)
                    .map_or("", |(_, role)| *role);
                Some(TextBox {
                    text: r.text.clone(),
                    role,
                    left,
                    top,
                    right,
                    bottom,
                })
            })
            .collect();
        Drawn {
            width: last.size.0,
            height: last.size.1,
            texts,
            marks: last.marks.clone(),
        }
    })
}

/// A backend drawn through at a logical `size`, recording every text it draws (a copy of the
/// text and its style: cheap beside drawing it).
pub(super) struct Frame<DB> {
    inner: DB,
    size: (u32, u32),
}

impl<DB: DrawingBackend> Frame<DB> {
    /// Draws on `inner` as if it were `size` pixels (the caller set any scaling transform), and
    /// starts a new record of texts.
    pub fn new(inner: DB, size: (u32, u32)) -> Self {
        LAST.with(|last| {
            *last.borrow_mut() = Record {
                size,
                ..Record::default()
            }
        });
        Frame { inner, size }
    }

    /// Draws on `inner` at its own size.
    pub fn native(inner: DB) -> Self {
        let size = inner.get_size();
        Self::new(inner, size)
    }
}

/// The box of a text of size `(w, h)` anchored at `pos`, after its rotation.
fn text_box(
    anchor: Pos,
    transform: &FontTransform,
    pos: BackendCoord,
    (w, h): (u32, u32),
) -> [i32; 4] {
    let (w, h) = (w as i32, h as i32);
    let x0 = match anchor.h_pos {
        HPos::Left => 0,
        HPos::Center => -w / 2,
        HPos::Right => -w,
    };
    let y0 = match anchor.v_pos {
        VPos::Top => 0,
        VPos::Center => -h / 2,
        VPos::Bottom => -h,
    };
    let (x1, y1) = (x0 + w, y0 + h);
    // The text's own box, turned about its anchor as the canvas turns it.
    let [l, t, r, b] = match transform {
        FontTransform::None => [x0, y0, x1, y1],
        FontTransform::Rotate90 => [-y1, x0, -y0, x1],
        FontTransform::Rotate180 => [-x1, -y1, -x0, -y0],
        FontTransform::Rotate270 => [y0, -x1, y1, -x0],
    };
    [pos.0 + l, pos.1 + t, pos.0 + r, pos.1 + b]
}

impl<DB: DrawingBackend> DrawingBackend for Frame<DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: plotters_backend::BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if style.color().alpha > 0.0 && !text.is_empty() {
            let recorded = Recorded {
                text: text.to_string(),
                family: style.family().as_str().to_string(),
                size: style.size(),
                style: style.style(),
                anchor: style.anchor(),
                transform: style.transform(),
                pos,
            };
            LAST.with(|last| last.borrow_mut().texts.push(recorded));
        }
        self.inner.draw_text(text, style, pos)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.inner.estimate_text_size(text, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }
}

/// Smallest title font: below it a title is broken in two lines rather than shrunk.
const MIN_TITLE: u32 = 11;

/// Whether `text` at `size` fits `width` pixels of `area`.
pub(super) fn fits<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: u32,
    width: u32,
) -> Result<bool, PlotError> {
    let (w, _) = area.estimate_text_size(text, &(FONT, size).into_font().into())?;
    Ok(w <= width)
}

/// Draws `text` as the title of `area`, centred on top, and returns the area below it. The
/// title is never cut: its font shrinks from `size` down to [`MIN_TITLE`] until it fits the
/// width, and a title still too wide is broken into two lines at the space nearest its middle.
pub(super) fn titled<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    size: u32,
) -> Result<DrawingArea<DB, Shift>, PlotError> {
    let (width, _) = area.dim_in_pixel();
    for s in (MIN_TITLE..=size.max(MIN_TITLE)).rev() {
        if fits(area, text, s, width)? {
            return Ok(area.titled(text, (FONT, s))?);
        }
    }
    let middle = text.chars().count() / 2;
    let split = text
        .char_indices()
        .filter(|(_, c)| *c == ' ')
        .min_by_key(|(i, _)| text[..*i].chars().count().abs_diff(middle))
        .map(|(i, _)| i);
    match split {
        Some(i) => {
            let rest = area.titled(&text[..i], (FONT, MIN_TITLE))?;
            Ok(rest.titled(&text[i + 1..], (FONT, MIN_TITLE))?)
        }
        None => Ok(area.titled(text, (FONT, MIN_TITLE))?),
    }
}

/// Font size of the context line.
const CONTEXT_FONT: u32 = 12;

/// `text` broken into lines that fit `width` pixels, at the ` · ` separators where it can and
/// at spaces where a part alone is too wide.
fn context_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    width: u32,
) -> Result<Vec<String>, PlotError> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for part in text.split(" · ") {
        let joined = if line.is_empty() {
            part.to_string()
        } else {
            format!("{line} · {part}")
        };
        if fits(area, &joined, CONTEXT_FONT, width)? {
            line = joined;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        // A part too wide on its own: word by word.
        for word in part.split(' ') {
            let joined = if line.is_empty() {
                word.to_string()
            } else {
                format!("{line} {word}")
            };
            if line.is_empty() || fits(area, &joined, CONTEXT_FONT, width)? {
                line = joined;
            } else {
                lines.push(std::mem::replace(&mut line, word.to_string()));
            }
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    Ok(lines)
}

/// Draws the context line of an exported figure (the run's settings: see
/// [`crate::figure::context::caption`]) along the bottom of `root`, in as many lines as its
/// width needs, over a thin rule, and returns the area above it for the plot.
pub(super) fn with_context<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    text: &str,
) -> Result<DrawingArea<DB, Shift>, PlotError> {
    let (w, h) = root.dim_in_pixel();
    let pad = 8;
    let lines = context_lines(root, text, w.saturating_sub(2 * pad))?;
    let line_height = CONTEXT_FONT as i32 + 4;
    let strip = line_height * lines.len() as i32 + pad as i32;
    let (plot, bottom) = root.split_vertically(h as i32 - strip);
    bottom.draw(&PathElement::new(
        vec![(pad as i32, 1), (w as i32 - pad as i32, 1)],
        RGBColor(200, 200, 200).stroke_width(1),
    ))?;
    let style = (FONT, CONTEXT_FONT)
        .into_font()
        .color(&RGBColor(60, 60, 60))
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (k, line) in lines.iter().enumerate() {
        bottom.draw_text(line, &style, (w as i32 / 2, 4 + line_height * k as i32))?;
    }
    Ok(plot)
}
