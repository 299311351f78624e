//! The audit of González, Guzmán & Paquette 2024's Algorithm 5 (DP-SCO on the simplex by private
//! mirror descent with lazy vertex sampling), with the session's clipping skipped as its planted
//! bug.

use super::{Bug, FamilyTarget};
use crate::config::{AlgorithmKind, DomainChoice, RunConfig};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::loss::Glm;

/// The planted outlier of [`private_sco_target`]'s [`Bug::ClippingSkipped`]: the differing
/// record's feature is (1000, 0), left unclipped while the plan
/// calibrates every draw's ε₀ = 4L₀τ/B to the declared bound 1: its gradient, and so each draw's
/// privacy loss, is up to 1000 times what the draws were calibrated for. A smaller
/// outlier does not show: at n = 100, ε = 1 each of the 105 draws has ε₀ ≈ 0.01, the first step
/// (the only one whose batch holds the record) moves the average's mass by a factor e^(±τK/B)
/// with τ/B ≈ 0.0025, and the release is K = 15 vertices drawn from it; ×10 leaves that within
/// the spread of the draws (measured ε̂ = 0 with 2000 runs a side), ×1000 moves the mass to
/// ≈ 0.9 on one vertex (measured ε̂ = 4.15).
pub const SCO_OUTLIER: f64 = 1000.0;

/// `config`'s n and (ε, δ) with Algorithm 5 as the page runs it, on the simplex of d = 2 under
/// the logistic loss: n − 1 shared records (0, 0) with label +1, whose loss does not depend on w,
/// and the differing record (1, 0) with label +1 in D, −1 in D′ (its feature at the declared
/// bound 1). D's record pulls the mass onto the first vertex, D′'s off it: the statistic, the
/// release's first coordinate (the share of its K drawn vertices that are the first), is larger
/// on D.
///
/// [`Bug::ClippingSkipped`]: the differing record's feature is ([`SCO_OUTLIER`], 0), unclipped.
pub fn private_sco_target(config: RunConfig, bug: Bug) -> Result<FamilyTarget> {
    let config = RunConfig {
        algorithm: AlgorithmKind::PrivateSco,
        domain: DomainChoice::Simplex,
        loss: Glm::Logistic,
        d: 2,
        ..config
    };
    let x = match bug {
        Bug::None => 1.0,
        Bug::ClippingSkipped => SCO_OUTLIER,
        _ => {
            return Err(Error::invalid(
                "bug",
                "none or clipping_skipped for Algorithm 5",
                format!("{bug:?}"),
            ));
        }
    };
    let side = |label: f64| -> Result<Dataset> {
        let mut features = vec![x, 0.0];
        features.resize(2 * config.n, 0.0);
        let mut labels = vec![label];
        labels.resize(config.n, 1.0);
        Dataset::from_samples(2, features, labels)
    };
    let pair = [side(1.0)?, side(-1.0)?];
    match bug {
        Bug::None => FamilyTarget::new(config, pair),
        _ => FamilyTarget::with_clipping_skipped(config, pair),
    }
}
