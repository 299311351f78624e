//! Excess empirical risk against gradient evaluations (log-log): the mean over repeats with its
//! band, per algorithm, and each algorithm's theory bound dashed. A sweep draws the same plot
//! against ε or n (its axis labels are the spec's).

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::{
    Bounds, FONT, GRID_COLOR, PlotError, at_least_a_decade, clip_polyline_loglog, color, draw_axes,
    faded, finite_range, log_axis, thin, titled,
};
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::figure::{BandPiece, band_floor, band_pieces, clamp_lower_edge, log_tick_label};
use crate::plot_spec::Floats;
use crate::plot_spec::excess::{ExcessSpec, Series};

/// A loose bound may sit orders of magnitude above the data; the y axis stops this many times
/// above the data's maximum so the measured curves stay readable.
const THEORY_CLAMP: f64 = 1e3;

fn positive(v: f64) -> bool {
    v > 0.0
}

/// The axes' ranges: x over data and theory; y over data and band, and over the theory up to
/// [`THEORY_CLAMP`] × the data's maximum; each at least a decade.
fn ranges(series: &[Series]) -> Bounds {
    let xs = series
        .iter()
        .flat_map(|s| s.x.iter().chain(s.theory_x.iter()).copied());
    let x = finite_range(xs, positive).unwrap_or((1.0, 10.0));
    let data = finite_range(
        series.iter().flat_map(|s| {
            let valid = |i: usize| s.x[i] > 0.0;
            (0..s.x.len())
                .filter(move |&i| valid(i))
                .flat_map(move |i| {
                    [Some(s.mean[i]), s.lo.get(i).copied(), s.hi.get(i).copied()]
                        .into_iter()
                        .flatten()
                })
        }),
        positive,
    );
    let theory = finite_range(
        series.iter().flat_map(|s| s.theory_y.iter().copied()),
        positive,
    );
    let y = match (data, theory) {
        (Some((lo, hi)), Some((tlo, thi))) => (lo.min(tlo), hi.max(thi.min(THEORY_CLAMP * hi))),
        (Some(r), None) | (None, Some(r)) => r,
        (None, None) => (1e-4, 1.0),
    };
    // A little air above and below, then a decade at least.
    let x = at_least_a_decade(x.0 / 1.1, x.1 * 1.1);
    let y = at_least_a_decade(y.0 / 1.5, y.1 * 1.5);
    Bounds { x, y }
}

