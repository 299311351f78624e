//! The audit tab's scenarios: each a target of this module's siblings at the settings
//! tests/algorithms/privacy_audit.rs and tests/algorithms/output_perturbation.rs check, with its planted bugs as
//! toggles, and [`AuditJob`], the audit drawn a chunk at a time so the page's worker can show
//! progress and stop between chunks.
//!
//! The run counts are the fewest that still catch each bug marked `caught` at the page's default
//! seed, so that an audit finishes in seconds in a tab;
//! `cargo test --release --test playground teaching_audits:: -- --ignored --nocapture` runs every scenario
//! and bug at full size, checks each verdict and prints its time.

use serde::Serialize;

use super::pairs::base_config;
use super::sampler::PairDraws;
use super::{
    AuditReport, Auditable, Bug, GaussianMeanTarget, LaplaceMeanTarget,
    ObjectivePerturbationTarget, OutputPerturbationTarget, audit_samples, dp_accmd_target,
    dp_gd_target, dp_sgd_target, dp_svrg_target, grid_target, svrg_bb_target,
};
use crate::config::{AlgorithmKind, RunConfig};
use crate::error::{Error, Result};
use crate::privacy::calibration::GaussianMethod;
use crate::rng::{DpRng, Stream, seeded};
use crate::solver::SolverKind;

/// α of the tab's audits: a correct mechanism is flagged with probability at most 10⁻³.
pub const ALPHA: f64 = 1e-3;

/// A bug that can be planted in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PlantedBug {
    /// The key the page sends back.
    pub key: &'static str,
    /// The toggle's label.
    pub label: &'static str,
    /// What the bug does, in one sentence.
    pub what: &'static str,
    /// Whether the tests show this audit catching it (false: a bug this pair cannot reveal,
    /// kept to show that a passing audit proves nothing).
    pub caught: bool,
}

/// One audit the tab offers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scenario {
    /// The key the page sends back.
    pub key: &'static str,
    /// Its name in the menu.
    pub title: &'static str,
    /// The page's algorithm it audits, if it is a whole algorithm (the tab preselects it).
    pub algorithm: Option<AlgorithmKind>,
    /// The pair and the settings, in words.
    pub setting: &'static str,
    /// Runs per side.
    pub runs: usize,
    /// The bugs it can plant.
    pub bugs: &'static [PlantedBug],
}

const SIGMA_HALVED: PlantedBug = PlantedBug {
    key: "noise_halved",
    label: "σ halved",
    what: "the noise is calibrated, then divided by two before it is added",
    caught: true,
};
const CLIPPING_SKIPPED: PlantedBug = PlantedBug {
    key: "clipping_skipped",
    label: "clipping skipped",
    what: "records are not clipped to the declared bound, so one record moves the output further than the noise was calibrated for",
    caught: true,
};

