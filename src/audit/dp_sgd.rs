//! The audit of DP-SGD under add/remove, on the pair its accountant is tight for, with its
//! clipping leak.

use super::FamilyTarget;
use super::pairs::pair_1d;
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::Result;
use crate::privacy::Relation;

/// DP-SGD ([`DpSgd`](crate::algo::dp_sgd::DpSgd)) as the page runs it under **add/remove**
/// with `config`'s declared n (D′ has n records, D has n − 1), expected batch b (q = b/n),
/// T steps, (ε, δ) and `leak`, on logistic regression in one dimension with η = 10⁻³.
///
/// The pair: D has n − 1 records with x = 0 (their gradients are 0, so they add no sampling
/// variance); D′ = D plus the canary (x = 50, y = −1). The declared feature bound is 50, so the
/// session leaves the canary alone; its per-sample gradient at |w| ≤ 0.02 has norm ≈ 25 and is
/// clipped to C = 1. So each step is exactly the Poisson-subsampled Gaussian on a
/// sensitivity-C query: the worst case the accountant is tight for. `leak` runs DP-SGD's
/// demonstration ([`DpSgdLeak::NoClipping`](crate::algo::dp_sgd::DpSgdLeak::NoClipping)): the
/// canary then moves the sum by ≈ 25C. A ball of radius 100: the projection never binds.
pub fn dp_sgd_target(config: RunConfig) -> Result<FamilyTarget> {
    let pair = pair_1d([None, Some((50.0, -1.0))], config.n, (0.0, 1.0))?;
    let config = RunConfig {
        algorithm: AlgorithmKind::DpSgd,
        relation: Relation::AddRemove,
        step_size: Some(1e-3),
        clip: Some(1.0),
        feature_bound: 50.0,
        radius: 100.0,
        ..config
    };
    FamilyTarget::new(config, pair)
}
