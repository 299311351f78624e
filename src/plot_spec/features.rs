//! The data plot's spec: feature norms before clipping, the declared threshold and the clipped
//! fraction.

use serde::Deserialize;

use super::{Floats, check_positive};
use crate::error::Error;

/// The feature-norm plot.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeaturesSpec {
    /// ‖xᵢ‖ before clipping (a sample of at most ~10⁴, chosen by the caller).
    pub norms: Floats,
    /// The declared clip bound: a vertical line.
    pub threshold: f64,
    /// The fraction of records clipped, shown in the caption.
    pub clipped_fraction: f64,
}

impl FeaturesSpec {
    /// Checks the spec (see the module docs of [`super`]).
    pub fn check(&self) -> Result<(), Error> {
        check_positive("features.threshold", self.threshold)?;
        if !(0.0..=1.0).contains(&self.clipped_fraction) {
            return Err(Error::invalid(
                "features.clippedFraction",
                "a fraction in [0, 1]",
                self.clipped_fraction,
            ));
        }
        Ok(())
    }
}
