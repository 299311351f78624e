//! The audit of objective perturbation, with its noise halved as the planted bug.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::pairs::{pair_1d, pick, release_1d};
use super::{Auditable, Bug, Side};
use crate::algo::objective_perturbation::{ObjectivePerturbation, ObjectivePerturbationConfig};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::loss::{Glm, Loss, Regularizer};
use crate::objective::Objective;
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// Objective perturbation ([`ObjectivePerturbation`]) as a whole algorithm under replace-one, on
/// ridge logistic regression (Λ = 0.1, unconstrained) in one dimension, released coordinate as
/// the statistic. The pair: n − 1 records with x = 0 shared; the differing record is
/// (x = 1, y = +1) in D and (x = 1, y = −1) in D′ (features at the declared bound 1).
/// [`Bug::NoiseHalved`] halves the drawn noise vector.
pub struct ObjectivePerturbationTarget {
    config: ObjectivePerturbationConfig,
    bug: Bug,
    objectives: [Objective; 2],
}

impl ObjectivePerturbationTarget {
    /// n records, target ε, planted bug ([`Bug::ClippingSkipped`] is not available).
    pub fn new(n: usize, epsilon: f64, bug: Bug) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if bug == Bug::ClippingSkipped {
            return Err(Error::invalid(
                "bug",
                "none or noise_halved for objective perturbation",
                "clipping_skipped",
            ));
        }
        let make = |data: Dataset| -> Result<Objective> {
            Objective::with_loss(
                Arc::new(data),
                Loss::erm(Glm::Logistic),
                Regularizer::ridge(0.1),
                Box::new(crate::domain::Unconstrained),
                1.0,
            )
        };
        let [d, d_prime] = pair_1d([Some((1.0, 1.0)), Some((1.0, -1.0))], n - 1, (0.0, 1.0))?;
        let config = ObjectivePerturbationConfig {
            epsilon,
            tolerance: Some(1e-9),
            max_iters: 10_000,
        };
        Ok(Self {
            config,
            bug,
            objectives: [make(d)?, make(d_prime)?],
        })
    }
}

impl Auditable for ObjectivePerturbationTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = pick(&self.objectives, side);
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = ObjectivePerturbation::new(self.config, objective, run_rng, false)?;
        if self.bug == Bug::NoiseHalved {
            alg.scale_noise_for_audit(0.5);
        }
        Ok(release_1d(&mut alg, objective))
    }
}
