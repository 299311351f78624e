//! The audit of DP-AccMD in both geometries, with its exact-gradient y-step leak.

use super::FamilyTarget;
use super::pairs::tail_gradient_pair;
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::Result;
use crate::loss::Glm;

/// DP-AccMD ([`DpAccMd`](crate::algo::dp_accmd::DpAccMd), Wang, Ye & Xu 2017, Algorithm 3 with the
/// corrected coupling) as the page runs it under replace-one with `config`'s n, T (`steps`),
/// (ε, δ), `leak` and `domain` (the ℓ2 or the ℓ1 ball; radius 5), on a pair where the gradient
/// sensitivity 2G/n is attained at every point of the domain.
///
/// The pair (d = 1, Huber loss with threshold 1 and the default label bound 10, so G = 1 and
/// β = 1): n − 1 shared records (x = 0, y = 0) with zero gradient; the differing record is
/// (1, +10) in D and (1, −10) in D′. On the ball its residual stays beyond the threshold, so its
/// gradient is the constant ∓1 and the two mean gradients differ by exactly 2/n everywhere. Both
/// geometries run on the same pair (in d = 1 the ℓ1 and ℓ2 balls coincide; the mirror maps
/// differ).
///
/// `leak` runs DP-AccMD's demonstration
/// ([`AccMdLeak::ExactGradientYStep`](crate::algo::dp_accmd::AccMdLeak::ExactGradientYStep)).
/// At T = 1 the leaky release is y₁ = P_C(−∇F(0)/β) = ±1/n, a deterministic function of the
/// data.
pub fn dp_accmd_target(config: RunConfig) -> Result<FamilyTarget> {
    let pair = tail_gradient_pair(config.n)?;
    let config = RunConfig {
        algorithm: AlgorithmKind::DpAccmd,
        loss: Glm::huber(1.0),
        radius: 5.0,
        ..config
    };
    FamilyTarget::new(config, pair)
}
