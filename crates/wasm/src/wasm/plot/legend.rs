//! A plot's legend fitted to its plotting area: each entry's text broken into rows no wider than
//! the area leaves (a legend is never cut at the canvas's edge nor pushed over the axis labels),
//! at the width and in the corner that cover the fewest drawn points and none of the key marks
//! (w*, a release): a narrower, taller legend often fits a corner the data leave free. Notes go
//! to a corner the legend leaves free.
//!
//! plotters draws one legend row per labelled series; the legend's entries are labelled on empty
//! series once their rows are known, a continuation row with no mark.

use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::DrawingAreaErrorKind;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_backend::BackendCoord;

use super::{FONT, PlotError, frame};
use crate::figure::legend::{
    Corner, corner_cost, fit_rows, least_covered_corner, legend_box, overlap,
};

/// The legend's font size.
const FONT_PX: u32 = 12;
/// plotters' room for an entry's mark, left of its text.
const MARK_ROOM: i32 = 30;
/// plotters' margin inside the legend's frame.
const MARGIN: i32 = 10;
/// plotters' gap between the legend's frame and the plotting area's edges.
const EDGE: i32 = 5;
/// The notes' font size and line step.
const NOTE_PX: u32 = 11;
const NOTE_STEP: i32 = 14;

/// An entry's mark, drawn on the plotting area at its first row's left middle.
type Glyph<'a, DB> = Box<
    dyn Fn(
            &DrawingArea<DB, Shift>,
            BackendCoord,
        ) -> Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>
        + 'a,
>;

/// The legend of one chart, collected entry by entry as the series are drawn.
pub(super) struct Legend<'a, DB: DrawingBackend> {
    entries: Vec<(String, Glyph<'a, DB>)>,
    /// Boxes (plotting-area pixels) the legend must not cover: key marks.
    keep_clear: Vec<[f64; 4]>,
}

fn text_width<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    text: &str,
    size: u32,
) -> Result<f64, PlotError> {
    let (w, _) = area.estimate_text_size(text, &(FONT, size).into_font().into())?;
    Ok(f64::from(w))
}

/// The plotting area's size in pixels.
fn area_size<DB: DrawingBackend, X: Ranged, Y: Ranged>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
) -> (f64, f64) {
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    (f64::from(xr.end - xr.start), f64::from(yr.end - yr.start))
}

/// A legend laid out: each entry's rows, and the frame's size.
type Layout = (Vec<Vec<String>>, (f64, f64));

/// The widths tried for a legend's text, as shares of the most the plotting area leaves.
const ROOMS: [f64; 4] = [1.0, 0.75, 0.55, 0.4];
/// The narrowest a legend's text is made, in pixels.
const LEAST_ROOM: f64 = 110.0;

/// The size of a legend frame holding `rows`, as plotters draws it.
fn frame_size<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[String],
) -> Result<(f64, f64), PlotError> {
    let mut widest = 0.0f64;
    for row in rows {
        widest = widest.max(text_width(area, row, FONT_PX)?);
    }
    // plotters steps rows by 1.25 × the font size; the last row is its text's height.
    let step = (1.25 * f64::from(FONT_PX)).round();
    let height = step * (rows.len().saturating_sub(1)) as f64 + f64::from(FONT_PX) + 4.0;
    Ok((
        widest + f64::from(MARK_ROOM + 2 * MARGIN),
        height + f64::from(2 * MARGIN),
    ))
}

/// The legend's rows at each width of [`ROOMS`] for a plotting area `width` pixels wide, each
/// with its frame's size. Generic over the backend only (one copy in the wasm).
fn layouts<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    labels: &[&str],
    width: f64,
) -> Result<Vec<Layout>, PlotError> {
    let most = (width - f64::from(2 * EDGE + MARK_ROOM + 2 * MARGIN)).max(60.0);
    let mut out: Vec<Layout> = Vec::new();
    for share in ROOMS {
        let room = (most * share).max(LEAST_ROOM.min(most));
        let rows = labels
            .iter()
            .map(|l| fit_rows(l, room, |t| text_width(area, t, FONT_PX)))
            .collect::<Result<Vec<_>, _>>()?;
        if out.iter().any(|(r, _)| *r == rows) {
            continue;
        }
        let size = frame_size(area, &rows.concat())?;
        out.push((rows, size));
    }
    Ok(out)
}

