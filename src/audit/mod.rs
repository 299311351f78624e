//! Empirical privacy audit: a statistical *lower bound* on the ε of a mechanism, from runs on a
//! neighbouring pair (D, D′), to catch implementations that do not deliver what they claim.
//!
//! # Method
//! In the style of StatDP (Ding et al. 2018) and the Clopper–Pearson audits of Jagielski et al.
//! (2020) and Nasr et al. (2021):
//!
//! 1. Run the mechanism N times on D and N times on D′ and reduce each release to a scalar
//!    statistic (for a vector release: its coordinate along D − D′).
//! 2. On the **first half** of the runs, choose a rejection region S = {x ≥ t} or {x ≤ t} and an
//!    ordering (D over D′ or D′ over D) that maximise the bound of step 3 computed on that half
//!    (with Wilson score intervals in place of Clopper–Pearson: the choice only has to be good,
//!    not valid, and Wilson is closed-form, which keeps hundreds of candidates cheap).
//!    Candidate thresholds are pooled order statistics at geometrically spaced ranks from each
//!    end, so the deep tails, where likelihood ratios are largest, are covered.
//! 3. On the **second half** (independent of the choice), count hits and compute one-sided
//!    Clopper–Pearson bounds p̲ ≤ P[M(D) ∈ S] and p̄ ≥ P[M(D′) ∈ S], each at level α/2, and report
//!
//!    ε̂ = ln((p̲ − δ)/p̄)   (0 if p̲ ≤ δ),
//!
//!    since (ε, δ)-DP demands P[M(D) ∈ S] ≤ e^ε P[M(D′) ∈ S] + δ for every S.
//!
//! With probability ≥ 1 − α over the runs, ε̂ ≤ the true ε of the mechanism (union bound over
//! the two Clopper–Pearson bounds; the region is chosen on independent data). So a correct
//! mechanism yields ε̂ ≤ claimed ε except with probability α, and ε̂ > claimed ε is evidence,
//! at confidence 1 − α, of a bug. An audit that passes proves nothing: it is a lower bound on
//! one pair and one statistic, not a proof of privacy.
//!
//! # Targets
//! [`Auditable`] is implemented by the standard targets below, each with planted bugs for the
//! audit tab and the tests. The single mechanisms: the Gaussian and Laplace mechanisms on a
//! clipped mean (σ halved, scale halved, clipping skipped). The whole algorithms are one
//! [`FamilyTarget`] each: a family as a [`RunConfig`](crate::config::RunConfig) names it plus a
//! neighbouring pair of datasets, run as the page runs it — its claim is the plan's guarantee
//! ([`crate::config::menu::plan`]), each run is built by the same
//! [`Planned::build`](crate::algo::registry::Planned::build) on the problem the session builds
//! from a loaded file. Their leaks are the families' own demonstrations (the config's `leak`):
//! DP-GD and DP-SGD without clipping, DP-SVRG++ with BB steps from exact gradients, DP-AccMD
//! with the exact-gradient y-step. Bugs with no page switch are planted beside the same plan:
//! DP-SVRG on unclipped data ([`FamilyTarget::with_clipping_skipped`]), objective perturbation
//! with its noise halved, output perturbation (Lowy & Razaviyayn 2021, Algorithm 1) skipping its certificate
//! (and at an accuracy α tighter than the page's). The grid exponential mechanism runs on a pair
//! with one huge target. The heavy-tail families of Lowy 2026 run with their G_k
//! declared from the generating distribution on a pair whose differing record is a huge outlier
//! ([`heavy_tail_target`]), beside the planted bug of a threshold measured from the sample
//! ([`Bug::MeasuredThreshold`]). The pairs are worst cases for the query at hand. A
//! saddle-point family is one [`GameTarget`]: the config's game with one record planted at the
//! declared bound's two extremes; private mirror descent's dense-gradient pitfall runs on a pair
//! of kinked games built for it ([`SmdDenseGradientTarget`]); the boosted family's selection on a
//! pair built to tip it, beside its score sensitivity halved ([`BoostedSelectionTarget`]). The
//! other certified releases (Lowy & Razaviyayn 2021, Algorithm 6, TERM, any base solver, Zhang et al. 2022's
//! Algorithms 1–2) run on output perturbation's tight pair, their planted bug the differing record
//! [`OVERSIZE`] bounds out with the session's clipping skipped ([`certified_release_target`]);
//! Algorithm 5 of González, Guzmán & Paquette 2024 on a simplex pair, with its outlier [`SCO_OUTLIER`] bounds out
//! ([`private_sco_target`]). tests/algorithms/audit_coverage.rs lists the audits of every family of the
//! registry and fails when one has none.
//!
//! Audits need fresh randomness even when a run is seeded (a fixed seed on both sides would
//! compare a distribution with itself shifted); they draw from their own stream.
//!
//! # Layout
//! The statistics live in `engine.rs`, apart from any mechanism, so that one proof covers every
//! target; the whole-algorithm target in `family.rs`, apart from any family; each family's
//! audit (its configuration, its neighbouring pair, its planted bugs) in one file named after
//! the family, next to the helpers in `pairs.rs` they share. Adding a family's audit means one
//! new file here and one `pub use` line below. `sampler.rs` draws runs on both sides, at once or
//! a chunk at a time; the page's audit tab (`scenarios.rs`) and its neighbouring-datasets view
//! (`neighbours.rs`) are built on it, and so is the attacker's view (`attack.rs`: the empirical
//! ROC of a test of "D or D′?" against the trade-off curve the guarantee allows).

