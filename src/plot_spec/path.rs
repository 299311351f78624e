//! The parameter view's spec: the view, the loss grid, the domain, the paths, w* and the
//! releases.

use serde::Deserialize;

use super::{Floats, check_color, check_finite, check_pairs, check_positive};
use crate::error::Error;

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
    /// Pinned runs' paths and releases, faded; the view holds theirs too.
    #[serde(default)]
    pub pinned: Vec<super::pinned::PinnedPath>,
}

fn default_axis_labels() -> [String; 2] {
    ["w₁".into(), "w₂".into()]
}

/// Smallest contour grid (2 × 2 corners).
pub const MIN_GRID_RES: usize = 2;

impl PathSpec {
    /// Checks the spec (see the module docs of [`super`]).
    pub fn check(&self) -> Result<(), Error> {
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
        super::pinned::check_count(
            "path.pinned",
            self.pinned.len(),
            super::pinned::MAX_PINNED_SERIES,
        )?;
        for (i, layer) in self.pinned.iter().enumerate() {
            layer.check(i)?;
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
}

/// Smallest radius, in pixels, at which the sensitivity ball is drawn: a smaller circle reads as
/// a dot, not as a ball.
pub const MIN_BALL_PIXELS: f64 = 3.0;

impl PathSpec {
    /// Whether the sensitivity ball can be seen when the view is drawn at `pixels_per_unit`: it
    /// exists, its radius is at least [`MIN_BALL_PIXELS`], and its circle passes through the
    /// view (neither wholly outside it nor wrapping all of it). The plot draws the ball, and
    /// names it in its legend, only then.
    pub fn ball_visible(&self, pixels_per_unit: f64) -> bool {
        let (Some(w), Some(r)) = (self.w_star, self.sensitivity_radius) else {
            return false;
        };
        if r * pixels_per_unit < MIN_BALL_PIXELS {
            return false;
        }
        let [cx, cy] = self.center;
        let e = self.extent;
        // Nearest and farthest points of the view square from w*.
        let near = |w: f64, c: f64| (w - c).abs().max(e) - e;
        let far = |w: f64, c: f64| (w - c).abs() + e;
        let nearest = near(w[0], cx).hypot(near(w[1], cy));
        let farthest = far(w[0], cx).hypot(far(w[1], cy));
        nearest <= r && r <= farthest
    }
}

/// The side of a square grid of `grid.len()` values (rounded; the check refuses non-squares).
pub fn grid_res(grid: &[f64]) -> usize {
    (grid.len() as f64).sqrt().round() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(w_star: [f64; 2], radius: f64) -> PathSpec {
        PathSpec {
            extent: 1.0,
            center: [0.0, 0.0],
            axis_labels: default_axis_labels(),
            grid: None,
            domain: DomainShape::None,
            paths: vec![],
            w_star: Some(w_star),
            sensitivity_radius: Some(radius),
            releases: vec![],
            pinned: vec![],
        }
    }

    #[test]
    fn the_ball_is_visible_only_when_big_enough_and_in_view() {
        // 200 px per unit: a radius of 0.1 is 20 px.
        assert!(spec([0.2, 0.1], 0.1).ball_visible(200.0));
        // 0.005 is one pixel: a dot, not a ball.
        assert!(!spec([0.2, 0.1], 0.005).ball_visible(200.0));
        // Wholly outside the view.
        assert!(!spec([3.0, 0.0], 0.5).ball_visible(200.0));
        // Around the whole view: its circle is off the canvas.
        assert!(!spec([0.0, 0.0], 5.0).ball_visible(200.0));
        // Centred outside, reaching in.
        assert!(spec([1.5, 0.0], 0.8).ball_visible(200.0));
        let mut none = spec([0.0, 0.0], 0.1);
        none.sensitivity_radius = None;
        assert!(!none.ball_visible(200.0));
    }
}
