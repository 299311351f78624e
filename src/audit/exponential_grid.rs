//! The audit of the grid exponential mechanism on issue 12's pair (one huge target), which
//! catches scoring by rounded objective values instead of per-record differences.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::pairs::{pair_1d, pick, release_1d};
use super::{Auditable, Side};
use crate::algo::exponential_grid::{GridExponential, GridSettings};
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::error::{Error, Result};
use crate::loss::{Glm, Loss, Regularizer};
use crate::objective::Objective;
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// The exponential mechanism on a grid ([`GridExponential`], seed 000 Algorithm 9) on the pair of
/// issue 12, released point as the statistic.
///
/// The pair (d = 1, absolute loss, no ridge, ball of radius 2, feature bound 1, 41 grid points):
/// n − 1 shared records (x = 1, y = 1.5); the differing record is (1, 1.5) in D and (1, 10¹⁸) in
/// D′. The target is not clipped (the datasets are built directly), so the pair tests the scores
/// alone: scored by F values, F on D′ is constant to the last bit (the huge record absorbs the
/// others), the selection is uniform there and concentrated near 1.5 on D, far beyond e^ε. The
/// mechanism scores by per-record differences ([`Objective::rise`]) and must pass.
/// [`ExponentialGridTarget::objective`] and [`ExponentialGridTarget::settings`] let a test plant
/// the old scoring on the same pair.
pub struct ExponentialGridTarget {
    settings: GridSettings,
    data: [Arc<Dataset>; 2],
}

impl ExponentialGridTarget {
    /// The differing record's target in D′.
    pub const HUGE_LABEL: f64 = 1e18;

    /// n ≥ 2 records, pure ε.
    pub fn new(n: usize, epsilon: f64) -> Result<Self> {
        if n < 2 {
            return Err(Error::invalid("n", "at least 2 records", n));
        }
        let [d, d_prime] = pair_1d(
            [Some((1.0, 1.5)), Some((1.0, Self::HUGE_LABEL))],
            n - 1,
            (1.0, 1.5),
        )?;
        let target = Self {
            settings: GridSettings {
                epsilon,
                resolution: 41,
            },
            data: [Arc::new(d), Arc::new(d_prime)],
        };
        target.objective(Side::D)?;
        Ok(target)
    }

    /// The grid mechanism's settings (ε, resolution).
    pub fn settings(&self) -> GridSettings {
        self.settings
    }

    /// The objective on `side`'s dataset.
    pub fn objective(&self, side: Side) -> Result<Objective> {
        Objective::with_loss(
            Arc::clone(pick(&self.data, side)),
            Loss::erm(Glm::absolute()),
            Regularizer::default(),
            Box::new(L2Ball { radius: 2.0 }),
            1.0,
        )
    }
}

impl Auditable for ExponentialGridTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.settings.epsilon,
            delta: 0.0,
            relation: Relation::ReplaceOne,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = self.objective(side)?;
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg = GridExponential::new(self.settings, &objective, run_rng, false)?;
        Ok(release_1d(&mut alg, &objective))
    }
}
