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
    /// True when `mean` is the path of a non-private solver and not what is released (a
    /// one-release method: output or objective perturbation, the exponential mechanism): it is
    /// drawn faint and named "solver path (not released)", and the release is drawn at its own
    /// excess ([`Series::release`]) as a level across the plot. Otherwise `mean` is the private
    /// iterate's (DP-GD's every step is noisy).
    #[serde(default)]
    pub solver_path: bool,
    /// The released point's excess (mean over repeats, with its min–max): the salient mark of
    /// the plot, a dot ringed in the release red. `None` before the release.
    #[serde(default)]
    pub release: Option<ReleaseMark>,
}

/// Where the release lands on the excess plot.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct ReleaseMark {
    /// Gradient evaluations (full passes) used by the release.
    pub x: f64,
    /// The released excess (mean over repeats).
    pub y: f64,
    /// The lowest released excess over repeats (with `hi`; none for one repeat).
    #[serde(default)]
    pub lo: Option<f64>,
    /// The highest released excess over repeats.
    #[serde(default)]
    pub hi: Option<f64>,
}

impl Series {
    /// The legend text of the drawn path: a solver's path says it is not the release.
    pub fn path_label(&self) -> String {
        // An unnamed series gets no legend entry, its path no more than the rest.
        if self.solver_path && !self.label.is_empty() {
            format!("{}: solver path (not released)", self.label)
        } else {
            self.label.clone()
        }
    }
}

/// A bound no plotted algorithm attains (a lower bound, another model's rate), drawn dotted grey
/// with its legend: a sweep of a heavy-tail family draws Lowy 2026's, a run of a Lowy &
/// Razaviyayn 2021 family on ERM the lower bound of its class (the theory curve's `lower`).
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
    /// Reference bounds drawn dotted (on a run's plot: the lower bound of its problem's class, where
    /// a paper states one).
    #[serde(default)]
    pub references: Vec<Reference>,
    /// What a shaded band is, for the legend (e.g. "min–max over 5 repeats"); empty: "min–max
    /// over the repeats". Named whenever a band is drawn: overlapping bands otherwise read as
    /// one area of no meaning.
    #[serde(default)]
    pub band_label: String,
    /// Where the x axis is labelled (a sweep: the swept values, so both ends carry a number);
    /// empty: the log axis's own ticks.
    #[serde(default)]
    pub x_ticks: Floats,
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
    /// The legend text of a band: what its shading spans.
    pub fn band_legend(&self) -> String {
        if self.band_label.is_empty() {
            "shaded: min–max over the repeats".into()
        } else {
            format!("shaded: {}", self.band_label)
        }
    }

    /// Whether any series (current or pinned) draws a band.
    pub fn has_band(&self) -> bool {
        self.series.iter().any(|s| !s.lo.is_empty())
    }

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
            if let Some(r) = &s.release {
                super::check_positive(&f("release.x"), r.x)?;
                // An excess is ≥ 0 (floored at 0 by the certified reference); NaN: unscored.
                if r.y < 0.0 || r.y == f64::INFINITY {
                    return Err(Error::invalid(f("release.y"), "a finite excess ≥ 0", r.y));
                }
            }
        }
        for (i, &t) in self.x_ticks.iter().enumerate() {
            super::check_positive(&format!("excess.xTicks[{i}]"), t)?;
        }
        for (i, r) in self.references.iter().enumerate() {
            check_same_len(&format!("excess.references[{i}].y"), &r.y, "x", &r.x)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot_spec::Spec;
    use serde_json::json;

    fn excess(spec: serde_json::Value) -> ExcessSpec {
        match Spec::parse("excess", spec).expect("a valid spec") {
            Spec::Excess(s) => s,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_one_release_method_names_its_path_as_the_solver_s_and_carries_its_release() {
        let s = excess(json!({"series": [
            {"label": "output perturbation", "x": [1, 2], "mean": [0.1, 1e-6], "solverPath": true,
             "release": {"x": 2, "y": 3e-3, "lo": 1e-3, "hi": 5e-3}},
            {"label": "DP-GD", "color": 1, "x": [1, 2], "mean": [0.1, 1e-3],
             "release": {"x": 2, "y": 1e-3}},
        ]}));
        assert_eq!(
            s.series[0].path_label(),
            "output perturbation: solver path (not released)"
        );
        assert_eq!(s.series[1].path_label(), "DP-GD");
        let r = s.series[0].release.unwrap();
        assert_eq!((r.x, r.y, r.lo, r.hi), (2.0, 3e-3, Some(1e-3), Some(5e-3)));
        assert!(s.series[1].release.unwrap().lo.is_none());
    }

    #[test]
    fn a_release_off_the_axes_is_refused_at_its_key() {
        let bad = json!({"series": [{"label": "a", "x": [1], "mean": [1],
            "release": {"x": 1, "y": -1}}]});
        let e = Spec::parse("excess", bad).unwrap_err();
        assert_eq!(e.field(), Some("excess.series[0].release.y"));
        let bad = json!({"series": [], "xTicks": [0.1, 0]});
        let e = Spec::parse("excess", bad).unwrap_err();
        assert_eq!(e.field(), Some("excess.xTicks[1]"));
    }

    #[test]
    fn a_band_says_what_it_spans() {
        let s = excess(
            json!({"series": [{"label": "a", "x": [1, 2], "mean": [1, 1],
            "lo": [0.5, 0.5], "hi": [2, 2]}], "bandLabel": "min–max over 5 repeats"}),
        );
        assert!(s.has_band());
        assert_eq!(s.band_legend(), "shaded: min–max over 5 repeats");
        let s = excess(json!({"series": []}));
        assert!(!s.has_band());
        assert_eq!(s.band_legend(), "shaded: min–max over the repeats");
    }
}
