//! The parameter view: loss contours, the domain boundary, the non-private paths, w* with its
//! sensitivity ball, and the released points (the noise cloud over repeats).

use std::cell::RefCell;
use std::rc::Rc;

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;

use super::{
    Bounds, FONT, Floats, PlotError, RELEASE_COLOR, check_color, check_finite, check_pairs,
    check_positive, circle_points, clip_polyline, color, pairs, thin, tick,
};
use crate::error::Error;
use crate::figure::{BANDS, Fill, contour_fills};

/// Points of one algorithm in the plane, interleaved x0, y0, x1, y1, ….
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PathLayer {
    /// Palette index 0..3 (the algorithm's colour).
    #[serde(default)]
    pub color: usize,
    /// Legend text; empty for no legend entry.
    #[serde(default)]
    pub label: String,
    /// Interleaved coordinates.
    pub xy: Floats,
}

/// The boundary of the constraint set, in plane coordinates. In JS an object tagged by `kind`
/// ("l2_ball", "l1_ball", "box", "simplex", "polyline", "none" or "unconstrained") with the
/// variant's fields, so a serialised [`crate::domain::DomainKind`] reads as its own shape.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(try_from = "DomainFields")]
pub enum DomainShape {
    /// ‖w‖₂ ≤ radius.
    L2Ball {
        /// The radius.
        radius: f64,
    },
    /// ‖w‖₁ ≤ radius.
    L1Ball {
        /// The radius.
        radius: f64,
    },
    /// [lo, hi]².
    Box {
        /// Lower bound of each coordinate.
        lo: f64,
        /// Upper bound of each coordinate.
        hi: f64,
    },
    /// For d = 2, the segment from (1, 0) to (0, 1).
    Simplex,
    /// Any other boundary, already projected by the caller: a closed polygon.
    Polyline {
        /// Interleaved vertices.
        xy: Floats,
    },
    /// No boundary (unconstrained).
    #[default]
    None,
}

/// [`DomainShape`] as it arrives. Not serde's internally tagged enum: that buffers the object
/// first, and a buffered Float64Array (`xy`) can no longer be read in one copy.
#[derive(Deserialize)]
struct DomainFields {
    kind: String,
    radius: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
    xy: Option<Floats>,
}

impl TryFrom<DomainFields> for DomainShape {
    type Error = String;

    fn try_from(f: DomainFields) -> Result<Self, String> {
        let need = |v: Option<f64>, name: &str| {
            v.ok_or_else(|| format!("a {:?} domain needs `{name}`", f.kind))
        };
        Ok(match f.kind.as_str() {
            "l2_ball" => DomainShape::L2Ball {
                radius: need(f.radius, "radius")?,
            },
            "l1_ball" => DomainShape::L1Ball {
                radius: need(f.radius, "radius")?,
            },
            "box" => DomainShape::Box {
                lo: need(f.lo, "lo")?,
                hi: need(f.hi, "hi")?,
            },
            "simplex" => DomainShape::Simplex,
            "polyline" => DomainShape::Polyline {
                xy: f
                    .xy
                    .clone()
                    .ok_or_else(|| "a \"polyline\" domain needs `xy`".to_string())?,
            },
            // `unconstrained` is how `DomainKind` names R^d: nothing to draw.
            "none" | "unconstrained" => DomainShape::None,
            other => {
                return Err(format!(
                    "unknown domain kind {other:?}: expected one of l2_ball, l1_ball, box, \
                     simplex, polyline, none, unconstrained"
                ));
            }
        })
    }
}

/// The parameter-view plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PathSpec {
    /// The view is [−extent, extent]² around `center`.
    pub extent: f64,
    /// The middle of the view.
    #[serde(default)]
    pub center: [f64; 2],
    /// Axis titles.
    #[serde(default = "default_axis_labels")]
    pub axis_labels: [String; 2],
    /// res × res loss values, row by row from the bottom, at the grid points spanning the view
    /// (corners included).
    #[serde(default)]
    pub grid: Option<Floats>,
    /// The boundary to draw.
    #[serde(default)]
    pub domain: DomainShape,
    /// Non-private paths, one per algorithm.
    #[serde(default)]
    pub paths: Vec<PathLayer>,
    /// The non-private optimum, a × marker.
    #[serde(default)]
    pub w_star: Option<[f64; 2]>,
    /// Radius of the dashed circle around `w_star` in which a neighbouring dataset's
    /// non-private output may lie.
    #[serde(default)]
    pub sensitivity_radius: Option<f64>,
    /// Released points, one layer per algorithm: the private outputs.
    #[serde(default)]
    pub releases: Vec<PathLayer>,
}

fn default_axis_labels() -> [String; 2] {
    ["w₁".into(), "w₂".into()]
}

/// Smallest contour grid (2 × 2 corners).
const MIN_GRID_RES: usize = 2;

impl PathSpec {
    pub(super) fn check(&self) -> Result<(), Error> {
        check_positive("path.extent", self.extent)?;
        check_finite("path.center[0]", self.center[0])?;
        check_finite("path.center[1]", self.center[1])?;
        if let Some(grid) = &self.grid {
            let res = grid_res(grid);
            if res < MIN_GRID_RES || res * res != grid.len() {
                return Err(Error::invalid(
                    "path.grid",
                    "res × res values with res ≥ 2",
                    format!("{} values", grid.len()),
                ));
            }
        }
        match &self.domain {
            DomainShape::L2Ball { radius } => check_positive("path.domain.radius", *radius)?,
            DomainShape::L1Ball { radius } => check_positive("path.domain.radius", *radius)?,
            DomainShape::Box { lo, hi } => {
                check_finite("path.domain.lo", *lo)?;
                check_finite("path.domain.hi", *hi)?;
                if lo >= hi {
                    return Err(Error::invalid("path.domain.hi", format!("> lo = {lo}"), hi));
                }
            }
            DomainShape::Polyline { xy } => check_pairs("path.domain.xy", xy)?,
            DomainShape::Simplex | DomainShape::None => {}
        }
        for (name, layers) in [("paths", &self.paths), ("releases", &self.releases)] {
            for (i, layer) in layers.iter().enumerate() {
                check_color(&format!("path.{name}[{i}].color"), layer.color)?;
                check_pairs(&format!("path.{name}[{i}].xy"), &layer.xy)?;
            }
        }
        if let Some(w) = self.w_star {
            check_finite("path.wStar[0]", w[0])?;
            check_finite("path.wStar[1]", w[1])?;
        }
        if let Some(r) = self.sensitivity_radius {
            check_positive("path.sensitivityRadius", r)?;
            if self.w_star.is_none() {
                return Err(Error::invalid(
                    "path.sensitivityRadius",
                    "wStar as well (the ball is drawn around it)",
                    "no wStar",
                ));
            }
        }
        Ok(())
    }

    fn bounds(&self) -> Bounds {
        let [cx, cy] = self.center;
        Bounds {
            x: (cx - self.extent, cx + self.extent),
            y: (cy - self.extent, cy + self.extent),
        }
    }
}

fn grid_res(grid: &[f64]) -> usize {
    (grid.len() as f64).sqrt().round() as usize
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
    let b = spec.bounds();
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
        chart.draw_series(contour_polygons(grid, b))?;
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
