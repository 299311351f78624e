//! The parameter view: loss contours, the domain boundary, the non-private paths, w* with its
//! sensitivity ball, and the released points (the noise cloud over repeats).

use std::cell::RefCell;
use std::rc::Rc;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::legend::Legend;
use super::{
    Bounds, FONT, PINNED_ALPHA, PlotError, RELEASE_COLOR, circle_points, clip_polyline, color,
    faded, pairs, px, thin, tick, titled,
};
use crate::figure::legend::{first_of_each, release_label};
use crate::figure::{BANDS, Fill, contour_fills};
use crate::plot_spec::path::{DomainShape, PathSpec, grid_res};
use crate::plot_spec::pinned::hold_view;

/// The view [−extent, extent]² around the spec's centre.
fn bounds(spec: &PathSpec) -> Bounds {
    let [cx, cy] = spec.center;
    Bounds {
        x: (cx - spec.extent, cx + spec.extent),
        y: (cy - spec.extent, cy + spec.extent),
    }
}

/// The view drawn: the current run's, held over the pinned runs' views (the same data give the
/// same view; a pin on other data widens it to show both).
pub(super) fn axes(spec: &PathSpec) -> Bounds {
    let pinned = spec.pinned.iter().map(|p| (p.center, p.extent));
    let ([cx, cy], e) = hold_view((spec.center, spec.extent), pinned);
    Bounds {
        x: (cx - e, cx + e),
        y: (cy - e, cy + e),
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
    let b = axes(spec);
    let area = titled(
        &root.margin(12, 12, 12, 12),
        "parameter view (lines non-private; red dots: private releases)",
        15,
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
        // The grid spans the current run's own view, whatever view the pins hold.
        chart.draw_series(contour_polygons(grid, bounds(spec)))?;
    }

    for piece in clip_polyline(domain_outline(&spec.domain), b) {
        chart.draw_series(LineSeries::new(piece, BLACK.stroke_width(1)))?;
    }

    let mut legend = Legend::new(&chart);
    // Pinned runs under the current one, faded: their paths, and their releases ringed in a
    // faded red (private outputs of an earlier run).
    for pin in &spec.pinned {
        let c = faded(pin.color);
        let mut labelled = false;
        for piece in clip_polyline(pairs(&pin.path), b) {
            let piece = thin(&chart, piece);
            chart.draw_series(LineSeries::new(piece, c.stroke_width(1)))?;
            if !labelled {
                legend.entry(&pin.label, move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                });
                labelled = true;
            }
        }
        let inside: Vec<(f64, f64)> = pairs(&pin.releases).filter(|&p| b.contains(p)).collect();
        chart.draw_series(inside.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        let ring = RELEASE_COLOR.mix(PINNED_ALPHA);
        chart.draw_series(
            inside
                .iter()
                .map(|&p| Circle::new(p, 5, ring.stroke_width(2))),
        )?;
        if !labelled && !inside.is_empty() {
            legend.entry(&pin.label, move |(x, y)| {
                EmptyElement::at((x + 10, y))
                    + Circle::new((0, 0), 4, c.filled())
                    + Circle::new((0, 0), 5, ring.stroke_width(2))
            });
        }
    }

    // Each legend text once: a path and a release are named apart ("DP-GD", "DP-GD release
    // (private)"), and a label repeated by the caller is not listed twice.
    let release_labels: Vec<String> = spec
        .releases
        .iter()
        .map(|l| {
            if l.label.is_empty() {
                String::new()
            } else {
                release_label(&l.label)
            }
        })
        .collect();
    let texts: Vec<&str> = spec
        .paths
        .iter()
        .map(|l| l.label.as_str())
        .chain(release_labels.iter().map(String::as_str))
        .collect();
    let listed = first_of_each(&texts);
    let (path_listed, release_listed) = listed.split_at(spec.paths.len());

    for (layer, &list) in spec.paths.iter().zip(path_listed) {
        let c = color(layer.color);
        let mut labelled = !list;
        for piece in clip_polyline(pairs(&layer.xy), b) {
            let piece = thin(&chart, piece);
            chart.draw_series(LineSeries::new(piece, c.stroke_width(1)))?;
            if !labelled && !layer.label.is_empty() {
                legend.entry(&layer.label, move |(x, y)| {
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

    // The ball only where it can be seen, and named in the legend only then (a caption that
    // names a ball nobody can find misleads).
    let pixels_per_unit = {
        let (x0, _) = chart.backend_coord(&(b.x.0, b.y.0));
        let (x1, _) = chart.backend_coord(&(b.x.1, b.y.0));
        f64::from(x1 - x0) / (b.x.1 - b.x.0)
    };
    if let (Some(w), Some(r)) = (spec.w_star, spec.sensitivity_radius)
        && spec.ball_visible(pixels_per_unit)
    {
        for (k, piece) in clip_polyline(circle_points((w[0], w[1]), r), b)
            .into_iter()
            .enumerate()
        {
            chart.draw_series(DashedLineSeries::new(piece, 5, 4, BLACK.stroke_width(1)))?;
            if k == 0 {
                legend.entry("sensitivity ball (dashed)", |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 20, y)], 4, 3, BLACK.stroke_width(1))
                });
            }
        }
    }
    if let Some(w) = spec.w_star {
        let w = (w[0], w[1]);
        if b.contains(w) {
            chart.draw_series(std::iter::once(Cross::new(w, 6, BLACK.stroke_width(2))))?;
            legend.entry("w* (non-private)", |(x, y)| {
                Cross::new((x + 10, y), 5, BLACK.stroke_width(2))
            });
            legend.key_mark(&chart, "w*", w, 8);
        }
    }

    let compared = spec.releases.len() > 1;
    for ((layer, label), &list) in spec
        .releases
        .iter()
        .zip(&release_labels)
        .zip(release_listed)
    {
        // Red marks what is private, on every plot: a red dot with a white edge, which stands
        // out on the blue contours (a dot in the algorithm's blue did not). Compared
        // algorithms' releases keep a ring in their colour to tell them apart.
        let ring = if compared {
            color(layer.color).stroke_width(2)
        } else {
            TRANSPARENT.stroke_width(0)
        };
        let inside: Vec<(f64, f64)> = pairs(&layer.xy).filter(|&p| b.contains(p)).collect();
        chart.draw_series(inside.iter().map(|&p| Circle::new(p, 6, ring)))?;
        chart.draw_series(inside.iter().map(|&p| Circle::new(p, 5, WHITE.filled())))?;
        chart.draw_series(
            inside
                .iter()
                .map(|&p| Circle::new(p, 4, RELEASE_COLOR.filled())),
        )?;
        if list && !inside.is_empty() {
            legend.entry(label, move |(x, y)| {
                EmptyElement::at((x + 10, y))
                    + Circle::new((0, 0), 6, ring)
                    + Circle::new((0, 0), 5, WHITE.filled())
                    + Circle::new((0, 0), 4, RELEASE_COLOR.filled())
            });
        }
        // A single release is what the reader looks for: the legend leaves it uncovered (a
        // cloud of repeats is data, weighed point by point).
        if let [p] = inside[..] {
            legend.key_mark(&chart, "release", p, 8);
        }
    }

    let labelled = spec
        .paths
        .iter()
        .chain(&spec.releases)
        .any(|l| !l.label.is_empty());
    if labelled || spec.w_star.is_some() || !spec.pinned.is_empty() {
        // The legend goes where it hides the fewest of the paths, releases and w*.
        let drawn: Vec<(f64, f64)> = spec
            .paths
            .iter()
            .chain(&spec.releases)
            .flat_map(|l| pairs(&l.xy))
            .chain(spec.w_star.map(|w| (w[0], w[1])))
            .filter(|&p| b.contains(p))
            .map(|p| px(&chart, p))
            .collect();
        legend.draw(&mut chart, &drawn, RGBColor(200, 200, 200))?;
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

/// F's bands as filled polygons ([`contour_fills`]: smooth level curves whatever the grid's
/// resolution), dark near the minimum, light far away; every other band a shade lighter, so
/// neighbouring bands read apart.
fn contour_polygons(grid: &[f64], b: Bounds) -> Vec<Polygon<(f64, f64)>> {
    cached_fills(grid, b)
        .iter()
        .cloned()
        .map(|fill| {
            let odd = if fill.band % 2 == 1 { 0.03 } else { 0.0 };
            let t = fill.band as f64 / (BANDS - 1) as f64 + odd;
            Polygon::new(fill.outline, contour_color(t).filled())
        })
        .collect()
}

/// The fills of one grid over one view.
struct CachedFills {
    grid: Vec<f64>,
    view: [f64; 4],
    fills: Rc<Vec<Fill>>,
}

thread_local! {
    /// The last grid's fills: a run's grid is fixed while the view is redrawn on every batch,
    /// and tracing the curves costs more than comparing the grid.
    static LAST_FILLS: RefCell<Option<CachedFills>> = const { RefCell::new(None) };
}

/// [`contour_fills`] of `grid` over `b`, computed once per grid and view.
fn cached_fills(grid: &[f64], b: Bounds) -> Rc<Vec<Fill>> {
    let view = [b.x.0, b.x.1, b.y.0, b.y.1];
    LAST_FILLS.with(|last| {
        let mut last = last.borrow_mut();
        if let Some(cached) = last.as_ref()
            && cached.grid.as_slice() == grid
            && cached.view == view
        {
            return Rc::clone(&cached.fills);
        }
        let fills = Rc::new(contour_fills(grid, grid_res(grid), b.x, b.y));
        *last = Some(CachedFills {
            grid: grid.to_vec(),
            view,
            fills: Rc::clone(&fills),
        });
        fills
    })
}

/// Deep blue at the minimum (t = 0) to near-white far from it (t = 1).
fn contour_color(t: f64) -> RGBColor {
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(lerp(74.0, 246.0), lerp(125.0, 249.0), lerp(186.0, 255.0))
}
