//! The audit of noisy gradient descent (DP-GD), with its clipping leak planted.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::pairs::{pair_1d, pick, release_1d};
use super::{Auditable, Bug, Side};
use crate::algo::noisy_gd::{DpGdLeak, GdCalibration, NoisyGd};
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::error::{Error, Result};
use crate::loss::Logistic;
use crate::objective::Objective;
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// Noisy gradient descent ([`NoisyGd`]) as a whole algorithm, on logistic regression in one
/// dimension with declared feature bound 1, released coordinate as the statistic.
///
/// The pair: n − 1 records (x = 1, y = +1) shared; the differing record is (1, +1) in D and
/// (K, −1) with K = 50 in D′. Clipped to the bound, D′'s record is (1, −1), whose gradient
/// points the other way: the largest change a record can make at w ≈ 0. Without clipping
/// ([`Bug::ClippingSkipped`]) its gradient is up to 50 times the declared bound.
pub struct NoisyGdTarget {
    calibration: GdCalibration,
    step_size: f64,
    radius: f64,
    data: [Arc<Dataset>; 2],
    leak: DpGdLeak,
}

impl NoisyGdTarget {
    /// n records, T steps, target (ε, δ), planted bug ([`Bug::NoiseHalved`] is not available:
    /// noisy GD keeps its σ private).
    pub fn new(n: usize, steps: usize, epsilon: f64, delta: f64, bug: Bug) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        if bug == Bug::NoiseHalved || bug == Bug::CertificateSkipped {
            return Err(Error::invalid(
                "bug",
                "none or clipping_skipped for noisy GD",
                format!("{bug:?}"),
            ));
        }
        let leak = if bug == Bug::ClippingSkipped {
            DpGdLeak::NoClipping
        } else {
            DpGdLeak::None
        };
        let [mut d, mut d_prime] =
            pair_1d([Some((1.0, 1.0)), Some((50.0, -1.0))], n - 1, (1.0, 1.0))?;
        leak.prepare(&mut d, 1.0);
        leak.prepare(&mut d_prime, 1.0);
        let calibration = GdCalibration {
            epsilon,
            delta,
            relation: Relation::ReplaceOne,
            steps,
            lipschitz: 1.0,
            n,
        };
        calibration.calibrate()?;
        Ok(Self {
            calibration,
            // η = 1 and a wide ball keep the noise from pinning the release to the boundary,
            // which would hide differences (post-processing can only help privacy, but it would
            // make the audit weak).
            step_size: 1.0,
            radius: 100.0,
            data: [Arc::new(d), Arc::new(d_prime)],
            leak,
        })
    }
}

impl Auditable for NoisyGdTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.calibration.epsilon,
            delta: self.calibration.delta,
            relation: self.calibration.relation,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = Objective::new(
            Arc::clone(pick(&self.data, side)),
            Box::new(Logistic),
            0.0,
            Box::new(L2Ball {
                radius: self.radius,
            }),
            1.0,
        );
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = NoisyGd::new(self.calibration, self.step_size, &objective, run_rng, false)?
            .with_leak(self.leak);
        Ok(release_1d(&mut alg, &objective))
    }
}
