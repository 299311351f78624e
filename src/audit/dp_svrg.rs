//! The audits of DP-SVRG (clipping leak) and DP-SVRG++ (the SVRG-BB step-size leak), which
//! share one add/remove pair.

use std::sync::Arc;

use rand::{Rng, SeedableRng};

use super::pairs::{pair_1d, pick, release_1d};
use super::{Auditable, Bug, Side};
use crate::algo::dp_svrg::{
    DpSvrg, DpSvrgCalibration, DpSvrgConfig, SvrgLeak, SvrgNoise, SvrgVariant,
};
use crate::data::Dataset;
use crate::domain::L2Ball;
use crate::error::{Error, Result};
use crate::loss::Logistic;
use crate::objective::Objective;
use crate::privacy::{ApproxDp, Relation};
use crate::rng::DpRng;

/// Certified DP-SVRG ([`DpSvrg`]) as a whole algorithm under **add/remove** with public n, on
/// ridge logistic regression (λ = 0.1) in one dimension, released coordinate as the statistic.
///
/// The pair: D has n − 1 records with x = 0 (zero gradients); D′ adds the canary (x = 1 after
/// clipping to the declared bound 1, y = −1), which moves both the sampled differences and the
/// re-released anchor. [`Bug::ClippingSkipped`] leaves the canary at x = 50: its gradient is then
/// up to 50 G and the calibrated noise does not cover it.
///
/// [`DpSvrgTarget::svrg_bb`] runs DP-SVRG++ (no ridge) on the same pair to audit the SVRG-BB
/// leak ([`SvrgLeak::BbStepFromExactGradients`], digest P6).
pub struct DpSvrgTarget {
    calibration: DpSvrgCalibration,
    config: DpSvrgConfig,
    data: [Arc<Dataset>; 2],
    /// Ridge λ₂ of the objective.
    l2: f64,
}

impl DpSvrgTarget {
    /// Declared n (D′ has n records, D has n − 1), expected batch b, epochs T of length m,
    /// target (ε, δ), bug.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        n: usize,
        batch: usize,
        epochs: usize,
        epoch_length: usize,
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
                "none or clipping_skipped for DP-SVRG",
                "noise_halved",
            ));
        }
        let config = DpSvrgConfig {
            variant: SvrgVariant::Svrg,
            noise: SvrgNoise::Certified,
            epsilon,
            delta,
            lipschitz: 1.0,
            n,
            epochs,
            epoch_length,
            step_size: 1.0,
            batch_size: batch,
            leak: SvrgLeak::None,
        };
        let calibration = DpSvrgCalibration::new(config)?;
        let canary_x = if bug == Bug::ClippingSkipped {
            50.0
        } else {
            1.0
        };
        let [d, d_prime] = pair_1d([None, Some((canary_x, -1.0))], n - 1, (0.0, 1.0))?;
        Ok(Self {
            calibration,
            config,
            data: [Arc::new(d), Arc::new(d_prime)],
            l2: 0.1,
        })
    }

    /// The SVRG-BB audit: certified DP-SVRG++ on the same pair without ridge, declared η = 10⁻³,
    /// with or without the leak. On D every gradient is exactly 0, so the BB curvature estimate
    /// ⟨Δx̃, Δ∇F⟩ is 0, the BB step is undefined and η stays 10⁻³: the release sits within a few
    /// 10⁻³ of 0. On D′ the canary's curvature (≈ 1/(4n) near 0) makes η_BB ≈ 4n/m_s, a thousand
    /// times larger, and the same noise spreads the release over units: the step size alone tells
    /// the datasets apart. Without the leak both sides keep η = 10⁻³ (the correct mechanism).
    #[allow(clippy::too_many_arguments)]
    pub fn svrg_bb(
        n: usize,
        batch: usize,
        epochs: usize,
        epoch_length: usize,
        epsilon: f64,
        delta: f64,
        leak: SvrgLeak,
    ) -> Result<Self> {
        let mut target = Self::new(n, batch, epochs, epoch_length, epsilon, delta, Bug::None)?;
        target.config = DpSvrgConfig {
            variant: SvrgVariant::SvrgPlusPlus,
            step_size: 1e-3,
            leak,
            ..target.config
        };
        target.calibration = DpSvrgCalibration::new(target.config)?;
        target.l2 = 0.0;
        Ok(target)
    }
}

impl Auditable for DpSvrgTarget {
    fn claim(&self) -> ApproxDp {
        ApproxDp {
            epsilon: self.config.epsilon,
            delta: self.config.delta,
            relation: Relation::AddRemove,
        }
    }

    fn run(&mut self, side: Side, rng: &mut DpRng) -> Result<f64> {
        let objective = Objective::new(
            Arc::clone(pick(&self.data, side)),
            Box::new(Logistic),
            self.l2,
            Box::new(L2Ball { radius: 100.0 }),
            1.0,
        );
        let run_rng = DpRng::seed_from_u64(rng.next_u64());
        let mut alg =
            DpSvrg::from_calibration(self.calibration.clone(), &objective, run_rng, false)?;
        Ok(release_1d(&mut alg, &objective))
    }
}