impl<'a, DB: DrawingBackend + 'a> Legend<'a, DB> {
    pub fn new<X: Ranged, Y: Ranged>(_chart: &ChartContext<'a, DB, Cartesian2d<X, Y>>) -> Self {
        Legend {
            entries: Vec::new(),
            keep_clear: Vec::new(),
        }
    }

    /// Adds an entry `label` with its mark `glyph` (drawn at the row's left middle). An empty
    /// label adds nothing.
    pub fn entry<E, F>(&mut self, label: &str, glyph: F)
    where
        E: Drawable<DB>,
        for<'b> &'b E: PointCollection<'b, BackendCoord>,
        F: Fn(BackendCoord) -> E + 'a,
    {
        if !label.trim().is_empty() {
            self.entries.push((
                label.to_string(),
                Box::new(move |area, p| area.draw(&glyph(p))),
            ));
        }
    }

    /// A key mark at data point `p`, `radius` pixels around: the legend leaves it uncovered
    /// (unless every corner covers one), and the page's tests check it (`plotTextBoxes`).
    pub fn key_mark<X, Y>(
        &mut self,
        chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
        name: &'static str,
        p: (f64, f64),
        radius: i32,
    ) where
        X: Ranged<ValueType = f64>,
        Y: Ranged<ValueType = f64>,
    {
        let (x, y) = chart.backend_coord(&p);
        let (x0, y0) = chart.plotting_area().get_base_pixel();
        frame::note_mark(name, [x - radius, y - radius, x + radius, y + radius]);
        let (x, y, r) = (f64::from(x - x0), f64::from(y - y0), f64::from(radius));
        self.keep_clear.push([x - r, y - r, x + r, y + r]);
    }

    /// Draws the legend (when it has entries) at the width and in the corner where it covers
    /// the fewest of `drawn` (plotting-area pixels) and no key mark, the widest on a tie, with
    /// `border`; returns its box in plotting-area pixels.
    pub fn draw<X, Y>(
        self,
        chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
        drawn: &[(f64, f64)],
        border: RGBColor,
    ) -> Result<Option<[f64; 4]>, PlotError>
    where
        X: Ranged<ValueType = f64>,
        Y: Ranged<ValueType = f64>,
    {
        if self.entries.is_empty() {
            return Ok(None);
        }
        let area = area_size(chart);
        let labels: Vec<&str> = self.entries.iter().map(|(l, _)| l.as_str()).collect();
        // The least cost, its layout and corner.
        let mut best: Option<(usize, Layout, Corner)> = None;
        for (rows, size) in layouts(&chart.plotting_area().strip_coord_spec(), &labels, area.0)? {
            // A legend taller than the plot is no choice while a shorter one is.
            if best.is_some() && size.1 > area.1 - f64::from(2 * EDGE) {
                continue;
            }
            let corner = least_covered_corner(drawn, &self.keep_clear, area, size);
            let cost = corner_cost(drawn, &self.keep_clear, area, size, corner);
            if best.as_ref().is_none_or(|b| cost < b.0) {
                best = Some((cost, (rows, size), corner));
            }
        }
        let Some((_, (rows, size), corner)) = best else {
            return Ok(None);
        };
        let placed = legend_box(corner, area, size);
        let (left, top) = (placed[0].round() as i32, placed[1].round() as i32);
        // plotters draws the rows (text only) in its frame at (left, top); each entry's mark is
        // drawn after, at its first row's left middle as plotters would place it.
        let plot = chart.plotting_area().strip_coord_spec();
        let step = 1.25 * f64::from(FONT_PX);
        let mut marks: Vec<(Glyph<'a, DB>, BackendCoord)> = Vec::new();
        let mut k = 0usize;
        for ((_, glyph), rows) in self.entries.into_iter().zip(rows) {
            let mut glyph = Some(glyph);
            for row in rows {
                if let Some(glyph) = glyph.take() {
                    let font = (FONT, FONT_PX).into_font().into();
                    let (_, h) = plot.estimate_text_size(&row, &font)?;
                    let y = top + MARGIN + (k as f64 * step).round() as i32 + h as i32 / 2;
                    marks.push((glyph, (left + MARGIN, y)));
                }
                frame::note_role(&row, "legend");
                chart
                    .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                    .label(row);
                k += 1;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::Coordinate(left, top))
            .background_style(WHITE.mix(0.85))
            .border_style(border)
            .label_font((FONT, FONT_PX))
            .draw()?;
        for (glyph, at) in marks {
            glyph(&plot, at)?;
        }
        Ok(Some(placed))
    }
}

/// The box of `notes` stacked in `corner` of the plotting area (its pixels), 6 px in from the
/// sides and 4 px from the top or bottom.
fn notes_box<DB: DrawingBackend, X, Y>(
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    notes: &[&str],
    corner: Corner,
) -> Result<Option<[f64; 4]>, PlotError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    if notes.is_empty() {
        return Ok(None);
    }
    let area = chart.plotting_area().strip_coord_spec();
    let mut widest = 0.0f64;
    for note in notes {
        widest = widest.max(text_width(&area, note, NOTE_PX)?);
    }
    let height = f64::from(NOTE_STEP) * notes.len() as f64;
    let (w, h) = area_size(chart);
    let left = match corner {
        Corner::UpperLeft | Corner::LowerLeft => 6.0,
        Corner::UpperRight | Corner::LowerRight => w - 6.0 - widest,
    };
    let top = match corner {
        Corner::UpperLeft | Corner::UpperRight => 4.0,
        Corner::LowerLeft | Corner::LowerRight => h - 4.0 - height,
    };
    Ok(Some([left, top, left + widest, top + height]))
}

