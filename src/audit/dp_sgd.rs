//! The audit of DP-SGD under add/remove, on the pair its accountant is tight for, with its
//! clipping leak planted.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::pairs::{pair_1d, pick, release_1d};
use super::{Auditable, Bug, Side};
use crate::algo::dp_sgd::{DpSgd, DpSgdCalibration, DpSgdConfig, DpSgdLeak};
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::error::{Error, Result};
use crate::loss::Logistic;
use crate::objective::Objective;
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// DP-SGD ([`DpSgd`]) as a whole algorithm under **add/remove**, on logistic regression in one
/// dimension, released coordinate as the statistic.
///
/// The pair: D has n − 1 records with x = 0 (their gradients are 0, so they add no sampling
/// variance); D′ = D plus the canary (x = 50, y = −1), whose per-sample gradient at |w| ≤ 0.02
/// has norm ≈ 25 and is clipped to C = 1. So each step is exactly the Poisson-subsampled
/// Gaussian on a sensitivity-C query: the worst case the accountant is tight for. Without
/// clipping ([`Bug::ClippingSkipped`], i.e. [`DpSgdLeak::NoClipping`]) the canary moves the sum by
/// ≈ 25C.
pub struct DpSgdTarget {
    calibration: DpSgdCalibration,
    config: DpSgdConfig,
    data: [Arc<Dataset>; 2],
}

impl DpSgdTarget {
    /// n records in D′ (n − 1 in D), expected batch b (q = b/n), T steps, target (ε, δ), bug.
    pub fn new(
        n: usize,
        batch: usize,
        steps: usize,
        epsilon: f64,
        delta: f64,
        bug: Bug,
    ) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if bug == Bug::NoiseHalved {
            return Err(Error::invalid(
                "bug",
                "none or clipping_skipped for DP-SGD",
                "noise_halved",
            ));
        }
        let mut config = DpSgdConfig::for_dataset(n, batch, 1.0, epsilon, delta, 1.0, 1e-3)?;
        config.steps = steps;
        if bug == Bug::ClippingSkipped {
            config.leak = DpSgdLeak::NoClipping;
        }
        let calibration = DpSgdCalibration::new(config)?;
        let [d, d_prime] = pair_1d([None, Some((50.0, -1.0))], n - 1, (0.0, 1.0))?;
        Ok(Self {
            calibration,
            config,
            data: [Arc::new(d), Arc::new(d_prime)],
        })
    }
}

impl Auditable for DpSgdTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: self.config.delta,
            relation: Relation::AddRemove,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        // A wide ball: the projection never binds, so nothing hides the difference.
        let objective = Objective::new(
            Arc::clone(pick(&self.data, side)),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball { radius: 100.0 }),
            50.0,
        );
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg =
            DpSgd::from_calibration(self.calibration.clone(), &objective, run_rng, false)?;
        Ok(release_1d(&mut alg, &objective))
    }
}
