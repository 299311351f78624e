//! The parameter view: loss contours, the domain boundary, the non-private paths, w* with its
//! sensitivity ball, and the released points (the noise cloud over repeats).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    Bounds, FONT, PlotError, RELEASE_COLOR, circle_points, clip_polyline, color, pairs, thin, tick,
};
use crate::plot_spec::path::{DomainShape, PathSpec, grid_res};

/// The view [−extent, extent]² around the spec's centre.
fn bounds(spec: &PathSpec) -> Bounds {
    let [cx, cy] = spec.center;
    Bounds {
        x: (cx - spec.extent, cx + spec.extent),
        y: (cy - spec.extent, cy + spec.extent),
    }
}

/// Room for the x and y tick labels and axis titles, in pixels.
const X_LABELS: u32 = 36;
const Y_LABELS: u32 = 48;

/// The part of `area` whose plotting region (after the label areas) is square, centred: a circle
/// in the plane must look round, whatever the canvas's shape.
fn square<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> DrawingArea<DB, Shift> {
    let (w, h) = area.dim_in_pixel();
    let (pw, ph) = (w.saturating_sub(Y_LABELS), h.saturating_sub(X_LABELS));
    let (dx, dy) = (pw.saturating_sub(ph) / 2, ph.saturating_sub(pw) / 2);
    area.margin(dy, dy, dx, dx)
}