/// Every scenario, in menu order.
pub const SCENARIOS: [Scenario; 10] = [
    Scenario {
        key: "gaussian_mean",
        title: "Gaussian mechanism on a clipped mean",
        algorithm: None,
        setting: "n = 100 scalars clipped to [−1, 1], replace-one, (ε, δ) = (3, 10⁻⁵), analytic σ (Balle & Wang 2018); D has the record 1, D′ the record −20",
        runs: 100_000,
        bugs: &[SIGMA_HALVED, CLIPPING_SKIPPED],
    },
    Scenario {
        key: "laplace_mean",
        title: "Laplace mechanism on a clipped mean",
        algorithm: None,
        setting: "n = 100 scalars clipped to [−1, 1], replace-one, ε = 1, scale Δ/ε; D has the record 1, D′ the record −20",
        runs: 40_000,
        bugs: &[
            PlantedBug {
                label: "scale halved",
                ..SIGMA_HALVED
            },
            CLIPPING_SKIPPED,
        ],
    },
    Scenario {
        key: "noisy_gd",
        title: "DP-GD",
        algorithm: Some(AlgorithmKind::NoisyGd),
        setting: "logistic loss in one dimension, n = 20, T = 3, (ε, δ) = (1, 10⁻⁵); D′'s record sits at 50 times the feature bound",
        runs: 4_000,
        bugs: &[PlantedBug {
            key: "leak",
            label: "clipping skipped (the page's demonstration)",
            what: "DP-GD's NOT PRIVATE demonstration: features are not clipped, so the outlier's gradient is 50 times the declared bound",
            caught: true,
        }],
    },
    Scenario {
        key: "dp_sgd",
        title: "DP-SGD",
        algorithm: Some(AlgorithmKind::DpSgd),
        setting: "add/remove, n = 10, expected batch 5, one step, (ε, δ) = (1, 10⁻⁵); D′ adds a canary at x = 50",
        runs: 10_000,
        bugs: &[PlantedBug {
            key: "leak",
            label: "clipping skipped (the page's demonstration)",
            what: "DP-SGD's NOT PRIVATE demonstration: per-sample gradients are not clipped, so the canary moves the sum by about 25 C",
            caught: true,
        }],
    },
    Scenario {
        key: "dp_svrg",
        title: "DP-SVRG",
        algorithm: Some(AlgorithmKind::DpSvrg),
        setting: "add/remove, n = 10, batch 5, one epoch, (ε, δ) = (1, 10⁻⁵); D′ adds a canary at x = 50",
        runs: 4_000,
        bugs: &[CLIPPING_SKIPPED],
    },
    Scenario {
        key: "dp_svrg_pp",
        title: "DP-SVRG++",
        algorithm: Some(AlgorithmKind::DpSvrgPlusPlus),
        setting: "add/remove, n = 10, batch 5, two epochs, declared η = 10⁻³, (ε, δ) = (1, 10⁻⁵); D′ adds a canary at x = 50",
        runs: 2_000,
        bugs: &[PlantedBug {
            key: "leak",
            label: "BB steps from exact gradients (the page's demonstration)",
            what: "the step size is computed from exact gradients: on D it stays 10⁻³, on D′ it grows a thousandfold, and the step size alone tells the datasets apart",
            caught: true,
        }],
    },
    Scenario {
        key: "dp_accmd",
        title: "DP-AccMD",
        algorithm: Some(AlgorithmKind::DpAccmd),
        setting: "Huber loss in one dimension, n = 10, T = 3 (T = 1 with the bug), (ε, δ) = (1, 10⁻⁵); the differing record's gradient is +1 on D and −1 on D′ everywhere",
        runs: 10_000,
        bugs: &[PlantedBug {
            key: "leak",
            label: "exact-gradient y-step (the page's demonstration)",
            what: "the y-step uses the exact gradient, so the release at T = 1 is a deterministic function of the data",
            caught: true,
        }],
    },
    Scenario {
        key: "output_perturbation",
        title: "output perturbation",
        algorithm: Some(AlgorithmKind::OutputPerturbation),
        setting: "Huber loss, ridge 0.1, n = 100, pure ε = 1 (ℓ2-Laplace), accelerated base solver at a tight accuracy; the differing record's label is +10 on D and −10 on D′",
        runs: 6_000,
        bugs: &[PlantedBug {
            key: "certificate_skipped",
            label: "certificate skipped",
            what: "the base solver runs 5 SGD steps and its point is released without checking the accuracy certificate the sensitivity bound needs",
            caught: true,
        }],
    },
    Scenario {
        key: "objective_perturbation",
        title: "objective perturbation",
        algorithm: Some(AlgorithmKind::ObjectivePerturbation),
        setting: "ridge logistic regression (Λ = 0.1), n = 10, pure ε = 1; the differing record's label is +1 on D and −1 on D′",
        runs: 5_000,
        bugs: &[PlantedBug {
            caught: false,
            what: "the drawn noise vector is halved: this pair is not strong enough to reveal it (measured ε̂ ≈ 0.5), so the audit passes a buggy mechanism",
            ..SIGMA_HALVED
        }],
    },
    Scenario {
        key: "exponential_grid",
        title: "exponential mechanism on a grid",
        algorithm: Some(AlgorithmKind::ExponentialGrid),
        setting: "absolute loss, 41 grid points, n = 100, pure ε = 1; D′'s record has the label 10¹⁸",
        runs: 4_000,
        bugs: &[],
    },
];

