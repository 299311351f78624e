//! The audit of noisy gradient descent (DP-GD), with its clipping leak.

use super::FamilyTarget;
use super::pairs::pair_1d;
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::Result;

/// Noisy gradient descent ([`NoisyGd`](crate::algo::noisy_gd::NoisyGd)) as the page runs it with
/// `config`'s n, T (`steps`), (ε, δ) and `leak`, on logistic regression in one dimension with
/// declared feature bound 1.
///
/// The pair: n − 1 records (x = 1, y = +1) shared; the differing record is (1, +1) in D and
/// (K, −1) with K = 50 in D′. Clipped to the bound, D′'s record is (1, −1), whose gradient
/// points the other way: the largest change a record can make at w ≈ 0. `leak` runs DP-GD's
/// demonstration (features unclipped,
/// [`DpGdLeak::NoClipping`](crate::algo::noisy_gd::DpGdLeak::NoClipping)), where that gradient
/// is up to 50 times the declared bound.
///
/// η = 1 and a ball of radius 100 keep the noise from pinning the release to the boundary,
/// which would hide differences (post-processing can only help privacy, but it would make the
/// audit weak). The pair is separable, so without a ridge the session's reference optimum (a
/// non-private diagnostic, solved once per problem) runs to its work cap, ≈ 0.7 s per problem; a
/// ridge of 0.01 lets it certify at once and moves the release by 1% per step (the noise and
/// its sensitivity 2G/n do not depend on it).
pub fn dp_gd_target(config: RunConfig) -> Result<FamilyTarget> {
    let pair = pair_1d([Some((1.0, 1.0)), Some((50.0, -1.0))], config.n, (1.0, 1.0))?;
    FamilyTarget::new(dp_gd_config(config), pair)
}

/// The settings of [`dp_gd_target`] on top of `config` (DP-GD, η = 1, radius 100, ridge 0.01),
/// shared with the neighbouring view, which runs the same family on pairs of its own.
pub(crate) fn dp_gd_config(config: RunConfig) -> RunConfig {
    RunConfig {
        algorithm: AlgorithmKind::NoisyGd,
        step_size: Some(1.0),
        radius: 100.0,
        l2: 0.01,
        ..config
    }
}
