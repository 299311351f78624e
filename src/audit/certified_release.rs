//! The audits of the families that release one certified solve plus one noise draw beyond seed
//! 000's Algorithm 1 (which has `output_perturbation.rs`): Lowy & Razaviyayn 2021's Algorithm 6
//! (regularised output perturbation) and its TERM objective, Zhang et al. 2022's Algorithms 1 and
//! 2 (bring your own algorithm, plain and phased), and any of them with another base solver
//! (Katyusha). One pair and one planted bug for all, since their sensitivities all scale with the
//! record's gradient.

use super::pairs::{pair_1d, tail_gradient_pair};
use super::{Bug, FamilyTarget};
use crate::config::RunConfig;
use crate::error::{Error, Result};
use crate::loss::Glm;

/// How many times the declared feature bound (1) the planted record's feature is when the
/// session's clipping is skipped: the record's gradient, and so the distance between the two
/// sides' solves, is this many times what the noise was calibrated for, which is the noise scale
/// divided by this factor.
pub const OVERSIZE: f64 = 50.0;

/// `config`'s family (the caller sets `algorithm`, the ridge, solver and loss wrap it needs) on
/// output perturbation's tight pair: d = 1, the Huber loss (threshold 1, so L = 1, smooth), the
/// ball of radius 10, n − 1 shared records (0, 0) whose loss does not depend on w, and the
/// differing record (1, +10) in D, (1, −10) in D′, whose gradient is the constant ∓1 on the ball
/// (its residual stays beyond the Huber threshold), so the two objectives' gradients differ by
/// exactly 2L/n everywhere and the sensitivity bounds of the plain ERM forms are attained.
///
/// [`Bug::ClippingSkipped`]: the differing record is (K, ±10K) with K = [`OVERSIZE`], and the
/// session's clipping is skipped ([`FamilyTarget::with_clipping_skipped`]) while the plan still
/// calibrates to the declared bound 1. Its residual K(10 ∓ w) still stays beyond the threshold,
/// so its gradient is ∓K: the solves move K times as far as the noise covers.
pub fn certified_release_target(config: RunConfig, bug: Bug) -> Result<FamilyTarget> {
    let config = certified_config(config);
    match bug {
        Bug::None => FamilyTarget::new(config.clone(), tail_gradient_pair(config.n)?),
        Bug::ClippingSkipped => {
            let (x, y) = (OVERSIZE, 10.0 * OVERSIZE);
            let pair = pair_1d([Some((x, y)), Some((x, -y))], config.n, (0.0, 0.0))?;
            FamilyTarget::with_clipping_skipped(config, pair)
        }
        _ => Err(Error::invalid(
            "bug",
            "none or clipping_skipped for a certified release",
            format!("{bug:?}"),
        )),
    }
}

/// `config` with the pair's loss and ball (Huber with threshold 1, radius 10).
fn certified_config(config: RunConfig) -> RunConfig {
    RunConfig {
        loss: Glm::huber(1.0),
        radius: 10.0,
        ..config
    }
}

/// [`certified_release_target`]'s tight pair with the noise `config`'s plan calibrates for
/// `factor`·ε, tested against the claim at ε ([`FamilyTarget::with_noise_for`]): the planted bug
/// of a family whose records the gate keeps within bound.
pub fn certified_release_with_noise_for(config: RunConfig, factor: f64) -> Result<FamilyTarget> {
    let config = certified_config(config);
    let pair = tail_gradient_pair(config.n)?;
    FamilyTarget::with_noise_for(config, pair, factor)
}
