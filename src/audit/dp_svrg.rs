//! The audits of DP-SVRG (clipping skipped) and DP-SVRG++ (its SVRG-BB step-size leak), which
//! share one add/remove pair.

use super::pairs::pair_1d;
use super::{Bug, FamilyTarget};
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::{Error, Result};
use crate::privacy::Relation;

/// `config` under add/remove on the pair of both audits, in a ball of radius 100: D has n − 1
/// records with x = 0 (zero gradients); D′ adds the canary (x = 50, y = −1), which the session
/// clips to the declared bound x = 1 unless `bug` is [`Bug::ClippingSkipped`].
fn on_canary_pair(config: RunConfig, bug: Bug) -> Result<FamilyTarget> {
    let pair = pair_1d([None, Some((50.0, -1.0))], config.n, (0.0, 1.0))?;
    let config = RunConfig {
        relation: Relation::AddRemove,
        radius: 100.0,
        ..config
    };
    match bug {
        Bug::None => FamilyTarget::new(config, pair),
        Bug::ClippingSkipped => FamilyTarget::with_clipping_skipped(config, pair),
        _ => Err(Error::invalid(
            "bug",
            "none or clipping_skipped for DP-SVRG",
            format!("{bug:?}"),
        )),
    }
}

/// Certified DP-SVRG ([`DpSvrg`](crate::algo::dp_svrg::DpSvrg)) as the page runs it under
/// **add/remove** with `config`'s declared n (D′ has n records, D has n − 1), batch b, T epochs
/// (`steps`) of m = n/b steps and (ε, δ), on ridge logistic regression (λ = 0.1) in one
/// dimension with η = 1.
///
/// The canary moves both the sampled differences and the re-released anchor. DP-SVRG has no
/// clipping demonstration, so [`Bug::ClippingSkipped`] is planted
/// ([`FamilyTarget::with_clipping_skipped`]): the canary stays at x = 50, its gradient is then up
/// to 50 G and the calibrated noise does not cover it.
pub fn dp_svrg_target(config: RunConfig, bug: Bug) -> Result<FamilyTarget> {
    let config = RunConfig {
        algorithm: AlgorithmKind::DpSvrg,
        step_size: Some(1.0),
        l2: 0.1,
        ..config
    };
    on_canary_pair(config, bug)
}

/// The SVRG-BB audit: certified DP-SVRG++ as the page runs it on the same pair without ridge,
/// declared η = 10⁻³, with or without its demonstration (`config.leak`:
/// [`SvrgLeak::BbStepFromExactGradients`](crate::algo::dp_svrg::SvrgLeak::BbStepFromExactGradients),
/// a Barzilai–Borwein step from exact gradients). On D every gradient is exactly 0, so the BB curvature estimate ⟨Δx̃, Δ∇F⟩ is 0,
/// the BB step is undefined and η stays 10⁻³: the release sits within a few 10⁻³ of 0. On D′
/// the canary's curvature (≈ 1/(4n) near 0) makes η_BB ≈ 4n/m_s, a thousand times larger, and
/// the same noise spreads the release over units: the step size alone tells the datasets apart.
/// Without the leak both sides keep η = 10⁻³ (the correct mechanism).
pub fn svrg_bb_target(config: RunConfig) -> Result<FamilyTarget> {
    let config = RunConfig {
        algorithm: AlgorithmKind::DpSvrgPlusPlus,
        step_size: Some(1e-3),
        l2: 0.0,
        ..config
    };
    on_canary_pair(config, Bug::None)
}
