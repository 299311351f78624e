//! The audit of objective perturbation, with its noise halved as the planted bug.

use rand::{Rng, SeedableRng};

use super::pairs::{base_config, pair_1d};
use super::{Auditable, Bug, FamilyTarget, Side};
use crate::algo::PrivateAlgorithm;
use crate::algo::objective_perturbation::{ObjectivePerturbation, ObjectivePerturbationConfig};
use crate::config::{AlgorithmKind, DomainChoice, RunConfig};
use crate::error::{Error, Result};
use crate::privacy::ApproxDp;
use crate::rng::DpRng;

/// Objective perturbation ([`ObjectivePerturbation`]) as the page runs it under replace-one, on
/// ridge logistic regression (Λ = 0.1, unconstrained) in one dimension: n records, pure ε,
/// released coordinate as the statistic. The pair: n − 1 records with x = 0 shared; the
/// differing record is (x = 1, y = +1) in D and (x = 1, y = −1) in D′ (features at the declared
/// bound 1).
///
/// [`Bug::NoiseHalved`] halves the drawn noise vector. The page has no such switch, so that run
/// builds the algorithm itself, on the same problems and with the plan's settings (ε and the
/// defaults); its claim is still the plan's.
pub struct ObjectivePerturbationTarget {
    family: FamilyTarget,
    bug: Bug,
}

impl ObjectivePerturbationTarget {
    /// n records, target ε, planted bug ([`Bug::None`] or [`Bug::NoiseHalved`]).
    pub fn new(n: usize, epsilon: f64, bug: Bug) -> Result<Self> {
        if !matches!(bug, Bug::None | Bug::NoiseHalved) {
            return Err(Error::invalid(
                "bug",
                "none or noise_halved for objective perturbation",
                format!("{bug:?}"),
            ));
        }
        let config = RunConfig {
            algorithm: AlgorithmKind::ObjectivePerturbation,
            l2: 0.1,
            domain: DomainChoice::Unconstrained,
            ..base_config(n, epsilon, 0.0)
        };
        let pair = pair_1d([Some((1.0, 1.0)), Some((1.0, -1.0))], n, (0.0, 1.0))?;
        Ok(Self {
            family: FamilyTarget::new(config, pair)?,
            bug,
        })
    }

    /// The target as the page runs it (the correct mechanism's runs).
    pub fn family(&self) -> &FamilyTarget {
        &self.family
    }
}

impl Auditable for ObjectivePerturbationTarget {
    fn claim(&self) -> ApproxDp {
        self.family.claim()
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        if self.bug == Bug::None {
            return self.family.run(side, rng);
        }
        let objective = &self.family.problem(side).objective;
        let settings = ObjectivePerturbationConfig {
            epsilon: self.family.config().epsilon,
            ..ObjectivePerturbationConfig::default()
        };
        let noise = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = ObjectivePerturbation::new(settings, objective, noise, false)?;
        alg.scale_noise_for_audit(0.5);
        while alg.step(objective).is_some() {}
        Ok(alg.current()[0])
    }
}
