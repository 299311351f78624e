//! Privacy guarantees, calibration, conversions, composition, accountants and the ledger of a run.
//!
//! Every guarantee here is computed from the configuration alone, before any data are touched
//! (docs/PRIVACY.md rule 2).
//!
//! - [`measures`]: the guarantee types ([`PureDp`], [`ApproxDp`], [`Zcdp`], [`Rdp`]), each
//!   carrying the [`Relation`] it assumes, and the conversions between them.
//! - [`calibration`]: noise scale for a sensitivity and a target: classical, ZWB+19 and analytic
//!   Gaussian σ side by side, Laplace scales.
//! - [`composition`]: basic, advanced, zCDP/RDP additive and parallel composition.
//! - [`rdp`]: the RDP accountant for the Poisson-subsampled Gaussian (DP-SGD), both directions.
//! - [`pld`]: a privacy-loss-distribution accountant for the same mechanism (second opinion).
//! - [`zcdp`]: the closed-form zCDP calibration used by full-batch noisy GD.
//! - [`release`]: [`release::Noised`], the released point, made only by drawing its noise
//!   (output perturbation, or a [`release::Trail`] of the run's planned draws); what a run
//!   publishes ([`release::Published`]) is a `Noised` or a demonstration typed NOT PRIVATE.
//! - [`Ledger`]: what a run spent, under which relation, with which caveats, and whether
//!   something that depends on the data made the release NOT PRIVATE.
//!
//! The guarantee holds for the release as planned: a run whose certificate failed at run time
//! (which only floating point can cause once the plan fixed its budget) releases its noise
//! around a fixed public point, and because *that* failure depends on the data the ledger marks
//! the release NOT PRIVATE ([`Ledger::with_failure`]), in the private export too.

#![deny(missing_docs)]

pub mod calibration;
pub mod composition;
pub mod measures;
pub mod pld;
pub mod rdp;
pub mod release;
pub mod zcdp;

pub use measures::{ApproxDp, PrivacyLoss, PureDp, Rdp, Zcdp};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Which datasets count as neighbours. It changes sensitivities by a factor of two, so it is part
/// of every guarantee and shown beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// D and D′ differ in one record, replaced (n is the same and public).
    #[default]
    ReplaceOne,
    /// D′ is D with one record added or removed.
    AddRemove,
}

impl Relation {
    /// Words for the page.
    pub fn describe(self) -> &'static str {
        match self {
            Relation::ReplaceOne => "neighbours differ by replacing one record",
            Relation::AddRemove => "neighbours differ by adding or removing one record",
        }
    }
}

/// Replace-one from an add/remove accountant, by group privacy. Replacing z by z′ is removing z
/// and then adding z′, so replace-one neighbours D, D″ are two add/remove steps apart through
/// D′ = D ∖ {z}; an add/remove (ε′, δ′)-DP mechanism therefore gives
/// P[M(D) ∈ E] ≤ e^{ε′}(e^{ε′}·P[M(D″) ∈ E] + δ′) + δ′, i.e. replace-one (2ε′, (1 + e^{ε′})δ′)-DP
/// (Dwork & Roth 2014, "The Algorithmic Foundations of Differential Privacy", group privacy, k = 2).
/// Used by the accountants proved for add/remove only (the Poisson-subsampled Gaussian of DP-SGD
/// and DP-SVRG) when the user asks for replace-one: they are calibrated to this add/remove target,
/// which costs about twice the noise (ε halves).
pub fn add_remove_target_for_replace_one(epsilon: f64, delta: f64) -> (f64, f64) {
    let half = epsilon / 2.0;
    (half, delta / (1.0 + libm::exp(half)))
}

/// The replace-one statement an add/remove `guarantee` implies by group privacy (see
/// [`add_remove_target_for_replace_one`]): ε doubles and δ becomes (1 + e^{ε′})δ′, never stated
/// below `target_delta`, the δ the user asked for (which it meets up to rounding).
pub fn replace_one_by_group_privacy(guarantee: &Guarantee, target_delta: f64) -> Guarantee {
    let implied = (1.0 + libm::exp(guarantee.epsilon)) * guarantee.delta;
    Guarantee {
        epsilon: 2.0 * guarantee.epsilon,
        delta: target_delta.max(implied),
        relation: Relation::ReplaceOne,
        rho: None,
        accounting: format!(
            "{}; this add/remove (ε′ = {:.4}, δ′ = {:.3e}) statement gives replace-one \
             (2ε′, (1 + e^ε′)δ′) by group privacy (a replaced record is one removed and one added)",
            guarantee.accounting, guarantee.epsilon, guarantee.delta
        ),
    }
}

/// What an algorithm promises about its release, stated before it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Guarantee {
    /// ε of the (ε, δ) statement shown to the user.
    pub epsilon: f64,
    /// δ of the (ε, δ) statement (0 for pure DP).
    pub delta: f64,
    /// The neighbouring relation the statement assumes.
    pub relation: Relation,
    /// The zCDP parameter the (ε, δ) statement was converted from, if the analysis went through zCDP.
    pub rho: Option<f64>,
    /// How the guarantee was obtained, in one sentence.
    pub accounting: String,
}

/// One mechanism's share of a run's budget, in the measure its analysis used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    /// What was released, in words ("1500 noisy gradient steps").
    pub mechanism: String,
    /// What it cost.
    pub loss: PrivacyLoss,
}

