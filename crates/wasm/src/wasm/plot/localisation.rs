//! The localisation view of a localized heavy-tail run (Lowy 2026, Algorithm 1 with
//! Algorithm 4 or 2): in the (x₁, x₂) plane, W's circle, each call's localisation ball
//! W₀ = W ∩ B(w_loc, r₀) dashed, the noise each call drew (the realisation from the certified
//! point to the candidate, and a ring of radius E‖b‖ = d·β_t around the candidate: the public
//! scale, shrinking phase by phase), the candidates of each aggregation step (the one the median
//! trick picked filled), the centres w̄_t joined in order, and the release in red.
//!
//! Two panels: all of W on the left; on the right a zoom on the phases after the first, whose
//! noise is about twenty times smaller each (invisible at W's scale). Only the release is
//! private; the rest is computed from the raw data and labelled so.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::{
    Bounds, FONT, PALETTE, PlotError, RELEASE_COLOR, circle_points, clip_polyline, tick, titled,
};
use crate::algo::heavy_tails::localisation_view::{LocalSolver, LocalisationView, Planar};
use crate::plot_spec::localisation::{LocalisationSpec, Window};

/// Room for the tick labels and axis titles, in pixels.
const X_LABELS: u32 = 34;
const Y_LABELS: u32 = 46;
/// The noise realisations (certified point → candidate).
const NOISE_COLOR: RGBColor = RGBColor(120, 120, 120);

/// Phase t's colour (the palette in turn).
fn phase_color(t: usize) -> RGBColor {
    PALETTE[t.saturating_sub(1) % PALETTE.len()]
}

fn xy(p: Planar) -> (f64, f64) {
    (p[0], p[1])
}

/// The plot's bounds of a window.
fn bounds(w: Window) -> Bounds {
    Bounds {
        x: (w.centre[0] - w.half, w.centre[0] + w.half),
        y: (w.centre[1] - w.half, w.centre[1] + w.half),
    }
}

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &LocalisationSpec,
) -> Result<(), PlotError> {
    let v = &spec.view;
    let title = format!(
        "localisation (Lowy 2026, Algorithm 1 with Algorithm {}): non-private but the red release",
        v.algorithm
    );
    let area = titled(&root.margin(8, 8, 8, 8), &title, 14)?;
    let (w, h) = area.dim_in_pixel();
    let (plots, key) = area.split_vertically(h.saturating_sub(legend_height(v)));
    let whole = spec.whole();
    match spec.zoom() {
        Some(zoomed) => {
            let (left, right) = plots.split_horizontally(w / 2);
            panel(&left, spec, whole, "all of W")?;
            panel(&right, spec, zoomed, "zoom on the phases after the first")?;
        }
        None => panel(&plots, spec, whole, "all of W")?,
    }
    legend(&key, v)
}

/// One legend row's height, in pixels (two entries a row).
const LEGEND_ROW: u32 = 16;

/// What a legend entry's glyph looks like.
enum Glyph {
    Line(RGBColor, u32),
    Dashed(RGBColor),
    Ring(RGBColor),
    Dot(RGBColor),
    /// One short stroke in each phase colour.
    Palette,
}

