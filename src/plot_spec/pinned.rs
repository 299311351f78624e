//! Pinned runs: earlier finished runs the page keeps as faded overlays on every plot, so that
//! "ε = 0.1 against ε = 5" shows on one screen.
//!
//! A plot with pins holds its axes: each axis spans the union of the current run's own range
//! and the pinned runs' ranges, so the next run neither rescales the pinned curves away nor
//! hides itself outside them. Pinning a run whose data are the current run's leaves the axes
//! where they were (the union of a range with itself).
//!
//! The pinned parts of each spec are listed here (the excess and privacy plots reuse their own
//! series types); they are checked like the current run's, and at most [`MAX_PINS`] are drawn.

use serde::Deserialize;

use super::{Floats, check_color, check_finite, check_pairs, check_positive};
use crate::error::{Error, Result};

/// Most pinned runs a plot draws (the page keeps at most this many).
pub const MAX_PINS: usize = 3;

/// Most pinned series a plot draws: each pinned run may have compared up to four algorithms.
pub const MAX_PINNED_SERIES: usize = MAX_PINS * super::excess::MAX_SERIES;

/// An axis's [lo, hi].
pub type Range = (f64, f64);

/// The axis a plot holds: the union of the current run's own range and the pinned runs' range
/// (`None` without pins, or when the pins have nothing finite to show). Non-finite ends of the
/// pinned range are ignored, so a pin without data never breaks the axis.
pub fn hold(own: Range, pinned: Option<Range>) -> Range {
    match pinned {
        Some((lo, hi)) if lo.is_finite() && hi.is_finite() && lo <= hi => {
            (own.0.min(lo), own.1.max(hi))
        }
        _ => own,
    }
}

/// The square view a parameter plot holds: the smallest square around the current view
/// (`center` ± `extent`) and every pinned view. Returns (center, extent).
pub fn hold_view(
    own: ([f64; 2], f64),
    pinned: impl IntoIterator<Item = ([f64; 2], f64)>,
) -> ([f64; 2], f64) {
    let side = |(c, e): ([f64; 2], f64), k: usize| (c[k] - e, c[k] + e);
    let mut x = side(own, 0);
    let mut y = side(own, 1);
    for view in pinned {
        x = hold(x, Some(side(view, 0)));
        y = hold(y, Some(side(view, 1)));
    }
    let center = [(x.0 + x.1) / 2.0, (y.0 + y.1) / 2.0];
    let extent = ((x.1 - x.0) / 2.0).max((y.1 - y.0) / 2.0);
    (center, extent)
}

/// A pinned run's layer of the parameter view: its non-private path and its releases, with the
/// view it was drawn in.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnedPath {
    /// Legend text, e.g. "pinned: ε = 0.1, DP-GD".
    pub label: String,
    /// Palette index 0..3 (its algorithm's colour), drawn faded.
    #[serde(default)]
    pub color: usize,
    /// Its non-private path, interleaved x0, y0, x1, y1, ….
    #[serde(default)]
    pub path: Floats,
    /// Its released points, interleaved.
    #[serde(default)]
    pub releases: Floats,
    /// Its view's half-width.
    pub extent: f64,
    /// Its view's middle.
    #[serde(default)]
    pub center: [f64; 2],
}

impl PinnedPath {
    /// Checks one pinned layer, at `path.pinned[i]`.
    pub fn check(&self, i: usize) -> Result<()> {
        let f = |name: &str| format!("path.pinned[{i}].{name}");
        check_color(&f("color"), self.color)?;
        check_pairs(&f("path"), &self.path)?;
        check_pairs(&f("releases"), &self.releases)?;
        check_positive(&f("extent"), self.extent)?;
        check_finite(&f("center[0]"), self.center[0])?;
        check_finite(&f("center[1]"), self.center[1])
    }
}

/// A pinned run's noise norms (its histogram is drawn as a faded outline).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnedNorms {
    /// Legend text.
    pub label: String,
    /// ‖noise‖₂ of each draw (NaN and 0 ignored, as for the current run).
    pub norms: Floats,
}

/// A pinned game's released strategies (drawn as faded ticks over the bars).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnedPlayers {
    /// Legend text.
    pub label: String,
    /// The released x.
    #[serde(default)]
    pub x: Floats,
    /// The released y.
    #[serde(default)]
    pub y: Floats,
}

