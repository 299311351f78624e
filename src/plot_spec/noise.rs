//! The noise plot's spec: released noise norms and the law the calibration promises.

use serde::Deserialize;

use super::{Floats, check_positive};
use crate::algo::NoiseShape;
use crate::error::Error;

/// The noise plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NoiseSpec {
    /// ‖noise‖₂ of each draw; NaN and 0 entries (steps that drew no noise) are ignored.
    pub norms: Floats,
    /// The law overlaid on the histogram (the preview's `noise`); none draws no curve.
    #[serde(default)]
    pub law: NoiseShape,
    /// The caption; empty for one that states the draw count and the law.
    #[serde(default)]
    pub title: String,
    /// Pinned runs' main-algorithm norms, outlined faded; the axes hold them too.
    #[serde(default)]
    pub pinned: Vec<super::pinned::PinnedNorms>,
    /// Why an algorithm without a noise law draws none (e.g. "mirror descent with vertex
    /// sampling adds no Gaussian noise: …"); empty: a general sentence.
    #[serde(default)]
    pub note: String,
}

/// What an empty noise plot says when the algorithm adds no noise vector and the page gave no
/// reason of its own.
pub const NO_NOISE: &str = "This algorithm adds no Gaussian or Laplace noise vector, so there is \
                            no noise norm to draw.";

/// What an empty noise plot says before the first draw.
pub const NOT_YET: &str = "No noise drawn yet: press Play.";

impl NoiseSpec {
    /// The words an empty plot shows in place of a histogram: `None` when a draw is there to
    /// show. An empty plot with no word reads as a broken page.
    pub fn empty_note(&self) -> Option<String> {
        if self.norms.iter().any(|v| v.is_finite() && *v > 0.0) {
            return None;
        }
        Some(match (&self.law, self.note.is_empty()) {
            (NoiseShape::None, true) => NO_NOISE.to_string(),
            (NoiseShape::None, false) => self.note.clone(),
            _ => NOT_YET.to_string(),
        })
    }

    /// Checks the spec (see the module docs of [`super`]).
    pub fn check(&self) -> Result<(), Error> {
        super::pinned::check_count("noise.pinned", self.pinned.len(), super::pinned::MAX_PINS)?;
        let (scale, d) = match self.law {
            NoiseShape::Gaussian { sigma, d } => (sigma, d),
            NoiseShape::L2Laplace { scale, d } => (scale, d),
            NoiseShape::None => return Ok(()),
        };
        check_positive("noise.law scale", scale)?;
        if d == 0 {
            return Err(Error::invalid("noise.law.d", "a dimension ≥ 1", d));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot_spec::Spec;
    use serde_json::json;

    fn noise(spec: serde_json::Value) -> NoiseSpec {
        match Spec::parse("noise", spec).expect("a valid spec") {
            Spec::Noise(s) => s,
            _ => unreachable!(),
        }
    }

    #[test]
    fn an_empty_plot_says_why_it_is_empty() {
        // Mirror descent with vertex sampling: no law, no draws, the page's reason.
        let why = "mirror descent adds no Gaussian noise";
        let s = noise(json!({"norms": [], "law": {"kind": "none"}, "note": why}));
        assert_eq!(s.empty_note().as_deref(), Some(why));
        // Without a reason of the page's: the general sentence.
        let s = noise(json!({"norms": [0, 0], "law": {"kind": "none"}}));
        assert_eq!(s.empty_note().as_deref(), Some(NO_NOISE));
        // A law but no draw yet (a fresh page).
        let s = noise(json!({"norms": [], "law": {"kind": "gaussian", "sigma": 1, "d": 2}}));
        assert_eq!(s.empty_note().as_deref(), Some(NOT_YET));
        // Draws: nothing to say.
        let s = noise(json!({"norms": [0.5], "law": {"kind": "none"}}));
        assert_eq!(s.empty_note(), None);
    }
}