/// At most this many markers per path: a long run's 4000 iterates would otherwise bury the line.
const MAX_MARKERS: usize = 60;

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &PathSpec,
) -> Result<(), PlotError> {
    let b = bounds(spec);
    let area = root.margin(12, 12, 12, 12).titled(
        "parameter view (lines non-private; red rings: private releases)",
        (FONT, 15),
    )?;
    let mut chart = ChartBuilder::on(&square(&area))
        .x_label_area_size(X_LABELS)
        .y_label_area_size(Y_LABELS)
        .build_cartesian_2d(b.x.0..b.x.1, b.y.0..b.y.1)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(spec.axis_labels[0].as_str())
        .y_desc(spec.axis_labels[1].as_str())
        .label_style((FONT, 12))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .draw()?;

    if let Some(grid) = &spec.grid {
        chart.draw_series(contour_cells(grid, b))?;
    }

    for piece in clip_polyline(domain_outline(&spec.domain), b) {
        chart.draw_series(LineSeries::new(piece, BLACK.stroke_width(1)))?;
    }

    for layer in &spec.paths {
        let c = color(layer.color);
        let mut labelled = false;
        for piece in clip_polyline(pairs(&layer.xy), b) {
            let piece = thin(&chart, piece);
            let series = chart.draw_series(LineSeries::new(piece, c.stroke_width(1)))?;
            if !labelled && !layer.label.is_empty() {
                series.label(layer.label.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
                labelled = true;
            }
        }
        let points: Vec<(f64, f64)> = pairs(&layer.xy).collect();
        let every = points.len().div_ceil(MAX_MARKERS).max(1);
        let markers = points
            .iter()
            .enumerate()
            .filter(|(i, _)| i % every == 0 || *i + 1 == points.len())
            .map(|(_, &p)| p)
            .filter(|&p| b.contains(p))
            .map(|p| Circle::new(p, 2, c.filled()));
        chart.draw_series(markers)?;
    }

    if let (Some(w), Some(r)) = (spec.w_star, spec.sensitivity_radius) {
        for piece in clip_polyline(circle_points((w[0], w[1]), r), b) {
            chart.draw_series(DashedLineSeries::new(piece, 5, 4, BLACK.stroke_width(1)))?;
        }
    }
    if let Some(w) = spec.w_star {
        let w = (w[0], w[1]);
        if b.contains(w) {
            chart
                .draw_series(std::iter::once(Cross::new(w, 6, BLACK.stroke_width(2))))?
                .label("w* (non-private)")
                .legend(|(x, y)| Cross::new((x + 10, y), 5, BLACK.stroke_width(2)));
        }
    }

    for layer in &spec.releases {
        let c = color(layer.color);
        let inside: Vec<(f64, f64)> = pairs(&layer.xy).filter(|&p| b.contains(p)).collect();
        // A filled dot in the algorithm's colour inside a red ring: red marks what is private.
        chart.draw_series(inside.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        let rings = chart.draw_series(
            inside
                .iter()
                .map(|&p| Circle::new(p, 5, RELEASE_COLOR.stroke_width(2))),
        )?;
        if !layer.label.is_empty() && !inside.is_empty() {
            rings.label(layer.label.clone()).legend(move |(x, y)| {
                EmptyElement::at((x + 10, y))
                    + Circle::new((0, 0), 4, c.filled())
                    + Circle::new((0, 0), 5, RELEASE_COLOR.stroke_width(2))
            });
        }
    }

    let labelled = spec
        .paths
        .iter()
        .chain(&spec.releases)
        .any(|l| !l.label.is_empty());
    if labelled || spec.w_star.is_some() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .label_font((FONT, 12))
            .draw()?;
    }
    Ok(())
}

/// The boundary as a closed polyline (NaN breaks where it is not one line).
fn domain_outline(domain: &DomainShape) -> Vec<(f64, f64)> {
    match domain {
        DomainShape::L2Ball { radius } => circle_points((0.0, 0.0), *radius),
        DomainShape::L1Ball { radius } => {
            let r = *radius;
            vec![(r, 0.0), (0.0, r), (-r, 0.0), (0.0, -r), (r, 0.0)]
        }
        DomainShape::Box { lo, hi } => {
            vec![(*lo, *lo), (*hi, *lo), (*hi, *hi), (*lo, *hi), (*lo, *lo)]
        }
        DomainShape::Simplex => vec![(1.0, 0.0), (0.0, 1.0)],
        DomainShape::Polyline { xy } => {
            let mut v: Vec<(f64, f64)> = pairs(xy).collect();
            if let Some(&first) = v.first() {
                v.push(first);
            }
            v
        }
        DomainShape::None => Vec::new(),
    }
}

/// Shades each grid cell by the quantile of F there: dark near the minimum, light far away.
/// Bands of equal area (quantiles of F on the grid) give even contours whatever the loss's
/// scale; non-finite cells are left blank. Neighbouring cells of a row in the same band are one
/// rectangle: a 72 × 72 grid is then a few hundred fills instead of 5184.
fn contour_cells(grid: &[f64], b: Bounds) -> Vec<Rectangle<(f64, f64)>> {
    const BANDS: f64 = 12.0;
    let res = grid_res(grid);
    let mut sorted: Vec<f64> = grid.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let quantile = |v: f64| sorted.partition_point(|&u| u < v) as f64 / sorted.len() as f64;
    // Discrete bands read as contour lines; None for a blank cell.
    let band = |v: f64| {
        v.is_finite()
            .then(|| (quantile(v) * BANDS).floor().min(BANDS - 1.0))
    };
    let step = (b.x.1 - b.x.0) / (res - 1) as f64;
    let half = step / 2.0;
    let mut cells = Vec::new();
    for i in 0..res {
        let row = &grid[i * res..(i + 1) * res];
        let y = b.y.0 + i as f64 * step;
        let mut j = 0;
        while j < res {
            let start = j;
            let this = band(row[j]);
            while j < res && band(row[j]) == this {
                j += 1;
            }
            let Some(k) = this else { continue };
            // Odd bands are a shade lighter to separate them.
            let odd = if k as i64 % 2 == 1 { 0.03 } else { 0.0 };
            let (x0, x1) = (b.x.0 + start as f64 * step, b.x.0 + (j - 1) as f64 * step);
            // Edge cells are cut at the view, not drawn over the axes.
            cells.push(Rectangle::new(
                [
                    ((x0 - half).max(b.x.0), (y - half).max(b.y.0)),
                    ((x1 + half).min(b.x.1), (y + half).min(b.y.1)),
                ],
                contour_color(k / (BANDS - 1.0) + odd).filled(),
            ));
        }
    }
    cells
}

/// Deep blue at the minimum (t = 0) to near-white far from it (t = 1).
fn contour_color(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(lerp(74.0, 246.0), lerp(125.0, 249.0), lerp(186.0, 255.0))
}