/// The legend's entries for `v`'s algorithm, left column then right in turn: what a grid family
/// draws (its grid's ball, the draw on it) and what an ℓ2-Laplace draw leaves (its realisation,
/// its ring), each labelled public, non-private or private.
fn entries(v: &LocalisationView) -> Vec<(Glyph, String)> {
    let w = (
        Glyph::Line(BLACK, 1),
        format!("W, radius {}", tick(v.radius)),
    );
    let noise = (
        Glyph::Line(NOISE_COLOR, 1),
        "noise realisation (a raw-data diagnostic, not private)".to_string(),
    );
    let ring = (
        Glyph::Ring(PALETTE[0]),
        "noise ring E‖b‖ = d·β_t (public), shrinking by phase".to_string(),
    );
    let grid_draw = (
        Glyph::Line(PALETTE[0], 1),
        "grid draw: ball centre → point drawn (non-private)".to_string(),
    );
    let candidates = (
        Glyph::Dot(PALETTE[1]),
        "candidates (non-private); filled: picked".to_string(),
    );
    let centres = (
        Glyph::Line(BLACK, 2),
        "centres w̄_t in order, numbered by t (non-private)".to_string(),
    );
    let release = (Glyph::Dot(RELEASE_COLOR), "release (private)".to_string());
    let palette = (
        Glyph::Palette,
        "colour by phase t = 1, 2, 3, 4, 1, …".to_string(),
    );
    let ball = |text: &str| (Glyph::Dashed(PALETTE[0]), text.to_string());
    match v.algorithm {
        LocalSolver::EmPgm => vec![
            w,
            grid_draw,
            ball("grid ball W ∩ B(w̄_t, r_t) per phase (non-private)"),
            centres,
            candidates,
            palette,
            release,
        ],
        LocalSolver::ApproxEm => vec![
            w,
            noise,
            ball("grid ball W₀ = W ∩ B(w_loc, r₀) (non-private)"),
            ring,
            candidates,
            grid_draw,
            release,
            centres,
            palette,
        ],
        LocalSolver::DoubleOutputPerturbation | LocalSolver::OutputPertLocalise => vec![
            w,
            noise,
            ball("W₀ = W ∩ B(w_loc, r₀) per call (non-private)"),
            ring,
            candidates,
            centres,
            release,
            palette,
        ],
    }
}

/// The legend strip's height for `v`, in pixels.
fn legend_height(v: &LocalisationView) -> u32 {
    4 + LEGEND_ROW * entries(v).len().div_ceil(2) as u32
}

/// The legend, below both panels (inside a panel it would hide the balls).
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    v: &LocalisationView,
) -> Result<(), PlotError> {
    let (w, _) = area.dim_in_pixel();
    let column = (w * 11 / 25) as i32;
    let font = (FONT, 10).into_font();
    for (k, (glyph, text)) in entries(v).iter().enumerate() {
        let x = 8 + (k % 2) as i32 * column;
        let y = 8 + (k / 2) as i32 * LEGEND_ROW as i32;
        match glyph {
            Glyph::Line(c, width) => area.draw(&PathElement::new(
                vec![(x, y), (x + 18, y)],
                c.stroke_width(*width),
            ))?,
            Glyph::Dashed(c) => {
                area.draw(&DashedPathElement::new(vec![(x, y), (x + 18, y)], 4, 3, *c))?
            }
            Glyph::Ring(c) => area.draw(&Circle::new((x + 9, y), 5, c.stroke_width(1)))?,
            Glyph::Dot(c) => area.draw(&Circle::new((x + 9, y), 4, c.filled()))?,
            Glyph::Palette => {
                for (i, c) in PALETTE.iter().enumerate() {
                    let at = x + 5 * i as i32;
                    area.draw(&PathElement::new(
                        vec![(at, y), (at + 3, y)],
                        c.stroke_width(3),
                    ))?;
                }
            }
        }
        area.draw(&Text::new(text.as_str(), (x + 24, y - 6), font.clone()))?;
    }
    Ok(())
}

/// The axis titles: the first two coordinates, named so when d > 2.
fn axis_titles(d: usize) -> (String, String) {
    match d {
        1 => ("x₁ (d = 1)".into(), String::new()),
        2 => ("x₁".into(), "x₂".into()),
        _ => (format!("x₁ (first 2 of d = {d} coordinates)"), "x₂".into()),
    }
}