/// What a run spent and under which conditions; shown beside the released point, serialised to
/// the page as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// The end-to-end guarantee of the release.
    pub guarantee: Guarantee,
    /// The mechanism, in one line.
    pub mechanism: String,
    /// The releases that compose to the guarantee (empty when the guarantee is a single step).
    #[serde(default)]
    pub spends: Vec<Spend>,
    /// Every condition the guarantee depends on.
    pub caveats: Vec<String>,
    /// Why the release is **not private**, one sentence each: a deliberate leak of a "leaky"
    /// demonstration toggle, or a run-time failure that depends on the data
    /// ([`Ledger::with_failure`]). When non-empty the guarantee above states what the correct
    /// mechanism would have promised, and the page must show a "not DP" badge instead of it.
    #[serde(default)]
    pub leaks: Vec<String>,
    /// Which certified path the run took, when it had more than one (a solver that did not
    /// certify within its budget and a fallback, itself certified within a budget fixed by the
    /// plan, that took over). The guarantee covers every such path, but *which* one ran is a fact
    /// about the raw data: a **non-private** diagnostic, shown beside the release and left out
    /// of the private export ([`Ledger::private`]). A failure the guarantee does not cover is
    /// never only an event: see [`Ledger::with_failure`].
    #[serde(default)]
    pub events: Vec<String>,
}

impl Ledger {
    /// A ledger that always carries the floating-point caveat, and the seeded caveat when
    /// `seeded`, so no caller can forget them. `caveats` are appended after those two.
    pub fn new(
        guarantee: Guarantee,
        mechanism: impl Into<String>,
        seeded: bool,
        caveats: impl IntoIterator<Item = String>,
    ) -> Self {
        let mut all = vec![FLOAT_CAVEAT.to_string()];
        if seeded {
            all.push(SEEDED_CAVEAT.to_string());
        }
        all.extend(caveats);
        Self {
            guarantee,
            mechanism: mechanism.into(),
            spends: Vec::new(),
            caveats: all,
            leaks: Vec::new(),
            events: Vec::new(),
        }
    }

    /// Records a data-dependent event of the run (see [`Ledger::events`]).
    pub fn with_event(mut self, event: impl Into<String>) -> Self {
        self.events.push(event.into());
        self
    }

    /// Records a failure the guarantee does not cover (a certificate that never held, so the
    /// release is the planned noise around a fixed public point): whether it happens depends on
    /// the data, so the release is **NOT PRIVATE**. It is kept in [`Ledger::leaks`], which the
    /// private export keeps and the headline reads ([`Ledger::is_private`]), and in the events.
    pub fn with_failure(mut self, failure: impl Into<String>) -> Self {
        let failure = failure.into();
        self.leaks.push(format!("NOT PRIVATE: {failure}"));
        self.events.push(failure);
        self
    }

    /// The ledger as the private export states it: everything fixed before the data were read,
    /// and every failure that made the release NOT PRIVATE ([`Ledger::with_failure`]), without
    /// the run's other data-dependent [`Ledger::events`] (which certified path ran).
    pub fn private(&self) -> Self {
        Self {
            events: Vec::new(),
            ..self.clone()
        }
    }

    /// Marks the run as **not private** because of `leak` (a leaky demonstration toggle).
    pub fn with_leak(mut self, leak: impl Into<String>) -> Self {
        self.leaks.push(leak.into());
        self
    }

    /// False when a leaky toggle was on or a data-dependent failure happened: the release then
    /// carries no guarantee at all.
    pub fn is_private(&self) -> bool {
        self.leaks.is_empty()
    }

    /// Records one release that composes into the guarantee.
    pub fn with_spend(mut self, mechanism: impl Into<String>, loss: PrivacyLoss) -> Self {
        self.spends.push(Spend {
            mechanism: mechanism.into(),
            loss,
        });
        self
    }
}

/// The caveat every seeded run carries.
pub const SEEDED_CAVEAT: &str =
    "seeded run: reproducible, so it demonstrates the mechanism but is not a private release";
/// The caveat every floating-point sampler carries.
pub const FLOAT_CAVEAT: &str =
    "noise is sampled in floating point (idealised): not hardened against floating-point attacks";

// ε and Δ are checked with the samplers' checks, which the exponential mechanism uses too.
pub use crate::noise::{check_epsilon, check_sensitivity};

/// δ must lie in (0, 1): δ = 0 is pure DP (use the pure-ε tools), δ ≥ 1 promises nothing.
pub fn check_delta(delta: f64) -> Result<()> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(Error::invalid("delta", "a number in (0, 1)", delta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_always_carries_the_float_caveat_and_round_trips_as_json() {
        let g = Guarantee {
            epsilon: 1.0,
            delta: 1e-5,
            relation: Relation::AddRemove,
            rho: None,
            accounting: "test".into(),
        };
        let ledger = Ledger::new(g, "m", true, ["extra".to_string()]).with_spend(
            "step",
            PrivacyLoss::Zcdp(Zcdp::new(0.1, Relation::AddRemove).unwrap()),
        );
        assert_eq!(ledger.caveats[0], FLOAT_CAVEAT);
        assert_eq!(ledger.caveats[1], SEEDED_CAVEAT);
        let json = serde_json::to_string(&ledger).unwrap();
        assert!(json.contains("add_remove"));
        let back: Ledger = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ledger);
        let unseeded = Ledger::new(back.guarantee, "m", false, []);
        assert!(!unseeded.caveats.iter().any(|c| c == SEEDED_CAVEAT));
    }
}