#![deny(missing_docs)]

mod adversarial_training;
pub mod attack;
mod boosted_selection;
mod certified_release;
mod dp_accmd;
mod dp_sgd;
mod dp_svrg;
mod engine;
mod exponential_grid;
mod family;
mod game;
mod heavy_tails;
mod localisation;
mod mechanisms;
pub mod neighbours;
mod noisy_gd;
mod objective_perturbation;
mod output_perturbation;
mod pairs;
mod private_sco;
mod sampler;
pub mod scenarios;
mod smd_dense_gradient;
#[cfg(test)]
mod tests;

pub use adversarial_training::AdversarialTrainingTarget;
pub use boosted_selection::{BoostedSelectionTarget, SelectionBug};
pub use certified_release::{OVERSIZE, certified_release_target, certified_release_with_noise_for};
pub use dp_accmd::dp_accmd_target;
pub use dp_sgd::dp_sgd_target;
pub use dp_svrg::{dp_svrg_target, svrg_bb_target};
pub use engine::{audit, audit_samples};
pub use exponential_grid::{HUGE_LABEL, grid_target};
pub use family::{FamilyTarget, claim_of};
pub use game::GameTarget;
pub use heavy_tails::{HeavyTailTarget, heavy_tail_target};
pub use localisation::{localisation_config, localisation_target, localisation_with_noise_for};
pub use mechanisms::{GaussianMeanTarget, LaplaceMeanTarget};
pub use noisy_gd::dp_gd_target;
pub use objective_perturbation::ObjectivePerturbationTarget;
pub use output_perturbation::{OutputPerturbationTarget, output_perturbation_target};
pub use pairs::base_config;
pub use private_sco::{SCO_OUTLIER, private_sco_target};
pub use sampler::PairDraws;
pub use smd_dense_gradient::{KinkGame, SmdDenseGradientTarget};

use serde::{Deserialize, Serialize};

use crate::algo::Draws;
use crate::error::Result;
use crate::privacy::ApproxDp;
use crate::rng::DpRng;

/// Which dataset of the neighbouring pair a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The dataset D.
    D,
    /// The neighbour D′.
    DPrime,
}

/// A mechanism or a whole algorithm, run on one side of a fixed neighbouring pair.
pub trait Auditable {
    /// The guarantee the mechanism claims, computed before any run.
    fn claim(&self) -> ApproxDp;
    /// One independent run on `side`, reduced to a scalar statistic.
    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64>;
    /// The noise draws the claim's plan states, when the runs draw exactly them (empty: none
    /// stated, or a planted noise that is not the claim's). The attacker's view reads a Gaussian
    /// trade-off curve from them ([`attack::gdp_mu`]).
    fn draws(&self) -> Vec<Draws> {
        Vec::new()
    }
    /// Why the runs are NOT private (a pitfall demonstration), in the plan's words.
    fn leaks(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Which tail the rejection region is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RejectionTail {
    /// S = {x ≥ t}.
    Upper,
    /// S = {x ≤ t}.
    Lower,
}

/// The outcome of an audit; serialisable for the page's audit tab.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// What the mechanism claims.
    pub claimed: ApproxDp,
    /// ε̂: with confidence 1 − α the mechanism's true ε (at the claimed δ) is at least this.
    pub epsilon_lower: f64,
    /// True when ε̂ > claimed ε: a privacy violation detected at confidence 1 − α.
    pub violation: bool,
    /// α of the Clopper–Pearson bounds (split α/2 + α/2).
    pub alpha: f64,
    /// Runs per side (half chose the region, half measured it).
    pub runs_per_side: usize,
    /// The rejection region's threshold t.
    pub threshold: f64,
    /// The rejection region's tail.
    pub tail: RejectionTail,
    /// The side whose probability is in the numerator of the ratio.
    pub numerator: Side,
    /// Hits of the numerator side in the measuring half.
    pub hits_numerator: u64,
    /// Hits of the other side in the measuring half.
    pub hits_denominator: u64,
}

/// Bugs that can be planted in a target, to show the audit catching them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bug {
    /// The correct mechanism.
    None,
    /// Gaussian σ (or the Laplace scale) divided by two after calibration.
    NoiseHalved,
    /// Records are not clipped to the declared bound before the query.
    ClippingSkipped,
    /// Output perturbation releases its base solver's point after a fixed number of steps
    /// ("ran T steps") without checking the accuracy certificate (docs/PRIVACY.md rule 3).
    CertificateSkipped,
    /// A heavy-tail family's threshold C set from a moment G_k measured on the sample instead of
    /// the one declared from the generating distribution (Lowy 2026's G_k is public; a
    /// G_k measured on the sample is not).
    MeasuredThreshold,
}