/// The axes drawn: the current run's own ranges, held over the pinned runs' (their own ranges
/// computed alike), so the next run is not rescaled alone.
pub(super) fn axes(spec: &ExcessSpec) -> Bounds {
    let pinned = (!spec.pinned.is_empty()).then(|| ranges(&spec.pinned));
    // Reference bounds count as theory curves (clamped alike above the data).
    let references = spec.references.iter().map(|r| Series {
        label: r.label.clone(),
        color: 0,
        x: Floats(Vec::new()),
        mean: Floats(Vec::new()),
        lo: Floats(Vec::new()),
        hi: Floats(Vec::new()),
        theory_x: r.x.clone(),
        theory_y: r.y.clone(),
        theory_label: String::new(),
    });
    let all: Vec<Series> = spec.series.iter().cloned().chain(references).collect();
    ranges(&all).hold(pinned)
}

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ExcessSpec,
) -> Result<(), PlotError> {
    // A repeat that lands near the optimum (10⁻⁹) would stretch the log axis over decades and
    // squash the curves: the band's lower edge is cut at a tenth of the smallest mean (of the
    // current and the pinned runs), and the plot says so.
    let mut spec = spec.clone();
    let mut cut = false;
    let means = spec
        .series
        .iter()
        .chain(&spec.pinned)
        .flat_map(|s| s.mean.iter());
    if let Some(floor) = band_floor(means) {
        for s in spec.series.iter_mut().chain(spec.pinned.iter_mut()) {
            let (lo, c) = clamp_lower_edge(&s.lo, floor);
            s.lo = Floats(lo);
            cut |= c;
        }
    }
    let spec = &spec;
    let b = axes(spec);
    let area = titled(&root.margin(12, 12, 12, 12), &spec.title, 15)?;
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(log_axis(b.x), log_axis(b.y))?;
    draw_axes(&mut chart, &spec.x_label, &spec.y_label, &|v| {
        log_tick_label(*v)
    })?;

    // Bands first, so that every line is drawn over every band. A band is cut wherever its
    // series has no value (NaN) or, on these log axes, a non-positive one: it never bridges a
    // gap. An edge past the axis is drawn at the axis (a lower edge of 0 reaches the bottom).
    for s in &spec.series {
        let x: Vec<f64> =
            s.x.iter()
                .map(|&v| if v > 0.0 { v } else { f64::NAN })
                .collect();
        let hi: Vec<f64> =
            s.hi.iter()
                .map(|&v| if v > 0.0 { v.min(b.y.1) } else { f64::NAN })
                .collect();
        let lo: Vec<f64> = s.lo.iter().map(|&v| v.max(b.y.0)).collect();
        for piece in band_pieces(&x, &lo, &hi) {
            let piece = BandPiece {
                upper: thin(&chart, piece.upper),
                lower: thin(&chart, piece.lower),
            };
            chart.draw_series(std::iter::once(Polygon::new(
                piece.outline(),
                color(s.color).mix(0.18).filled(),
            )))?;
        }
    }
    // Pinned runs under the current one, faded, each with its label (what differs).
    for s in &spec.pinned {
        let c = faded(s.color);
        let data = clip_polyline_loglog(s.x.iter().copied().zip(s.mean.iter().copied()), b);
        for (k, piece) in data.into_iter().enumerate() {
            let piece = thin(&chart, piece);
            let series = chart.draw_series(LineSeries::new(piece, c.stroke_width(3)))?;
            if k == 0 {
                series.label(s.label.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                });
            }
        }
    }
    let mut labelled = false;
    // Reference bounds (no algorithm's): dotted grey, under the algorithms' curves.
    for r in &spec.references {
        let grey = RGBColor(110, 110, 110);
        let line = clip_polyline_loglog(r.x.iter().copied().zip(r.y.iter().copied()), b);
        for (k, piece) in line.into_iter().enumerate() {
            let series =
                chart.draw_series(DashedLineSeries::new(piece, 2, 4, grey.stroke_width(2)))?;
            if k == 0 {
                labelled = true;
                series.label(r.label.clone()).legend(move |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 20, y)], 2, 3, grey.stroke_width(2))
                });
            }
        }
    }
    for s in &spec.series {
        let c = color(s.color);
        let theory = clip_polyline_loglog(
            s.theory_x.iter().copied().zip(s.theory_y.iter().copied()),
            b,
        );
        for (k, piece) in theory.into_iter().enumerate() {
            let series =
                chart.draw_series(DashedLineSeries::new(piece, 6, 4, c.stroke_width(2)))?;
            if k == 0 {
                labelled = true;
                let label = if s.theory_label.is_empty() {
                    format!("{} bound", s.label)
                } else {
                    s.theory_label.clone()
                };
                series.label(label).legend(move |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 20, y)], 5, 3, c.stroke_width(2))
                });
            }
        }
        let data = clip_polyline_loglog(s.x.iter().copied().zip(s.mean.iter().copied()), b);
        for (k, piece) in data.into_iter().enumerate() {
            let piece = thin(&chart, piece);
            let series = chart.draw_series(LineSeries::new(piece, c.stroke_width(2)))?;
            if k == 0 {
                labelled = true;
                series.label(s.label.clone()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
            }
        }
    }
    if let Some(why) = &spec.unavailable {
        let (_, h) = root.dim_in_pixel();
        // `why` begins "reference unavailable (non-private diagnostic): …" (session/problem.rs).
        let lines = wrap(why, 62)
            .into_iter()
            .chain(std::iter::once("(no excess risk to draw)".to_string()));
        for (k, line) in lines.enumerate() {
            let y = h as i32 / 3 + 18 * k as i32;
            root.draw(&Text::new(
                line,
                (80, y),
                (FONT, 13).into_font().color(&BLACK),
            ))?;
        }
    }
    if cut {
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        root.draw_text(
            "band cut below at ⅒ of the lowest mean",
            &(FONT, 11)
                .into_font()
                .color(&RGBColor(90, 90, 90))
                .pos(Pos::new(HPos::Left, VPos::Bottom)),
            (
                xr.start - root.get_base_pixel().0 + 6,
                yr.end - root.get_base_pixel().1 - 4,
            ),
        )?;
    }
    // A legend whenever a curve is drawn, one algorithm or several: an exported figure names
    // what it shows.
    if labelled || !spec.pinned.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(GRID_COLOR)
            .label_font((FONT, 12))
            .draw()?;
    }
    Ok(())
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