/// Refuses more than `max` pinned entries at `field`.
pub(super) fn check_count(field: &str, count: usize, max: usize) -> Result<()> {
    if count <= max {
        Ok(())
    } else {
        Err(Error::invalid(
            field,
            format!("at most {max} pinned entries"),
            count,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_held_axis_is_the_union_of_the_current_and_the_pinned_ranges() {
        // ε = 5 reaches lower excess than the pinned ε = 0.1 run, which started higher: the
        // axis keeps both ends, not the new run's alone.
        assert_eq!(hold((1e-5, 0.5), Some((1e-3, 2.0))), (1e-5, 2.0));
        // A new run inside the pinned range leaves the axis where the pin put it.
        assert_eq!(hold((1e-2, 0.5), Some((1e-3, 2.0))), (1e-3, 2.0));
        // Pinning the current run itself changes nothing.
        assert_eq!(hold((1e-3, 2.0), Some((1e-3, 2.0))), (1e-3, 2.0));
        // No pins, or pins with nothing finite: the run's own range.
        assert_eq!(hold((1.0, 3.0), None), (1.0, 3.0));
        assert_eq!(hold((1.0, 3.0), Some((f64::NAN, 5.0))), (1.0, 3.0));
        assert_eq!(hold((1.0, 3.0), Some((0.0, f64::INFINITY))), (1.0, 3.0));
    }

    #[test]
    fn the_held_view_is_the_smallest_square_around_every_view() {
        // The same data: the same view.
        assert_eq!(
            hold_view(([0.5, -0.5], 2.0), [([0.5, -0.5], 2.0)]),
            ([0.5, -0.5], 2.0)
        );
        // A pinned view to the right and above: x spans −1..4, y spans −1..3 → a square of
        // half-width 2.5 centred at (1.5, 1).
        assert_eq!(
            hold_view(([0.0, 0.0], 1.0), [([3.0, 2.0], 1.0)]),
            ([1.5, 1.0], 2.5)
        );
        assert_eq!(hold_view(([1.0, 2.0], 0.5), []), ([1.0, 2.0], 0.5));
    }

    #[test]
    fn pinned_layers_are_checked_at_their_key() {
        let bad = PinnedPath {
            label: "pinned".into(),
            color: 0,
            path: Floats(vec![0.0, 1.0, 2.0]),
            releases: Floats::default(),
            extent: 1.0,
            center: [0.0, 0.0],
        };
        assert_eq!(
            bad.check(2).unwrap_err().field(),
            Some("path.pinned[2].path")
        );
        let flat = PinnedPath {
            path: Floats::default(),
            extent: 0.0,
            ..bad
        };
        assert_eq!(
            flat.check(0).unwrap_err().field(),
            Some("path.pinned[0].extent")
        );
        assert!(check_count("excess.pinned", MAX_PINNED_SERIES + 1, MAX_PINNED_SERIES).is_err());
    }

    #[test]
    fn each_spec_reads_and_checks_its_pinned_runs() {
        use super::super::Spec;
        use serde_json::json;
        let field = |kind: &str, spec: serde_json::Value| {
            Spec::parse(kind, spec)
                .err()
                .and_then(|e| e.field().map(str::to_string))
        };
        let curve = json!({"label": "pinned: ε = 0.1, DP-GD", "x": [1, 2], "mean": [1, 0.5]});
        let spec = json!({"series": [], "pinned": [curve]});
        match Spec::parse("excess", spec).unwrap() {
            Spec::Excess(s) => assert_eq!(s.pinned[0].label, "pinned: ε = 0.1, DP-GD"),
            other => panic!("{other:?}"),
        }
        let short = json!({"label": "p", "x": [1, 2], "mean": [1]});
        let spec = json!({"series": [], "pinned": [short]});
        assert_eq!(
            field("excess", spec).as_deref(),
            Some("excess.pinned[0].mean")
        );
        let steps = json!({"label": "p", "x": [1, 2], "eps": [0.1]});
        let spec = json!({"series": [], "pinned": [steps]});
        assert_eq!(
            field("privacy", spec).as_deref(),
            Some("privacy.pinned[0].eps")
        );
        let spec = json!({"extent": 1, "pinned": [{"label": "p", "path": [0, 0, 1], "extent": 1}]});
        assert_eq!(field("path", spec).as_deref(), Some("path.pinned[0].path"));
        let too_many = vec![json!({"label": "p", "norms": [1]}); MAX_PINS + 1];
        let spec = json!({"norms": [], "pinned": too_many});
        assert_eq!(field("noise", spec).as_deref(), Some("noise.pinned"));
        let other_game = json!({"label": "p", "x": [0.5, 0.5]});
        let spec = json!({"x": [0.2, 0.3, 0.5], "y": [1], "pinned": [other_game]});
        assert_eq!(
            field("players", spec).as_deref(),
            Some("players.pinned[0].x")
        );
    }
}