/// The scenario of `key`, or an error at the tab's `audit_scenario` field.
pub fn scenario(key: &str) -> Result<&'static Scenario> {
    SCENARIOS
        .iter()
        .find(|s| s.key == key)
        .ok_or_else(|| Error::invalid("audit_scenario", "one of the audit tab's scenarios", key))
}

/// The scenario that audits `algorithm`, if any.
pub fn scenario_for(algorithm: AlgorithmKind) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.algorithm == Some(algorithm))
}

/// The target of `scenario` with `bug` planted ("none": the correct mechanism).
fn target(scenario: &Scenario, bug: &str) -> Result<Box<dyn Auditable>> {
    if bug != "none" && !scenario.bugs.iter().any(|b| b.key == bug) {
        return Err(Error::invalid(
            "audit_bug",
            format!("a bug the {} scenario can plant, or none", scenario.title),
            bug,
        ));
    }
    let planted = |b: &str| match b {
        "noise_halved" => Bug::NoiseHalved,
        "clipping_skipped" => Bug::ClippingSkipped,
        "certificate_skipped" => Bug::CertificateSkipped,
        _ => Bug::None,
    };
    let leak = bug == "leak";
    let at = |n, batch, steps| RunConfig {
        batch,
        steps,
        leak,
        ..base_config(n, 1.0, 1e-5)
    };
    Ok(match scenario.key {
        "gaussian_mean" => Box::new(GaussianMeanTarget::new(
            100,
            1.0,
            3.0,
            1e-5,
            GaussianMethod::Analytic,
            planted(bug),
        )?),
        "laplace_mean" => Box::new(LaplaceMeanTarget::new(100, 1.0, 1.0, 1, planted(bug))?),
        "noisy_gd" => Box::new(dp_gd_target(at(20, 20, 3))?),
        "dp_sgd" => Box::new(dp_sgd_target(at(10, 5, 1))?),
        "dp_svrg" => Box::new(dp_svrg_target(at(10, 5, 1), planted(bug))?),
        "dp_svrg_pp" => Box::new(svrg_bb_target(at(10, 5, 2))?),
        "dp_accmd" => Box::new(dp_accmd_target(at(10, 10, if leak { 1 } else { 3 }))?),
        "output_perturbation" => Box::new(OutputPerturbationTarget::new(
            100,
            1.0,
            0.0,
            SolverKind::Agd,
            planted(bug),
        )?),
        "objective_perturbation" => {
            Box::new(ObjectivePerturbationTarget::new(10, 1.0, planted(bug))?)
        }
        _ => Box::new(grid_target(100, 1.0)?),
    })
}

/// An audit in progress: the target, its draws so far and their generator.
pub struct AuditJob {
    scenario: &'static Scenario,
    target: Box<dyn Auditable>,
    draws: PairDraws,
    rng: DpRng,
}

impl AuditJob {
    /// The audit of scenario `key` with `bug` planted, drawn from the audit stream of `seed`.
    pub fn new(key: &str, bug: &str, seed: u32) -> Result<Self> {
        let scenario = scenario(key)?;
        Ok(Self {
            target: target(scenario, bug)?,
            draws: PairDraws::with_capacity(scenario.runs),
            rng: seeded(seed, Stream::Audit),
            scenario,
        })
    }

    /// Draws up to `pairs` more runs per side; returns the runs per side drawn so far.
    pub fn advance(&mut self, pairs: usize) -> Result<usize> {
        let pairs = pairs.min(self.scenario.runs - self.draws.len());
        self.draws
            .draw(self.target.as_mut(), &mut self.rng, pairs)?;
        Ok(self.draws.len())
    }

    /// Runs per side the audit draws.
    pub fn runs(&self) -> usize {
        self.scenario.runs
    }

    /// Whether every run is drawn.
    pub fn is_done(&self) -> bool {
        self.draws.len() >= self.scenario.runs
    }

    /// The audit of every run (once [`AuditJob::is_done`]).
    pub fn report(&self) -> Result<AuditReport> {
        if !self.is_done() {
            return Err(Error::invalid(
                "audit_runs",
                format!("all {} runs per side drawn", self.scenario.runs),
                self.draws.len(),
            ));
        }
        audit_samples(
            &self.draws.on_d,
            &self.draws.on_d_prime,
            self.target.claim(),
            ALPHA,
        )
    }
}
