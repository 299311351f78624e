//! The audit of DP-AccMD in both geometries, with its exact-gradient y-step leak planted.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::pairs::{pair_1d, pick, release_1d};
use super::{Auditable, Side};
use crate::algo::dp_accmd::{AccMdLeak, DpAccMd, DpAccMdConfig, Geometry};
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::error::{Error, Result};
use crate::loss::{Glm, Loss, Regularizer};
use crate::objective::Objective;
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// DP-AccMD ([`DpAccMd`], seed 002 Algorithm 3 with the corrected coupling) as a whole
/// algorithm under replace-one, on a pair where the gradient sensitivity 2G/n is attained at
/// every point of the domain, released coordinate as the statistic.
///
/// The pair (d = 1, Huber loss with threshold 1 so G = 1 and β = 1, ball of radius 5): n − 1
/// shared records (x = 0, y = 0) with zero gradient; the differing record is (1, +10) in D and
/// (1, −10) in D′. On the ball its residual stays beyond the threshold, so its gradient is the
/// constant ∓1 and the two mean gradients differ by exactly 2/n everywhere. Both geometries run
/// on the same pair (in d = 1 the ℓ1 and ℓ2 balls coincide; the mirror maps differ).
///
/// [`Bug::ClippingSkipped`](super::Bug::ClippingSkipped) is not available; the leak
/// [`AccMdLeak::ExactGradientYStep`] is planted through the `leak` argument. At T = 1 the leaky
/// release is y₁ = P_C(−∇F(0)/β) = ±1/n, a deterministic function of the data (REVIEW-002 §3's
/// counterexample).
pub struct DpAccMdTarget {
    config: DpAccMdConfig,
    objectives: [Objective; 2],
}

impl DpAccMdTarget {
    /// n ≥ 2 records, T steps, target (ε, δ), geometry (ℓ2 or ℓ1 ball; its radius is set to 5),
    /// leaky toggle.
    pub fn new(
        n: usize,
        steps: usize,
        epsilon: f64,
        delta: f64,
        ball: Geometry,
        leak: AccMdLeak,
    ) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        const RADIUS: f64 = 5.0;
        let geometry = match ball {
            Geometry::L2 { .. } => Geometry::L2 { radius: RADIUS },
            Geometry::L1 { .. } => Geometry::L1 { radius: RADIUS },
        };
        let make = |data: Dataset| -> Result<Objective> {
            let domain: Box<dyn crate::domain::Domain> = match geometry {
                Geometry::L2 { radius } => Box::new(L2Ball { radius }),
                Geometry::L1 { radius } => Box::new(crate::domain::L1Ball { radius }),
            };
            Objective::with_loss(
                Arc::new(data),
                Loss::erm(Glm::huber(1.0)),
                Regularizer::ridge(0.0),
                domain,
                1.0,
            )
        };
        let [d, d_prime] = pair_1d([Some((1.0, 10.0)), Some((1.0, -10.0))], n - 1, (0.0, 0.0))?;
        let objectives = [make(d)?, make(d_prime)?];
        let config = DpAccMdConfig {
            epsilon,
            delta,
            relation: Relation::ReplaceOne,
            steps,
            lipschitz: objectives[0].lipschitz(),
            smoothness: objectives[0].smoothness(),
            n,
            geometry,
            leak,
        };
        config.calibrate()?;
        Ok(Self { config, objectives })
    }
}

impl Auditable for DpAccMdTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: self.config.delta,
            relation: self.config.relation,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = pick(&self.objectives, side);
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = DpAccMd::new(self.config, objective, run_rng, false)?;
        Ok(release_1d(&mut alg, objective))
    }
}
