//! The audit of the grid exponential mechanism on a pair with one huge target, which
//! catches scoring by rounded objective values instead of per-record differences.

use super::FamilyTarget;
use super::pairs::{base_config, pair_1d};
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::Result;
use crate::loss::Glm;

/// The differing record's target in D′ of [`grid_target`]: the largest label bound the config
/// accepts. The pair used 10¹⁸, where F on D′ is constant to the last bit; since the config
/// caps the declared label bound at [`crate::loss::MAX_LABEL_BOUND`] (10⁶), F's values keep the
/// other records' differences (ulp(10⁴) ≈ 2·10⁻¹²), so scoring by F values is no longer a leak a
/// config can reach, and the planted raw-score audit was retired with it.
pub const HUGE_LABEL: f64 = crate::loss::MAX_LABEL_BOUND;

/// The exponential mechanism on a grid
/// ([`GridExponential`](crate::algo::exponential_grid::GridExponential), Lowy & Razaviyayn 2021, Algorithm 9)
/// as the page runs it on a pair with one huge target: n records, pure ε, released point as the
/// statistic.
///
/// The pair (d = 1, absolute loss, no ridge, ball of radius 2, feature bound 1, 41 grid points):
/// n − 1 shared records (x = 1, y = 1.5); the differing record is (1, 1.5) in D and
/// (1, [`HUGE_LABEL`]) in D′. The declared label bound is [`HUGE_LABEL`] (the absolute loss's G
/// does not depend on it), so the session leaves the target alone and the pair tests the scores
/// alone: scored by F values, F on D′ is constant to the last bit (the huge record absorbs the
/// others), the selection is uniform there and concentrated near 1.5 on D, far beyond e^ε. The
/// mechanism scores by per-record differences
/// ([`Objective::rise`](crate::objective::Objective::rise)) and must pass. A test can plant the
/// old scoring on the same problems ([`FamilyTarget::problem`]).
pub fn grid_target(n: usize, epsilon: f64) -> Result<FamilyTarget> {
    let config = RunConfig {
        algorithm: AlgorithmKind::ExponentialGrid,
        loss: Glm::Absolute {
            label_bound: HUGE_LABEL,
        },
        radius: 2.0,
        grid_resolution: 41,
        ..base_config(n, epsilon, 0.0)
    };
    let pair = pair_1d([Some((1.0, 1.5)), Some((1.0, HUGE_LABEL))], n, (1.0, 1.5))?;
    FamilyTarget::new(config, pair)
}