/// One panel over `b`.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    spec: &LocalisationSpec,
    window: Window,
    name: &str,
) -> Result<(), PlotError> {
    let v = &spec.view;
    let b = bounds(window);
    let area = titled(&area.margin(2, 2, 4, 4), name, 13)?;
    // A square plotting region, so that circles look round.
    let (w, h) = area.dim_in_pixel();
    let (pw, ph) = (w.saturating_sub(Y_LABELS), h.saturating_sub(X_LABELS));
    let (dx, dy) = (pw.saturating_sub(ph) / 2, ph.saturating_sub(pw) / 2);
    let area = area.margin(dy, dy, dx, dx);
    let (x_title, y_title) = axis_titles(v.d);
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(X_LABELS)
        .y_label_area_size(Y_LABELS)
        .build_cartesian_2d(b.x.0..b.x.1, b.y.0..b.y.1)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(4)
        .y_labels(5)
        .x_desc(x_title)
        .y_desc(y_title)
        .label_style((FONT, 11))
        .x_label_formatter(&|x| tick(*x))
        .y_label_formatter(&|y| tick(*y))
        .draw()?;

    // W.
    for piece in clip_polyline(circle_points((0.0, 0.0), v.radius), b) {
        chart.draw_series(LineSeries::new(piece, BLACK.stroke_width(1)))?;
    }
    // Each call's localisation ball, dashed in its phase's colour.
    for p in &v.phases {
        let c = phase_color(p.t);
        for centre in p.calls.iter().filter_map(|c| c.ball_centre) {
            for piece in clip_polyline(circle_points(xy(centre), p.ball_radius), b) {
                chart.draw_series(DashedLineSeries::new(piece, 5, 4, c.stroke_width(1)))?;
            }
        }
    }
    // The ℓ2-Laplace noise: its realisation (certified point → where it landed) and its public
    // scale, a ring of radius E‖b‖ = d·β_t around where it landed. A grid family's draw: from
    // its ball's centre to the grid point drawn.
    for p in &v.phases {
        let c = phase_color(p.t);
        for call in &p.calls {
            if let Some((from, to)) = v.laplace_draw(call) {
                for piece in clip_polyline([xy(from), xy(to)], b) {
                    chart.draw_series(LineSeries::new(piece, NOISE_COLOR.stroke_width(1)))?;
                }
                if let Some(ring) = p.noise_ring {
                    for piece in clip_polyline(circle_points(xy(to), ring), b) {
                        chart.draw_series(LineSeries::new(piece, c.mix(0.5).stroke_width(1)))?;
                    }
                }
            }
            if let Some((from, to)) = v.grid_draw(call) {
                for piece in clip_polyline([xy(from), xy(to)], b) {
                    chart.draw_series(LineSeries::new(piece, c.mix(0.6).stroke_width(1)))?;
                }
            }
        }
    }
    // The candidates of each aggregation step: hollow, the one picked filled.
    for p in &v.phases {
        let c = phase_color(p.t);
        for (j, call) in p.calls.iter().enumerate() {
            if let Some(at) = call.candidate.map(xy).filter(|&q| b.contains(q)) {
                let style = if p.picked == Some(j) {
                    c.filled()
                } else {
                    c.stroke_width(2)
                };
                chart.draw_series(std::iter::once(Circle::new(at, 4, style)))?;
            }
        }
    }
    // The centres in order, ending at the release, each numbered by its phase t.
    let centres: Vec<(f64, f64)> = spec.centres().into_iter().map(xy).collect();
    for piece in clip_polyline(centres.iter().copied(), b) {
        chart.draw_series(LineSeries::new(piece, BLACK.stroke_width(2)))?;
    }
    // Each centre a dot; its number where it fits (`LocalisationSpec::centre_labels`), the
    // phases too close to number named in a note instead of drawn over one another.
    let font = (FONT, 10).into_font();
    for q in v.phases.iter().filter_map(|p| p.centre.map(xy)) {
        if b.contains(q) {
            chart.draw_series(std::iter::once(Circle::new(q, 2, BLACK.filled())))?;
        }
    }
    let (pw, ph) = chart.plotting_area().dim_in_pixel();
    let labels = spec.centre_labels(window, f64::from(pw.min(ph)));
    for label in &labels.placed {
        let (dx, dy) = label.offset;
        chart.draw_series(std::iter::once(
            EmptyElement::at(xy(label.at))
                + Text::new(
                    label.t.to_string(),
                    (dx.round() as i32, dy.round() as i32),
                    font.clone(),
                ),
        ))?;
    }
    if let Some(note) = labels.note() {
        chart
            .plotting_area()
            .strip_coord_spec()
            .draw(&Text::new(note, (4, 4), font.clone()))?;
    }
    // The release, the only private point: red with a white edge.
    if let Some(r) = v.release.map(xy).filter(|&r| b.contains(r)) {
        chart.draw_series(std::iter::once(
            EmptyElement::at(r)
                + Circle::new((0, 0), 6, WHITE.filled())
                + Circle::new((0, 0), 5, RELEASE_COLOR.filled()),
        ))?;
    }
    Ok(())
}
