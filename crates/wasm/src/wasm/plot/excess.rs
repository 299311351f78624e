//! Excess empirical risk against gradient evaluations (log-log): the mean over repeats with its
//! band, per algorithm, and each algorithm's theory bound dashed. A sweep draws the same plot
//! against ε or n (its axis labels are the spec's).

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::legend::{Legend, draw_notes};
use super::{
    Bounds, FONT, GRID_COLOR, PINNED_ALPHA, PlotError, RELEASE_COLOR, at_least_a_decade,
    clip_polyline_loglog, color, draw_axes, faded, finite_range, log_axis, px, thin, titled, trace,
    wrap,
};

use crate::figure::floor::{FLOOR_DECADES, clamp_to_floor, log_floor};
use crate::figure::legend::release_label;
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

/// The spec as drawn: every value the log axes cannot show at its place moved where it is
/// drawn, and what was moved, so the plot can mark it.
struct Prepared {
    spec: ExcessSpec,
    /// Per current series, the (x, floor) points of values under the axis floor (drawn at the
    /// floor, marked ▼). A solver path's are not marked: it is not the release.
    below: Vec<Vec<(f64, f64)>>,
    /// Whether a band's lower edge was cut.
    cut: bool,
    /// The lowest value drawn at its place ([`floor_of`]); `None` with nothing positive.
    floor: Option<f64>,
}

/// Values a private curve (or a release) may take on this plot: the private iterates' means and
/// the releases; a solver path's values do not set the floor (it runs on to 10⁻⁷ and is not
/// what is released).
fn private_values(series: &[Series]) -> impl Iterator<Item = f64> + '_ {
    series.iter().flat_map(|s| {
        let path = (!s.solver_path).then_some(s.mean.iter().copied());
        path.into_iter().flatten()
    })
}

/// The axis floor: a decade under the private curves' low values ([`log_floor`]), and a decade
/// under every release, so a release is never drawn at the floor of its own plot.
fn floor_of(series: &[Series]) -> Option<f64> {
    let releases = series
        .iter()
        .filter_map(|s| s.release.map(|r| r.y))
        .filter(|y| y.is_finite() && *y > 0.0)
        .map(|y| y / FLOOR_DECADES)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))));
    let curves = log_floor(private_values(series));
    match (curves, releases) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Moves what the log axes cannot draw at its place: a private curve's values under the floor
/// (0 included) to the floor, marked; a release likewise; a solver path's values under the
/// floor to NaN for the axes' ranges (its line is clipped where it leaves the plot); a band's
/// lower edge cut at a tenth of the lowest mean or at the floor.
fn prepare(spec: &ExcessSpec) -> Prepared {
    let mut spec = spec.clone();
    let all: Vec<Series> = spec.series.iter().chain(&spec.pinned).cloned().collect();
    let floor = floor_of(&all);
    let mut below = Vec::new();
    let mut cut = false;
    let band_cut = band_floor(private_values(&all).collect::<Vec<_>>().iter());
    let band_cut = match (band_cut, floor) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let current = spec.series.len();
    for (k, s) in spec
        .series
        .iter_mut()
        .chain(spec.pinned.iter_mut())
        .enumerate()
    {
        let mut marks = Vec::new();
        if let Some(floor) = floor {
            if !s.solver_path {
                let (mean, idx) = clamp_to_floor(&s.mean, floor);
                marks.extend(idx.iter().map(|&i| (s.x[i], floor)));
                s.mean = Floats(mean);
            }
            if let Some(r) = &mut s.release {
                if r.y.is_finite() && r.y < floor {
                    r.y = floor;
                    marks.push((r.x, floor));
                }
            }
        }
        if let Some(f) = band_cut {
            let (lo, c) = clamp_lower_edge(&s.lo, f);
            s.lo = Floats(lo);
            cut |= c;
        }
        if k < current {
            below.push(marks);
        }
    }
    Prepared {
        spec,
        below,
        cut,
        floor,
    }
}

/// The series whose values set the axes: a solver path's values under the floor left out.
fn ranging(series: &[Series], floor: Option<f64>) -> Vec<Series> {
    series
        .iter()
        .map(|s| {
            let mut s = s.clone();
            if let (true, Some(f)) = (s.solver_path, floor) {
                s.mean = Floats(
                    s.mean
                        .iter()
                        .map(|&v| if v < f { f64::NAN } else { v })
                        .collect(),
                );
            }
            // A release sets the axes as a point of the curve does.
            if let Some(r) = s.release {
                s.x.0.push(r.x);
                s.mean.0.push(r.y);
                if !s.lo.is_empty() {
                    s.lo.0.push(r.lo.unwrap_or(r.y));
                    s.hi.0.push(r.hi.unwrap_or(r.y));
                }
            }
            s
        })
        .collect()
}

/// The axes drawn: the current run's own ranges, held over the pinned runs' (their own ranges
/// computed alike), so the next run is not rescaled alone.
pub(super) fn axes(spec: &ExcessSpec) -> Bounds {
    let prepared = prepare(spec);
    axes_of(&prepared.spec, prepared.floor)
}