/// Draws `notes` (one a row) on a light ground in the corner of the plotting area that covers
/// the fewest of `drawn` (plotting-area pixels) among those the `legend` box leaves free, the
/// lower left on a tie: a note under the legend, or over a line, cannot be read.
pub(super) fn draw_notes<DB: DrawingBackend, X, Y>(
    root: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<X, Y>>,
    notes: &[&str],
    legend: Option<[f64; 4]>,
    drawn: &[(f64, f64)],
) -> Result<(), PlotError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let order = [
        Corner::LowerLeft,
        Corner::LowerRight,
        Corner::UpperLeft,
        Corner::UpperRight,
    ];
    let mut placed: Option<([f64; 4], usize)> = None;
    for corner in order {
        let Some(b) = notes_box(chart, notes, corner)? else {
            return Ok(());
        };
        if legend.is_some_and(|l| overlap(&l, &b)) {
            continue;
        }
        let covered = drawn
            .iter()
            .filter(|(x, y)| *x >= b[0] && *x <= b[2] && *y >= b[1] && *y <= b[3])
            .count();
        if placed.is_none_or(|(_, least)| covered < least) {
            placed = Some((b, covered));
        }
    }
    let Some([left, top, right, bottom]) =
        placed
            .map(|(b, _)| b)
            .or(notes_box(chart, notes, Corner::LowerLeft)?)
    else {
        return Ok(());
    };
    // From the plotting area's pixels to `root`'s.
    let (ax, ay) = chart.plotting_area().get_base_pixel();
    let (rx, ry) = root.get_base_pixel();
    let style = (FONT, NOTE_PX)
        .into_font()
        .color(&RGBColor(90, 90, 90))
        .pos(Pos::new(HPos::Left, VPos::Top));
    let at = |x: f64, y: f64| (ax - rx + x as i32, ay - ry + y as i32);
    root.draw(&Rectangle::new(
        [at(left - 2.0, top - 1.0), at(right + 2.0, bottom + 1.0)],
        WHITE.mix(0.6).filled(),
    ))?;
    for (k, note) in notes.iter().enumerate() {
        frame::note_role(note, "note");
        root.draw_text(
            note,
            &style,
            (
                ax - rx + left as i32,
                ay - ry + top as i32 + NOTE_STEP * k as i32,
            ),
        )?;
    }
    Ok(())
}
