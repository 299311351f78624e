//! The excess-risk plot's spec: per algorithm, the mean excess risk over repeats with its band
//! and the theory bound.

use serde::Deserialize;

use super::{Floats, check_color, check_same_len};
use crate::error::Error;

/// One algorithm's curve (compare mode has up to four).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    /// Legend text, e.g. "DP-GD".
    pub label: String,
    /// Palette index 0..3.
    #[serde(default)]
    pub color: usize,
    /// Gradient evaluations (full passes), increasing.
    pub x: Floats,
    /// Mean excess risk over repeats at `x` (one repeat: the run itself).
    pub mean: Floats,
    /// Lower edge of the band over repeats; empty (with `hi`) for no band.
    #[serde(default)]
    pub lo: Floats,
    /// Upper edge of the band over repeats.
    #[serde(default)]
    pub hi: Floats,
    /// Abscissae of the algorithm's theory bound; may be empty.
    #[serde(default)]
    pub theory_x: Floats,
    /// The bound at `theory_x`, drawn dashed.
    #[serde(default)]
    pub theory_y: Floats,
    /// The bound's legend text; empty: the label followed by "bound".
    #[serde(default)]
    pub theory_label: String,
}

/// A bound no plotted algorithm attains (a lower bound, another model's rate), drawn dotted grey
/// with its legend: a sweep of a heavy-tail family draws Lowy 2026's.
#[derive(Debug, Clone, Deserialize)]
pub struct Reference {
    /// Legend text: which bound, from which paper.
    pub label: String,
    /// Abscissae (the swept axis's values).
    pub x: Floats,
    /// The bound at `x`.
    pub y: Floats,
}

/// The excess-risk plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExcessSpec {
    /// One entry per algorithm.
    pub series: Vec<Series>,
    /// The caption.
    #[serde(default = "default_title")]
    pub title: String,
    /// Why there is no reference F* (the excess columns are then NaN): the plot says so in
    /// place of the curves instead of staying blank.
    #[serde(default)]
    pub unavailable: Option<String>,
    /// The x axis's label (a sweep draws the same plot against ε or n).
    #[serde(default = "default_x_label")]
    pub x_label: String,
    /// The y axis's label (a sweep of a game draws the duality gap).
    #[serde(default = "default_y_label")]
    pub y_label: String,
    /// Pinned runs' curves (their theory is not drawn), faded; the axes hold them too.
    #[serde(default)]
    pub pinned: Vec<Series>,
    /// Reference bounds drawn dotted (none on a run's plot).
    #[serde(default)]
    pub references: Vec<Reference>,
}

fn default_x_label() -> String {
    "gradient evaluations (full passes)".into()
}

fn default_y_label() -> String {
    "F(w) − F*".into()
}

fn default_title() -> String {
    "excess empirical risk (non-private)".into()
}

/// At most this many algorithms are compared at once.
pub const MAX_SERIES: usize = 4;

impl ExcessSpec {
    /// Checks the spec (see the module docs of [`super`]).
    pub fn check(&self) -> Result<(), Error> {
        if self.series.len() > MAX_SERIES {
            return Err(Error::invalid(
                "excess.series",
                format!("at most {MAX_SERIES} series"),
                self.series.len(),
            ));
        }
        super::pinned::check_count(
            "excess.pinned",
            self.pinned.len(),
            super::pinned::MAX_PINNED_SERIES,
        )?;
        let all = self.series.iter().map(|s| ("series", s));
        let pinned = self.pinned.iter().map(|s| ("pinned", s));
        for (i, (key, s)) in all.enumerate().chain(pinned.enumerate()) {
            let f = |name: &str| format!("excess.{key}[{i}].{name}");
            check_color(&f("color"), s.color)?;
            check_same_len(&f("mean"), &s.mean, "x", &s.x)?;
            if !(s.lo.is_empty() && s.hi.is_empty()) {
                check_same_len(&f("lo"), &s.lo, "x", &s.x)?;
                check_same_len(&f("hi"), &s.hi, "x", &s.x)?;
            }
            check_same_len(&f("theoryY"), &s.theory_y, "theoryX", &s.theory_x)?;
        }
        for (i, r) in self.references.iter().enumerate() {
            check_same_len(&format!("excess.references[{i}].y"), &r.y, "x", &r.x)?;
        }
        Ok(())
    }
}