/// The axes of a [`prepare`]d spec with its floor.
fn axes_of(spec: &ExcessSpec, floor: Option<f64>) -> Bounds {
    let pinned = (!spec.pinned.is_empty()).then(|| ranges(&ranging(&spec.pinned, floor)));
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
        solver_path: false,
        release: None,
    });
    let all: Vec<Series> = ranging(&spec.series, floor)
        .into_iter()
        .chain(references)
        .collect();
    ranges(&all).hold(pinned)
}

/// The release's mark: a dot in its algorithm's colour ringed in the release red (the red of
/// every private output on the page), `faded` for a pinned run's.
fn release_dot<DB: DrawingBackend, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    at: (f64, f64),
    fill: RGBAColor,
    ring: RGBAColor,
) -> Result<(), PlotError> {
    chart.draw_series(std::iter::once(
        EmptyElement::at(at)
            + Circle::new((0, 0), 6, fill.filled())
            + Circle::new((0, 0), 7, ring.stroke_width(2)),
    ))?;
    Ok(())
}

pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ExcessSpec,
) -> Result<(), PlotError> {
    // A repeat that lands near the optimum (10⁻⁹) would stretch the log axis over decades and
    // squash the curves: the axis stops a decade under the private curves' low values
    // (`figure::floor`), values under it drawn at it and marked ▼, and the band's lower edge is
    // cut at a tenth of the smallest mean; the plot says so.
    let Prepared {
        spec,
        below,
        cut,
        floor,
    } = prepare(spec);
    let spec = &spec;
    let b = axes_of(spec, floor);
    let area = titled(&root.margin(12, 12, 12, 12), &spec.title, 15)?;
    let x_axis = if spec.x_ticks.is_empty() {
        log_axis(b.x)
    } else {
        (b.x.0..b.x.1)
            .log_scale()
            .with_key_points(spec.x_ticks.0.clone())
    };
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(x_axis, log_axis(b.y))?;
    draw_axes(&mut chart, &spec.x_label, &spec.y_label, &|v| {
        log_tick_label(*v)
    })?;
    // Every point drawn, in the plotting area's pixels: the legend goes where they are not.
    let mut drawn: Vec<(f64, f64)> = Vec::new();
    let mut legend = Legend::new(&chart);

    // Bands first, so that every line is drawn over every band. A band is cut wherever its
    // series has no value (NaN) or, on these log axes, a non-positive one: it never bridges a
    // gap. An edge past the axis is drawn at the axis (a lower edge of 0 reaches the bottom).
    // Each band is outlined in its colour, so overlapping bands read apart.
    let mut banded = false;
    for s in &spec.series {
        let c = color(s.color);
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
            for edge in [&piece.upper, &piece.lower] {
                drawn.extend(trace(&chart, edge));
                chart.draw_series(LineSeries::new(edge.clone(), c.mix(0.55).stroke_width(1)))?;
            }
            chart.draw_series(std::iter::once(Polygon::new(
                piece.outline(),
                c.mix(0.14).filled(),
            )))?;
            if !banded {
                banded = true;
                let grey = RGBColor(120, 120, 120);
                legend.entry(&spec.band_legend(), move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 20, y + 5)], grey.mix(0.25).filled())
                });
            }
        }
    }
    // Pinned runs under the current one, faded, each with its label (what differs).
    for s in &spec.pinned {
        let c = faded(s.color);
        if let (true, Some(r)) = (s.solver_path, s.release) {
            // A pinned one-release run: its release level, faded; its solver path is left out.
            if r.y.is_finite() {
                drawn.extend(trace(&chart, &[(b.x.0, r.y), (b.x.1, r.y)]));
                let level = vec![(b.x.0, r.y), (b.x.1, r.y)];
                chart.draw_series(LineSeries::new(level, c.stroke_width(3)))?;
                legend.entry(&s.label, move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                });
            }
        } else {
            let mut named = false;
            let data = clip_polyline_loglog(s.x.iter().copied().zip(s.mean.iter().copied()), b);
            for piece in data {
                let piece = thin(&chart, piece);
                drawn.extend(trace(&chart, &piece));
                chart.draw_series(LineSeries::new(piece, c.stroke_width(3)))?;
                if !named {
                    named = true;
                    legend.entry(&s.label, move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                    });
                }
            }
        }
        if let Some(r) = s
            .release
            .filter(|r| r.y.is_finite() && b.contains((r.x, r.y)))
        {
            release_dot(&mut chart, (r.x, r.y), c, RELEASE_COLOR.mix(PINNED_ALPHA))?;
        }
    }
    let mut labelled = banded;
    // Reference bounds (no algorithm's): dotted grey, under the algorithms' curves.
    for r in &spec.references {
        let grey = RGBColor(110, 110, 110);
        let line = clip_polyline_loglog(r.x.iter().copied().zip(r.y.iter().copied()), b);
        for (k, piece) in line.into_iter().enumerate() {
            drawn.extend(trace(&chart, &piece));
            chart.draw_series(DashedLineSeries::new(piece, 2, 4, grey.stroke_width(2)))?;
            if k == 0 {
                labelled = true;
                legend.entry(&r.label, move |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 20, y)], 2, 3, grey.stroke_width(2))
                });
            }
        }
    }
    for (s, below) in spec.series.iter().zip(&below) {
        let c = color(s.color);
        let theory = clip_polyline_loglog(
            s.theory_x.iter().copied().zip(s.theory_y.iter().copied()),
            b,
        );
        for (k, piece) in theory.into_iter().enumerate() {
            drawn.extend(trace(&chart, &piece));
            chart.draw_series(DashedLineSeries::new(piece, 6, 4, c.stroke_width(2)))?;
            if k == 0 {
                labelled = true;
                let label = if s.theory_label.is_empty() && !s.label.is_empty() {
                    format!("{} bound", s.label)
                } else {
                    s.theory_label.clone()
                };
                legend.entry(&label, move |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 20, y)], 5, 3, c.stroke_width(2))
                });
            }
        }
        // A solver's path is faint and thin: it is not what is released.
        let path_style = if s.solver_path {
            c.mix(0.35).stroke_width(1)
        } else {
            c.mix(1.0).stroke_width(2)
        };
        let data = clip_polyline_loglog(s.x.iter().copied().zip(s.mean.iter().copied()), b);
        for (k, piece) in data.into_iter().enumerate() {
            let piece = thin(&chart, piece);
            drawn.extend(trace(&chart, &piece));
            chart.draw_series(LineSeries::new(piece, path_style))?;
            if k == 0 {
                labelled = true;
                legend.entry(&s.path_label(), move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], path_style)
                });
            }
        }
        // Values under the axis floor, drawn at it: a ▼ on the floor says "lower than this".
        chart.draw_series(below.iter().map(|&p| {
            EmptyElement::at(p) + Polygon::new(vec![(-4, -8), (4, -8), (0, -1)], c.filled())
        }))?;
        let Some(r) = s.release.filter(|r| r.y.is_finite()) else {
            continue;
        };
        let label = release_label(&s.label);
        if s.solver_path {
            // A one-release method: its release is a level across the plot, comparable at a
            // glance with an iterative method's curve end.
            drawn.extend(trace(&chart, &[(b.x.0, r.y), (b.x.1, r.y)]));
            let level = vec![(b.x.0, r.y), (b.x.1, r.y)];
            let c2 = c.mix(1.0).stroke_width(2);
            chart.draw_series(LineSeries::new(level, c2))?;
            legend.entry(&label, move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (20, 0)], c2)
                    + Circle::new((10, 0), 5, c.filled())
                    + Circle::new((10, 0), 6, RELEASE_COLOR.stroke_width(2))
            });
        } else {
            legend.entry(&label, move |(x, y)| {
                EmptyElement::at((x + 10, y))
                    + Circle::new((0, 0), 5, c.filled())
                    + Circle::new((0, 0), 6, RELEASE_COLOR.stroke_width(2))
            });
        }
        labelled = true;
        // The spread over repeats, as a whisker.
        if let (Some(lo), Some(hi)) = (r.lo, r.hi) {
            let (lo, hi) = (lo.max(b.y.0), hi.min(b.y.1));
            if lo > 0.0 && hi >= lo {
                chart.draw_series(LineSeries::new(
                    vec![(r.x, lo), (r.x, hi)],
                    RELEASE_COLOR.stroke_width(2),
                ))?;
            }
        }
        if b.contains((r.x, r.y)) {
            drawn.push(px(&chart, (r.x, r.y)));
            legend.key_mark(&chart, "release", (r.x, r.y), 8);
            release_dot(&mut chart, (r.x, r.y), c.mix(1.0), RELEASE_COLOR.mix(1.0))?;
        }
    }
    if let Some(why) = &spec.unavailable {
        let (_, h) = root.dim_in_pixel();
        // `why` begins "reference unavailable (non-private diagnostic): …" (algo/problem.rs).
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
    // Notes along the bottom of the plotting area, one above the other, in a corner the legend
    // leaves free.
    let notes: Vec<&str> = [
        below
            .iter()
            .any(|b| !b.is_empty())
            .then_some("▼ under the axis: drawn at its floor"),
        cut.then_some("band cut below at ⅒ of the lowest mean"),
    ]
    .into_iter()
    .flatten()
    .collect();
    // A legend whenever a curve is drawn, one algorithm or several: an exported figure names
    // what it shows; in the corner where it covers the fewest drawn points.
    let placed = if labelled || !spec.pinned.is_empty() {
        legend.draw(&mut chart, &drawn, GRID_COLOR)?
    } else {
        None
    };
    draw_notes(root, &chart, &notes, placed, &drawn)?;
    Ok(())
}
