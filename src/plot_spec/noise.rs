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
}

impl NoiseSpec {
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
