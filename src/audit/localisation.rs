//! The audit of localisation (Lowy & Razaviyayn 2021, Algorithm 10) and of exponential sampling
//! + localisation (Algorithm 11) on the pair that attains output perturbation's sensitivity.

use super::FamilyTarget;
use super::output_perturbation::output_perturbation_config;
use super::pairs::{base_config, tail_gradient_pair};
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::Result;

/// Algorithm 10 (`sample` false) or 11 (`sample` true) as the page runs it, pure ε, on n records,
/// the released point as the statistic.
///
/// The pair is output perturbation's (d = 1, Huber loss with threshold 1, ridge 0.1, feature
/// bound 1): n − 1 records (0, 0) that do not depend on w, and the differing record (1, +10) in
/// D, (1, −10) in D′. On the ball of radius 5 its residual stays beyond the threshold, so its
/// gradient is the constant ∓1 = ∓L: the minimisers are 2L/(μn) = Δ_F apart (stage 1's bound
/// attained), and each grid point's utility −(F(w) − F(w₀)) moves by 2L·|w − w₀|/n between D and
/// D′, the most the draw's sensitivity 2L·r₀/n allows at the rim of W₀. 41 grid points per axis.
pub fn localisation_target(n: usize, epsilon: f64, sample: bool) -> Result<FamilyTarget> {
    FamilyTarget::new(
        localisation_config(n, epsilon, sample),
        tail_gradient_pair(n)?,
    )
}

/// The configuration of [`localisation_target`], for a planted variant built on the same pair.
pub fn localisation_config(n: usize, epsilon: f64, sample: bool) -> RunConfig {
    RunConfig {
        algorithm: if sample {
            AlgorithmKind::LocalisedExponential
        } else {
            AlgorithmKind::Localisation
        },
        radius: 5.0,
        grid_resolution: 41,
        ..output_perturbation_config(base_config(n, epsilon, 0.0))
    }
}

/// [`localisation_target`] with the noise its plan calibrates for `factor`·ε (both stages' noise
/// too small), while the claim stays ε: the planted bug the audit must catch.
pub fn localisation_with_noise_for(
    n: usize,
    epsilon: f64,
    sample: bool,
    factor: f64,
) -> Result<FamilyTarget> {
    FamilyTarget::with_noise_for(
        localisation_config(n, epsilon, sample),
        tail_gradient_pair(n)?,
        factor,
    )
}
